-- Does an insert into a range another transaction's write scanned conflict
-- with it? T1 updates the rows with 1 <= id <= 3; T2 inserts id 2 into
-- that range: with range (gap, next-key, predicate) locks it waits for T1,
-- or one of them fails.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10), (3, 30), (5, 50);

-- T1: BEGIN;
-- T1: UPDATE t SET v = v + 1 WHERE id >= 1 AND id <= 3;
-- T2: BEGIN;
-- T2: INSERT INTO t (id, v) VALUES (2, 20);
-- T1: COMMIT;
-- T2: COMMIT;
