-- name: hermitage-g2-item
-- title: write skew: each transaction reads both rows and writes one (G2-item)
-- source: Hermitage (Kleppmann), test "G2-item (item anti-dependency cycles / write skew)", https://github.com/ept/hermitage/blob/master/postgres.md and https://github.com/ept/hermitage/blob/master/mysql.md
-- reported on: PostgreSQL 9.3.5 and MySQL 5.6.21 (Hermitage's tables: prevented only at serializable)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: vendor-permitted G2-item (write skew)
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: allowed G2-item (write skew)
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: Write skew is allowed at REPEATABLE READ on both: vendor-permitted on MariaDB (Adya's PL-2.99 forbids it), allowed by both models on
--   PostgreSQL (snapshot isolation), as docs/hermitage.md records.
CREATE TABLE test (id INT PRIMARY KEY, value INT);
INSERT INTO test (id, value) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: SELECT * FROM test WHERE id IN (1, 2);
-- T2: SELECT * FROM test WHERE id IN (1, 2);
-- T1: UPDATE test SET value = 11 WHERE id = 1;
-- T2: UPDATE test SET value = 21 WHERE id = 2;
-- T1: COMMIT;
-- T2: COMMIT;
