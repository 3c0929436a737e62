-- A lost update: both sessions read the row, then both write it.
-- Convention: the set-up first, unmarked; then each session statement
-- after `-- T1:` (on the same line, or on the line before it).
CREATE TABLE acct (id INT PRIMARY KEY, bal INT NOT NULL);
INSERT INTO acct (id, bal) VALUES (1, 100), (2, 50);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: SELECT bal FROM acct WHERE id = 1;
-- T2: SELECT bal FROM acct WHERE id = 1;
-- T1:
UPDATE acct SET bal = bal + 10
  WHERE id = 1;
-- T1: COMMIT;
-- T2: UPDATE acct SET bal = bal + 20 WHERE id = 1;
-- T2: COMMIT;
-- T2: SELECT id, bal FROM acct ORDER BY id;
