-- name: troc-f3-mdev26642
-- title: a snapshot read does not show the transaction's own same-value UPDATE (MDEV-26642, TiDB#28212)
-- source: Troc (Dou et al., ICSE 2023), Listing 2; MDEV-26642 https://jira.mariadb.org/browse/MDEV-26642; TiDB#28212 https://github.com/pingcap/tidb/issues/28212
-- reported on: MariaDB 5.5 to 10.7; TiDB (all versions)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: vendor-permitted own same-value UPDATE not seen by a snapshot read (MDEV-26642)
-- expect mariadb wss: pass
-- expect mariadb isorel: vendor-permitted G-single (lost update)
-- expect mariadb txcheck: vendor-permitted did not do what its before-write read
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB 10.11.19 shows the report's outcome (T1's last read still shows (1, 1)); MDEV-26642 was closed as a design decision and the
--   mariadb dialect declares same_value_update = no_version, so troc gives the vendor-permitted MDEV-26642 anomaly. isorel and txcheck
--   see the lost update under it (T1 wrote over T2's committed change). PostgreSQL aborts T1's UPDATE (serialization failure): pass.
CREATE TABLE t (c1 INT, c2 INT);
INSERT INTO t (c1, c2) VALUES (0, 0), (1, 1);

-- T1: BEGIN;
-- T1: SELECT * FROM t;
-- T2: BEGIN;
-- T2: UPDATE t SET c1 = 10 WHERE c2 = 1;
-- T2: COMMIT;
-- T1: SELECT * FROM t;
-- T1: UPDATE t SET c1 = 10;
-- T1: SELECT * FROM t;
-- T1: COMMIT;
