//! How the MySQL family spells what differs between DBMSs, per flavor; the
//! shared renderer (`txlab_plugin_api::sdk::sql`) writes the rest of every
//! statement and table.

use crate::flavor::{Flavor, Target};
use crate::literal::{cast_type, column_type, ident, literal};
use crate::semantics::check_level;
use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::sql::{literal_under_minus, InsertForm};

impl SqlSyntax for Target {
    fn ident(&self, name: &str) -> Result<String, PluginError> {
        ident(name)
    }

    fn literal(&self, value: &Value) -> Result<String, PluginError> {
        literal(value)
    }

    fn column_type(&self, ty: ColumnType) -> Result<String, PluginError> {
        column_type(ty)
    }

    fn cast_type(&self, ty: ColumnType) -> Result<String, PluginError> {
        cast_type(self.flavor, ty)
    }

    /// MySQL's grammar has no empty IN list
    /// (https://dev.mysql.com/doc/refman/8.0/en/comparison-operators.html#operator_in).
    /// `||` is OR in MySQL and MariaDB (unless `PIPES_AS_CONCAT`); `CONCAT()`
    /// concatenates in every flavor and is NULL when any argument is
    /// (https://dev.mysql.com/doc/refman/8.0/en/string-functions.html#function_concat).
    fn concat(&self, parts: &[String]) -> Result<String, PluginError> {
        match parts {
            [] => Err(PluginError::invalid_input("a concatenation needs parts")),
            _ => Ok(format!("CONCAT({})", parts.join(", "))),
        }
    }

    /// The IR's meaning, as txlab's reference evaluator computes it: no item
    /// matches, so the result is false (true when negated), or NULL when the
    /// operand is NULL.
    fn empty_in_list(&self, operand: &str, negated: bool) -> Result<String, PluginError> {
        Ok(if negated {
            format!("(({operand} IS NOT NULL) OR NULL)")
        } else {
            format!("(({operand} IS NULL) AND NULL)")
        })
    }

