//! From the statements of a script, each with its session, to a case: the
//! set-up statements make the schema and the initial rows; each session's
//! statements make its transactions; the order they are written in is the
//! submitted order.

use crate::error::{Located, ScriptError};
use crate::split::is_session_name;
use crate::translate::{Parsed, Translator};
use crate::ImportOptions;
use std::collections::BTreeMap;
use txlab_plugin_api::ir::*;

struct Session {
    name: String,
    /// Set by SET … TRANSACTION ISOLATION LEVEL.
    level: Option<IsolationLevel>,
    /// The open transaction and the line of its BEGIN.
    open: Option<(usize, usize)>,
    transactions: usize,
}

struct Pending {
    session: usize,
    txn: Transaction,
}

/// Collects a script's statements in the order written.
pub struct Builder<'a> {
    file: &'a str,
    options: &'a ImportOptions,
    pub translator: Translator,
    initial_rows: Vec<TableRows>,
    sessions: Vec<Session>,
    pending: Vec<Pending>,
    /// (pending transaction, statement index) in the order written.
    order: Vec<(usize, usize)>,
    /// Levels per session from a header comment (`-- isolation: T1 …`).
    pub header_levels: BTreeMap<String, IsolationLevel>,
    pub seed: u64,
    pub generator: String,
    /// The pause the case needs (`-- pace: 200 ms …`), from a header comment.
    pub pace_ms: Option<u64>,
    pub notes: Vec<String>,
    defaulted: bool,
    /// A level set in the set-up, before any session: every session's.
    setup_level: Option<IsolationLevel>,
}

impl<'a> Builder<'a> {
    pub fn new(file: &'a str, options: &'a ImportOptions) -> Self {
        Builder {
            file,
            options,
            translator: Translator::new(options.family),
            initial_rows: Vec::new(),
            sessions: Vec::new(),
            pending: Vec::new(),
            order: Vec::new(),
            header_levels: BTreeMap::new(),
            seed: 0,
            generator: "import".to_string(),
            pace_ms: None,
            notes: Vec::new(),
            defaulted: false,
            setup_level: None,
        }
    }

