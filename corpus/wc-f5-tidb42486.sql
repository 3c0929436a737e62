-- name: wc-f5-tidb42486
-- title: a DELETE after another transaction's INSERT committed deletes its row too (TiDB#42486, pessimistic spelling)
-- source: WriteCheck, Listing 4; TiDB#42486 https://github.com/pingcap/tidb/issues/42486
-- reported on: TiDB 6.6.0 (optimistic REPEATABLE READ: T2 committed with {2} left)
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
-- note: T2's DELETE sees T1's committed row on MariaDB (current read) and on PostgreSQL (the snapshot is taken at the DELETE): every oracle passes.
-- note: the report uses BEGIN OPTIMISTIC, which only TiDB has; with plain BEGIN (pessimistic, as on MariaDB and PostgreSQL) T2's DELETE must see T1's row.
CREATE TABLE t (c1 INT);
INSERT INTO t (c1) VALUES (1);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: INSERT INTO t (c1) VALUES (2);
-- T1: COMMIT;
-- T2: DELETE FROM t;
-- T2: COMMIT;
