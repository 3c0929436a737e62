//! Running one statement alone on a materialised view (Troc §III-E): the view's
//! rows are loaded into the scratch database's copy of the table, and the
//! statement runs there in autocommit mode on a session of its own.
//!
//! A view may hold two rows with one UNIQUE key: a snapshot keeps a row
//! another transaction deleted and committed, and the transaction's own
//! INSERT of the same key went through (the key check reads the latest
//! rows), so its reads return both, on InnoDB (two records of the clustered
//! index) as on PostgreSQL (two heap tuples). Such a view is loaded into a
//! copy of the table without its UNIQUE keys: reads on it are what the DBMS
//! shows; a write's key checks on it would mean nothing, so a write there is
//! no model (undecided). The same with the key a clustered index stores the
//! rows by (the PRIMARY KEY, else a UNIQUE key of NOT NULL columns) differs
//! by engine (MariaDB 10.11 shows only the transaction's own row: InnoDB
//! reuses the deleted record of that key, whose history is the old row;
//! PostgreSQL keeps both tuples; checked by hand on MariaDB 10.11 for a
//! PRIMARY KEY, a NOT NULL UNIQUE key without one, and a nullable UNIQUE
//! key), so such a view stays undecided.

use crate::versions::{Rid, Row, View};
use std::collections::BTreeMap;
use txlab_plugin_api::prelude::*;

/// Why a view run could not serve as a model.
#[derive(Debug)]
pub enum ScratchError {
    /// The view cannot be loaded or read back; the case is undecided.
    Model(String),
    /// The scratch database itself failed: a tool error.
    Host(PluginError),
}

impl From<PluginError> for ScratchError {
    fn from(e: PluginError) -> Self {
        ScratchError::Host(e)
    }
}

/// What a statement did on its view.
#[derive(Clone, Debug)]
pub struct ViewRun {
    pub outcome: Outcome,
    pub before: View,
    pub after: View,
    /// Rows an UPDATE or DELETE matched, from `SELECT rid WHERE filter` before it ran.
    pub matched: Vec<Rid>,
}

pub struct Scratch<'a> {
    db: &'a mut dyn HostDb,
    schema: &'a Schema,
    table: &'a Table,
    rid: usize,
    sessions: BTreeMap<IsolationLevel, u32>,
    /// What the scratch table holds now, when known.
    loaded: Option<View>,
    /// The table without its keys, for views that hold a key twice.
    keyless: Schema,
    /// The scratch table is the keyless one now.
    relaxed: bool,
}

impl<'a> Scratch<'a> {
    pub fn new(db: &'a mut dyn HostDb, schema: &'a Schema, table: &'a Table, rid: usize) -> Self {
        let mut keyless = schema.clone();
        for t in &mut keyless.tables {
            if t.name == table.name {
                t.unique.clear();
            }
        }
        Scratch {
            db,
            schema,
            table,
            rid,
            sessions: BTreeMap::new(),
            loaded: None,
            keyless,
            relaxed: false,
        }
    }

