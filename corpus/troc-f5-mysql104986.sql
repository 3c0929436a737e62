-- name: troc-f5-mysql104986
-- title: a snapshot read after an UPDATE misses the row whose value the other transaction already set (MySQL#104986)
-- source: Troc (Dou et al., ICSE 2023), artifact cases/mysql104986.txt; MySQL#104986 https://bugs.mysql.com/bug.php?id=104986 (closed as a duplicate)
-- reported on: MySQL (Troc's evaluation; the Troc digest gives no version)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: vendor-permitted own same-value UPDATE not seen by a snapshot read (MDEV-26642)
-- expect mariadb wss: pass
-- expect mariadb isorel: vendor-permitted G-single (lost update)
-- expect mariadb txcheck: vendor-permitted did not do what its before-write read
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB 10.11.19 shows the outcome the report describes (the row T2 set to 10 still shows (1, 1)): the MDEV-26642 family, vendor-permitted.
CREATE TABLE t (a INT, b INT);
INSERT INTO t (a, b) VALUES (0, 0), (1, 1), (2, 2);

-- T1: BEGIN;
-- T1: SELECT * FROM t;
-- T2: BEGIN;
-- T2: UPDATE t SET a = 10 WHERE b = 1;
-- T2: COMMIT;
-- T1: SELECT * FROM t;
-- T1: UPDATE t SET a = 10;
-- T1: SELECT * FROM t;
-- T1: COMMIT;
