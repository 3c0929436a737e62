-- Does a statement that fails inside a transaction end the transaction?
-- T1's second INSERT collides with row 1; if only that statement is
-- undone, the third INSERT and the COMMIT succeed and rows 2 and 3 stay.
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (id, v) VALUES (1, 10);

-- T1: BEGIN;
-- T1: INSERT INTO t (id, v) VALUES (2, 20);
-- T1: INSERT INTO t (id, v) VALUES (1, 99);
-- T1: INSERT INTO t (id, v) VALUES (3, 30);
-- T1: COMMIT;
