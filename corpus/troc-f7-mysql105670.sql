-- name: troc-f7-mysql105670
-- title: a snapshot read after a DELETE still shows a row another transaction deleted (MySQL#105670, TiDB#30239)
-- source: Troc (Dou et al., ICSE 2023), artifact cases/mysql105670.txt, cases/tidb30239.txt; MySQL#105670 https://bugs.mysql.com/bug.php?id=105670; TiDB#30239 https://github.com/pingcap/tidb/issues/30239 (both closed: expected behaviour)
-- reported on: MySQL, TiDB and MariaDB (the Troc artifact's README shows it on all three; the digest gives no versions)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: pass
-- expect mariadb txcheck: vendor-permitted did not do what its before-write read
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: The vendors closed these reports as expected behaviour and troc does not adopt the artifact's useDel policy (docs/oracle-troc.md): pass.
--   txcheck sees T1's DELETE act on fewer rows than its snapshot read returned (InnoDB's current read), which MariaDB documents: vendor-permitted.
CREATE TABLE t (c1 INT PRIMARY KEY, c2 INT);
INSERT INTO t (c1, c2) VALUES (1, 1), (2, 2);

-- T1: BEGIN;
-- T1: SELECT * FROM t;
-- T2: BEGIN;
-- T2: DELETE FROM t WHERE c1 = 1;
-- T2: COMMIT;
-- T1: SELECT * FROM t;
-- T1: DELETE FROM t WHERE c1 = 1 OR c1 = 2;
-- T1: SELECT * FROM t;
-- T1: COMMIT;
