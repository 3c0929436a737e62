-- name: aptrans-f4-oceanbase2248
-- title: a consistent-snapshot transaction sees a later commit (non-repeatable read, OceanBase#2248)
-- source: APTrans, Figure 6; OceanBase#2248 https://github.com/oceanbase/oceanbase/issues/2248
-- reported on: OceanBase CE 4.2.1 (REPEATABLE READ)
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
-- note: An OceanBase bug: MariaDB 10.11.19 keeps T2's snapshot from START TRANSACTION WITH CONSISTENT SNAPSHOT; every oracle passes.
-- note: START TRANSACTION WITH CONSISTENT SNAPSHOT is MySQL's and MariaDB's spelling; PostgreSQL takes the snapshot at the first statement, so this script runs on MariaDB only.
CREATE TABLE t (ID INT, c0 INT);
INSERT INTO t (ID, c0) VALUES (1, 1), (2, 2);

-- T1: START TRANSACTION WITH CONSISTENT SNAPSHOT;
-- T2: START TRANSACTION WITH CONSISTENT SNAPSHOT;
-- T1: UPDATE t SET c0 = 10 WHERE (ID = 1);
-- T1: COMMIT;
-- T2: SELECT * FROM t;
-- T2: COMMIT;
