//! Hermitage's tests (Kleppmann, `ept/hermitage`) on the live MariaDB and
//! PostgreSQL, at every isolation level each dialect offers, through the real
//! host and the `isorel` oracle.
//!
//! Each test is one of Hermitage's schedules as an IR case: the table
//! `test (id INT PRIMARY KEY, value INT)` with rows (1, 10) and (2, 20), two or
//! three transactions, and Hermitage's statement order as the submitted order.
//! The schedule executor finds the statements that block and resumes them when
//! a transaction ends, so the same order serves every server and level. For
//! every cell (server setting, level, test) the test records what happened
//! (blocked statements, aborted and committed transactions), the oracle's
//! verdict, and the anomalies IsoRel inferred with what the standard model
//! (Adya) and the vendor model say; it prints the table and writes it, with
//! the details, to `target/hermitage.md` (docs/hermitage.md carries one run).
//!
//! It asserts that the observed/prevented cells are the matrix measured on
//! this machine with an independent harness (docs/hermitage.md), that PostgreSQL
//! gives no finding, that MariaDB's default REPEATABLE READ shows the lost
//! update as a vendor-permitted anomaly, and that both models' answers agree
//! with Adya's table. Where IsoRel cannot see a cell (predicate dependencies)
//! it asserts what IsoRel does see, and the server's behaviour is read off the
//! results instead.
//!
//! The servers: `TXLAB_MYSQL_URL` (default `mysql://root@127.0.0.1:3306`) and
//! `TXLAB_PG_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`). A
//! server that is unreachable is skipped, saying why, unless
//! `TXLAB_REQUIRE_LIVE=1`.
//!
//! Run it with `cargo test -p txlab-host --test hermitage -- --nocapture`.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use txlab_history as h;
use txlab_host::config::LoadedPipeline;
use txlab_host::run::{CaseRunner, Evaluated};
use txlab_host::setup::{Environment, Resolved};
use txlab_loader::registry::{search_dirs, Registry};
use txlab_oracle_isorel::IsorelConfig;
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::live;

// ---------------------------------------------------------------------------
// The schedules
// ---------------------------------------------------------------------------

const T1: usize = 0;
const T2: usize = 1;
const T3: usize = 2;

/// The IR has no `%`: Hermitage's `value % 3 = 0` and `value % 5 = 0` are
/// written as IN lists of the multiples among the values these schedules
/// can produce (0, 10, 11, 12, 18, 19, 20, 21, 22, 25, 30, 42, 101), so they
/// select the same rows. Both are full scans of an unindexed column, as `%` is, so they
/// take the same locks.
const MULTIPLES_OF_3: [i64; 6] = [0, 12, 18, 21, 30, 42];
const MULTIPLES_OF_5: [i64; 5] = [0, 10, 20, 25, 30];

fn id_is(id: i64) -> Option<Expr> {
    Some(eq(c("id"), int(id)))
}

fn value_is(v: i64) -> Option<Expr> {
    Some(eq(c("value"), int(v)))
}

fn value_in(list: &[i64]) -> Option<Expr> {
    Some(in_list(
        c("value"),
        list.iter().map(|&v| int(v)).collect(),
        false,
    ))
}

/// `SELECT * FROM test [WHERE …] ORDER BY id`.
fn sel(filter: Option<Expr>) -> Statement {
    select("test", filter, vec![c("id")])
}

/// `UPDATE test SET value = v WHERE id = id`.
fn set(id: i64, v: i64) -> Statement {
    update("test", vec![("value", int(v))], id_is(id))
}

/// `UPDATE test SET value = value + n [WHERE …]`.
fn add(n: i64, filter: Option<Expr>) -> Statement {
    update(
        "test",
        vec![("value", bin(BinaryOp::Add, c("value"), int(n)))],
        filter,
    )
}

fn ins(id: i64, v: i64) -> Statement {
    insert(
        "test",
        &["id", "value"],
        vec![vec![Value::Int(id), Value::Int(v)]],
        OnConflict::Error,
    )
}

fn del(filter: Option<Expr>) -> Statement {
    delete("test", filter)
}

use Statement::{Begin as B, Commit as C, Rollback as R};

/// Which anomalies IsoRel reports for a test: a phenomenon, or a phenomenon
/// with its SQL name.
#[derive(Clone, Copy, Debug)]
enum Class {
    Is(h::Phenomenon),
    Named(h::Phenomenon, h::SqlAnomaly),
}

impl Class {
    fn matches(self, a: &h::Anomaly) -> bool {
        match self {
            Class::Is(p) => a.phenomenon == p,
            Class::Named(p, s) => a.phenomenon == p && a.subtype == Some(s),
        }
    }

    fn name(self) -> String {
        match self {
            Class::Is(p) => p.to_string(),
            Class::Named(p, s) => format!("{p} ({s})"),
        }
    }
}

/// What the server did in a test whose anomaly is a predicate dependency,
/// read off the results, and whether IsoRel's view of the run is what it can
/// be without predicate edges (`Err` says what was wrong).
struct PredicateView {
    shown: bool,
    isorel: Result<(), String>,
}

/// A test's check where IsoRel's inference has no predicate edges.
type PredicateCheck = fn(&Evaluated, &h::Report) -> PredicateView;

struct Test {
    /// The column of the table.
    column: &'static str,
    /// The anomaly IsoRel reports when the schedule shows it.
    class: Class,
    /// For the predicate tests: the server's behaviour and IsoRel's view.
    predicate: Option<PredicateCheck>,
    /// Hermitage's statements, in Hermitage's order.
    schedule: Vec<(usize, Statement)>,
}

use h::Phenomenon as P;
use h::SqlAnomaly as S;

