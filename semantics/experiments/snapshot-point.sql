-- When does a transaction's snapshot start? Three writers commit to row 1:
-- T2 after T1's BEGIN, T3 after T1's first statement (a write of another
-- row), T4 after T1's first read. Each of T1's reads returns the last value
-- its snapshot holds: 10 at BEGIN, 11 at the first statement, 12 at the
-- first read, and what committed before the read when every statement takes
-- its own.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T2: BEGIN;
-- T2: UPDATE t SET v = 11 WHERE id = 1;
-- T2: COMMIT;
-- T1: UPDATE t SET v = 21 WHERE id = 2;
-- T3: BEGIN;
-- T3: UPDATE t SET v = 12 WHERE id = 1;
-- T3: COMMIT;
-- T1: SELECT v FROM t WHERE id = 1;
-- T4: BEGIN;
-- T4: UPDATE t SET v = 13 WHERE id = 1;
-- T4: COMMIT;
-- T1: SELECT v FROM t WHERE id = 1;
-- T1: COMMIT;
