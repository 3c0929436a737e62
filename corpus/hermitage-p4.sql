-- name: hermitage-p4
-- title: lost update: both transactions read x, then both write it (P4)
-- source: Hermitage (Kleppmann), test "P4 (lost update)", https://github.com/ept/hermitage/blob/master/postgres.md and https://github.com/ept/hermitage/blob/master/mysql.md
-- reported on: PostgreSQL 9.3.5 and MySQL 5.6.21 (Hermitage's tables: PostgreSQL repeatable read prevents it; MySQL repeatable read does not)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: vendor-permitted G-single (lost update)
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB's REPEATABLE READ lets the second UPDATE through after the wait: isorel's vendor-permitted lost update (docs/hermitage.md).
--   troc passes: T2 writes the value the row already holds, and InnoDB's same-value UPDATE makes no version, so troc leaves it out of its
--   lost-update check (docs/oracle-troc.md). PostgreSQL aborts T2: pass.
CREATE TABLE test (id INT PRIMARY KEY, value INT);
INSERT INTO test (id, value) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: SELECT * FROM test WHERE id = 1;
-- T2: SELECT * FROM test WHERE id = 1;
-- T1: UPDATE test SET value = 11 WHERE id = 1;
-- T2: UPDATE test SET value = 11 WHERE id = 1;
-- T1: COMMIT;
-- T2: COMMIT;