    /// Closes every session opened; call it whatever happened.
    pub fn close(&mut self) -> Result<(), PluginError> {
        let mut first = Ok(());
        for (_, id) in std::mem::take(&mut self.sessions) {
            if let Err(e) = self.db.close_session(id) {
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
    }

    fn session(&mut self, level: IsolationLevel) -> Result<u32, PluginError> {
        if let Some(&id) = self.sessions.get(&level) {
            return Ok(id);
        }
        let id = self.db.open_session(level)?;
        self.sessions.insert(level, id);
        Ok(id)
    }

    fn load(&mut self, view: &View) -> Result<(), ScratchError> {
        if self.loaded.as_ref() == Some(view) {
            return Ok(());
        }
        self.loaded = None;
        let rows = TableRows {
            table: self.table.name.clone(),
            columns: self.table.column_names(),
            rows: view.values().cloned().collect(),
        };
        let clustering = clustering_key(self.table);
        if holds_twice(clustering, self.table, view) {
            return Err(ScratchError::Model(format!(
                "the view holds two rows with one value of `{}`'s key ({}) that InnoDB would cluster the table on (a snapshot row another transaction deleted, and the transaction's own row of that key); engines differ in what a read shows then (InnoDB reuses the deleted record, PostgreSQL keeps both rows)",
                self.table.name,
                clustering.join(", ")
            )));
        }
        let relaxed = self
            .table
            .unique
            .iter()
            .any(|key| holds_twice(key, self.table, view));
        let schema = if relaxed { &self.keyless } else { self.schema };
        match self.db.reset(schema, &[rows]) {
            Ok(()) => {
                self.loaded = Some(view.clone());
                self.relaxed = relaxed;
                Ok(())
            }
            // The view breaks a constraint of the table (a snapshot plus own
            // writes can): it cannot be materialised, so it is no model.
            Err(e) => Err(ScratchError::Model(format!(
                "the view cannot be loaded into the scratch table: {e}"
            ))),
        }
    }

    fn read(&mut self) -> Result<View, ScratchError> {
        let state = self.db.read_state()?;
        let table = state.table(&self.table.name).ok_or_else(|| {
            ScratchError::Host(PluginError::host(format!(
                "the scratch database has no table `{}`",
                self.table.name
            )))
        })?;
        let positions = self
            .table
            .columns
            .iter()
            .map(|c| table.columns.iter().position(|n| n == &c.name))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                ScratchError::Host(PluginError::host(format!(
                    "the scratch table `{}` has columns {:?}",
                    self.table.name, table.columns
                )))
            })?;
        let mut view = View::new();
        for r in &table.rows {
            let row: Row = positions.iter().map(|&p| r[p].clone()).collect();
            let rid = rid_of(&row[self.rid])?;
            if view.insert(rid, row).is_some() {
                return Err(ScratchError::Model(format!(
                    "row id {rid} appears twice in the scratch table"
                )));
            }
        }
        Ok(view)
    }

    /// `view` as the DBMS stores it: loaded and read back.
    pub fn normalise(&mut self, view: &View) -> Result<View, ScratchError> {
        self.load(view)?;
        let read = self.read()?;
        self.loaded = Some(read.clone());
        Ok(read)
    }

