//! `prepare`: TxCheck's instrumentation (§3.2 of the paper) at the IR level.
//!
//! Every table gets two columns, last: the item key (a number per row,
//! never changed: initial rows are numbered from 1, every row an INSERT lists
//! gets the next free number) and the version key (0 for the initial rows;
//! every writing statement sets it to a number no other statement uses).
//! Then every data statement of an explicit transaction becomes a *unit*,
//! submitted as one block:
//!
//! - version-set reads (VSR): `SELECT *` of the statement's table, for the
//!   versions its predicate could have looked at (for an INSERT, the rows
//!   its keys could collide with), and of every other table it reads
//!   through subqueries or joins;
//! - a before-write read (BWR) before UPDATE and DELETE, with the statement's
//!   own WHERE (and before REPLACE, of the rows it may remove): the versions
//!   the write overwrites;
//! - the statement, whose SELECT also returns both columns, and whose writes
//!   set the version key;
//! - an after-write read (AWR) after UPDATE and INSERT: the rows whose version
//!   key is the statement's, i.e. the versions it installed.
//!
//! An INSERT … SELECT numbers its rows in its SELECT: each row's item key is
//! made of the statement's version key and the item keys of the source rows
//! it came from (the smallest of them per group when the SELECT groups), so
//! that no two rows share one ([`insert_select_keys`] says when that holds).
//!
//! The added reads have shapes no generator makes (they order by the added
//! columns), which is how [`crate::units`] finds them again.

use crate::config::TxcheckConfig;
use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::instrument::{
    free_column_name, named_like, replaced_rows, replaced_rows_by_query, splice, Around,
};

/// The names of a table's two columns after `prepare`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyColumns {
    pub item: String,
    pub version: String,
}

/// The two columns of a table of a prepared case, found by name: the last
/// integer columns named like them. `None` when this oracle did not prepare
/// the table.
pub fn key_columns(table: &Table, config: &TxcheckConfig) -> Option<KeyColumns> {
    let last = |base: &str| {
        table
            .columns
            .iter()
            .rev()
            .find(|c| named_like(&c.name, base) && matches!(c.ty, ColumnType::BigInt))
            .map(|c| c.name.clone())
    };
    Some(KeyColumns {
        item: last(&config.item_column)?,
        version: last(&config.version_column)?,
    })
}

/// Bits of the item keys of initial rows and INSERT … VALUES rows (they are
/// numbered from 1, so a case may have up to 4,095 of them).
const ROW_BITS: u32 = 12;
/// Bits of an INSERT … SELECT's version key in its rows' item keys.
const VERSION_BITS: u32 = 7;
/// Item keys are non-negative BIGINTs.
const MAX_BITS: u32 = 62;
/// INSERT … SELECTs per case whose rows `prepare` numbers.
const MAX_INSERT_SELECTS: usize = 8;

