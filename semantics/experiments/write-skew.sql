-- Write skew: each transaction reads both rows and changes the one the
-- other did not. Where the level promises serializability, it cannot
-- happen: a transaction waits, or one of them fails.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: SELECT id, v FROM t WHERE id >= 1 AND id <= 2;
-- T2: SELECT id, v FROM t WHERE id >= 1 AND id <= 2;
-- T1: UPDATE t SET v = v + 1 WHERE id = 1;
-- T2: UPDATE t SET v = v + 1 WHERE id = 2;
-- T1: COMMIT;
-- T2: COMMIT;