    /// Row ids of the rows of `view` that `filter` keeps.
    pub fn matching(
        &mut self,
        level: IsolationLevel,
        view: &View,
        filter: Option<&Expr>,
    ) -> Result<Result<Vec<Rid>, Outcome>, ScratchError> {
        let Some(filter) = filter else {
            return Ok(Ok(view.keys().copied().collect()));
        };
        self.load(view)?;
        let probe = Statement::Select(Select {
            table: self.table.name.clone(),
            projection: Projection::Exprs(vec![Expr::column(
                self.table.columns[self.rid].name.clone(),
            )]),
            filter: Some(filter.clone()),
            order_by: vec![],
            lock: RowLock::None,
        });
        let session = self.session(level)?;
        match self.db.execute(session, &probe)? {
            Outcome::Rows { rows, .. } => {
                let mut rids = rows
                    .iter()
                    .map(|r| {
                        r.first()
                            .map_or(Err(ScratchError::Model("an empty row".into())), rid_of)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                rids.sort_unstable();
                Ok(Ok(rids))
            }
            other => Ok(Err(other)),
        }
    }

    /// Runs `statement` alone on `view` and reads the table back.
    pub fn run(
        &mut self,
        level: IsolationLevel,
        view: &View,
        statement: &Statement,
    ) -> Result<ViewRun, ScratchError> {
        let matched = match statement {
            Statement::Update(u) => self
                .matching(level, view, u.filter.as_ref())?
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        self.load(view)?;
        if self.relaxed && statement.is_write() {
            return Err(ScratchError::Model(format!(
                "the statement's view holds two rows with one key of `{}` (a snapshot row another transaction deleted, and the transaction's own row of that key): a write's key checks on it mean nothing",
                self.table.name
            )));
        }
        let session = self.session(level)?;
        let outcome = self.db.execute(session, statement)?;
        let after = if statement.is_write() {
            self.loaded = None;
            let after = self.read()?;
            self.loaded = Some(after.clone());
            after
        } else {
            view.clone()
        };
        Ok(ViewRun {
            outcome,
            before: view.clone(),
            after,
            matched,
        })
    }
}

/// The key a clustered-index engine stores the table's rows by: the primary
/// key, else the first UNIQUE key whose columns are all NOT NULL (InnoDB:
/// "the first UNIQUE index where all the key columns are NOT NULL", MySQL
/// manual, innodb-index-types) — a UNIQUE constraint of the table, else a
/// UNIQUE index created after it, which InnoDB makes the clustered index of
/// a table that has none (seen on MySQL 9.7: an UPDATE's scan skipped a row
/// inserted with a smaller value of such an index's key while it waited).
pub(crate) fn clustering_key(table: &Table) -> &[String] {
    if !table.primary_key.is_empty() {
        return &table.primary_key;
    }
    let not_null = |c: &String| {
        table
            .columns
            .iter()
            .any(|col| col.name == *c && col.not_null)
    };
    table
        .unique
        .iter()
        .chain(
            table
                .indexes
                .iter()
                .filter(|i| i.unique)
                .map(|i| &i.columns),
        )
        .find(|key| !key.is_empty() && key.iter().all(not_null))
        .map_or(&[], Vec::as_slice)
}

/// Whether two rows of `view` share a value of any key of `table`: its
/// PRIMARY KEY, a UNIQUE constraint or a UNIQUE index.
pub(crate) fn holds_key_twice(table: &Table, view: &View) -> bool {
    std::iter::once(table.primary_key.as_slice())
        .chain(table.unique.iter().map(Vec::as_slice))
        .chain(
            table
                .indexes
                .iter()
                .filter(|i| i.unique)
                .map(|i| i.columns.as_slice()),
        )
        .any(|key| holds_twice(key, table, view))
}

/// Whether two rows of `view` share a value of `key`, a key of `table`
/// (NULLs never collide).
fn holds_twice(key: &[String], table: &Table, view: &View) -> bool {
    let Some(positions) = key
        .iter()
        .map(|c| table.columns.iter().position(|col| col.name == *c))
        .collect::<Option<Vec<_>>>()
    else {
        return false;
    };
    if positions.is_empty() {
        return false;
    }
    let mut keys: Vec<Vec<Value>> = view
        .values()
        .map(|row| {
            positions
                .iter()
                .map(|&p| row[p].clone())
                .collect::<Vec<_>>()
        })
        .filter(|k| !k.iter().any(|v| matches!(v, Value::Null)))
        .collect();
    keys.sort_by(|a, b| cmp_rows(a, b));
    keys.windows(2)
        .any(|w| cmp_rows(&w[0], &w[1]) == std::cmp::Ordering::Equal)
}

fn rid_of(value: &Value) -> Result<Rid, ScratchError> {
    match value {
        Value::Int(i) => Ok(*i),
        Value::Decimal(s) => s
            .parse()
            .map_err(|_| ScratchError::Model(format!("row id `{s}` is not an integer"))),
        other => Err(ScratchError::Model(format!(
            "row id {other} is not an integer"
        ))),
    }
}

/// Reads the row ids of the case's initial rows and the final state.
pub fn rows_by_rid(table: &Table, rid: usize, state: &TableState) -> Result<View, String> {
    let positions = table
        .columns
        .iter()
        .map(|c| state.columns.iter().position(|n| n == &c.name))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| {
            format!(
                "table `{}` was read with columns {:?}, not {:?}",
                table.name,
                state.columns,
                table.column_names()
            )
        })?;
    let mut view = View::new();
    for r in &state.rows {
        let row: Row = positions.iter().map(|&p| r[p].clone()).collect();
        let rid = match rid_of(&row[rid]) {
            Ok(rid) => rid,
            Err(ScratchError::Model(m)) => return Err(m),
            Err(ScratchError::Host(e)) => return Err(e.message),
        };
        if view.insert(rid, row).is_some() {
            return Err(format!("row id {rid} appears twice in `{}`", table.name));
        }
    }
    Ok(view)
}