    fn at(&self, line: usize, session: Option<&'a str>) -> Located<'a> {
        Located {
            file: self.file,
            line,
            session,
        }
    }

    /// An error at `line` of the script, outside any session.
    pub fn error(&self, line: usize, message: impl Into<String>) -> ScriptError {
        self.at(line, None).error(message)
    }

    /// Whether a session statement came already.
    pub fn sessions_began(&self) -> bool {
        !self.order.is_empty()
    }

    /// A statement before the sessions: CREATE TABLE, CREATE INDEX, INSERT
    /// of constants (the initial rows), DROP and settings (ignored).
    pub fn setup(&mut self, sql: &str, line: usize) -> Result<(), ScriptError> {
        let at = self.at(line, None);
        let parsed = self.translator.statement(sql).map_err(|p| at.problem(p))?;
        match parsed {
            Parsed::CreateTable(table) => {
                if self.translator.schema.table(&table.name).is_some() {
                    return Err(at.error(format!("table `{}` is created twice", table.name)));
                }
                self.translator.schema.tables.push(table);
            }
            Parsed::CreateIndex { table, index } => {
                let t = self
                    .translator
                    .schema
                    .tables
                    .iter_mut()
                    .find(|t| t.name == table)
                    .expect("checked by the translator");
                t.indexes.push(index);
            }
            Parsed::Statement(Statement::Insert(insert))
                if insert.on_conflict == OnConflict::Error =>
            {
                let rows = insert
                    .rows
                    .into_iter()
                    .map(|row| {
                        row.into_iter()
                            .map(|e| match e {
                                Expr::Literal(v) => Ok(v),
                                _ => Err(at.error(
                                    "the initial rows must be constants (an INSERT in the set-up loads them)",
                                )),
                            })
                            .collect::<Result<Vec<_>, _>>()
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                self.initial_rows.push(TableRows {
                    table: insert.table,
                    columns: insert.columns,
                    rows,
                });
            }
            Parsed::Ignored(_) => {}
            Parsed::SetLevel(level) => self.setup_level = Some(level),
            Parsed::Begin { .. } | Parsed::Statement(_) => {
                let what = sql.split_whitespace().next().unwrap_or("").to_uppercase();
                return Err(at.error(format!(
                    "`{what}` has no session marker: session statements are marked with their session (`-- T1:` before the statement, or `/* T1 */` as in repro.sql); only CREATE TABLE, CREATE INDEX and INSERT … VALUES come before them"
                )));
            }
        }
        Ok(())
    }

    /// Makes the session known, so that sessions keep the order they were
    /// declared in (a spec's) even before their first statement.
    pub fn declare(&mut self, name: &str) -> usize {
        if let Some(i) = self.sessions.iter().position(|s| s.name == name) {
            return i;
        }
        self.sessions.push(Session {
            name: name.to_string(),
            level: None,
            open: None,
            transactions: 0,
        });
        self.sessions.len() - 1
    }

    fn level_for(&mut self, session: usize, stated: Option<IsolationLevel>) -> IsolationLevel {
        let s = &self.sessions[session];
        if let Some(level) = stated
            .or(s.level)
            .or(self.setup_level)
            .or_else(|| self.header_levels.get(&s.name).copied())
            .or(self.options.level)
        {
            return level;
        }
        let level = self
            .options
            .default_level
            .unwrap_or(IsolationLevel::Serializable);
        if !self.defaulted {
            self.defaulted = true;
            self.notes.push(format!(
                "{}: {} (and any other session without one) states no isolation level; using {level}, the dialect's default (--level sets another)",
                self.file, s.name
            ));
        }
        level
    }

    fn start(&mut self, session: usize, isolation: IsolationLevel, kind: TxnKind) -> usize {
        self.sessions[session].transactions += 1;
        if self.sessions[session].transactions == 2 {
            self.notes.push(format!(
                "{}: session {} runs more than one transaction; txlab runs each on a connection of its own, in the order written",
                self.file, self.sessions[session].name
            ));
        }
        self.pending.push(Pending {
            session,
            txn: Transaction {
                isolation,
                kind,
                statements: Vec::new(),
            },
        });
        self.pending.len() - 1
    }

    fn push(&mut self, txn: usize, statement: Statement) {
        self.pending[txn].txn.statements.push(statement);
        self.order
            .push((txn, self.pending[txn].txn.statements.len() - 1));
    }

    /// A statement of session `name`.
    pub fn session(&mut self, name: &'a str, sql: &str, line: usize) -> Result<(), ScriptError> {
        let at = self.at(line, Some(name));
        let parsed = self.translator.statement(sql).map_err(|p| at.problem(p))?;
        let s = self.declare(name);
        let open = self.sessions[s].open;
        match parsed {
            Parsed::Begin { level, snapshot } => {
                if let Some((_, begun)) = open {
                    return Err(at.error(format!(
                        "BEGIN while the transaction begun at line {begun} is open"
                    )));
                }
                let isolation = self.level_for(s, level);
                let t = self.start(s, isolation, TxnKind::Explicit);
                self.sessions[s].open = Some((t, line));
                self.push(
                    t,
                    if snapshot {
                        Statement::BeginSnapshot
                    } else {
                        Statement::Begin
                    },
                );
            }
            Parsed::SetLevel(level) => {
                if open.is_some() {
                    return Err(at.error(
                        "SET TRANSACTION ISOLATION LEVEL inside a transaction: set it before BEGIN",
                    ));
                }
                self.sessions[s].level = Some(level);
            }
            Parsed::Ignored(_) => {}
            Parsed::CreateTable(_) | Parsed::CreateIndex { .. } => {
                return Err(at.error(
                    "CREATE in a session is not supported by txlab's case format: put the set-up before the session statements",
                ));
            }
            Parsed::Statement(statement) if statement.is_end() => {
                let Some((t, _)) = open else {
                    return Err(
                        at.error(format!("{} outside a transaction", statement.kind_name()))
                    );
                };
                self.push(t, statement);
                self.sessions[s].open = None;
            }
            Parsed::Statement(statement) => match open {
                Some((t, _)) => self.push(t, statement),
                None => {
                    // Outside BEGIN … COMMIT a statement commits on its own.
                    let isolation = self.level_for(s, None);
                    let t = self.start(s, isolation, TxnKind::Autocommit);
                    self.push(t, statement);
                }
            },
        }
        Ok(())
    }

    /// The case: transactions numbered session by session (by the sessions'
    /// numbers when every name is `T<n>`/`S<n>`, else in order of
    /// declaration), each session's in the order written.
    pub fn finish(self) -> Result<(TestCase, Vec<String>), ScriptError> {
        for s in &self.sessions {
            if let Some((_, begun)) = s.open {
                return Err(ScriptError {
                    file: self.file.to_string(),
                    line: begun,
                    session: Some(s.name.clone()),
                    message: "the transaction begun here never ends: add COMMIT or ROLLBACK".into(),
                });
            }
        }
        if self.pending.is_empty() {
            return Err(ScriptError {
                file: self.file.to_string(),
                line: 0,
                session: None,
                message: "no session statements: mark each statement of a session with `-- T1:` (see docs/import.md)".into(),
            });
        }
        let mut session_order: Vec<usize> = (0..self.sessions.len()).collect();
        if self.sessions.iter().all(|s| is_session_name(&s.name)) {
            session_order.sort_by_key(|&i| self.sessions[i].name[1..].parse::<u64>().unwrap_or(0));
        }
        let rank: Vec<usize> = {
            let mut rank = vec![0; self.sessions.len()];
            for (r, &i) in session_order.iter().enumerate() {
                rank[i] = r;
            }
            rank
        };
        let mut txn_order: Vec<usize> = (0..self.pending.len()).collect();
        txn_order.sort_by_key(|&t| (rank[self.pending[t].session], t));
        let mut new_index = vec![0; self.pending.len()];
        for (n, &t) in txn_order.iter().enumerate() {
            new_index[t] = n;
        }
        let submitted_order = self
            .order
            .iter()
            .map(|&(t, s)| StatementRef::new(new_index[t], s))
            .collect();
        let mut pending: Vec<Option<Pending>> = self.pending.into_iter().map(Some).collect();
        let transactions = txn_order
            .iter()
            .map(|&t| pending[t].take().expect("each once").txn)
            .collect();
        let case = TestCase {
            seed: self.seed,
            generator: self.generator,
            schema: self.translator.schema,
            initial_rows: self.initial_rows,
            transactions,
            submitted_order,
            intent: None,
            pace_ms: self.pace_ms,
        };
        case.validate().map_err(|e| ScriptError {
            file: self.file.to_string(),
            line: 0,
            session: None,
            message: format!("the case is invalid: {e}"),
        })?;
        Ok((case, self.notes))
    }
}
