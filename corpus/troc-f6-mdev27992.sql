-- name: troc-f6-mdev27992
-- title: a DELETE that waited for a primary-key change deletes nothing (MDEV-27992)
-- source: Troc (Dou et al., ICSE 2023), Listing 3, artifact cases/mariadb27992.txt; MDEV-27992 https://jira.mariadb.org/browse/MDEV-27992; WriteCheck's study (studied-bugs.xlsx) lists it too
-- reported on: MariaDB 10.5.12
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
-- note: The Troc artifact marks MDEV-27992 fixed upstream, yet MariaDB 10.11.19 still shows it at READ COMMITTED: T2's DELETE waits, then
--   deletes nothing, and the row (3) survives. troc reports it as a finding, as the source does. wss calls it vendor-permitted: it puts the difference
--   down to the DELETE's wait at READ COMMITTED (no gap locks) without deriving the rows InnoDB's rule gives; troc does (see corpus/README.md, open points).
--   PostgreSQL deletes the row after the wait: pass.
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
