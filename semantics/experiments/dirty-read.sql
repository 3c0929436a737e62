-- Does a read see another transaction's uncommitted write?
-- snapshot = none: T1.2 returns 11; any other snapshot point: 10.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10), (2, 20);

-- T2: BEGIN;
-- T2: UPDATE t SET v = 11 WHERE id = 1;
-- T1: BEGIN;
-- T1: SELECT v FROM t WHERE id = 1;
-- T2: ROLLBACK;
-- T1: COMMIT;
