-- name: hermitage-pmp
-- title: predicate-many-preceders: a predicate read misses, then shows, another transaction's insert (PMP)
-- source: Hermitage (Kleppmann), test "PMP (predicate many preceders)", https://github.com/ept/hermitage/blob/master/postgres.md and https://github.com/ept/hermitage/blob/master/mysql.md
-- reported on: PostgreSQL 9.3.5 and MySQL 5.6.21 (Hermitage's tables: prevented at PostgreSQL repeatable read and MySQL repeatable read)
-- isolation: T1 repeatable-read, T2 repeatable-read
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
CREATE TABLE test (id INT PRIMARY KEY, value INT);
INSERT INTO test (id, value) VALUES (1, 10), (2, 20);

-- note: txlab's SQL has no %: Hermitage's value % 3 = 0 is written as the IN list of the multiples of 3 this schedule can produce, as host/tests/hermitage.rs does.
-- T1: BEGIN;
-- T2: BEGIN;
-- T1: SELECT * FROM test WHERE value = 30;
-- T2: INSERT INTO test (id, value) VALUES (3, 30);
-- T2: COMMIT;
-- T1: SELECT * FROM test WHERE value IN (0, 12, 18, 21, 30, 42);
-- T1: COMMIT;