fn tests() -> Vec<Test> {
    vec![
        // Write cycles: T2's first write waits for T1's; the final state shows
        // the order of both rows' versions.
        Test {
            column: "G0",
            class: Class::Is(P::G0),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, set(1, 11)),
                (T2, set(1, 12)),
                (T1, set(2, 21)),
                (T1, C),
                (T2, set(2, 22)),
                (T2, C),
            ],
        },
        // Aborted read: T2 reads T1's write, which T1 rolls back.
        Test {
            column: "G1a",
            class: Class::Is(P::G1a),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, set(1, 101)),
                (T2, sel(None)),
                (T1, R),
                (T2, sel(None)),
                (T2, C),
            ],
        },
        // Intermediate read: T2 reads T1's first of two writes to a row.
        Test {
            column: "G1b",
            class: Class::Is(P::G1b),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, set(1, 101)),
                (T2, sel(None)),
                (T1, set(1, 11)),
                (T1, C),
                (T2, sel(None)),
                (T2, C),
            ],
        },
        // Circular information flow: each reads the row the other wrote.
        Test {
            column: "G1c",
            class: Class::Is(P::G1c),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, set(1, 11)),
                (T2, set(2, 22)),
                (T1, sel(id_is(2))),
                (T2, sel(id_is(1))),
                (T1, C),
                (T2, C),
            ],
        },
        // Observed transaction vanishes: T3 reads while T2 overwrites T1's
        // writes. Hermitage's MySQL schedule (T3 reads the whole table), without
        // the read after T2's commit of its READ COMMITTED variant: that read
        // only shows a non-repeatable read, which READ COMMITTED allows. Seen
        // as G-single: T3 read T2's x and missed T2's y.
        Test {
            column: "OTV",
            class: Class::Is(P::GSingle),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T2, B),
                (T3, B),
                (T1, set(1, 11)),
                (T1, set(2, 19)),
                (T2, set(1, 12)),
                (T1, C),
                (T3, sel(None)),
                (T2, set(2, 18)),
                (T3, sel(None)),
                (T2, C),
                (T3, C),
            ],
        },
        // Predicate-many-preceders, read predicates: T1's second predicate read
        // returns the row T2 inserted, which its first one missed. The first
        // read returns no row, so IsoRel has no edge from it: only the wr edge
        // into T1's second read, and no cycle.
        Test {
            column: "PMP(read)",
            class: Class::Is(P::GSingle),
            predicate: Some(pmp_read),
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, sel(value_is(30))),
                (T2, ins(3, 30)),
                (T2, C),
                (T1, sel(value_in(&MULTIPLES_OF_3))),
                (T1, C),
            ],
        },
        // Predicate-many-preceders, write predicates (the PostgreSQL manual's
        // example), Hermitage's MySQL schedule: T2 reads the rows with value 20
        // before its DELETE. IsoRel sees it through that read: T2's reads and
        // its DELETE saw different states (a G-single with T1).
        Test {
            column: "PMP(write)",
            class: Class::Is(P::GSingle),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, add(10, None)),
                (T2, sel(value_is(20))),
                (T2, del(value_is(20))),
                (T1, C),
                (T2, sel(None)),
                (T2, C),
            ],
        },
        // Lost update: both read row 1, both write it.
        Test {
            column: "P4",
            class: Class::Named(P::GSingle, S::LostUpdate),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, sel(id_is(1))),
                (T2, sel(id_is(1))),
                (T1, set(1, 11)),
                (T2, set(1, 11)),
                (T1, C),
                (T2, C),
            ],
        },
        // Read skew: T1 reads x before and y after T2 changed both.
        Test {
            column: "G-single",
            class: Class::Named(P::GSingle, S::ReadSkew),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, sel(id_is(1))),
                (T2, sel(id_is(1))),
                (T2, sel(id_is(2))),
                (T2, set(1, 12)),
                (T2, set(2, 18)),
                (T2, C),
                (T1, sel(id_is(2))),
                (T1, C),
            ],
        },
        // Read skew through predicate reads: the rows T1's second predicate
        // read returns, IsoRel sees (a non-repeatable read of row 1).
        Test {
            column: "G-single(pred)",
            class: Class::Is(P::GSingle),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, sel(value_in(&MULTIPLES_OF_5))),
                (T2, update("test", vec![("value", int(12))], value_is(10))),
                (T2, C),
                (T1, sel(value_in(&MULTIPLES_OF_3))),
                (T1, C),
            ],
        },
        // Read skew through a write predicate: T1's DELETE evaluates its
        // predicate on T2's committed rows while T1's reads keep the state
        // before T2 (Hermitage's MySQL schedule, with the read after the
        // DELETE). Where the DELETE deletes nothing (InnoDB's REPEATABLE
        // READ), the read `prepare` puts before it returns no row, so IsoRel
        // has no edge from T2 into T1; at READ UNCOMMITTED and READ COMMITTED
        // the last read shows T2's y and IsoRel sees the read skew.
        Test {
            column: "G-single(write)",
            class: Class::Is(P::GSingle),
            predicate: Some(g_single_write),
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, sel(id_is(1))),
                (T2, sel(None)),
                (T2, set(1, 12)),
                (T2, set(2, 18)),
                (T2, C),
                (T1, del(value_is(20))),
                (T1, sel(id_is(2))),
                (T1, C),
            ],
        },
        // Write skew: both read both rows, each writes the other one.
        Test {
            column: "G2-item",
            class: Class::Named(P::G2Item, S::WriteSkew),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, sel(Some(in_list(c("id"), vec![int(1), int(2)], false)))),
                (T2, sel(Some(in_list(c("id"), vec![int(1), int(2)], false)))),
                (T1, set(1, 11)),
                (T2, set(2, 21)),
                (T1, C),
                (T2, C),
            ],
        },
        // Anti-dependency cycle through predicates: both read "multiples of 3"
        // (none), both insert one. The reads return nothing, so IsoRel has no
        // edge between T1 and T2 at all.
        Test {
            column: "G2",
            class: Class::Is(P::G2Item),
            predicate: Some(g2_predicate),
            schedule: vec![
                (T1, B),
                (T2, B),
                (T1, sel(value_in(&MULTIPLES_OF_3))),
                (T2, sel(value_in(&MULTIPLES_OF_3))),
                (T1, ins(3, 30)),
                (T2, ins(4, 42)),
                (T1, C),
                (T2, C),
            ],
        },
        // Fekete et al.'s read-only anomaly: two anti-dependencies through a
        // read-only T3, item by item, so IsoRel sees it (G2-item).
        Test {
            column: "G2(Fekete)",
            class: Class::Is(P::G2Item),
            predicate: None,
            schedule: vec![
                (T1, B),
                (T1, sel(None)),
                (T2, B),
                (T2, add(5, id_is(2))),
                (T2, C),
                (T3, B),
                (T3, sel(None)),
                (T3, C),
                (T1, set(1, 0)),
                (T1, C),
            ],
        },
    ]
}

fn test_table() -> Table {
    table(
        "test",
        vec![
            not_null("id", ColumnType::Int),
            col("value", ColumnType::Int),
        ],
        &["id"],
    )
}

