-- name: aptrans-f2-lost-update
-- title: lost update, APTrans's pattern R1[x0] W2[x1] C2 W1[x2] C1
-- source: APTrans, Figure 3 (lost-update instantiation); the table is the digest's (the paper gives none)
-- reported on: MySQL (REPEATABLE READ; documented behaviour)
-- isolation: T1 repeatable-read, T2 repeatable-read
-- expect mariadb troc: vendor-permitted lost update
-- expect mariadb wss: pass
-- expect mariadb isorel: vendor-permitted G-single (lost update)
-- expect mariadb txcheck: vendor-permitted did not do what its before-write read
-- expect mariadb errors: pass
-- expect postgres troc: pass
-- expect postgres wss: pass
-- expect postgres isorel: pass
-- expect postgres txcheck: pass
-- expect postgres errors: pass
-- note: MariaDB 10.11.19 lets T1's UPDATE overwrite T2's committed change (documented current read): troc, isorel and txcheck name the lost
--   update, vendor-permitted. PostgreSQL aborts T1 (serialization failure): pass.
CREATE TABLE t (ID INT, c0 INT);
INSERT INTO t (ID, c0) VALUES (1, 1000);

-- T1: START TRANSACTION;
-- T2: START TRANSACTION;
-- T1: SELECT * FROM t;
-- T2: UPDATE t SET c0 = 900 WHERE ID = 1;
-- T2: COMMIT;
-- T1: UPDATE t SET c0 = 1100 WHERE ID = 1;
-- T1: COMMIT;
