//! CREATE TABLE and CREATE INDEX, and column types.

use super::expr::ident;
use super::Family;
use crate::error::{Problem, Translated};
use sqlparser::ast::{self as sql, DataType};
use txlab_plugin_api::ir::{Column, ColumnType, Index, Schema, Table};

/// A type name as the IR's column type; each dialect's spellings of the
/// types it renders, and CAST targets (MySQL's SIGNED and CHAR).
pub fn column_type(ty: &DataType) -> Translated<ColumnType> {
    use DataType as D;
    let small = |n: u64, what: &str| -> Translated<u8> {
        u8::try_from(n).map_err(|_| Problem::unsupported(format!("{what} {n}")))
    };
    Ok(match ty {
        D::Int(_) | D::Integer(_) | D::Int4(_) => ColumnType::Int,
        D::BigInt(_) | D::Int8(_) | D::Signed | D::SignedInteger => ColumnType::BigInt,
        D::Double(sql::ExactNumberInfo::None) | D::DoublePrecision | D::Float8 | D::Real => {
            ColumnType::Double
        }
        D::Decimal(info) | D::Numeric(info) | D::Dec(info) => match info {
            sql::ExactNumberInfo::PrecisionAndScale(p, s) if *s >= 0 => ColumnType::Decimal {
                precision: small(*p, "a precision of")?,
                scale: small(*s as u64, "a scale of")?,
            },
            sql::ExactNumberInfo::Precision(p) => ColumnType::Decimal {
                precision: small(*p, "a precision of")?,
                scale: 0,
            },
            _ => {
                return Err(Problem::unsupported(format!(
                    "`{ty}` without a precision and scale"
                )))
            }
        },
        D::Varchar(Some(sql::CharacterLength::IntegerLength { length, .. }))
        | D::CharacterVarying(Some(sql::CharacterLength::IntegerLength { length, .. }))
        | D::CharVarying(Some(sql::CharacterLength::IntegerLength { length, .. }))
        | D::Char(Some(sql::CharacterLength::IntegerLength { length, .. })) => {
            ColumnType::Varchar {
                len: u16::try_from(*length)
                    .map_err(|_| Problem::unsupported(format!("VARCHAR({length})")))?,
            }
        }
        D::Text | D::Char(None) => ColumnType::Text,
        D::Bool | D::Boolean => ColumnType::Bool,
        other => return Err(Problem::unsupported(format!("the column type `{other}`"))),
    })
}

fn key_columns(columns: &[sql::IndexColumn], family: Family) -> Translated<Vec<String>> {
    columns
        .iter()
        .map(|c| match (&c.column.expr, &c.column.options.asc) {
            (sql::Expr::Identifier(id), None | Some(true)) => Ok(ident(id, family)),
            _ => Err(Problem::unsupported(format!(
                "the key column `{}`",
                c.column
            ))),
        })
        .collect()
}

pub fn table_name(name: &sql::ObjectName, family: Family) -> Translated<String> {
    match name.0.as_slice() {
        [sql::ObjectNamePart::Identifier(id)] => Ok(ident(id, family)),
        _ => Err(Problem::unsupported(format!(
            "the qualified table name `{name}`"
        ))),
    }
}

pub fn create_table(create: &sql::CreateTable, family: Family) -> Translated<Table> {
    if create.query.is_some() || create.like.is_some() || create.clone.is_some() {
        return Err(Problem::unsupported("CREATE TABLE … AS / LIKE / CLONE"));
    }
    let mut table = Table {
        name: table_name(&create.name, family)?,
        columns: Vec::new(),
        primary_key: Vec::new(),
        unique: Vec::new(),
        indexes: Vec::new(),
    };
    for def in &create.columns {
        let name = ident(&def.name, family);
        let mut column = Column {
            name: name.clone(),
            ty: column_type(&def.data_type)?,
            not_null: false,
        };
        for option in &def.options {
            match &option.option {
                sql::ColumnOption::NotNull => column.not_null = true,
                sql::ColumnOption::Null => {}
                sql::ColumnOption::Unique {
                    is_primary: true, ..
                } => table.primary_key = vec![name.clone()],
                sql::ColumnOption::Unique {
                    is_primary: false, ..
                } => table.unique.push(vec![name.clone()]),
                other => {
                    return Err(Problem::unsupported(format!(
                        "the column option `{other}` (column `{name}`)"
                    )))
                }
            }
        }
        table.columns.push(column);
    }
    for constraint in &create.constraints {
        match constraint {
            sql::TableConstraint::PrimaryKey { columns, .. } => {
                table.primary_key = key_columns(columns, family)?
            }
            sql::TableConstraint::Unique { columns, .. } => {
                table.unique.push(key_columns(columns, family)?)
            }
            other => return Err(Problem::unsupported(format!("the constraint `{other}`"))),
        }
    }
    for key in std::iter::once(&table.primary_key).chain(&table.unique) {
        if let Some(missing) = key.iter().find(|c| table.column(c).is_none()) {
            return Err(Problem::new(format!(
                "a key of table `{}` names column `{missing}`, which the table lacks",
                table.name
            )));
        }
    }
    Ok(table)
}

pub fn create_index(
    create: &sql::CreateIndex,
    schema: &Schema,
    family: Family,
) -> Translated<(String, Index)> {
    let table_name = table_name(&create.table_name, family)?;
    let Some(table) = schema.table(&table_name) else {
        return Err(Problem::new(format!(
            "CREATE INDEX on unknown table `{table_name}`"
        )));
    };
    let Some(name) = &create.name else {
        return Err(Problem::new("CREATE INDEX needs a name"));
    };
    if create.predicate.is_some() || !create.include.is_empty() {
        return Err(Problem::unsupported("a partial or covering index"));
    }
    let columns = key_columns(&create.columns, family)?;
    if let Some(missing) = columns.iter().find(|c| table.column(c).is_none()) {
        return Err(Problem::new(format!(
            "CREATE INDEX names column `{missing}`, which table `{table_name}` lacks"
        )));
    }
    Ok((
        table_name,
        Index {
            name: self::table_name(name, family)?,
            columns,
            unique: create.unique,
        },
    ))
}
