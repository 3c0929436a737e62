-- name: troc-f3b-mdev26642-control
-- title: MDEV-26642's control: the other transaction writes 9, so T1's UPDATE changes both rows
-- source: Troc (Dou et al., ICSE 2023), Listing 2 with T2's value changed (control case of the Troc digest, F3b); MDEV-26642 https://jira.mariadb.org/browse/MDEV-26642
-- reported on: MariaDB 10.11.19 (control, not a bug report)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: vendor-permitted lost update
-- expect mariadb wss: pass
-- expect mariadb isorel: vendor-permitted G-single (lost update)
-- expect mariadb txcheck: vendor-permitted did not do what its before-write read
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: The last read is right on MariaDB 10.11.19, as the control should be; what the oracles name is the lost update of InnoDB's
--   REPEATABLE READ (T1's UPDATE writes over T2's change committed after T1's snapshot), documented by the vendor. PostgreSQL aborts T1: pass.
CREATE TABLE t (c1 INT, c2 INT);
INSERT INTO t (c1, c2) VALUES (0, 0), (1, 1);

-- T1: BEGIN;
-- T1: SELECT * FROM t;
-- T2: BEGIN;
-- T2: UPDATE t SET c1 = 9 WHERE c2 = 1;
-- T2: COMMIT;
-- T1: SELECT * FROM t;
-- T1: UPDATE t SET c1 = 10;
-- T1: SELECT * FROM t;
-- T1: COMMIT;