/// The case of `test` with every transaction at `level`.
fn case_of_test(test: &Test, level: IsolationLevel) -> TestCase {
    let t = test_table();
    let initial = rows_of(
        &t,
        vec![
            vec![Value::Int(1), Value::Int(10)],
            vec![Value::Int(2), Value::Int(20)],
        ],
    );
    let count = test.schedule.iter().map(|(x, _)| x + 1).max().unwrap_or(0);
    let mut transactions: Vec<Transaction> =
        (0..count).map(|_| explicit(level, Vec::new())).collect();
    let mut order = Vec::new();
    for (x, statement) in &test.schedule {
        let txn = &mut transactions[*x];
        order.push(StatementRef::new(*x, txn.statements.len()));
        txn.statements.push(statement.clone());
    }
    let case = TestCase {
        seed: 0,
        generator: format!("hermitage {}", test.column),
        schema: Schema { tables: vec![t] },
        initial_rows: vec![initial],
        transactions,
        submitted_order: order,
        intent: None,
        pace_ms: None,
    };
    case.validate().unwrap();
    case
}

// ---------------------------------------------------------------------------
// The predicate tests: the server's behaviour, and what IsoRel sees
// ---------------------------------------------------------------------------

/// The original (not instrumented) statements of transaction `t` with their
/// records: `prepare` adds only reads that name their columns, so the case's
/// own SELECTs are those with `SELECT *`.
fn own_statements(e: &Evaluated, t: usize) -> Vec<(&Statement, &StatementRecord)> {
    e.prepared.transactions[t]
        .statements
        .iter()
        .zip(&e.history.statements[t])
        .filter(|(s, _)| !matches!(s, Statement::Select(sel) if sel.projection != Projection::All))
        .collect()
}

/// The values of `column` in the rows a result returned.
fn column_values(outcome: &Outcome, column: &str) -> Vec<Value> {
    match outcome {
        Outcome::Rows { rows, .. } if rows.is_empty() => Vec::new(),
        Outcome::Rows { columns, rows } => {
            let at = columns
                .iter()
                .position(|c| c.eq_ignore_ascii_case(column))
                .expect("the column is in the result");
            rows.iter().map(|r| r[at].clone()).collect()
        }
        _ => Vec::new(),
    }
}

fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Decimal(s) | Value::Text(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The edges IsoRel inferred between T1, T2 and T3 (ids 1–3; the final
/// state's read is another transaction).
fn edges_between(report: &h::Report, from: h::TxnId, to: h::TxnId) -> Vec<String> {
    report.edges_between(from, to).map(|e| e.short()).collect()
}

/// PMP(read): the phantom is T1's second read returning the row T2 inserted
/// (id 3). IsoRel sees the wr edge into that read and nothing from the first
/// read, which returned no row: no anomaly.
fn pmp_read(e: &Evaluated, report: &h::Report) -> PredicateView {
    let reads: Vec<_> = own_statements(e, T1)
        .into_iter()
        .filter(|(s, _)| matches!(s, Statement::Select(_)))
        .collect();
    let second = column_values(&reads[1].1.outcome, "id");
    let shown = second.iter().any(|v| int_of(v) == Some(3));
    let wr = edges_between(report, 2, 1);
    let isorel = if !report.anomalies.is_empty() {
        Err(format!("IsoRel reported {:?}", report.anomalies))
    } else if shown != wr.iter().any(|e| e.starts_with("wr")) {
        Err(format!(
            "the phantom was {}shown, yet IsoRel's edges T2 -> T1 are {wr:?}",
            if shown { "" } else { "not " }
        ))
    } else {
        Ok(())
    };
    PredicateView { shown, isorel }
}

/// G-single(write): T1's DELETE of the rows with value 20 deleted nothing,
/// yet T1's read after it still shows a row with value 20 (its snapshot
/// before T2, while the DELETE's predicate saw T2's committed rows). Where
/// IsoRel does not see the read skew, it has the rw edges from T1 to T2 and
/// no edge back: the DELETE's predicate read of T2's rows is a predicate
/// dependency, and the read before the DELETE returned no row.
fn g_single_write(e: &Evaluated, report: &h::Report) -> PredicateView {
    let own = own_statements(e, T1);
    let deleted = own.iter().find_map(|(s, r)| match (s, &r.outcome) {
        (Statement::Delete(_), Outcome::Affected { rows }) => Some(*rows),
        _ => None,
    });
    let last_read = own
        .iter()
        .rev()
        .find(|(s, _)| matches!(s, Statement::Select(_)))
        .map(|(_, r)| column_values(&r.outcome, "value"))
        .unwrap_or_default();
    let shown = deleted == Some(0) && last_read.iter().any(|v| int_of(v) == Some(20));
    let seen = report
        .anomalies
        .iter()
        .any(|a| Class::Is(P::GSingle).matches(a));
    let isorel = if !shown || seen {
        Ok(())
    } else {
        let back = edges_between(report, 2, 1);
        let forth = edges_between(report, 1, 2);
        if back.is_empty() && !forth.is_empty() && forth.iter().all(|e| e.starts_with("rw")) {
            Ok(())
        } else {
            Err(format!(
                "IsoRel's edges T1 -> T2: {forth:?}, T2 -> T1: {back:?}"
            ))
        }
    };
    PredicateView { shown, isorel }
}

/// G2: both transactions committed their inserts after predicate reads that
/// saw neither. The reads returned no rows: IsoRel has no edge between T1
/// and T2, so no anomaly.
fn g2_predicate(e: &Evaluated, report: &h::Report) -> PredicateView {
    let committed = |t: usize| e.history.transactions[t].end == TxnEnd::Committed;
    let reads_empty = [T1, T2].iter().all(|&t| {
        own_statements(e, t)
            .iter()
            .filter(|(s, _)| matches!(s, Statement::Select(_)))
            .all(|(_, r)| column_values(&r.outcome, "id").is_empty())
    });
    let shown = committed(T1) && committed(T2) && reads_empty;
    let between: Vec<String> = edges_between(report, 1, 2)
        .into_iter()
        .chain(edges_between(report, 2, 1))
        .collect();
    let isorel = if report.anomalies.is_empty() && between.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "IsoRel saw edges {between:?} and anomalies {:?}",
            report.anomalies
        ))
    };
    PredicateView { shown, isorel }
}

// ---------------------------------------------------------------------------
// Running a cell
// ---------------------------------------------------------------------------

/// One of the three server settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Setting {
    MariaDb { snapshot_isolation: bool },
    Postgres,
}

