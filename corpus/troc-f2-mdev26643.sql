-- name: troc-f2-mdev26643
-- title: a resumed UPDATE skips the rows its semi-consistent read saw as not matching (MDEV-26643)
-- source: Troc (Dou et al., ICSE 2023), artifact cases/mariadb26643.txt; MDEV-26643 https://jira.mariadb.org/browse/MDEV-26643
-- reported on: MariaDB 10.5.12
-- isolation: T1 read-committed, T2 read-committed
-- expect mariadb troc: vendor-permitted semi-consistent read
-- expect mariadb wss: vendor-permitted semi-consistent read
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: vendor-permitted re-check after a wait
-- expect postgres wss: vendor-permitted re-check after a wait
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB 10.11.19 still shows the report's outcome: (10, 1) keeps b = 1, the other rows get b = 20. MariaDB verified MDEV-26643;
--   troc names it a semi-consistent read (the InnoDB rule documented for READ COMMITTED, docs/oracle-troc.md), so vendor-permitted,
--   not a finding: txlab's reading differs from the vendor's bug status. PostgreSQL: a re-check after a wait (documented), vendor-permitted.
CREATE TABLE t (a INT, b INT);
INSERT INTO t (a, b) VALUES (NULL, 1), (2, 2), (NULL, NULL), (NULL, 3), (4, NULL);

-- T1: BEGIN;
-- T1: UPDATE t SET a = 10;
-- T2: BEGIN;
-- T2: UPDATE t SET b = 20 WHERE a IS NOT NULL;
-- T1: COMMIT;
-- T2: COMMIT;
