-- name: isorel-f3-locking-read
-- title: a locking read after a snapshot read sees another transaction's committed write (exempt, not an anomaly)
-- source: IsoRel, Fig. 5 (reconstructed: the same dependency shape, not the figure's exact order)
-- reported on: MySQL 8.0.34 (REPEATABLE READ)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: undecided outside the model
-- expect mariadb wss: pass
-- expect mariadb isorel: allowed G-SIa
-- expect mariadb txcheck: undecided autocommit statement
-- expect mariadb errors: pass
-- expect mariadb-si troc: undecided autocommit statement
-- expect mariadb-si wss: pass
-- expect mariadb-si isorel: pass
-- expect mariadb-si txcheck: undecided autocommit statement
-- expect mariadb-si errors: pass
-- expect postgres troc: undecided outside the model
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: undecided autocommit statement
-- expect postgres errors: pass
-- note: The locking read sees T2's write: isorel names the G-SIa it shows, which both models allow at REPEATABLE READ on MariaDB; no anomaly
--   on PostgreSQL, where T1's FOR UPDATE fails with a serialization failure. T2 is an autocommit statement: troc and txcheck undecided.
CREATE TABLE t (c1 INT PRIMARY KEY, c2 INT);
INSERT INTO t (c1, c2) VALUES (1, 1);

-- T1: BEGIN;
-- T1: SELECT c1, c2 FROM t WHERE c1 = 1;
-- T2: UPDATE t SET c2 = 2 WHERE c1 = 1;
-- T1: SELECT c1, c2 FROM t WHERE c1 = 1 FOR UPDATE;
-- T1: COMMIT;