impl Setting {
    const ALL: [Setting; 3] = [
        Setting::MariaDb {
            snapshot_isolation: false,
        },
        Setting::MariaDb {
            snapshot_isolation: true,
        },
        Setting::Postgres,
    ];

    fn name(self) -> &'static str {
        match self {
            Setting::MariaDb {
                snapshot_isolation: false,
            } => "MariaDB (innodb_snapshot_isolation=OFF, the default)",
            Setting::MariaDb {
                snapshot_isolation: true,
            } => "MariaDB (innodb_snapshot_isolation=ON)",
            Setting::Postgres => "PostgreSQL",
        }
    }

    fn pipeline(self) -> String {
        let target = match self {
            Setting::MariaDb { snapshot_isolation } => format!(
                "dialect = \"mariadb\"\n\n[target.config]\nsnapshot_isolation = {snapshot_isolation}\n"
            ),
            // Deadlocks are looked for after 100 ms instead of PostgreSQL's 1 s.
            Setting::Postgres => {
                "dialect = \"postgres\"\n\n[target.config]\ndeadlock_timeout_ms = 100\n".into()
            }
        };
        format!(
            "[run]\nseed = 1\n\n[target]\n{target}\n\
             [executor]\nstatement_timeout = \"5s\"\nlock_wait_timeout = \"8s\"\n\n\
             # Required by a pipeline, unused: the cases are Hermitage's.\n\
             [generator]\nplugin = \"random\"\n\n\
             [[oracle]]\nplugin = \"isorel\"\n"
        )
    }

    fn url(self) -> String {
        match self {
            Setting::MariaDb { .. } => {
                live::server_url("TXLAB_MYSQL_URL", "mysql://root@127.0.0.1:3306")
            }
            Setting::Postgres => live::server_url(
                "TXLAB_PG_URL",
                "postgres://postgres@127.0.0.1:5432/postgres",
            ),
        }
    }

    /// The matrix measured on this machine with an independent harness (a
    /// thread and connection per transaction, no instrumentation; PostgreSQL
    /// 15.18, MariaDB 10.11.19; docs/hermitage.md), one row per level the
    /// dialect offers, columns in [`tests`]' order. `X`: the schedule showed
    /// the anomaly; `.`: prevented (blocked, aborted or consistent).
    /// PostgreSQL's READ UNCOMMITTED is its READ COMMITTED. MariaDB's READ
    /// UNCOMMITTED prevents PMP(write) only in this schedule: T2's first read
    /// already sees T1's uncommitted write, so T2 reads and deletes one state.
    fn expected(self, level: IsolationLevel) -> &'static str {
        use IsolationLevel::*;
        //                      G0 G1a G1b G1c OTV PMPr PMPw P4 Gs Gs(p) Gs(w) G2i G2 Fek
        match (self, level) {
            (Setting::Postgres, ReadUncommitted | ReadCommitted) => ". . . . . X X X X X X X X X",
            (Setting::Postgres, RepeatableRead) => ". . . . . . . . . . . X X X",
            (Setting::Postgres, Serializable) => ". . . . . . . . . . . . . .",
            (Setting::MariaDb { .. }, ReadUncommitted) => ". X X X X X . X X X X X X X",
            (Setting::MariaDb { .. }, ReadCommitted) => ". . . . . X X X X X X X X X",
            (
                Setting::MariaDb {
                    snapshot_isolation: false,
                },
                RepeatableRead,
            ) => ". . . . . . X X . . X X X X",
            (
                Setting::MariaDb {
                    snapshot_isolation: true,
                },
                RepeatableRead,
            ) => ". . . . . . . . . . . X X X",
            (Setting::MariaDb { .. }, Serializable) => ". . . . . . . . . . . . . .",
            _ => panic!("no expectation for {self:?} at {level}"),
        }
    }

    /// Adya's level each level is, independently of `txlab-history`: the
    /// level's name, except that PostgreSQL's REPEATABLE READ and MariaDB's
    /// with innodb_snapshot_isolation are snapshot isolation (PL-SI).
    fn adya(self, level: IsolationLevel) -> h::AdyaLevel {
        use IsolationLevel::*;
        match (self, level) {
            (_, ReadUncommitted) => h::AdyaLevel::PL1,
            (_, ReadCommitted) => h::AdyaLevel::PL2,
            (
                Setting::Postgres
                | Setting::MariaDb {
                    snapshot_isolation: true,
                },
                RepeatableRead,
            ) => h::AdyaLevel::PLSI,
            (_, RepeatableRead) => h::AdyaLevel::PL299,
            (_, Serializable) => h::AdyaLevel::PL3,
            _ => panic!("no Adya level for {self:?} at {level}"),
        }
    }
}

/// Adya's table (Adya 1999; PL-SI from the thesis): the phenomena each level
/// proscribes, written out here rather than asked of `txlab-history`.
fn proscribes(level: h::AdyaLevel, p: h::Phenomenon) -> bool {
    use h::AdyaLevel::*;
    let g1 = [P::G0, P::G1a, P::G1b, P::G1c];
    let set: Vec<P> = match level {
        PL1 => vec![P::G0],
        PL2 => g1.to_vec(),
        PL2Plus => [&g1[..], &[P::GSingle]].concat(),
        PLSI => [&g1[..], &[P::GSingle, P::GSIa, P::GSIb]].concat(),
        PL299 | PL3 => [&g1[..], &[P::GSingle, P::G2Item]].concat(),
    };
    set.contains(&p)
}

/// An anomaly IsoRel inferred, with both models' answers.
struct Judged {
    text: String,
    anomaly: h::Anomaly,
    judgement: h::Judgement,
}

/// How a schedule was prevented.
#[derive(Clone, Debug, PartialEq)]
enum How {
    Aborted(String),
    Blocked,
    Consistent,
}

/// Everything about one cell.
struct Cell {
    test: &'static str,
    class: Class,
    level: IsolationLevel,
    /// What happened, line by line.
    events: Vec<String>,
    verdict: String,
    verdict_kind: &'static str,
    anomalies: Vec<Judged>,
    /// IsoRel inferred an anomaly of the test's class.
    seen: bool,
    /// For the predicate tests: the server showed the anomaly.
    predicate: Option<PredicateView>,
    how: How,
    /// Statements that blocked, transactions aborted, by their labels.
    problems: Vec<String>,
    /// DELETEs that removed rows the read `prepare` put before them did not
    /// return: IsoRel never saw those versions (see [`removals`]).
    unseen_removals: Vec<String>,
    /// What no isolation level allows (a finding at every level).
    violations: Vec<String>,
}

