-- name: hermitage-g1c
-- title: circular information flow: each transaction reads the other's write (G1c)
-- source: Hermitage (Kleppmann), test "G1c (circular information flow)", https://github.com/ept/hermitage/blob/master/postgres.md and https://github.com/ept/hermitage/blob/master/mysql.md
-- reported on: PostgreSQL 9.3.5 and MySQL 5.6.21 (Hermitage's tables: prevented at read committed and above)
-- isolation: T1 read-committed, T2 read-committed
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: allowed G2-item (write skew)
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: allowed G2-item (write skew)
-- expect postgres txcheck: pass
-- expect postgres errors: pass
CREATE TABLE test (id INT PRIMARY KEY, value INT);
INSERT INTO test (id, value) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: UPDATE test SET value = 11 WHERE id = 1;
-- T2: UPDATE test SET value = 22 WHERE id = 2;
-- T1: SELECT * FROM test WHERE id = 2;
-- T2: SELECT * FROM test WHERE id = 1;
-- T1: COMMIT;
-- T2: COMMIT;
