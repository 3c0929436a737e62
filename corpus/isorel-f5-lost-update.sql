-- name: isorel-f5-lost-update
-- title: lost update: T1 overwrites a row T2 changed and committed after T1 read it
-- source: IsoRel, Section 2.4 (lost update) and Section 5.3 ("timing of COMMIT"); IsoRel digest fixture F5
-- reported on: MySQL 8.0.34 and MariaDB (REPEATABLE READ; allowed by design); MariaDB-Galera 10.7.3
-- isolation: T1 repeatable-read, T2 repeatable-read, T3 repeatable-read
-- expect mariadb troc: undecided outside the model
-- expect mariadb wss: pass
-- expect mariadb isorel: vendor-permitted G-single (lost update)
-- expect mariadb txcheck: undecided autocommit statement
-- expect mariadb errors: pass
-- expect postgres troc: undecided outside the model
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: undecided autocommit statement
-- expect postgres errors: pass
-- note: Allowed by MariaDB's REPEATABLE READ (vendor-permitted lost update); PostgreSQL aborts T1's UPDATE (serialization failure): pass.
CREATE TABLE t (c1 INT PRIMARY KEY, c2 INT);
INSERT INTO t (c1, c2) VALUES (1, 10);

-- T1: BEGIN;
-- T1: SELECT c2 FROM t WHERE c1 = 1;
-- T2: BEGIN;
-- T2: UPDATE t SET c2 = 20 WHERE c1 = 1;
-- T2: COMMIT;
-- T1: UPDATE t SET c2 = 11 WHERE c1 = 1;
-- T1: COMMIT;
-- T3: SELECT c1, c2 FROM t;