impl Cell {
    /// The anomaly shows: IsoRel saw it, or (predicate tests) the results
    /// show what IsoRel cannot see.
    fn observed(&self) -> bool {
        self.seen || self.predicate.as_ref().is_some_and(|p| p.shown)
    }

    fn of_class(&self) -> impl Iterator<Item = &Judged> + '_ {
        self.anomalies
            .iter()
            .filter(|j| self.class.matches(&j.anomaly))
    }

    /// One symbol: `X` observed and allowed by both models, `V`
    /// vendor-permitted, `F` a finding, `P` shown by the results but
    /// invisible to IsoRel (predicate), `b` / `a` / `.` prevented by
    /// blocking / an abort / the reads; `+` other anomalies, `‡` removed
    /// versions IsoRel did not see.
    fn symbol(&self) -> String {
        let mut s = if self.seen {
            let class: Vec<&Judged> = self.of_class().collect();
            match class.iter().map(|j| models(j)).min_by_key(|m| *m as u8) {
                Some(Models::Finding) => "F",
                Some(Models::VendorPermitted) => "V",
                _ => "X",
            }
        } else if self.observed() {
            "P"
        } else {
            match self.how {
                How::Aborted(_) => "a",
                How::Blocked => "b",
                How::Consistent => ".",
            }
        }
        .to_string();
        if self
            .anomalies
            .iter()
            .any(|j| !self.class.matches(&j.anomaly))
        {
            s.push('+');
        }
        if !self.unseen_removals.is_empty() {
            s.push('‡');
        }
        s
    }

    fn text(&self) -> String {
        let mut text = if self.seen {
            let class: Vec<&Judged> = self.of_class().collect();
            // The strongest answer among the anomalies of the class.
            let j = class
                .iter()
                .find(|j| j.judgement.vendor.is_forbidden())
                .or_else(|| class.iter().find(|j| j.judgement.standard.forbidden))
                .unwrap_or(&class[0]);
            match models(j) {
                Models::Finding => "observed, finding".to_string(),
                Models::VendorPermitted => {
                    format!("observed, vendor-permitted ({})", anomaly_name(&j.anomaly))
                }
                Models::Both => "observed, allowed by both".to_string(),
            }
        } else if self.observed() {
            "observed (predicate; invisible to IsoRel)".into()
        } else {
            match &self.how {
                How::Aborted(class) => format!("prevented (aborted: {class})"),
                How::Blocked => "prevented (blocked)".into(),
                How::Consistent if self.anomalies.is_empty() => "prevented (consistent)".into(),
                How::Consistent => "prevented (not shown)".into(),
            }
        };
        let mut others: Vec<String> = self
            .anomalies
            .iter()
            .filter(|j| !self.class.matches(&j.anomaly))
            .map(|j| format!("{} ({})", anomaly_name(&j.anomaly), models(j).text()))
            .collect();
        others.dedup();
        if !others.is_empty() {
            let _ = write!(text, "; also {}", others.join(", "));
        }
        if !self.unseen_removals.is_empty() {
            text.push_str(" ‡");
        }
        text
    }
}

/// Both models' answers, as the table says them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Models {
    Finding,
    VendorPermitted,
    Both,
}

impl Models {
    fn text(self) -> &'static str {
        match self {
            Models::Finding => "finding",
            Models::VendorPermitted => "vendor-permitted",
            Models::Both => "allowed by both",
        }
    }
}

fn models(j: &Judged) -> Models {
    if j.judgement.vendor.is_forbidden() {
        Models::Finding
    } else if j.judgement.standard.forbidden {
        Models::VendorPermitted
    } else {
        Models::Both
    }
}

/// `G-single: lost update`, `G-SIa`.
fn anomaly_name(a: &h::Anomaly) -> String {
    match a.subtype {
        Some(s) => format!("{}: {s}", a.phenomenon),
        None => a.phenomenon.to_string(),
    }
}

fn statement_name(s: &Statement) -> String {
    match s {
        Statement::Select(sel) if sel.projection != Projection::All => {
            "read before the DELETE (SELECT … FOR UPDATE)".into()
        }
        other => other.kind_name().to_string(),
    }
}

fn verdict_text(v: &Verdict) -> (&'static str, String) {
    match v {
        Verdict::Pass => ("pass", "pass".into()),
        Verdict::Undecided { reason } => ("undecided", format!("undecided: {reason}")),
        Verdict::Finding(f) => ("finding", format!("finding: {}", f.title)),
        Verdict::VendorPermitted(f) => {
            ("vendor-permitted", format!("vendor-permitted: {}", f.title))
        }
        Verdict::Allowed { anomalies } => (
            "allowed",
            format!("allowed by both models: {}", anomalies.join(", ")),
        ),
    }
}

