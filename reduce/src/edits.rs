//! Edits that make a case smaller.
//!
//! A removal edit takes the case a pass started from and the set of units to
//! leave out of it, so that a unit's name (a transaction index, a statement
//! reference) means the same thing for the whole pass however many units have
//! gone already. An edit returns `None` when the result would not be a case.

use std::collections::BTreeSet;
use std::fmt;
use txlab_plugin_api::ir::*;

/// Leaves out whole transactions.
pub fn without_transactions(case: &TestCase, gone: &BTreeSet<usize>) -> Option<TestCase> {
    if case.transactions.len() <= gone.len() {
        return None;
    }
    let mut new_index = vec![None; case.transactions.len()];
    let mut out = case.clone();
    out.transactions.clear();
    for (i, t) in case.transactions.iter().enumerate() {
        if !gone.contains(&i) {
            new_index[i] = Some(out.transactions.len());
            out.transactions.push(t.clone());
        }
    }
    out.submitted_order = case
        .submitted_order
        .iter()
        .filter_map(|r| new_index[r.txn()].map(|t| StatementRef::new(t, r.stmt())))
        .collect();
    Some(out)
}

/// Statements that can go on their own: all but an explicit transaction's BEGIN
/// and its closing COMMIT or ROLLBACK. An autocommit transaction goes whole.
pub fn removable_statements(case: &TestCase) -> Vec<StatementRef> {
    let mut out = Vec::new();
    for (t, txn) in case.transactions.iter().enumerate() {
        if txn.kind != TxnKind::Explicit {
            continue;
        }
        let last = txn.statements.len().saturating_sub(1);
        for (s, statement) in txn.statements.iter().enumerate() {
            let framing = (s == 0 && statement.is_begin()) || (s == last && statement.is_end());
            if !framing {
                out.push(StatementRef::new(t, s));
            }
        }
    }
    out
}

/// Leaves out single statements; the submitted order keeps the rest in place.
pub fn without_statements(case: &TestCase, gone: &BTreeSet<StatementRef>) -> Option<TestCase> {
    let mut out = case.clone();
    // new_index[t][s]: where statement s of transaction t ends up, if it stays.
    let mut new_index: Vec<Vec<Option<usize>>> = Vec::new();
    for (t, txn) in out.transactions.iter_mut().enumerate() {
        let mut map = Vec::with_capacity(txn.statements.len());
        let mut kept = Vec::with_capacity(txn.statements.len());
        for (s, statement) in txn.statements.drain(..).enumerate() {
            if gone.contains(&StatementRef::new(t, s)) {
                map.push(None);
            } else {
                map.push(Some(kept.len()));
                kept.push(statement);
            }
        }
        if kept.is_empty() {
            return None;
        }
        txn.statements = kept;
        new_index.push(map);
    }
    out.submitted_order = case
        .submitted_order
        .iter()
        .filter_map(|r| new_index[r.txn()][r.stmt()].map(|s| StatementRef::new(r.txn(), s)))
        .collect();
    Some(out)
}

/// An initial row: the index of its `TableRows` entry and of the row in it.
pub type RowUnit = (usize, usize);

pub fn initial_rows(case: &TestCase) -> Vec<RowUnit> {
    case.initial_rows
        .iter()
        .enumerate()
        .flat_map(|(t, rows)| (0..rows.rows.len()).map(move |r| (t, r)))
        .collect()
}

/// Leaves out initial rows; a table left without rows keeps no entry.
pub fn without_initial_rows(case: &TestCase, gone: &BTreeSet<RowUnit>) -> Option<TestCase> {
    let mut out = case.clone();
    out.initial_rows = case
        .initial_rows
        .iter()
        .enumerate()
        .filter_map(|(t, rows)| {
            let kept: Vec<_> = rows
                .rows
                .iter()
                .enumerate()
                .filter(|(r, _)| !gone.contains(&(t, *r)))
                .map(|(_, row)| row.clone())
                .collect();
            (!kept.is_empty()).then(|| TableRows {
                rows: kept,
                ..rows.clone()
            })
        })
        .collect();
    Some(out)
}

