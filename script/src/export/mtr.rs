//! A mysql-test case, as MariaDB's and MySQL's bug reports and regression
//! tests are written: the set-up on the default connection, one connection
//! per transaction (`--connect (con1,localhost,root,,test)`; `conN` runs
//! `TN`), the statements in the order they ran, a statement that blocked
//! sent with `--send` and collected with `--reap` after the statement that
//! released it, and the final state read back.
//!
//! Before the next statement, the test waits until the blocked one has
//! settled into its wait: `include/wait_condition.inc` polls
//! `information_schema.processlist` until the connection is seen executing
//! the statement (MariaDB 10.11 shows a row-lock wait as `Updating` for
//! UPDATE and DELETE, `Update` for INSERT and REPLACE, `Sending data` for a
//! scanning SELECT … FOR UPDATE/LOCK IN SHARE MODE and INSERT … SELECT,
//! `Statistics` for a point lookup; MySQL 8.0 as `executing` or `updating`).
//! The case's pace becomes `--real_sleep` after each blocked statement and
//! each COMMIT or ROLLBACK.
//!
//! The `.result` beside it is the output mysqltest prints when the server
//! behaves as txlab observed ([`super::mtr_result`]); a statement that failed
//! is preceded by `--error 0,<code>` so the test runs to its end either way.

use super::mtr_result::{expected_error, outcome};
use super::order::{blocked, execution_order, resumed_after, was_sent};
use super::{
    final_state_lines, levels_line, origin_line, pace_line, settings, setup_sql, sql_of,
    with_semicolon, ExportInput, ExportOptions,
};
use crate::repro::observed;
use std::fmt::Write as _;
use txlab_plugin_api::ir::*;

/// The processlist states of a statement waiting for a row lock.
const WAIT_STATES: &str =
    "'Updating', 'Update', 'Sending data', 'Statistics', 'executing', 'Searching rows for update'";

/// The `.test` and `.result` texts, written side by side.
pub(crate) struct Plan {
    pub test: String,
    pub result: String,
}

struct Writer<'a, 'b> {
    input: &'b ExportInput<'a>,
    test: String,
    result: String,
    current: String,
    /// Blocked statements sent and not yet reaped.
    pending: Vec<StatementRef>,
}

fn conn(txn: usize) -> String {
    format!("con{}", txn + 1)
}

impl Writer<'_, '_> {
    fn line(&mut self, test: &str) {
        let _ = writeln!(self.test, "{test}");
    }

    fn echo(&mut self, text: &str) {
        self.result.push_str(text);
    }

    fn comment(&mut self, text: &str) {
        for l in text.lines() {
            let _ = writeln!(self.test, "# {l}");
        }
    }

    fn switch(&mut self, to: &str) {
        if self.current != to {
            self.line(&format!("--connection {to}"));
            self.echo(&format!("connection {to};\n"));
            self.current = to.to_string();
        }
    }

    /// A statement run and answered at once.
    fn statement(&mut self, sql: &str, result: Option<&Outcome>) {
        if let Some(codes) = result.and_then(expected_error) {
            self.line(&format!("--error {codes}"));
        }
        let sql = with_semicolon(sql);
        self.line(&sql);
        self.echo(&format!("{sql}\n"));
        if let Some(o) = result {
            self.echo(&outcome(o));
        }
    }

    fn sleep(&mut self) {
        if let Some(ms) = self.input.case.pace_ms {
            self.line(&format!("--real_sleep {}", seconds(ms)));
        }
    }

    fn outcome_of(&self, at: StatementRef) -> &Outcome {
        &self
            .input
            .history
            .record(at)
            .expect("checked shape")
            .outcome
    }

    fn run(&mut self, at: StatementRef) {
        let input = self.input;
        let history = input.history;
        let record = history.record(at).expect("checked shape");
        self.comment(&format!("{at}: {}", observed(record)));
        self.switch(&conn(at.txn()));
        if blocked(history, at) {
            self.line("--send");
            let sql = with_semicolon(sql_of(input, at));
            self.line(&sql);
            self.echo(&format!("{sql}\n"));
            self.switch("default");
            self.line(&format!(
                "let $wait_condition= SELECT COUNT(*) = 1 FROM information_schema.processlist WHERE id = ${}_id AND state IN ({WAIT_STATES});",
                conn(at.txn())
            ));
            self.line("--source include/wait_condition.inc");
            self.sleep();
            self.pending.push(at);
        } else {
            self.statement(sql_of(input, at), Some(&record.outcome));
            self.done(at);
        }
    }

    fn reap(&mut self, at: StatementRef) {
        self.pending.retain(|&p| p != at);
        self.switch(&conn(at.txn()));
        let o = self.outcome_of(at).clone();
        if let Some(codes) = expected_error(&o) {
            self.line(&format!("--error {codes}"));
        }
        self.line("--reap");
        self.echo(&outcome(&o));
        self.done(at);
    }

