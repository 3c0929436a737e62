-- name: troc-f1-mysql104833
-- title: a resumed UPDATE leaves a row it should change (MySQL#104833)
-- source: Troc (Dou et al., ICSE 2023), Fig. 1, artifact cases/mysql104833.txt; MySQL#104833 https://bugs.mysql.com/bug.php?id=104833
-- reported on: MySQL 8.0.25
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
-- note: MariaDB 10.11.19 shows the report's outcome (T2's UPDATE skips the first row). MySQL and MariaDB verified the report as a bug;
--   troc names it by the rule InnoDB documents for READ COMMITTED (semi-consistent read, MySQL manual innodb-transaction-isolation-levels;
--   docs/oracle-troc.md), so it is vendor-permitted, not a finding: txlab's reading differs from the vendors' bug status here.
--   PostgreSQL updates only the row its snapshot saw matching and re-checked after the wait (transaction-iso.html, 13.2.1): vendor-permitted too.
--   wss: vendor-permitted at READ COMMITTED, where WriteCheck's assumption does not hold (semi-consistent read; PostgreSQL: re-check after a wait).
-- note: the artifact writes T2's predicate `WHERE a`; `a IS NOT NULL` (the paper's wording) is the same predicate in portable SQL.
CREATE TABLE t (a INT, b INT);
INSERT INTO t (a, b) VALUES (NULL, 1), (2, 2), (NULL, 3);

-- T1: BEGIN;
-- T1: UPDATE t SET a = 10;
-- T2: BEGIN;
-- T2: UPDATE t SET b = 20 WHERE a IS NOT NULL;
-- T1: COMMIT;
-- T2: COMMIT;
