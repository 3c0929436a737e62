-- name: troc-f2b-mdev26643-read-uncommitted
-- title: a resumed UPDATE skips the rows its semi-consistent read saw as not matching (MDEV-26643), at READ UNCOMMITTED
-- source: Troc (Dou et al., ICSE 2023), artifact cases/mariadb26643.txt; MDEV-26643 https://jira.mariadb.org/browse/MDEV-26643
-- reported on: MariaDB 10.5.12 (READ UNCOMMITTED and READ COMMITTED)
-- isolation: T1 read-uncommitted, T2 read-uncommitted
-- expect mariadb troc: vendor-permitted semi-consistent read
-- expect mariadb wss: vendor-permitted semi-consistent read
-- expect mariadb isorel: pass
-- expect mariadb txcheck: undecided where dirty reads are impossible
-- expect mariadb errors: pass
-- expect postgres troc: vendor-permitted re-check after a wait
-- expect postgres wss: vendor-permitted re-check after a wait
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: As at READ COMMITTED (troc-f2-mdev26643): MariaDB 10.11.19 still skips the first row; troc names it a semi-consistent read
--   (vendor-permitted), PostgreSQL (whose READ UNCOMMITTED is READ COMMITTED) a re-check after a wait. txcheck is undecided on MariaDB
--   at READ UNCOMMITTED, where its added reads may see uncommitted rows.
CREATE TABLE t (a INT, b INT);
INSERT INTO t (a, b) VALUES (NULL, 1), (2, 2), (NULL, NULL), (NULL, 3), (4, NULL);

-- T1: BEGIN;
-- T1: UPDATE t SET a = 10;
-- T2: BEGIN;
-- T2: UPDATE t SET b = 20 WHERE a IS NOT NULL;
-- T1: COMMIT;
-- T2: COMMIT;
