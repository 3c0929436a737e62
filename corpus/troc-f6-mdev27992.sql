-- name: troc-f6-mdev27992
-- title: a DELETE that waited for a primary-key change deletes nothing (MDEV-27992)
-- source: Troc (Dou et al., ICSE 2023), Listing 3, artifact cases/mariadb27992.txt; MDEV-27992 https://jira.mariadb.org/browse/MDEV-27992; WriteCheck's study (studied-bugs.xlsx) lists it too
-- reported on: MariaDB 10.5.12
-- isolation: T1 read-committed, T2 read-committed
-- expect mariadb troc: finding inconsistent affected-row count
-- expect mariadb wss: undecided may be permitted at read-committed
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
CREATE TABLE t (c1 INT PRIMARY KEY);
INSERT INTO t (c1) VALUES (8);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: UPDATE t SET c1 = 5;
-- T2: DELETE FROM t;
-- T1: UPDATE t SET c1 = 3;
-- T1: COMMIT;
-- T2: SELECT * FROM t FOR UPDATE;
-- T2: COMMIT;
