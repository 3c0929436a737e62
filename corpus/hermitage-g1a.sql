-- name: hermitage-g1a
-- title: aborted read: a read shows a write that is rolled back (G1a)
-- source: Hermitage (Kleppmann), test "G1a (aborted reads)", https://github.com/ept/hermitage/blob/master/postgres.md and https://github.com/ept/hermitage/blob/master/mysql.md
-- reported on: PostgreSQL 9.3.5 and MySQL 5.6.21 (Hermitage's tables: prevented at read committed and above)
-- isolation: T1 read-committed, T2 read-committed
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect mariadb-si troc: pass
-- expect mariadb-si wss: pass
-- expect mariadb-si isorel: pass
-- expect mariadb-si txcheck: pass
-- expect mariadb-si errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
CREATE TABLE test (id INT PRIMARY KEY, value INT);
INSERT INTO test (id, value) VALUES (1, 10), (2, 20);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: UPDATE test SET value = 101 WHERE id = 1;
-- T2: SELECT * FROM test;
-- T1: ROLLBACK;
-- T2: SELECT * FROM test;
-- T2: COMMIT;
