-- name: troc-f10-insert-waits-for-delete
-- title: an INSERT of a key another transaction deleted waits for it (blocking control, no bug)
-- source: Troc (Dou et al., ICSE 2023), Section III's index-conflict example (Troc digest, fixture F10)
-- reported on: none (control; checked on MariaDB 10.11.19)
-- isolation: T1 read-committed, T2 read-committed
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
CREATE TABLE t (k INT PRIMARY KEY, v INT);
INSERT INTO t (k, v) VALUES (1, 1);

-- T1: BEGIN;
-- T1: DELETE FROM t WHERE k = 1;
-- T2: BEGIN;
-- T2: INSERT INTO t (k, v) VALUES (1, 9);
-- T1: COMMIT;
-- T2: COMMIT;
