-- name: isorel-f6-g1a
-- title: dirty read of a write that is rolled back (G1a, aborted read)
-- source: IsoRel digest fixture F6 (the paper's G1a class, Section 2.4)
-- reported on: none (READ UNCOMMITTED permits it; a positive control)
-- isolation: T1 read-uncommitted, T2 read-uncommitted
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: allowed G1a (dirty read)
-- expect mariadb txcheck: undecided where dirty reads are impossible
-- expect mariadb errors: pass
-- expect mariadb-si troc: pass
-- expect mariadb-si wss: pass
-- expect mariadb-si isorel: allowed G1a (dirty read)
-- expect mariadb-si txcheck: undecided read-uncommitted
-- expect mariadb-si errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB shows the dirty read at READ UNCOMMITTED, which both models allow; PostgreSQL's READ UNCOMMITTED is READ COMMITTED: no dirty read.
CREATE TABLE t (c1 INT PRIMARY KEY, c2 INT);
INSERT INTO t (c1, c2) VALUES (1, 10);

-- T1: BEGIN;
-- T1: UPDATE t SET c2 = 99 WHERE c1 = 1;
-- T2: BEGIN;
-- T2: SELECT c2 FROM t WHERE c1 = 1;
-- T1: ROLLBACK;
-- T2: COMMIT;