fn judge_cell(
    setting: Setting,
    test: &Test,
    level: IsolationLevel,
    e: &Evaluated,
    info: &DialectInfo,
) -> Cell {
    let config = IsorelConfig::default();
    let observed = txlab_oracle_isorel::observe::observe(&e.prepared, &e.history, info, &config)
        .unwrap_or_else(|u| {
            panic!(
                "{} {level} {}: unreadable: {}",
                setting.name(),
                test.column,
                u.0
            )
        });
    let report = h::check(
        &observed.history,
        &h::Options {
            exempt_locking_reads: config.exempt_locking_reads,
            ..h::Options::default()
        },
    );
    let anomalies: Vec<Judged> = report
        .anomalies
        .iter()
        .map(|a| Judged {
            text: a.describe(&observed.history),
            anomaly: a.clone(),
            judgement: h::judge(a, &observed.history, info),
        })
        .collect();
    let violations: Vec<String> = report
        .violations
        .iter()
        .map(|v| v.describe(&observed.history))
        .collect();
    let mut events = Vec::new();
    let mut problems = Vec::new();
    let mut blocked = false;
    for (t, records) in e.history.statements.iter().enumerate() {
        for (s, r) in records.iter().enumerate() {
            if let Some(b) = &r.blocked {
                blocked = true;
                let name = statement_name(&e.prepared.transactions[t].statements[s]);
                let evidence = match b.evidence {
                    BlockEvidence::Probe => "seen by the lock-wait probe",
                    BlockEvidence::Timeout => "no reply within the fallback timeout",
                };
                let then = match b.resumed_after {
                    Some(at) => format!(
                        "resumed after {}'s {}",
                        txn_label(at.txn()),
                        statement_name(&e.prepared.transactions[at.txn()].statements[at.stmt()])
                    ),
                    None => "then".into(),
                };
                events.push(format!(
                    "{}'s {name} waited for a lock ({evidence}), {then}: {}",
                    txn_label(t),
                    r.outcome
                ));
                problems.push(format!("{} {name} blocked", txn_label(t)));
            }
        }
    }
    let mut how = if blocked {
        How::Blocked
    } else {
        How::Consistent
    };
    let mut committed = Vec::new();
    for (t, x) in e.history.transactions.iter().enumerate() {
        match &x.end {
            TxnEnd::Committed => committed.push(txn_label(t)),
            TxnEnd::RolledBack => {
                events.push(format!("{} rolled back (its own ROLLBACK)", txn_label(t)))
            }
            TxnEnd::Aborted { by, class } => {
                let s = &e.prepared.transactions[by.txn()].statements[by.stmt()];
                let error = e
                    .history
                    .record(*by)
                    .map(|r| r.outcome.to_string())
                    .unwrap_or_default();
                events.push(format!(
                    "{} aborted by its {}: {error}",
                    txn_label(t),
                    statement_name(s)
                ));
                problems.push(format!("{} aborted ({class})", txn_label(t)));
                how = How::Aborted(class.to_string());
            }
            TxnEnd::Unfinished => events.push(format!("{} did not finish", txn_label(t))),
        }
    }
    events.push(format!("committed: {}", committed.join(", ")));
    let unseen_removals = removals(e);
    events.extend(unseen_removals.iter().cloned());
    if let Some(state) = e.history.final_state.as_ref().and_then(|f| f.table("test")) {
        let outcome = Outcome::Rows {
            columns: state.columns.clone(),
            rows: state.rows.clone(),
        };
        let pairs: Vec<String> = column_values(&outcome, "id")
            .iter()
            .zip(column_values(&outcome, "value"))
            .map(|(id, v)| format!("{id} => {v}"))
            .collect();
        events.push(format!("final state: {}", pairs.join(", ")));
    }
    for u in &e.history.unobserved {
        events.push(format!("not fully observed: {u}"));
    }
    let v = &e.verdicts[0];
    assert_eq!(v.oracle, "isorel");
    let (verdict_kind, verdict) = match &v.verdict {
        Ok(v) => verdict_text(v),
        Err(err) => ("error", format!("the oracle failed: {err}")),
    };
    let seen = anomalies.iter().any(|j| test.class.matches(&j.anomaly));
    let predicate = test.predicate.map(|check| check(e, &report));
    Cell {
        test: test.column,
        class: test.class,
        level,
        events,
        verdict,
        verdict_kind,
        anomalies,
        seen,
        predicate,
        how,
        problems,
        unseen_removals,
        violations,
    }
}

/// `prepare` puts a locking read of the rows a DELETE is about to remove
/// right before it, so that IsoRel sees the version of every removed row.
/// The two are separate statements: where each statement takes its own
/// snapshot and the read waited for a lock (PostgreSQL's READ COMMITTED), the
/// read re-checks only the rows its own snapshot matched, and the DELETE,
/// with a newer snapshot, may remove rows the read did not return. Each such
/// DELETE, with both counts.
fn removals(e: &Evaluated) -> Vec<String> {
    let mut out = Vec::new();
    for (t, txn) in e.prepared.transactions.iter().enumerate() {
        for (s, statement) in txn.statements.iter().enumerate().skip(1) {
            let before = &txn.statements[s - 1];
            let is_removal_read =
                matches!(before, Statement::Select(sel) if sel.projection != Projection::All);
            if !matches!(statement, Statement::Delete(_)) || !is_removal_read {
                continue;
            }
            let read = e
                .history
                .record(StatementRef::new(t, s - 1))
                .map(|r| &r.outcome);
            let deleted = e
                .history
                .record(StatementRef::new(t, s))
                .map(|r| &r.outcome);
            if let (Some(Outcome::Rows { rows, .. }), Some(Outcome::Affected { rows: removed })) =
                (read, deleted)
            {
                if rows.len() as u64 != *removed {
                    out.push(format!(
                        "{}'s read before its DELETE returned {} rows, the DELETE removed {removed}: IsoRel did not see the versions it removed",
                        txn_label(t),
                        rows.len()
                    ));
                }
            }
        }
    }
    out
}

struct SettingRun {
    setting: Setting,
    version: String,
    cells: Vec<Cell>,
}

/// Runs every test at every level `setting`'s dialect offers.
fn run_setting(setting: Setting, plugins: &Path, work: &Path, version: String) -> SettingRun {
    let file = work.join(format!("hermitage-{}.toml", setting_slug(setting)));
    std::fs::write(&file, setting.pipeline()).unwrap();
    let loaded = LoadedPipeline::load(&file).unwrap_or_else(|e| panic!("{e}"));
    let registry = Registry::discover(search_dirs(&[plugins.to_path_buf()], &loaded.plugin_dirs()));
    let resolved = Resolved::resolve(&loaded, &registry).unwrap_or_else(|e| panic!("{e}"));
    let url = setting.url();
    let env = Environment::new(&resolved, Some(&url)).unwrap_or_else(|e| panic!("{e}"));
    let setups = env.level_setups(&resolved).unwrap();
    let oracles = resolved.new_oracles().unwrap();
    let mut runner = CaseRunner::open(&resolved, &env, 0, &setups, oracles)
        .unwrap_or_else(|e| panic!("{}: {e}", setting.name()));
    let mut cells = Vec::new();
    for &level in &resolved.levels {
        for test in tests() {
            let case = case_of_test(&test, level);
            let evaluated = runner
                .evaluate(&case, None)
                .unwrap_or_else(|e| panic!("{} {level} {}: {e}", setting.name(), test.column));
            cells.push(judge_cell(
                setting,
                &test,
                level,
                &evaluated,
                &resolved.info,
            ));
        }
    }
    drop(runner);
    SettingRun {
        setting,
        version,
        cells,
    }
}

fn setting_slug(s: Setting) -> &'static str {
    match s {
        Setting::MariaDb {
            snapshot_isolation: false,
        } => "mariadb",
        Setting::MariaDb {
            snapshot_isolation: true,
        } => "mariadb-si",
        Setting::Postgres => "postgres",
    }
}

