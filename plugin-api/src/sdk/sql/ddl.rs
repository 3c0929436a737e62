//! Table DDL: CREATE TABLE with its keys and indexes, DROP TABLE.

use super::statement::idents;
use super::SqlSyntax;
use crate::ir::Table;
use crate::sdk::PluginError;

/// CREATE TABLE, then one CREATE INDEX per index, for
/// [`Dialect::create_table`](crate::sdk::Dialect::create_table).
///
/// Key columns are declared NOT NULL: the IR follows the SQL standard, where a
/// primary key column is never NULL, and SQLite lets one hold NULL unless it is
/// declared NOT NULL (<https://www.sqlite.org/lang_createtable.html#the_primary_key>).
/// Elsewhere it changes nothing and keeps the DDL explicit.
pub fn create_table<S: SqlSyntax + ?Sized>(
    syntax: &S,
    table: &Table,
) -> Result<Vec<String>, PluginError> {
    if table.columns.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "table `{}` has no columns",
            table.name
        )));
    }
    let name = syntax.ident(&table.name)?;
    let mut parts = Vec::new();
    for column in &table.columns {
        let mut def = format!(
            "{} {}",
            syntax.ident(&column.name)?,
            syntax.column_type(column.ty)?
        );
        if column.not_null || table.primary_key.contains(&column.name) {
            def.push_str(" NOT NULL");
        }
        parts.push(def);
    }
    if !table.primary_key.is_empty() {
        parts.push(format!(
            "PRIMARY KEY ({})",
            key_columns(syntax, table, &table.primary_key, "PRIMARY KEY")?
        ));
    }
    for unique in &table.unique {
        parts.push(format!(
            "UNIQUE ({})",
            key_columns(syntax, table, unique, "UNIQUE constraint")?
        ));
    }
    let mut out = vec![format!(
        "CREATE TABLE {name} ({}){}",
        parts.join(", "),
        syntax.table_options()
    )];
    for index in &table.indexes {
        let what = format!("index `{}`", index.name);
        out.push(format!(
            "CREATE {}INDEX {} ON {name} ({})",
            if index.unique { "UNIQUE " } else { "" },
            syntax.ident(&index.name)?,
            key_columns(syntax, table, &index.columns, &what)?
        ));
    }
    Ok(out)
}

/// `DROP TABLE IF EXISTS`, for [`Dialect::drop_table`](crate::sdk::Dialect::drop_table):
/// the host also drops tables that may not exist. Every DBMS so far drops a
/// table's indexes and constraints with it.
pub fn drop_table<S: SqlSyntax + ?Sized>(syntax: &S, table: &Table) -> Result<String, PluginError> {
    Ok(format!(
        "DROP TABLE IF EXISTS {}",
        syntax.ident(&table.name)?
    ))
}

/// The quoted column list of a key or index, each column checked to exist and
/// then by the dialect.
fn key_columns<S: SqlSyntax + ?Sized>(
    syntax: &S,
    table: &Table,
    columns: &[String],
    what: &str,
) -> Result<String, PluginError> {
    if columns.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "{what} of table `{}` lists no columns",
            table.name
        )));
    }
    for name in columns {
        let Some(column) = table.column(name) else {
            return Err(PluginError::invalid_input(format!(
                "{what} of table `{}` names column `{name}`, which the table lacks",
                table.name
            )));
        };
        syntax.check_key_column(table, column, what)?;
    }
    idents(syntax, columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::ErrorKind;
    use crate::ir::{Column, ColumnType, Index};
    use crate::sdk::sql::test_syntax::{table, Standard};

    #[test]
    fn keys_are_not_null_and_indexes_follow_the_table() {
        let mut t = table();
        t.unique = vec![vec!["v".into()]];
        t.indexes = vec![Index {
            name: "by_v".into(),
            columns: vec!["v".into(), "id".into()],
            unique: true,
        }];
        assert_eq!(
            create_table(&Standard, &t).unwrap(),
            [
                r#"CREATE TABLE "t" ("id" INT NOT NULL, "v" TEXT NOT NULL, PRIMARY KEY ("id"), UNIQUE ("v")) STRICT"#,
                r#"CREATE UNIQUE INDEX "by_v" ON "t" ("v", "id")"#,
            ]
        );
        assert_eq!(
            drop_table(&Standard, &t).unwrap(),
            r#"DROP TABLE IF EXISTS "t""#
        );
    }

    #[test]
    fn keys_must_name_columns_the_table_has() {
        let mut t = table();
        t.indexes = vec![Index {
            name: "i".into(),
            columns: vec!["nope".into()],
            unique: false,
        }];
        let e = create_table(&Standard, &t).unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
        assert_eq!(
            e.message,
            "index `i` of table `t` names column `nope`, which the table lacks"
        );
        t.indexes[0].columns.clear();
        let e = create_table(&Standard, &t).unwrap_err();
        assert!(e.message.contains("lists no columns"), "{e}");
        t.columns.clear();
        let e = create_table(&Standard, &t).unwrap_err();
        assert!(e.message.contains("has no columns"), "{e}");
    }

    #[test]
    fn the_dialect_refuses_key_columns_its_own_way() {
        let mut t = table();
        t.columns.push(Column {
            name: "d".into(),
            ty: ColumnType::Double,
            not_null: false,
        });
        t.unique = vec![vec!["v".into(), "d".into()]];
        let e = create_table(&Standard, &t).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UNSUPPORTED);
        assert_eq!(e.message, "UNIQUE constraint keys DOUBLE column `d`");
    }
}
