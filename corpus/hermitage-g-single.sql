-- name: hermitage-g-single
-- title: read skew: T1 reads x before and y after T2 changed both (G-single)
-- source: Hermitage (Kleppmann), test "G-single (single anti-dependency cycles / read skew)", https://github.com/ept/hermitage/blob/master/postgres.md and https://github.com/ept/hermitage/blob/master/mysql.md
-- reported on: PostgreSQL 9.3.5 and MySQL 5.6.21 (Hermitage's tables: prevented at repeatable read)
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

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: SELECT * FROM test WHERE id = 1;
-- T2: SELECT * FROM test WHERE id = 1;
-- T2: SELECT * FROM test WHERE id = 2;
-- T2: UPDATE test SET value = 12 WHERE id = 1;
-- T2: UPDATE test SET value = 18 WHERE id = 2;
-- T2: COMMIT;
-- T1: SELECT * FROM test WHERE id = 2;
-- T1: COMMIT;
