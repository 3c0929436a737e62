-- name: isorel-f1-read-write-skew
-- title: read-write skew across two tables: T1's UPDATE writes a row a later transaction inserted (G2-item)
-- source: IsoRel (Detecting Isolation Anomalies in Relational DBMSs), Fig. 1 and Fig. 3 (reconstructed: r5's values and the predicates of s13, s32, s33 are placeholders consistent with the text)
-- reported on: MySQL 8.0.34 (REPEATABLE READ; allowed by design)
-- isolation: S1 repeatable-read, S2 repeatable-read
-- expect mariadb troc: undecided outside the model
-- expect mariadb wss: pass
-- expect mariadb isorel: vendor-permitted G-single (read-write skew)
-- expect mariadb txcheck: vendor-permitted did not do what its before-write read
-- expect mariadb errors: pass
-- expect mariadb-si troc: undecided outside the model
-- expect mariadb-si wss: pass
-- expect mariadb-si isorel: pass
-- expect mariadb-si txcheck: pass
-- expect mariadb-si errors: pass
-- expect postgres troc: undecided outside the model
-- expect postgres wss: vendor-permitted a write missed a change after its snapshot
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB 10.11.19 allows it (T1's UPDATE is a current read and sees r5): isorel names it G-single (read-write skew), the cycle having one
--   anti-dependency (the digest's G2-item label is the paper's wording), vendor-permitted; txcheck sees the UPDATE write a row its snapshot
--   lacked. On PostgreSQL T1's UPDATE uses its snapshot and updates nothing: no cycle; wss names a vendor-permitted write that missed a change after its snapshot (a serial run would update r5).
-- note: session S1 runs the paper's T1, then T3; txlab numbers them T1 and T2, and the paper's T2 (session S2) is T3.
CREATE TABLE t1 (c1 INT, c2 INT);
CREATE TABLE t2 (c1 INT, c2 INT);
INSERT INTO t1 (c1, c2) VALUES (1, 1), (2, 1), (2, 2);
INSERT INTO t2 (c1, c2) VALUES (4, 4);

-- S1: BEGIN;
-- S1: SELECT c2 FROM t1 WHERE c1 < 2;
-- S2: BEGIN;
-- S2: UPDATE t1 SET c2 = 2 WHERE c1 < 2;
-- S2: INSERT INTO t2 (c1, c2) VALUES (5, 5);
-- S2: COMMIT;
-- S1: UPDATE t2 SET c2 = 6 WHERE c1 > 4;
-- S1: COMMIT;
-- S1: BEGIN;
-- S1: SELECT c1, c2 FROM t1;
-- S1: SELECT c1, c2 FROM t2;
-- S1: COMMIT;