    /// MySQL reads an integer literal in ORDER BY as a result-column position
    /// (https://dev.mysql.com/doc/refman/8.0/en/select.html). TRUE and FALSE are
    /// the integers 1 and 0, and decimals without a point render as bare digits.
    fn order_by_cast(&self, key: &Expr) -> Option<&'static str> {
        match literal_under_minus(key)? {
            Value::Int(_) | Value::Bool(_) => Some("SIGNED"),
            Value::Decimal(text) if !text.contains('.') => Some("SIGNED"),
            _ => None,
        }
    }

    /// The isolation level itself is set per session (see `session`); BEGIN only
    /// refuses a level the flavor lacks.
    fn begin(&self, isolation: IsolationLevel) -> Result<String, PluginError> {
        check_level(self, isolation)?;
        Ok(match self.flavor {
            // A plain START TRANSACTION, not WITH CONSISTENT SNAPSHOT: InnoDB then
            // takes the snapshot at the first consistent read, as the semantics
            // declare (https://dev.mysql.com/doc/refman/8.0/en/innodb-consistent-read.html).
            Flavor::Mysql | Flavor::Mariadb => "START TRANSACTION".to_string(),
            // BEGIN PESSIMISTIC / OPTIMISTIC override tidb_txn_mode for this transaction
            // (https://docs.pingcap.com/tidb/stable/pessimistic-transaction#switch-transaction-mode).
            Flavor::Tidb => format!("BEGIN {}", self.txn_mode.keyword()),
        })
    }

    /// MySQL and MariaDB at REPEATABLE READ: the snapshot at once
    /// (https://dev.mysql.com/doc/refman/8.0/en/commit.html: "WITH CONSISTENT
    /// SNAPSHOT … provides a consistent snapshot only if the current isolation
    /// level is one that permits a consistent read", and is ignored with a
    /// warning at the others). TiDB takes its snapshot at BEGIN anyway.
    fn begin_snapshot(&self, isolation: IsolationLevel) -> Result<String, PluginError> {
        check_level(self, isolation)?;
        if !crate::semantics::snapshot_begin_levels(self.flavor).contains(&isolation) {
            return Err(PluginError::invalid_input(format!(
                "{} takes no snapshot at BEGIN at {isolation}: START TRANSACTION WITH CONSISTENT SNAPSHOT is for REPEATABLE READ",
                self.flavor
            )));
        }
        Ok("START TRANSACTION WITH CONSISTENT SNAPSHOT".to_string())
    }

    fn row_lock(&self, lock: RowLock) -> Result<&'static str, PluginError> {
        Ok(match (lock, self.flavor) {
            (RowLock::None, _) => "",
            // https://dev.mysql.com/doc/refman/8.0/en/innodb-locking-reads.html
            (RowLock::ForUpdate, _) => " FOR UPDATE",
            // FOR SHARE replaced LOCK IN SHARE MODE in MySQL 8.0 (same page).
            (RowLock::ForShare, Flavor::Mysql) => " FOR SHARE",
            // MariaDB 10.11 has no FOR SHARE
            // (https://mariadb.com/docs/server/reference/sql-statements/data-manipulation/selecting-data/lock-in-share-mode).
            (RowLock::ForShare, Flavor::Mariadb) => " LOCK IN SHARE MODE",
            // TiDB refuses a shared lock unless tidb_enable_noop_functions makes it
            // a no-op, or tidb_enable_shared_lock_promotion (v8.3+) makes it FOR
            // UPDATE; neither is a shared lock
            // (https://docs.pingcap.com/tidb/stable/pessimistic-transaction#difference-with-mysql-innodb).
            (RowLock::ForShare, Flavor::Tidb) => return Err(PluginError::unsupported(
                "TiDB has no shared row locks: SELECT FOR SHARE is a no-op or an exclusive lock",
            )),
        })
    }

    fn insert_form(&self, on_conflict: OnConflict) -> Result<InsertForm, PluginError> {
        Ok(match on_conflict {
            OnConflict::Error => InsertForm::PLAIN,
            // REPLACE deletes the rows that collide on the primary key or a unique
            // index, then inserts (https://dev.mysql.com/doc/refman/8.0/en/replace.html).
            OnConflict::Replace => InsertForm::verb("REPLACE"),
            // IGNORE skips rows that collide on a key; it also turns data errors
            // into warnings with adjusted values, which the generator's values
            // never raise
            // (https://dev.mysql.com/doc/refman/8.0/en/sql-mode.html#ignore-effect-on-execution).
            OnConflict::Ignore => InsertForm::verb("INSERT IGNORE"),
        })
    }

    /// MySQL evaluates single-table assignments left to right, so a later one
    /// would see the value an earlier one assigned
    /// (https://dev.mysql.com/doc/refman/8.0/en/update.html). The IR means every
    /// right-hand side to see the row as it was; that only holds if no
    /// assignment reads a column assigned before it.
    fn check_update(&self, update: &Update) -> Result<(), PluginError> {
        for (i, a) in update.assignments.iter().enumerate() {
            let assigned_before: Vec<&str> = update.assignments[..i]
                .iter()
                .map(|earlier| earlier.column.as_str())
                .collect();
            if let Some(c) = a
                .value
                .columns()
                .into_iter()
                .find(|c| assigned_before.contains(&c.column.as_str()))
            {
                return Err(PluginError::unsupported(format!(
                    "UPDATE of `{}` assigns `{}` from `{}`, which an earlier assignment changed; \
                     MySQL would read the new value",
                    update.table, a.column, c.column
                )));
            }
        }
        Ok(())
    }

    /// MySQL refuses an UPDATE or DELETE whose subquery reads the table it
    /// changes (error 1093, "You can't specify target table … for update in
    /// FROM clause": <https://dev.mysql.com/doc/refman/8.0/en/subquery-restrictions.html>),
    /// and TiDB follows it. MariaDB allows the same source and target since
    /// 10.3 (<https://mariadb.com/kb/en/update/#update-statements-with-the-same-source-and-target>,
    /// <https://mariadb.com/kb/en/delete/#deleting-from-the-same-source-and-target>).
    /// Refused here rather than rewritten into a derived table, which would
    /// change what the statement reads and locks; generators avoid the form.
    fn check_target_in_subquery(&self, statement: &str, target: &str) -> Result<(), PluginError> {
        match self.flavor {
            Flavor::Mariadb => Ok(()),
            Flavor::Mysql | Flavor::Tidb => Err(PluginError::unsupported(format!(
                "{statement} of `{target}` reads `{target}` in a subquery, which {} refuses \
                 (error 1093)",
                self.flavor
            ))),
        }
    }

    /// Storage engine and collation. A binary collation compares text byte by
    /// byte, as the IR does: the servers' default collations ignore case, which
    /// would make 'a' and 'A' equal and collide in unique keys.
    fn table_options(&self) -> &'static str {
        match self.flavor {
            // utf8mb4_0900_bin also does not pad: 'a' and 'a ' differ
            // (https://dev.mysql.com/doc/refman/8.0/en/charset-unicode-sets.html).
            Flavor::Mysql => " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin",
            // MariaDB's binary collation without padding
            // (https://mariadb.com/docs/server/reference/data-types/string-data-types/character-sets/supported-character-sets-and-collations).
            Flavor::Mariadb => " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin",
            // TiDB stores every table in TiKV and has no ENGINE to choose;
            // utf8mb4_bin is its binary collation in every supported version
            // (https://docs.pingcap.com/tidb/stable/character-set-and-collation).
            Flavor::Tidb => " DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
        }
    }

    /// A TEXT column can only be indexed by a prefix, and a prefix key would
    /// treat values equal in their first characters as duplicates
    /// (https://dev.mysql.com/doc/refman/8.0/en/column-indexes.html).
    fn check_key_column(
        &self,
        table: &Table,
        column: &Column,
        what: &str,
    ) -> Result<(), PluginError> {
        if column.ty == ColumnType::Text {
            return Err(PluginError::invalid_input(format!(
                "{what} of table `{}` includes TEXT column `{}`, which MySQL can key only \
                 by a prefix",
                table.name, column.name
            )));
        }
        Ok(())
    }
}