/// A row of a multi-row INSERT.
pub type InsertRowUnit = (StatementRef, usize);

pub fn insert_rows(case: &TestCase) -> Vec<InsertRowUnit> {
    let mut out = Vec::new();
    for (t, txn) in case.transactions.iter().enumerate() {
        for (s, statement) in txn.statements.iter().enumerate() {
            if let Statement::Insert(insert) = statement {
                if insert.rows.len() > 1 {
                    out.extend((0..insert.rows.len()).map(|r| (StatementRef::new(t, s), r)));
                }
            }
        }
    }
    out
}

/// Leaves out rows of INSERT statements; every INSERT keeps at least one.
pub fn without_insert_rows(case: &TestCase, gone: &BTreeSet<InsertRowUnit>) -> Option<TestCase> {
    let mut out = case.clone();
    for (t, txn) in out.transactions.iter_mut().enumerate() {
        for (s, statement) in txn.statements.iter_mut().enumerate() {
            let Statement::Insert(insert) = statement else {
                continue;
            };
            let at = StatementRef::new(t, s);
            let mut r = 0;
            insert.rows.retain(|_| {
                let keep = !gone.contains(&(at, r));
                r += 1;
                keep
            });
            if insert.rows.is_empty() {
                return None;
            }
        }
    }
    Some(out)
}

/// A part of the schema that may be unnecessary.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SchemaUnit {
    /// A table no statement names.
    Table(String),
    /// A secondary index, by table and index name.
    Index { table: String, index: String },
    /// A UNIQUE constraint, by table and position.
    Unique { table: String, position: usize },
    /// A column only INSERTs and initial rows mention.
    Column { table: String, column: String },
}

impl fmt::Display for SchemaUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaUnit::Table(t) => write!(f, "table {t}"),
            SchemaUnit::Index { table, index } => write!(f, "index {index} on {table}"),
            SchemaUnit::Unique { table, position } => {
                write!(f, "UNIQUE constraint {} of {table}", position + 1)
            }
            SchemaUnit::Column { table, column } => write!(f, "column {table}.{column}"),
        }
    }
}

/// Columns a statement uses other than by listing them in an INSERT.
fn columns_used(statement: &Statement, used: &mut BTreeSet<(String, String)>) {
    let Some(table) = statement.table() else {
        return;
    };
    let mut add = |e: &Expr| {
        for c in e.columns() {
            let t = c.table.clone().unwrap_or_else(|| table.to_string());
            used.insert((t, c.column.clone()));
        }
    };
    match statement {
        Statement::Select(s) => {
            s.filter.iter().for_each(&mut add);
            s.order_by.iter().for_each(&mut add);
            if let Projection::Exprs(exprs) = &s.projection {
                exprs.iter().for_each(&mut add);
            }
        }
        Statement::Update(u) => {
            u.filter.iter().for_each(&mut add);
            for a in &u.assignments {
                add(&a.value);
                add(&Expr::column(a.column.clone()));
            }
        }
        Statement::Delete(d) => d.filter.iter().for_each(&mut add),
        Statement::Insert(i) => i.rows.iter().flatten().for_each(&mut add),
        _ => {}
    }
}

