-- Does a read whose WHERE clause can match no row take the snapshot? v is
-- NOT NULL, so `v IS NULL` is answered without the table where the
-- optimizer sees that. T2 commits 11 after it; T1's next read returns 11
-- when the first read took no snapshot, 10 when it did.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T1: SELECT v FROM t WHERE v IS NULL;
-- T2: BEGIN;
-- T2: UPDATE t SET v = 11 WHERE id = 1;
-- T2: COMMIT;
-- T1: SELECT v FROM t WHERE id = 1;
-- T1: COMMIT;
