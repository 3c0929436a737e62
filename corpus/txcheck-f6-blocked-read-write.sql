-- name: txcheck-f6-blocked-read-write
-- title: a lock wait separates a statement's added read from its write (no bug)
-- source: TxCheck (Jiang et al., OSDI 2023), Fig. 11 (reconstructed)
-- reported on: MySQL (TxCheck's example; REPEATABLE READ; TxCheck must report nothing)
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
CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO t (id, v) VALUES (1, 0), (2, 5);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: UPDATE t SET v = 1 WHERE v = 0;
-- T2: SELECT * FROM t WHERE v = 0;
-- T2: UPDATE t SET v = 2 WHERE v = 0;
-- T1: COMMIT;
-- T2: COMMIT;