/// Whether the item keys `prepare` gives an INSERT … SELECT's rows are
/// unique, and if so how many bits the item keys of each table of its FROM
/// clause take (in the order of [`Query::names`]); if not, why. A row's item
/// key is the statement's version key followed by the item keys of the
/// source rows it came from, each in as many bits as its table's keys may
/// need: the rows of a table another INSERT … SELECT fills take that
/// statement's width (following every chain of statements that fill each
/// other's sources, each statement once). A REPLACE … SELECT must replace on
/// single-column keys (its before-write read asks `key IN (SELECT …)`); the
/// joins must be inner joins (a LEFT JOIN's missing row has no key), and the
/// widths must fit a BIGINT.
pub fn insert_select_keys(case: &TestCase, at: StatementRef) -> Result<Vec<u32>, String> {
    let Some(Statement::InsertSelect(insert)) = case.statement(at) else {
        return Ok(Vec::new());
    };
    let rows: usize = case
        .initial_rows
        .iter()
        .map(|r| r.rows.len())
        .sum::<usize>()
        + case
            .transactions
            .iter()
            .flat_map(|t| &t.statements)
            .map(|s| match s {
                Statement::Insert(i) => i.rows.len(),
                _ => 0,
            })
            .sum::<usize>();
    let writes = case
        .transactions
        .iter()
        .flat_map(|t| &t.statements)
        .filter(|s| s.is_write())
        .count();
    if rows >= 1 << ROW_BITS || writes >= 1 << VERSION_BITS {
        return Err("the case has too many rows or writes to number them".into());
    }
    let insert_selects: Vec<(StatementRef, &InsertSelect)> =
        case.transactions
            .iter()
            .enumerate()
            .flat_map(|(t, txn)| {
                txn.statements.iter().enumerate().filter_map(
                    move |(s, statement)| match statement {
                        Statement::InsertSelect(i) => Some((StatementRef::new(t, s), &**i)),
                        _ => None,
                    },
                )
            })
            .collect();
    // The widths follow every chain of statements that fill each other's
    // sources; a handful keeps that quick.
    if insert_selects.len() > MAX_INSERT_SELECTS {
        return Err(format!(
            "the case has more than {MAX_INSERT_SELECTS} INSERT … SELECT statements"
        ));
    }
    let mut path = vec![at];
    let widths = source_widths(case, insert, at, &insert_selects, &mut path)?;
    let total: u32 = VERSION_BITS + widths.iter().sum::<u32>();
    if total > MAX_BITS {
        return Err(format!(
            "its rows' item keys would need {total} bits (it joins rows other INSERT … SELECTs numbered)"
        ));
    }
    Ok(widths)
}

/// The bit widths of the item keys of `insert`'s FROM tables: a table other
/// INSERT … SELECTs fill may hold their rows. `path` holds the statements
/// the rows come through, which cannot feed them again.
fn source_widths(
    case: &TestCase,
    insert: &InsertSelect,
    at: StatementRef,
    all: &[(StatementRef, &InsertSelect)],
    path: &mut Vec<StatementRef>,
) -> Result<Vec<u32>, String> {
    if insert.on_conflict == OnConflict::Replace {
        let table = case
            .schema
            .table(&insert.table)
            .ok_or_else(|| format!("{at} writes `{}`, which is not in the schema", insert.table))?;
        replaced_rows_by_query(table, insert).map_err(|why| {
            format!("{at} replaces rows on a key its reads cannot ask for: {why}")
        })?;
    }
    if insert.query.joins.iter().any(|j| j.kind == JoinKind::Left) {
        return Err(format!(
            "{at} LEFT JOINs, which gives the rows without a match no item key"
        ));
    }
    let mut widths = Vec::new();
    for (_, table) in insert.query.names() {
        let mut width = ROW_BITS;
        for &(other_at, other) in all {
            if other_at == at || other.table != table {
                continue;
            }
            // Every statement runs once: a row reaches `at` through each
            // statement at most once, as each one's rows exist only after
            // it ran, and it read only rows that existed before.
            if path.contains(&other_at) {
                continue;
            }
            path.push(other_at);
            let inner = source_widths(case, other, other_at, all, path)?;
            path.pop();
            width = width.max(VERSION_BITS + inner.iter().sum::<u32>());
        }
        widths.push(width.min(MAX_BITS + 1));
    }
    Ok(widths)
}

/// The item key of each row an INSERT … SELECT with version key `version`
/// inserts, given the bit widths [`insert_select_keys`] found; where it found
/// none (the keys could not be unique), a constant, so that the statement
/// still runs as written (and `check` leaves the case undecided).
fn insert_select_item(
    query: &Query,
    version: i64,
    keys: &[KeyColumns],
    widths: Option<&[u32]>,
) -> Expr {
    let int = |v: i64| Expr::Literal(Value::Int(v));
    let Some(widths) = widths else {
        return int(version << (MAX_BITS - VERSION_BITS));
    };
    let total: u32 = widths.iter().sum();
    let base = int(version << total);
    if query.group_by.is_empty() && query.is_aggregate() {
        // One row, whatever the source: the base alone is unique.
        return base;
    }
    // Each source row's item key in its own bits, the first table highest.
    let mut shift = total;
    let mut composite: Option<Expr> = None;
    for (((name, _), k), &width) in query.names().iter().zip(keys).zip(widths) {
        shift -= width;
        let column = Expr::Column(ColumnRef {
            table: Some(name.to_string()),
            column: k.item.clone(),
        });
        let part = if shift == 0 {
            column
        } else {
            Expr::binary(BinaryOp::Mul, column, int(1 << shift))
        };
        composite = Some(match composite {
            None => part,
            Some(acc) => Expr::binary(BinaryOp::Add, acc, part),
        });
    }
    let composite = composite.expect("a query has a FROM table");
    let composite = if query.group_by.is_empty() {
        composite
    } else {
        // Groups split the source rows: the smallest source key of each
        // group is its own.
        Expr::Aggregate {
            func: AggregateFunc::Min,
            arg: Some(Box::new(composite)),
        }
    };
    Expr::binary(BinaryOp::Add, base, composite)
}