/// The server's `SELECT VERSION()`, or why it cannot be reached.
fn server_version(setting: Setting) -> Result<String, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let url = setting.url();
    rt.block_on(async move {
        match setting {
            Setting::MariaDb { .. } => {
                use mysql_async::prelude::Queryable;
                let mut conn = mysql_async::Conn::from_url(url.as_str())
                    .await
                    .map_err(|e| e.to_string())?;
                let v: Option<String> = conn
                    .query_first("SELECT VERSION()")
                    .await
                    .map_err(|e| e.to_string())?;
                let _ = conn.disconnect().await;
                Ok(v.unwrap_or_default())
            }
            Setting::Postgres => {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .map_err(|e| e.to_string())?;
                let task = tokio::spawn(connection);
                let row = client
                    .query_one("SELECT VERSION()", &[])
                    .await
                    .map_err(|e| e.to_string())?;
                drop(client);
                let _ = task.await;
                Ok(row.get::<_, String>(0))
            }
        }
    })
}

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------

fn level_name(level: IsolationLevel) -> &'static str {
    match level {
        IsolationLevel::ReadUncommitted => "READ UNCOMMITTED",
        IsolationLevel::ReadCommitted => "READ COMMITTED",
        IsolationLevel::RepeatableRead => "REPEATABLE READ",
        IsolationLevel::Serializable => "SERIALIZABLE",
        other => other.name(),
    }
}

fn table_markdown(runs: &[SettingRun]) -> String {
    let columns: Vec<&str> = tests().iter().map(|t| t.column).collect();
    let mut s = String::new();
    let _ = writeln!(s, "| DBMS / setting | level | {} |", columns.join(" | "));
    let _ = writeln!(s, "|---|---|{}", "---|".repeat(columns.len()));
    for run in runs {
        let mut levels: Vec<IsolationLevel> = run.cells.iter().map(|c| c.level).collect();
        levels.dedup();
        for level in levels {
            let texts: Vec<String> = run
                .cells
                .iter()
                .filter(|c| c.level == level)
                .map(Cell::text)
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                run.setting.name(),
                level_name(level),
                texts.join(" | ")
            );
        }
    }
    s
}

/// The same cells as one symbol each, laid out as the expected matrix.
fn compact_markdown(runs: &[SettingRun]) -> String {
    let columns: Vec<&str> = tests().iter().map(|t| t.column).collect();
    let mut s = String::new();
    let _ = writeln!(s, "| DBMS / setting | level | {} |", columns.join(" | "));
    let _ = writeln!(s, "|---|---|{}", "---|".repeat(columns.len()));
    for run in runs {
        let mut levels: Vec<IsolationLevel> = run.cells.iter().map(|c| c.level).collect();
        levels.dedup();
        for level in levels {
            let symbols: Vec<String> = run
                .cells
                .iter()
                .filter(|c| c.level == level)
                .map(Cell::symbol)
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                run.setting.name(),
                level_name(level),
                symbols.join(" | ")
            );
        }
    }
    s
}

fn details_markdown(runs: &[SettingRun]) -> String {
    let mut s = String::new();
    for run in runs {
        let _ = writeln!(s, "### {} — {}\n", run.setting.name(), run.version);
        for c in &run.cells {
            let _ = writeln!(
                s,
                "#### {} at {}: {}\n",
                c.test,
                level_name(c.level),
                c.text()
            );
            let _ = writeln!(s, "- IsoRel's class for this test: {}", c.class.name());
            for e in &c.events {
                let _ = writeln!(s, "- {e}");
            }
            let _ = writeln!(s, "- oracle: {}", c.verdict);
            for v in &c.violations {
                let _ = writeln!(s, "- violation: {v}");
            }
            if let Some(p) = &c.predicate {
                let _ = writeln!(
                    s,
                    "- predicate test: the results {} the anomaly; IsoRel's view: {}",
                    if p.shown { "show" } else { "do not show" },
                    match &p.isorel {
                        Ok(()) => "as expected without predicate edges".to_string(),
                        Err(e) => format!("UNEXPECTED: {e}"),
                    }
                );
            }
            for j in &c.anomalies {
                let vendor = match &j.judgement.vendor {
                    h::VendorJudgement::Forbidden { why } => format!("forbidden ({why})"),
                    h::VendorJudgement::Permitted { facts } => format!(
                        "permitted ({})",
                        facts.first().map(String::as_str).unwrap_or("")
                    ),
                };
                let _ = writeln!(
                    s,
                    "- anomaly {}\n  - standard model: {} ({})\n  - vendor model: {vendor}",
                    j.text,
                    if j.judgement.standard.forbidden {
                        "forbidden"
                    } else {
                        "allowed"
                    },
                    j.judgement.standard.why
                );
            }
            s.push('\n');
        }
    }
    s
}

fn target_dir() -> PathBuf {
    common::deps_dir()
        .parent()
        .and_then(Path::parent)
        .expect("target directory")
        .to_path_buf()
}

// ---------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------

/// Checks one cell against the expectations; returns what disagreed.
fn disagreements(setting: Setting, column: usize, c: &Cell) -> Vec<String> {
    let mut out = Vec::new();
    let at = format!("{} {} {}", setting.name(), level_name(c.level), c.test);
    // The matrix measured on this machine.
    let expected = setting.expected(c.level).split(' ').nth(column) == Some("X");
    if c.observed() != expected {
        out.push(format!(
            "{at}: expected {}, got {} ({})",
            if expected { "observed" } else { "prevented" },
            c.text(),
            c.problems.join("; ")
        ));
    }
    // What IsoRel sees where it has no predicate edges.
    if let Some(Err(e)) = c.predicate.as_ref().map(|p| &p.isorel) {
        out.push(format!("{at}: {e}"));
    }
    // Every cell decided, by the oracle the host loaded, as recomputed here.
    let expected_kind = if !c.violations.is_empty()
        || c.anomalies
            .iter()
            .any(|j| j.judgement.vendor.is_forbidden())
    {
        "finding"
    } else if c.anomalies.iter().any(|j| j.judgement.standard.forbidden) {
        "vendor-permitted"
    } else if !c.anomalies.is_empty() {
        "allowed"
    } else {
        "pass"
    };
    if c.verdict_kind != expected_kind {
        out.push(format!(
            "{at}: the oracle said {}, the anomalies make it {expected_kind}",
            c.verdict
        ));
    }
    // Both models against Adya's table.
    let adya = setting.adya(c.level);
    for j in &c.anomalies {
        let st = &j.judgement.standard;
        if st.level != adya || st.forbidden != proscribes(adya, j.anomaly.phenomenon) {
            out.push(format!(
                "{at}: the standard model says {} for {}; Adya's {adya} {} it",
                st.why,
                j.text,
                if proscribes(adya, j.anomaly.phenomenon) {
                    "proscribes"
                } else {
                    "allows"
                }
            ));
        }
        // The vendor model forbids an anomaly only where the dialect's
        // declared semantics promise more than the run showed: a finding,
        // and none is expected on these servers.
        if j.judgement.vendor.is_forbidden() {
            out.push(format!("{at}: a finding: {}", j.text));
        }
    }
    for v in &c.violations {
        out.push(format!("{at}: a violation: {v}"));
    }
    // Nothing at all at SERIALIZABLE, which both servers promise.
    if c.level == IsolationLevel::Serializable && !c.anomalies.is_empty() {
        out.push(format!(
            "{at}: anomalies at SERIALIZABLE: {:?}",
            c.anomalies.iter().map(|j| &j.text).collect::<Vec<_>>()
        ));
    }
    // PostgreSQL: no finding in any cell.
    if setting == Setting::Postgres && c.verdict_kind == "finding" {
        out.push(format!("{at}: PostgreSQL gave a finding: {}", c.verdict));
    }
    out
}

