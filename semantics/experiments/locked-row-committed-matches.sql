-- Does a write wait for a locked row whose last committed version matches
-- its WHERE clause? T1 changes row 2 (20 -> 21) and holds it; T2's UPDATE
-- for v = 20 matches the committed row, so it must wait for T1 and then
-- judge the row T1 left (every pessimistic rule agrees: a semi-consistent
-- read waits for a row whose committed version matches, a locking scan
-- waits for every row, a snapshot scan waits for the rows it found). Only
-- where conflicts surface at COMMIT does it not wait.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T1: UPDATE t SET v = 21 WHERE id = 2;
-- T2: BEGIN;
-- T2: UPDATE t SET v = v + 100 WHERE v = 20;
-- T1: ROLLBACK;
-- T2: COMMIT;
