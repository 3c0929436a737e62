-- name: aptrans-f3-mysql117835
-- title: a READ COMMITTED read returns a value another transaction then rolls back (dirty read, MySQL#117835)
-- source: APTrans, Figure 5; MySQL#117835 https://bugs.mysql.com/bug.php?id=117835
-- reported on: MySQL (APTrans's evaluation; the APTrans digest gives no version; READ COMMITTED)
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
-- note: A MySQL bug: neither MariaDB 10.11.19 nor PostgreSQL 15 shows the dirty read; every oracle passes.
CREATE TABLE tYv10enE (c0 INT PRIMARY KEY);
INSERT INTO tYv10enE (c0) VALUES (10989748), (-1404643822);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: UPDATE tYv10enE SET c0 = 0 WHERE c0 = 10989748;
-- T2: SELECT * FROM tYv10enE WHERE (c0 >= 0);
-- T1: ROLLBACK;
-- T2: COMMIT;
