-- name: txcheck-f2-rollback-subquery
-- title: rows of a rolled-back INSERT must not affect a later UPDATE's NOT IN subquery (MySQL#107887)
-- source: TxCheck (Jiang et al., OSDI 2023), Fig. 14 (the paper elides the data; this is its shape); MySQL#107887 https://bugs.mysql.com/bug.php?id=107887 (duplicate of MySQL#107066)
-- reported on: MySQL (TxCheck's evaluation of MySQL 8.0.28 and 8.0.30; REPEATABLE READ)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: undecided outside the model
-- expect mariadb wss: undecided outside the model
-- expect mariadb isorel: undecided outside what IsoRel observes
-- expect mariadb txcheck: pass
-- expect mariadb errors: pass
-- expect mariadb-si troc: undecided outside the model
-- expect mariadb-si wss: undecided outside the model
-- expect mariadb-si isorel: undecided outside what IsoRel observes
-- expect mariadb-si txcheck: pass
-- expect mariadb-si errors: pass
-- expect postgres troc: undecided outside the model
-- expect postgres wss: undecided outside the model
-- expect postgres isorel: undecided outside what IsoRel observes
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: A MySQL bug: MariaDB and PostgreSQL update no row; txcheck passes; troc, wss and isorel do not model subqueries (undecided).
CREATE TABLE t0 (id INT PRIMARY KEY, c5 INT, vkey INT);
CREATE TABLE t1 (c0 INT);
INSERT INTO t0 (id, c5, vkey) VALUES (1, 10, 0), (2, 20, 0);
INSERT INTO t1 (c0) VALUES (10), (20);

-- T1: BEGIN;
-- T2: BEGIN;
-- T2: INSERT INTO t1 (c0) VALUES (30), (40);
-- T2: ROLLBACK;
-- T1: UPDATE t0 SET vkey = 116 WHERE t0.c5 NOT IN (SELECT c0 FROM t1);
-- T1: COMMIT;
