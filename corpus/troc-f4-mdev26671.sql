-- name: troc-f4-mdev26671
-- title: after an UPDATE over a row another transaction inserted, the snapshot read does not show it (MDEV-26671)
-- source: Troc (Dou et al., ICSE 2023), artifact cases/mariadb26642.txt (second case); MDEV-26671 https://jira.mariadb.org/browse/MDEV-26671 (closed as a duplicate of MDEV-26642)
-- reported on: MariaDB (Troc's evaluation; the Troc digest gives no version)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: vendor-permitted own same-value UPDATE not seen by a snapshot read (MDEV-26642)
-- expect mariadb wss: pass
-- expect mariadb isorel: allowed G-SIa
-- expect mariadb txcheck: vendor-permitted did not do what its before-write read
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: vendor-permitted a write missed a change after its snapshot
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB 10.11.19 shows the report's outcome (T1's last read lacks (10, 2), which its own UPDATE matched with the same value): the
--   MDEV-26642 family, vendor-permitted. On PostgreSQL T1's UPDATE does not see the row inserted after its snapshot; wss names it a vendor-permitted write that missed a change after its snapshot
--   (no predicate conflicts at REPEATABLE READ).
CREATE TABLE t (c1 INT, c2 INT);
INSERT INTO t (c1, c2) VALUES (0, 0), (1, 1);

-- T1: BEGIN;
-- T1: SELECT * FROM t;
-- T2: BEGIN;
-- T2: INSERT INTO t (c1, c2) VALUES (10, 2);
-- T2: COMMIT;
-- T1: SELECT * FROM t;
-- T1: UPDATE t SET c1 = 10;
-- T1: SELECT * FROM t;
-- T1: COMMIT;
