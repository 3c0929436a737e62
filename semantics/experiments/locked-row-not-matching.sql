-- Does a write wait for a locked row that its WHERE clause does not match?
-- T1 changes row 1 (10 -> 11) and holds it; T2's UPDATE scans the table
-- for v = 20. A write that locks every row it reads waits for row 1; a
-- semi-consistent read skips it (its last committed version, 10, does not
-- match), as does a write that scans its snapshot.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T1: UPDATE t SET v = 11 WHERE id = 1;
-- T2: BEGIN;
-- T2: UPDATE t SET v = v + 100 WHERE v = 20;
-- T1: COMMIT;
-- T2: COMMIT;
