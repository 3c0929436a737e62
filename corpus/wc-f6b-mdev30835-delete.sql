-- name: wc-f6b-mdev30835-delete
-- title: MDEV-30835's DELETE variant: the DELETE waits for the inserted row and deletes it
-- source: WriteCheck, Figure 5b; MDEV-30835 https://jira.mariadb.org/browse/MDEV-30835
-- reported on: MariaDB 10.11.2 (the paper: the DELETE blocks, both runs leave {1.0})
-- isolation: T1 read-committed, T2 read-committed
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: vendor-permitted a write missed an uncommitted change
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB 10.11.19: the DELETE waits and deletes the row, as the paper reports. PostgreSQL's DELETE does not wait for a row its
--   snapshot lacks and deletes nothing (documented, transaction-iso.html): wss vendor-permitted at READ COMMITTED (no predicate lock).
CREATE TABLE t (c1 DOUBLE);
INSERT INTO t (c1) VALUES (1.0);

-- T1: BEGIN;
-- T1: INSERT INTO t (c1) VALUES (2.0);
-- T2: BEGIN;
-- T2: DELETE FROM t WHERE c1 = 2.0;
-- T1: COMMIT;
-- T2: COMMIT;
