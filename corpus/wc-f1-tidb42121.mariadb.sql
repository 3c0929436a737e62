-- name: wc-f1-tidb42121
-- title: a DELETE does not wait for a REPLACE that rewrote a row with its own value (TiDB#42121)
-- source: WriteCheck (ICDE 2024 / paper Figure 1, artifact case file); TiDB#42121 https://github.com/pingcap/tidb/issues/42121 (fixed)
-- reported on: TiDB 6.6.0 (pessimistic REPEATABLE READ)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect mariadb-si troc: pass
-- expect mariadb-si wss: pass
-- expect mariadb-si isorel: pass
-- expect mariadb-si txcheck: pass
-- expect mariadb-si errors: pass
-- note: MariaDB 10.11.19 makes T1's DELETE wait for T2's REPLACE and then deletes both rows: no bug on MariaDB, every oracle passes.
-- note: REPLACE is MySQL's and MariaDB's spelling; PostgreSQL has none, so this script runs on MariaDB only.
CREATE TABLE t (c1 DOUBLE PRIMARY KEY);
INSERT INTO t (c1) VALUES (1);

-- T1: BEGIN;
-- T2: BEGIN;
-- T2: INSERT INTO t (c1) VALUES (2);
-- T2: REPLACE INTO t (c1) VALUES (1);
-- T1: DELETE FROM t;
-- T2: COMMIT;
-- T1: COMMIT;
