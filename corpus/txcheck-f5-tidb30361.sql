-- name: txcheck-f5-tidb30361
-- title: a snapshot read shows another transaction's DELETE committed after the snapshot (G-SIb, TiDB#30361)
-- source: TxCheck (Jiang et al., OSDI 2023), Fig. 13; TiDB#30361 https://github.com/pingcap/tidb/issues/30361
-- reported on: TiDB v5.4.0-alpha (REPEATABLE READ)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: A TiDB bug: MariaDB and PostgreSQL keep T2's snapshot; every oracle passes.
-- note: the issue's table has 33 rows and its reads ORDER BY … DESC; three rows and a plain read show the same thing.
CREATE TABLE t (c1 INT);
INSERT INTO t (c1) VALUES (1), (2), (3);

-- T1: BEGIN;
-- T2: BEGIN;
-- T2: SELECT c1 FROM t;
-- T1: DELETE FROM t;
-- T1: COMMIT;
-- T2: SELECT c1 FROM t;
-- T2: COMMIT;
