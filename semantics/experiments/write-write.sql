-- What does a write do on a row another transaction changed and has not
-- committed? T2 took its snapshot (a read of row 2), then writes row 1,
-- which T1 changed: it waits; once T1 commits it goes on (v = 21) or fails
-- as the second writer; where conflicts surface at COMMIT it does not wait
-- and its COMMIT fails.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T1: UPDATE t SET v = v + 1 WHERE id = 1;
-- T2: BEGIN;
-- T2: SELECT v FROM t WHERE id = 2;
-- T2: UPDATE t SET v = v + 10 WHERE id = 1;
-- T1: COMMIT;
-- T2: COMMIT;