    /// After `at` replied: the roll-back txlab sends after an error that
    /// ended the transaction, the statements `at` let go on, and the pace
    /// after a transaction's end.
    fn done(&mut self, at: StatementRef) {
        let input = self.input;
        let stmt = input.case.statement(at).expect("checked shape");
        let ended_by_error = self
            .outcome_of(at)
            .error()
            .is_some_and(|e| e.scope == ErrorScope::Transaction);
        if ended_by_error && !stmt.is_end() {
            self.comment("txlab rolls back a transaction that an error ended");
            self.switch(&conn(at.txn()));
            let rollback = input.rendered.control.rollback.clone();
            self.statement(&rollback, None);
        }
        let order = &input.history.completion_order;
        let mut resumed: Vec<StatementRef> = self
            .pending
            .iter()
            .copied()
            .filter(|&p| resumed_after(input.history, p) == Some(at))
            .collect();
        resumed.sort_by_key(|p| order.iter().position(|x| x == p));
        for p in resumed {
            self.reap(p);
        }
        if stmt.is_end() || ended_by_error {
            self.sleep();
        }
    }
}

fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// A database name as `USE` and `--connect` take it.
fn database_name(name: &str) -> String {
    if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

pub(crate) fn plan(input: &ExportInput<'_>, options: &ExportOptions) -> Plan {
    let case = input.case;
    let history = input.history;
    let mut w = Writer {
        input,
        test: String::new(),
        result: String::new(),
        current: "default".into(),
        pending: Vec::new(),
    };
    w.comment(input.lead);
    w.comment(&origin_line(input));
    w.comment(&levels_line(case));
    if let Some(pace) = pace_line(case) {
        w.comment(&pace);
    }
    w.comment(
        "\nA mysql-test case: put it in a suite's t/ directory with the .result beside it (or in r/), then\n  ./mtr --suite=DIR NAME                        (mysql-test starts a server of its own)\n  ./mtr --extern socket=SOCKET --suite=DIR NAME (a server that runs already)\nThe .result is the output when the server behaves as txlab observed; ./mtr --record NAME rewrites it.\nconN runs transaction TN; the statements come in the order they ran. A statement that blocked is\nsent with --send and collected with --reap after the statement that let it go on.\ntxlab records no warnings, so they are not shown.",
    );
    w.line("");
    w.line("--disable_warnings");
    if input.dialect != "tidb" {
        w.line("--source include/have_innodb.inc");
    }
    let database = options.database.as_deref().map(database_name);
    if let Some(db) = &database {
        w.statement(&format!("USE {db}"), None);
    }
    for sql in setup_sql(input) {
        w.statement(sql, None);
    }
    w.line("");
    let db = database.as_deref().unwrap_or("test");
    for (t, txn) in case.transactions.iter().enumerate() {
        let name = conn(t);
        w.line(&format!("--connect ({name},localhost,root,,{db})"));
        w.echo(&format!("connect  {name},localhost,root,,{db};\n"));
        w.current = name.clone();
        let kept = settings::kept(&input.rendered.transactions[t].session.statements, history);
        for sql in kept {
            w.statement(&sql, None);
        }
        w.statement(
            &format!(
                "SET SESSION TRANSACTION ISOLATION LEVEL {}",
                txn.isolation.sql()
            ),
            None,
        );
        let blocks = (0..txn.statements.len()).any(|s| blocked(history, StatementRef::new(t, s)));
        if blocks {
            w.line(&format!("let ${name}_id= `SELECT CONNECTION_ID()`;"));
        }
    }
    w.line("");
    for at in execution_order(case, history) {
        if let Some(&p) = w.pending.iter().find(|p| p.txn() == at.txn()) {
            w.reap(p);
        }
        if was_sent(history, at) {
            w.run(at);
        } else {
            w.comment(&format!(
                "{at} ({}) was not sent: its transaction had already ended",
                case.kind_name(at)
            ));
        }
    }
    while let Some(&p) = w.pending.first() {
        w.reap(p);
    }
    w.line("");
    w.switch("default");
    for t in 0..case.transactions.len() {
        let name = conn(t);
        w.line(&format!("--disconnect {name}"));
        w.echo(&format!("disconnect {name};\n"));
    }
    let state = final_state_lines(history);
    if !state.is_empty() {
        w.comment("The final state txlab observed:");
        for l in &state {
            w.comment(l);
        }
    }
    for q in &input.rendered.read_state {
        let rows = history
            .final_state
            .as_ref()
            .and_then(|s| s.table(&q.table))
            .map(|t| Outcome::Rows {
                columns: t.columns.clone(),
                rows: t.rows.clone(),
            });
        w.statement(&q.sql, rows.as_ref());
    }
    for sql in &input.rendered.drop {
        w.statement(sql, None);
    }
    Plan {
        test: w.test,
        result: w.result,
    }
}