pub fn schema_units(case: &TestCase) -> Vec<SchemaUnit> {
    let statements = || case.transactions.iter().flat_map(|t| &t.statements);
    // IR 1.1: a table read only through a join or a subquery is named too.
    let named: BTreeSet<&str> = statements()
        .flat_map(|s| s.table().into_iter().chain(s.tables_read()))
        .collect();
    let mut used = BTreeSet::new();
    statements().for_each(|s| columns_used(s, &mut used));
    // A statement in an IR 1.1 query form (aliases, subqueries) keeps every
    // column of every table it reads: its own columns are not followed here.
    for s in statements().filter(|s| s.uses_query_forms()) {
        for name in s.tables_read().into_iter().chain(s.table()) {
            if let Some(table) = case.schema.table(name) {
                for c in &table.columns {
                    used.insert((table.name.clone(), c.name.clone()));
                }
            }
        }
    }
    // Tables go first: a table that goes takes its indexes and columns along.
    let mut tables = Vec::new();
    let mut parts = Vec::new();
    for table in &case.schema.tables {
        if !named.contains(table.name.as_str()) {
            tables.push(SchemaUnit::Table(table.name.clone()));
            continue;
        }
        for index in &table.indexes {
            parts.push(SchemaUnit::Index {
                table: table.name.clone(),
                index: index.name.clone(),
            });
        }
        for position in 0..table.unique.len() {
            parts.push(SchemaUnit::Unique {
                table: table.name.clone(),
                position,
            });
        }
        let in_a_key = |c: &str| {
            table.primary_key.iter().any(|k| k == c)
                || table.unique.iter().flatten().any(|k| k == c)
                || table
                    .indexes
                    .iter()
                    .flat_map(|i| &i.columns)
                    .any(|k| k == c)
        };
        for column in &table.columns {
            if !in_a_key(&column.name) && !used.contains(&(table.name.clone(), column.name.clone()))
            {
                parts.push(SchemaUnit::Column {
                    table: table.name.clone(),
                    column: column.name.clone(),
                });
            }
        }
    }
    tables.extend(parts);
    tables
}

/// Keeps the values of `columns` whose name `keep` accepts, in every row.
fn drop_values<T>(columns: &mut Vec<String>, rows: &mut [Vec<T>], keep: impl Fn(&str) -> bool) {
    let mask: Vec<bool> = columns.iter().map(|c| keep(c)).collect();
    let mut i = 0;
    columns.retain(|_| {
        i += 1;
        mask[i - 1]
    });
    for row in rows {
        let mut i = 0;
        row.retain(|_| {
            i += 1;
            mask.get(i - 1).copied().unwrap_or(true)
        });
    }
}

/// Leaves out parts of the schema, and with a column its values everywhere.
pub fn without_schema(case: &TestCase, gone: &BTreeSet<SchemaUnit>) -> Option<TestCase> {
    let mut out = case.clone();
    let dropped_table = |name: &str| gone.contains(&SchemaUnit::Table(name.to_string()));
    let dropped_column = |table: &str, column: &str| {
        gone.contains(&SchemaUnit::Column {
            table: table.to_string(),
            column: column.to_string(),
        })
    };
    out.schema.tables.retain(|t| !dropped_table(&t.name));
    if out.schema.tables.is_empty() {
        return None;
    }
    out.initial_rows.retain(|r| !dropped_table(&r.table));
    for table in &mut out.schema.tables {
        let name = table.name.clone();
        table.indexes.retain(|i| {
            !gone.contains(&SchemaUnit::Index {
                table: name.clone(),
                index: i.name.clone(),
            })
        });
        let mut position = 0;
        table.unique.retain(|_| {
            position += 1;
            !gone.contains(&SchemaUnit::Unique {
                table: name.clone(),
                position: position - 1,
            })
        });
        table.columns.retain(|c| !dropped_column(&name, &c.name));
        if table.columns.is_empty() {
            return None;
        }
    }
    for rows in &mut out.initial_rows {
        let table = rows.table.clone();
        drop_values(&mut rows.columns, &mut rows.rows, |c| {
            !dropped_column(&table, c)
        });
    }
    for statement in out.transactions.iter_mut().flat_map(|t| &mut t.statements) {
        if let Statement::Insert(insert) = statement {
            let table = insert.table.clone();
            drop_values(&mut insert.columns, &mut insert.rows, |c| {
                !dropped_column(&table, c)
            });
            if insert.columns.is_empty() {
                return None;
            }
        }
    }
    Some(out)
}

