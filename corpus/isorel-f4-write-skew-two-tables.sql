-- name: isorel-f4-write-skew-two-tables
-- title: write skew across two tables (G2-item)
-- source: IsoRel, Fig. 6 (reconstructed: statements and values are placeholders with the paper's edges)
-- reported on: MySQL 8.0.34, MariaDB, PostgreSQL 12.3, TiDB (REPEATABLE READ; allowed by design)
-- isolation: S1 repeatable-read, S2 repeatable-read
-- expect mariadb troc: undecided outside the model
-- expect mariadb wss: pass
-- expect mariadb isorel: vendor-permitted G2-item (write skew)
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect mariadb-si troc: undecided outside the model
-- expect mariadb-si wss: pass
-- expect mariadb-si isorel: allowed G2-item (write skew)
-- expect mariadb-si txcheck: pass
-- expect mariadb-si errors: pass
-- expect postgres troc: undecided outside the model
-- expect postgres wss: pass
-- expect postgres isorel: allowed G2-item (write skew)
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: session S1 runs the paper's T1, then T3 (txlab's T1 and T2); session S2 is the paper's T2 (txlab's T3).
CREATE TABLE t1 (c1 INT, c2 INT);
CREATE TABLE t2 (c1 INT, c2 INT);
INSERT INTO t1 (c1, c2) VALUES (1, 1), (2, 2);
INSERT INTO t2 (c1, c2) VALUES (3, 3), (4, 4);

-- S1: BEGIN;
-- S2: BEGIN;
-- S1: SELECT c1, c2 FROM t1 WHERE c1 < 2;
-- S2: SELECT c1, c2 FROM t2 WHERE c1 < 4;
-- S1: UPDATE t2 SET c2 = 0 WHERE c1 = 3;
-- S2: UPDATE t1 SET c2 = 0 WHERE c1 = 1;
-- S1: COMMIT;
-- S2: COMMIT;
-- S1: BEGIN;
-- S1: SELECT c1, c2 FROM t1;
-- S1: SELECT c1, c2 FROM t2;
-- S1: COMMIT;
