-- name: hermitage-g2
-- title: anti-dependency cycles over a predicate: both read nothing, both insert (G2)
-- source: Hermitage (Kleppmann), test "G2 (anti-dependency cycles)", https://github.com/ept/hermitage/blob/master/postgres.md and https://github.com/ept/hermitage/blob/master/mysql.md
-- reported on: PostgreSQL 9.3.5 and MySQL 5.6.21 (Hermitage's tables: prevented only at serializable)
-- isolation: T1 serializable, T2 serializable
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: Prevented on both at SERIALIZABLE (MariaDB: a deadlock; PostgreSQL: a serialization failure), as docs/hermitage.md records.
CREATE TABLE test (id INT PRIMARY KEY, value INT);
INSERT INTO test (id, value) VALUES (1, 10), (2, 20);

-- note: value % 3 = 0 is written as the IN list of the multiples of 3 this schedule can produce, as host/tests/hermitage.rs does.
-- T1: BEGIN;
-- T2: BEGIN;
-- T1: SELECT * FROM test WHERE value IN (0, 12, 18, 21, 30, 42);
-- T2: SELECT * FROM test WHERE value IN (0, 12, 18, 21, 30, 42);
-- T1: INSERT INTO test (id, value) VALUES (3, 30);
-- T2: INSERT INTO test (id, value) VALUES (4, 42);
-- T1: COMMIT;
-- T2: COMMIT;
