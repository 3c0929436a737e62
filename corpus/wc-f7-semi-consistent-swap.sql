-- name: wc-f7-semi-consistent-swap
-- title: two UPDATEs swap values without waiting for each other (semi-consistent read; WriteCheck's false positive)
-- source: WriteCheck, Listing 5 (Section 6.4, false positives); related MDEV-26687 https://jira.mariadb.org/browse/MDEV-26687 (by design)
-- reported on: MySQL 8.0.32
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
-- note: WriteCheck's false positive: neither UPDATE waits on either server (MariaDB's semi-consistent read skips the row T1 holds,
--   whose committed c1 is 1; PostgreSQL's statement snapshot shows it with c1 = 1), so both rows change; serially T1 then T2 would give
--   (1, 'tx2') twice. wss names it vendor-permitted at READ COMMITTED on both (semi-consistent read on MariaDB, no predicate lock on PostgreSQL), which is the paper's conclusion.
CREATE TABLE t (c1 INT, c2 VARCHAR(5));
INSERT INTO t (c1, c2) VALUES (1, ''), (5, '');

-- T1: BEGIN;
-- T1: UPDATE t SET c1 = 5, c2 = 'tx1' WHERE c1 = 1;
-- T2: BEGIN;
-- T2: UPDATE t SET c1 = 1, c2 = 'tx2' WHERE c1 = 5;
-- T1: COMMIT;
-- T2: COMMIT;
