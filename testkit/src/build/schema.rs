//! Columns, tables and their initial rows.

use txlab_plugin_api::prelude::*;

/// A nullable column.
pub fn col(name: &str, ty: ColumnType) -> Column {
    Column {
        name: name.into(),
        ty,
        not_null: false,
    }
}

/// A NOT NULL column.
pub fn not_null(name: &str, ty: ColumnType) -> Column {
    Column {
        not_null: true,
        ..col(name, ty)
    }
}

/// A table with a primary key (none when `primary_key` is empty) and no other
/// keys or indexes; tests add those to the fields they exercise.
pub fn table(name: &str, columns: Vec<Column>, primary_key: &[&str]) -> Table {
    Table {
        name: name.into(),
        columns,
        primary_key: strings(primary_key),
        unique: Vec::new(),
        indexes: Vec::new(),
    }
}

pub fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Initial rows of `table`, one value per column in the table's order.
pub fn rows_of(table: &Table, rows: Vec<Vec<Value>>) -> TableRows {
    TableRows {
        table: table.name.clone(),
        columns: table.column_names(),
        rows,
    }
}