/// One statement made simpler, keeping everything else.
pub struct Simplification {
    /// The statement simplified.
    pub at: StatementRef,
    /// What was done to it.
    pub what: String,
    pub case: TestCase,
}

/// Smaller versions of a predicate: none at all, or one side of AND / OR, or
/// an IN list with one element fewer.
fn smaller_filters(filter: &Expr) -> Vec<(String, Option<Expr>)> {
    let mut out = vec![("dropped the WHERE clause".to_string(), None)];
    match filter {
        Expr::Binary { op, left, right } if matches!(op, BinaryOp::And | BinaryOp::Or) => {
            let op = op.sql();
            out.push((
                format!("kept the left side of {op}"),
                Some((**left).clone()),
            ));
            out.push((
                format!("kept the right side of {op}"),
                Some((**right).clone()),
            ));
        }
        Expr::InList {
            operand,
            list,
            negated,
        } if list.len() > 1 => {
            for i in 0..list.len() {
                let mut shorter = list.clone();
                shorter.remove(i);
                out.push((
                    format!("dropped element {} of an IN list", i + 1),
                    Some(Expr::InList {
                        operand: operand.clone(),
                        list: shorter,
                        negated: *negated,
                    }),
                ));
            }
        }
        _ => {}
    }
    out
}

/// Every single-step simplification of the case's statements: a smaller
/// WHERE clause, or an UPDATE with one assignment fewer.
pub fn simplifications(case: &TestCase) -> Vec<Simplification> {
    let mut out = Vec::new();
    for (t, txn) in case.transactions.iter().enumerate() {
        for (s, statement) in txn.statements.iter().enumerate() {
            let at = StatementRef::new(t, s);
            let mut push = |what: String, replacement: Statement| {
                let mut case = case.clone();
                case.transactions[t].statements[s] = replacement;
                out.push(Simplification { at, what, case });
            };
            let filter = match statement {
                Statement::Select(x) => x.filter.as_ref(),
                Statement::Update(x) => x.filter.as_ref(),
                Statement::Delete(x) => x.filter.as_ref(),
                _ => None,
            };
            if let Some(filter) = filter {
                for (what, smaller) in smaller_filters(filter) {
                    let mut replacement = statement.clone();
                    match &mut replacement {
                        Statement::Select(x) => x.filter = smaller,
                        Statement::Update(x) => x.filter = smaller,
                        Statement::Delete(x) => x.filter = smaller,
                        _ => unreachable!("only statements with a filter get here"),
                    }
                    push(what, replacement);
                }
            }
            if let Statement::Update(update) = statement {
                if update.assignments.len() > 1 {
                    for (i, a) in update.assignments.iter().enumerate() {
                        let mut replacement = update.clone();
                        replacement.assignments.remove(i);
                        push(
                            format!("dropped the assignment to {}", a.column),
                            Statement::Update(replacement),
                        );
                    }
                }
            }
        }
    }
    out
}

/// Every UPDATE made a locking read of the rows it would change
/// (`SELECT * … FOR UPDATE` with its WHERE clause): an UPDATE that only
/// takes locks for the finding reads so, and the columns it assigned may
/// then go. The reducer tries these last, when nothing else can go: made
/// earlier, a locking read can keep a write elsewhere needed that would
/// otherwise go.
pub fn locking_reads(case: &TestCase) -> Vec<Simplification> {
    let mut out = Vec::new();
    for (t, txn) in case.transactions.iter().enumerate() {
        for (s, statement) in txn.statements.iter().enumerate() {
            let Statement::Update(update) = statement else {
                continue;
            };
            let mut case = case.clone();
            case.transactions[t].statements[s] = Statement::Select(Select {
                table: update.table.clone(),
                projection: Projection::All,
                filter: update.filter.clone(),
                order_by: Vec::new(),
                lock: RowLock::ForUpdate,
            });
            out.push(Simplification {
                at: StatementRef::new(t, s),
                what: "made the UPDATE a locking read (SELECT * … FOR UPDATE)".to_string(),
                case,
            });
        }
    }
    out
}
