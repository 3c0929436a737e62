-- Which rows does a write that waited act on? T1 moves row 1 out of
-- T2's predicate (30 -> 10) and row 2 into it (20 -> 40). T2's UPDATE
-- waits for row 1; once T1 commits, a statement that reads the latest
-- committed rows updates row 2 (1 row), one that keeps its starting
-- snapshot and re-checks only the changed rows it had found updates none.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 30), (2, 20);

-- T1: BEGIN;
-- T1: UPDATE t SET v = 10 WHERE id = 1;
-- T1: UPDATE t SET v = 40 WHERE id = 2;
-- T2: BEGIN;
-- T2: UPDATE t SET v = v + 100 WHERE v >= 25;
-- T1: COMMIT;
-- T2: COMMIT;