#[test]
fn hermitage_on_mariadb_and_postgres() {
    let started = Instant::now();
    let plugins = common::plugin_dir(&[
        "txlab-dialect-mysql",
        "txlab-dialect-postgres",
        "txlab-generator-random",
        "txlab-oracle-isorel",
    ]);
    let work = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for setting in Setting::ALL {
        let version = match server_version(setting) {
            Ok(v) => v,
            Err(why) => {
                let _: Option<()> = live::unavailable(
                    setting.name(),
                    &format!("{}: the server is unreachable: {why}", setting.name()),
                );
                continue;
            }
        };
        let t = Instant::now();
        runs.push(run_setting(setting, plugins.path(), work.path(), version));
        eprintln!("{}: {:.1} s", setting.name(), t.elapsed().as_secs_f64());
    }
    if runs.is_empty() {
        return;
    }

    let table = table_markdown(&runs);
    let compact = compact_markdown(&runs);
    let mut report =
        String::from("# Hermitage on txlab (generated by host/tests/hermitage.rs)\n\n");
    for run in &runs {
        let _ = writeln!(report, "- {}: `{}`", run.setting.name(), run.version);
    }
    let _ = writeln!(
        report,
        "\n{table}\n{compact}\n## Every cell\n\n{}",
        details_markdown(&runs)
    );
    let out = target_dir().join("hermitage.md");
    std::fs::write(&out, &report).unwrap();
    println!("{table}\n{compact}");
    println!(
        "(details in {}; {:.1} s)",
        out.display(),
        started.elapsed().as_secs_f64()
    );

    let columns: Vec<&str> = tests().iter().map(|t| t.column).collect();
    let mut wrong = Vec::new();
    for run in &runs {
        for c in &run.cells {
            let column = columns.iter().position(|&x| x == c.test).unwrap();
            wrong.extend(disagreements(run.setting, column, c));
        }
    }
    // MariaDB's default REPEATABLE READ: the lost update is an anomaly the
    // vendor documents (UPDATE reads the latest committed row), not a finding.
    for run in &runs {
        if run.setting
            == (Setting::MariaDb {
                snapshot_isolation: false,
            })
        {
            let p4 = run
                .cells
                .iter()
                .find(|c| c.test == "P4" && c.level == IsolationLevel::RepeatableRead)
                .unwrap();
            let lost_update = p4
                .of_class()
                .any(|j| j.judgement.standard.forbidden && !j.judgement.vendor.is_forbidden());
            if p4.verdict_kind != "vendor-permitted" || !lost_update {
                wrong.push(format!(
                    "MariaDB default REPEATABLE READ P4: expected a vendor-permitted lost update, got {} ({})",
                    p4.text(),
                    p4.verdict
                ));
            }
        }
    }
    // The vendor model departs from Adya's only where the vendor documents
    // weaker semantics than the level's name: InnoDB's REPEATABLE READ, whose
    // writes and locking reads act on the latest committed rows.
    for run in &runs {
        for c in &run.cells {
            let permitted = c
                .anomalies
                .iter()
                .any(|j| models(j) == Models::VendorPermitted);
            let documented = run.setting
                == Setting::MariaDb {
                    snapshot_isolation: false,
                }
                && c.level == IsolationLevel::RepeatableRead;
            if permitted && !documented {
                wrong.push(format!(
                    "{} {} {}: a vendor-permitted anomaly where the vendor model should be Adya's: {}",
                    run.setting.name(),
                    level_name(c.level),
                    c.test,
                    c.text()
                ));
            }
        }
    }
    // A limit of isorel's instrumentation (docs/hermitage.md): at
    // PostgreSQL's READ COMMITTED (and READ UNCOMMITTED, the same level) the
    // read before T2's DELETE waits for T1, re-checks only the row its own
    // snapshot matched and returns none, while the DELETE, with a snapshot
    // taken after T1's commit, removes row 1, which Hermitage's DELETE (0
    // rows) does not. `observe` then takes the read for a plain read, so no
    // dependency is made up, but the removed version goes unseen. Pinned here
    // so that a change, or the mismatch spreading, shows.
    let unseen: Vec<String> = runs
        .iter()
        .flat_map(|run| {
            run.cells
                .iter()
                .filter(|c| !c.unseen_removals.is_empty())
                .map(move |c| {
                    format!(
                        "{} {} {}",
                        setting_slug(run.setting),
                        level_name(c.level),
                        c.test
                    )
                })
        })
        .collect();
    let pg = runs.iter().any(|r| r.setting == Setting::Postgres);
    let known: Vec<String> = if pg {
        vec![
            "postgres READ UNCOMMITTED PMP(write)".into(),
            "postgres READ COMMITTED PMP(write)".into(),
        ]
    } else {
        Vec::new()
    };
    if unseen != known {
        wrong.push(format!(
            "DELETEs that removed rows the read before them did not return: {unseen:?}, known: {known:?}"
        ));
    }
    assert!(
        wrong.is_empty(),
        "{} cells disagree:\n{}\n\n{table}\n(details in {})",
        wrong.len(),
        wrong.join("\n"),
        out.display()
    );
}
