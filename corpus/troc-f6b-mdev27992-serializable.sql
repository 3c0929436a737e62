-- name: troc-f6b-mdev27992-serializable
-- title: a DELETE that waited for a primary-key change deletes nothing (MDEV-27992), at SERIALIZABLE (the level of the paper's caption)
-- source: Troc (Dou et al., ICSE 2023), Listing 3, artifact cases/mariadb27992.txt; MDEV-27992 https://jira.mariadb.org/browse/MDEV-27992; WriteCheck's study (studied-bugs.xlsx) lists it too
-- reported on: MariaDB 10.5.12 (the paper's caption: SERIALIZABLE; the artifact runs READ COMMITTED)
-- isolation: T1 serializable, T2 serializable
-- expect mariadb troc: pass
-- expect mariadb wss: pass
-- expect mariadb isorel: pass
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB 10.11.19 at SERIALIZABLE: T2's DELETE waits, then fails with a deadlock error (1213) once T1 has committed, although
--   no other transaction waits for T2 (the Troc digest saw the same at REPEATABLE READ and SERIALIZABLE); T2 rolls back and (3) remains.
--   The oracles follow a concurrency error and do not report it (docs/oracle-troc.md, docs/oracle-errors.md): every oracle passes.
--   PostgreSQL fails the DELETE with a serialization failure: pass.
CREATE TABLE t (c1 INT PRIMARY KEY);
INSERT INTO t (c1) VALUES (8);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: UPDATE t SET c1 = 5;
-- T2: DELETE FROM t;
-- T1: UPDATE t SET c1 = 3;
-- T1: COMMIT;
-- T2: SELECT * FROM t FOR UPDATE;
-- T2: COMMIT;
