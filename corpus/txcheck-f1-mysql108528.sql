-- name: txcheck-f1-mysql108528
-- title: a SELECT and an UPDATE with the same subquery predicate act on different rows at REPEATABLE READ (MySQL#108528)
-- source: TxCheck (Jiang et al., OSDI 2023), Fig. 1 (the paper gives the shape, not the data: the rows and the MIN subquery are constructed to that shape); MySQL#108528 https://bugs.mysql.com/bug.php?id=108528 (the report the TxCheck digest identifies as probable, Verified); same class MDEV-29565 https://jira.mariadb.org/browse/MDEV-29565, TiDB#38150 https://github.com/pingcap/tidb/issues/38150
-- reported on: MySQL 8.0.28 and 8.0.30 (REPEATABLE READ)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: undecided outside the model
-- expect mariadb wss: undecided outside the model
-- expect mariadb isorel: undecided outside what IsoRel observes
-- expect mariadb txcheck: vendor-permitted did not do what its before-write read
-- expect mariadb errors: pass
-- expect mariadb-si troc: undecided outside the model
-- expect mariadb-si wss: undecided outside the model
-- expect mariadb-si isorel: undecided outside what IsoRel observes
-- expect mariadb-si txcheck: pass
-- expect mariadb-si errors: pass
-- expect postgres troc: undecided outside the model
-- expect postgres wss: undecided outside the model
-- expect postgres isorel: undecided outside what IsoRel observes
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB 10.11.19 shows the reported behaviour: T2's SELECT returns one row, its UPDATE with the same WHERE changes two, since
--   the UPDATE reads t0 as last committed (T1's c = 60) and the SELECT its snapshot (c = 20). MySQL verified #108528 as a bug; txcheck
--   names it by InnoDB's documented current read of writes at REPEATABLE READ, so vendor-permitted: txlab's reading differs from the
--   vendor's bug status. PostgreSQL's UPDATE uses the snapshot: one row, pass. The other oracles do not model subqueries (undecided).
CREATE TABLE t0 (pkey INT PRIMARY KEY, c INT);
CREATE TABLE t1 (pkey INT PRIMARY KEY, a INT, b INT, vkey INT);
INSERT INTO t0 (pkey, c) VALUES (1, 20);
INSERT INTO t1 (pkey, a, b, vkey) VALUES (2, 43, 8, 0), (3, 43, 53, 0);

-- T1: BEGIN;
-- T1: UPDATE t0 SET c = 60 WHERE pkey = 1;
-- T1: SELECT * FROM t1 WHERE b < 10;
-- T2: BEGIN;
-- T2: SELECT * FROM t1 WHERE pkey = 2;
-- T1: COMMIT;
-- T2: SELECT * FROM t1 WHERE b < (SELECT MIN(c) FROM t0);
-- T2: UPDATE t1 SET vkey = 1 WHERE b < (SELECT MIN(c) FROM t0);
-- T2: COMMIT;
