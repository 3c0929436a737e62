-- Does an UPDATE that writes the values a row already has make a new row
-- version for the updater's own snapshot? T1 reads row 1 (10); T2 sets it
-- to 11 and commits; T1 sets it to 11, the value it has: with a new
-- version T1 then reads 11, without one its snapshot's 10.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T1: SELECT v FROM t WHERE id = 1;
-- T2: BEGIN;
-- T2: UPDATE t SET v = 11 WHERE id = 1;
-- T2: COMMIT;
-- T1: UPDATE t SET v = 11 WHERE id = 1;
-- T1: SELECT v FROM t WHERE id = 1;
-- T1: COMMIT;
