-- name: wc-f8-no-gap-lock
-- title: an INSERT into a range another transaction deleted goes through at READ COMMITTED (WriteCheck's false positive)
-- source: WriteCheck, Listing 6 (Section 6.4, false positives: no gap locks at READ COMMITTED)
-- reported on: TiDB 6.6.0
-- isolation: T1 read-committed, T2 read-committed
-- expect mariadb troc: pass
-- expect mariadb wss: vendor-permitted a write missed an uncommitted change
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: vendor-permitted a write missed an uncommitted change
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: WriteCheck's false positive: no gap locks at READ COMMITTED, so T2's INSERT goes through on both servers; wss names it a vendor-permitted anomaly there (no predicate lock).
CREATE TABLE t (c1 INT);
INSERT INTO t (c1) VALUES (3);

-- T1: BEGIN;
-- T1: DELETE FROM t WHERE c1 BETWEEN 1 AND 10;
-- T2: BEGIN;
-- T2: INSERT INTO t (c1) VALUES (5);
-- T2: COMMIT;
-- T1: UPDATE t SET c1 = c1 + 1;
-- T1: COMMIT;
