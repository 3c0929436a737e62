-- name: isorel-f2-delete-inference
-- title: a DELETE after another transaction's UPDATE of the same row: dependencies, no anomaly
-- source: IsoRel, Fig. 4 (exact)
-- reported on: none (the paper's example of dependency inference)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect mariadb-si troc: pass
-- expect mariadb-si wss: pass
-- expect mariadb-si isorel: pass
-- expect mariadb-si txcheck: pass
-- expect mariadb-si errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
CREATE TABLE t (c1 INT, c2 INT);
INSERT INTO t (c1, c2) VALUES (1, 1), (2, 2), (6, 6);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: UPDATE t SET c1 = 1 WHERE c1 < 5;
-- T1: SELECT c1, c2 FROM t WHERE c1 < 5;
-- T1: COMMIT;
-- T2: DELETE FROM t WHERE c2 < 2;
-- T2: COMMIT;
