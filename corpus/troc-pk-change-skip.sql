-- name: troc-pk-change-skip
-- title: a resumed UPDATE skips the row whose primary key the other transaction changed
-- source: txlab, docs/oracle-troc.md, "Found on MariaDB 10.11.19" (configs/troc-mariadb.toml, seeds 77 and 80, reduced by txlab run); same family as MDEV-26643 / MySQL#104833
-- reported on: MariaDB 10.11.19
-- isolation: T1 read-committed, T2 read-committed
-- expect mariadb troc: finding inconsistent affected-row count
-- expect mariadb wss: vendor-permitted semi-consistent read
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: Reproduces on MariaDB 10.11.19 every run: T2's UPDATE waits, then updates nothing; run serially either way the row ends (21, FALSE).
--   troc reports it as a finding under either reading of a wait. wss calls it vendor-permitted (READ COMMITTED, semi-consistent read: it does not derive the rows the rule gives, troc does). PostgreSQL updates the row: pass.
CREATE TABLE t0 (c0 INT NOT NULL, c2 BOOLEAN NOT NULL, PRIMARY KEY (c0));
INSERT INTO t0 (c0, c2) VALUES (22, TRUE);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: UPDATE t0 SET c0 = c0 - 1;
-- T2: UPDATE t0 SET c2 = FALSE;
-- T1: COMMIT;
-- T2: COMMIT;
