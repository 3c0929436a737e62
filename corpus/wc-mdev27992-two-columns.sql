-- name: wc-mdev27992-two-columns
-- title: MDEV-27992 as WriteCheck's study lists it: a waiting DELETE misses a row whose key changed twice
-- source: WriteCheck, studied bugs (artifact studied-bugs.xlsx, supplementary fixture); MDEV-27992 https://jira.mariadb.org/browse/MDEV-27992
-- reported on: MariaDB 10.5.12 (READ UNCOMMITTED and READ COMMITTED)
-- isolation: T1 read-committed, T2 read-committed
-- expect mariadb troc: finding inconsistent affected-row count
-- expect mariadb wss: vendor-permitted phantom behind a wait
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: As troc-f6-mdev27992: a finding of troc on MariaDB 10.11.19, wss vendor-permitted at READ COMMITTED; PostgreSQL passes.
CREATE TABLE t (c1 INT PRIMARY KEY, c2 INT);
INSERT INTO t (c1) VALUES (8);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: UPDATE t SET c1 = 5, c2 = 5;
-- T2: DELETE FROM t;
-- T1: UPDATE t SET c1 = 3;
-- T1: COMMIT;
-- T2: SELECT * FROM t FOR UPDATE;
-- T2: COMMIT;
