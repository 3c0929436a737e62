-- name: hermitage-pmp-write
-- title: predicate-many-preceders with a write: a DELETE's predicate is evaluated on another transaction's committed UPDATE (PMP-write)
-- source: Hermitage (Kleppmann), test "PMP for write predicates", https://github.com/ept/hermitage/blob/master/postgres.md and https://github.com/ept/hermitage/blob/master/mysql.md
-- reported on: PostgreSQL 9.3.5 and MySQL 5.6.21 (Hermitage's tables: PostgreSQL repeatable read prevents it (serialization failure); MySQL repeatable read does not)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: vendor-permitted G-single (read-write skew)
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB: T2's DELETE re-reads after the wait and deletes nothing, while its read showed value 20: isorel's vendor-permitted G-single
--   (read-write skew), as docs/hermitage.md records. PostgreSQL aborts T2 (serialization failure): pass.
CREATE TABLE test (id INT PRIMARY KEY, value INT);
INSERT INTO test (id, value) VALUES (1, 10), (2, 20);

-- note: Hermitage's MySQL schedule, with T2's read before the DELETE.
-- T1: BEGIN;
-- T2: BEGIN;
-- T1: UPDATE test SET value = value + 10;
-- T2: SELECT * FROM test WHERE value = 20;
-- T2: DELETE FROM test WHERE value = 20;
-- T1: COMMIT;
-- T2: SELECT * FROM test;
-- T2: COMMIT;
