-- What does a write read when another transaction committed a change to its
-- row after the writer's snapshot? T1 reads row 1 (its snapshot, where the
-- level takes one at the first read), T2 adds 1 and commits, T1 adds 10:
-- on the latest committed row v becomes 21, on the snapshot's 20 (a lost
-- update), and a level that refuses to overwrite a change after the
-- snapshot fails T1's UPDATE or its COMMIT.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T1: SELECT v FROM t WHERE id = 1;
-- T2: BEGIN;
-- T2: UPDATE t SET v = v + 1 WHERE id = 1;
-- T2: COMMIT;
-- T1: UPDATE t SET v = v + 10 WHERE id = 1;
-- T1: COMMIT;