fn read(table: &str, filter: Option<Expr>, order_by: Vec<Expr>) -> Statement {
    Statement::Select(Select {
        table: table.to_string(),
        projection: Projection::All,
        filter,
        order_by,
        lock: RowLock::None,
    })
}

/// `SELECT * FROM t ORDER BY item, version`.
pub fn version_set_read(table: &str, keys: &KeyColumns) -> Statement {
    read(
        table,
        None,
        vec![Expr::column(&keys.item), Expr::column(&keys.version)],
    )
}

/// `SELECT * FROM t WHERE <the write's filter> ORDER BY item`.
pub fn before_write_read(table: &str, keys: &KeyColumns, filter: Option<Expr>) -> Statement {
    read(table, filter, vec![Expr::column(&keys.item)])
}

/// `SELECT * FROM t WHERE version = K ORDER BY version`.
pub fn after_write_read(table: &str, keys: &KeyColumns, version: i64) -> Statement {
    read(
        table,
        Some(Expr::eq(
            Expr::column(&keys.version),
            Expr::Literal(Value::Int(version)),
        )),
        vec![Expr::column(&keys.version)],
    )
}

/// Adds the two columns to every table, numbers every row, and turns every
/// data statement of an explicit transaction into a unit.
pub fn instrument(mut case: TestCase, config: &TxcheckConfig) -> Result<TestCase, PluginError> {
    let mut keys: Vec<(String, KeyColumns)> = Vec::new();
    for table in &mut case.schema.tables {
        let k = KeyColumns {
            item: free_column_name(table, &config.item_column),
            version: String::new(),
        };
        table.columns.push(Column {
            name: k.item.clone(),
            ty: ColumnType::BigInt,
            not_null: false,
        });
        let version = free_column_name(table, &config.version_column);
        table.columns.push(Column {
            name: version.clone(),
            ty: ColumnType::BigInt,
            not_null: false,
        });
        keys.push((table.name.clone(), KeyColumns { version, ..k }));
    }
    let keys_of = |table: &str| {
        keys.iter()
            .find(|(t, _)| t == table)
            .map(|(_, k)| k.clone())
            .ok_or_else(|| {
                PluginError::invalid_input(format!("table `{table}` is not in the schema"))
            })
    };
    let mut next_item: i64 = 1;
    for rows in &mut case.initial_rows {
        let k = keys_of(&rows.table)?;
        rows.columns.push(k.item);
        rows.columns.push(k.version);
        for row in &mut rows.rows {
            row.push(Value::Int(next_item));
            row.push(Value::Int(0));
            next_item += 1;
        }
    }
    let mut next_version: i64 = 1;
    let mut around_all = Vec::new();
    let widths: Vec<Vec<Option<Vec<u32>>>> = case
        .transactions
        .iter()
        .enumerate()
        .map(|(t, txn)| {
            (0..txn.statements.len())
                .map(|s| insert_select_keys(&case, StatementRef::new(t, s)).ok())
                .collect()
        })
        .collect();
    for (t, txn) in case.transactions.iter_mut().enumerate() {
        let explicit = txn.kind == TxnKind::Explicit;
        let mut around_txn = Vec::new();
        for (s, statement) in txn.statements.iter_mut().enumerate() {
            let mut around = Around::default();
            let Some(table) = statement.table().map(str::to_string) else {
                around_txn.push(around);
                continue;
            };
            let k = keys_of(&table)?;
            // Before an INSERT too: whether its rows collide with a key
            // depends on the rows its table holds. Then one for every other
            // table the statement reads (subqueries, joins).
            if explicit {
                let mut read = vec![table.clone()];
                for t in statement.tables_read() {
                    if !read.iter().any(|r| r == t) {
                        read.push(t.to_string());
                    }
                }
                for t in &read {
                    around.before.push(version_set_read(t, &keys_of(t)?));
                }
            }
            match statement {
                Statement::Select(select) => {
                    if let Projection::Exprs(exprs) = &mut select.projection {
                        exprs.push(Expr::column(&k.item));
                        exprs.push(Expr::column(&k.version));
                    }
                }
                Statement::Insert(insert) => {
                    if insert
                        .columns
                        .iter()
                        .any(|c| *c == k.item || *c == k.version)
                    {
                        return Err(PluginError::invalid_input(format!(
                            "an INSERT into `{table}` already names a column of this oracle"
                        )));
                    }
                    if explicit && insert.on_conflict == OnConflict::Replace {
                        let t = case.schema.table(&table).expect("keys_of found it");
                        if let Some(filter) = replaced_rows(t, insert) {
                            around
                                .before
                                .push(before_write_read(&table, &k, Some(filter)));
                        }
                    }
                    insert.columns.push(k.item.clone());
                    insert.columns.push(k.version.clone());
                    for row in &mut insert.rows {
                        row.push(Expr::Literal(Value::Int(next_item)));
                        row.push(Expr::Literal(Value::Int(next_version)));
                        next_item += 1;
                    }
                    if explicit {
                        around
                            .after
                            .push(after_write_read(&table, &k, next_version));
                    }
                    next_version += 1;
                }
                Statement::Update(update) => {
                    if explicit {
                        around
                            .before
                            .push(before_write_read(&table, &k, update.filter.clone()));
                        around
                            .after
                            .push(after_write_read(&table, &k, next_version));
                    }
                    update.assignments.push(Assignment {
                        column: k.version.clone(),
                        value: Expr::Literal(Value::Int(next_version)),
                    });
                    next_version += 1;
                }
                Statement::InsertSelect(insert) => {
                    if insert
                        .columns
                        .iter()
                        .any(|c| *c == k.item || *c == k.version)
                    {
                        return Err(PluginError::invalid_input(format!(
                            "an INSERT into `{table}` already names a column of this oracle"
                        )));
                    }
                    if explicit && insert.on_conflict == OnConflict::Replace {
                        let t = case.schema.table(&table).expect("keys_of found it");
                        // A key it cannot ask for leaves the case undecided.
                        if let Ok(Some(filter)) = replaced_rows_by_query(t, insert) {
                            around
                                .before
                                .push(before_write_read(&table, &k, Some(filter)));
                        }
                    }
                    let source_keys = insert
                        .query
                        .names()
                        .iter()
                        .map(|(_, t)| keys_of(t))
                        .collect::<Result<Vec<_>, _>>()?;
                    let item = insert_select_item(
                        &insert.query,
                        next_version,
                        &source_keys,
                        widths[t][s].as_deref(),
                    );
                    insert.columns.push(k.item.clone());
                    insert.columns.push(k.version.clone());
                    insert.query.projection.push(item);
                    insert
                        .query
                        .projection
                        .push(Expr::Literal(Value::Int(next_version)));
                    if explicit {
                        around
                            .after
                            .push(after_write_read(&table, &k, next_version));
                    }
                    next_version += 1;
                }
                Statement::Delete(delete) if explicit => {
                    around
                        .before
                        .push(before_write_read(&table, &k, delete.filter.clone()));
                }
                _ => {}
            }
            around_txn.push(around);
        }
        around_all.push(around_txn);
    }
    splice(&mut case, around_all);
    Ok(case)
}
