-- name: wc-f6-mdev30835
-- title: an UPDATE does not wait for a row another transaction inserted and matches nothing (MDEV-30835)
-- source: WriteCheck, Figure 5 (reconstructed from the prose; the WHERE clause is the digest's guess); MDEV-30835 https://jira.mariadb.org/browse/MDEV-30835
-- reported on: MariaDB 10.11.2
-- isolation: T1 read-committed, T2 read-committed
-- expect mariadb troc: pass
-- expect mariadb wss: vendor-permitted semi-consistent read
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: vendor-permitted a write missed an uncommitted change
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB 10.11.19 shows the reported outcome: T2's UPDATE does not wait for T1's uncommitted row, updates nothing, and {1.0, 2.0} remains
--   (serially T1 then T2: {1.0, 3.0}). WriteCheck counts it as a bug MariaDB confirmed; txlab reports nothing: troc's view at READ COMMITTED
--   holds only committed rows, so 0 rows is what the model predicts, and wss names a vendor-permitted semi-consistent read at READ COMMITTED.
--   PostgreSQL behaves the same way by design (the UPDATE's snapshot lacks the row): wss vendor-permitted (no predicate lock), the rest pass.
CREATE TABLE t (c1 DOUBLE);
INSERT INTO t (c1) VALUES (1.0);

-- T1: BEGIN;
-- T1: INSERT INTO t (c1) VALUES (2.0);
-- T2: BEGIN;
-- T2: UPDATE t SET c1 = 3.0 WHERE c1 = 2.0;
-- T1: COMMIT;
-- T2: COMMIT;
