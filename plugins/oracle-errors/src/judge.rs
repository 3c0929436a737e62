//! From a history to a verdict: every explicit error of the run, ordered by
//! severity; the most severe is the finding and the others are listed in it.

use crate::config::class_name;
use serde_json::json;
use std::fmt::Write as _;
use txlab_plugin_api::prelude::*;

/// The model every finding of this oracle names.
pub const MODEL: &str = "explicit errors (APTrans, Liu et al., SIGMOD 2026, detection phase 1): \
the DBMS answers every statement with a result or a documented error, and stays up";

/// The kinds of explicit error, most severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// The server went down: it restarted, or refused connections for a
    /// while, or never came back.
    ServerCrash,
    /// A session lost its connection while the server stayed up (or the host
    /// did not say).
    ConnectionLost,
    /// The DBMS reported an internal error or a failed assertion.
    Internal,
    /// An error the dialect could not classify.
    Unclassified,
    /// A class the configuration's `also_findings` names.
    Also,
}

impl Kind {
    /// The signature's stem.
    pub fn name(self) -> &'static str {
        match self {
            Kind::ServerCrash => "server-crash",
            Kind::ConnectionLost => "connection-lost",
            Kind::Internal => "internal-error",
            Kind::Unclassified => "unclassified-error",
            Kind::Also => "also-finding",
        }
    }
}

/// One explicit error of the run.
#[derive(Clone, Debug)]
struct Problem<'a> {
    kind: Kind,
    /// The statement it showed at; `None` for a server loss outside the
    /// case's statements.
    at: Option<StatementRef>,
    /// The statement's error; `None` for a server loss (whose statement may
    /// have got no reply).
    error: Option<&'a DbError>,
}

impl Problem<'_> {
    /// The kind without positions, counts or values: the vendor's code for
    /// errors, so that different internal errors are counted and reduced
    /// apart.
    fn signature(&self) -> String {
        let stem = match (self.kind, self.error) {
            (Kind::Also, Some(e)) => class_name(e.class),
            (kind, _) => kind.name().to_string(),
        };
        match (self.kind, self.error.and_then(error_key)) {
            (Kind::ServerCrash | Kind::ConnectionLost, _) | (_, None) => stem,
            (_, Some(key)) => format!("{stem}:{key}"),
        }
    }
}

/// The vendor's number for an error, else its SQLSTATE: short and stable,
/// never the message (which may quote values).
fn error_key(e: &DbError) -> Option<String> {
    if let Some(code) = e.code {
        return Some(code.to_string());
    }
    e.sqlstate
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()))
        .map(str::to_string)
}

/// The first line of a message, cut to a length that fits a title.
fn short(message: &str) -> String {
    const MAX: usize = 120;
    let line = message.lines().next().unwrap_or_default().trim();
    if line.chars().count() <= MAX && !message.trim().contains('\n') {
        line.to_string()
    } else {
        let cut: String = line.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// "internal error (1105) [HY000]: message", with the message shortened.
fn short_error(e: &DbError) -> String {
    let mut s = e.class.to_string();
    if e.class == ErrorClass::Other {
        s = "unclassified error".into();
    }
    if let Some(code) = e.code {
        let _ = write!(s, " ({code})");
    }
    if let Some(state) = &e.sqlstate {
        let _ = write!(s, " [{state}]");
    }
    let _ = write!(s, ": {}", short(&e.message));
    s
}

fn place(case: &TestCase, at: StatementRef) -> String {
    format!("{at} ({})", case.kind_name(at))
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// What the host found after the server went down, for the title.
fn after_crash(loss: &ServerLoss) -> String {
    let again = |ms: u64| {
        if ms == 0 {
            "at once".to_string()
        } else {
            format!("after {}", seconds(ms))
        }
    };
    match (loss.back_after_ms, loss.restarted) {
        (None, _) => format!(
            "it did not accept connections within {}",
            seconds(loss.waited_ms)
        ),
        (Some(ms), Some(true)) => {
            format!("it restarted and accepted connections {}", again(ms))
        }
        (Some(ms), Some(false)) => format!(
            "it accepted connections again only {} (its start time had not changed)",
            again(ms)
        ),
        (Some(ms), None) => format!(
            "it accepted connections again only {} (whether it restarted is unknown)",
            again(ms)
        ),
    }
}

/// Statements in the order their replies arrived, then those without a
/// place in the completion order (never sent, no reply) in case order.
fn statement_order(history: &History) -> Vec<StatementRef> {
    let mut order = history.completion_order.clone();
    for record in history.statements.iter().flatten() {
        if !order.contains(&record.at) {
            order.push(record.at);
        }
    }
    order
}

/// What `check` decides, given the classes `also_findings` adds.
pub fn verdict(case: &TestCase, history: &History, dialect: &str, also: &[ErrorClass]) -> Verdict {
    if let Some(finding) = nodes_disagree(history, dialect) {
        return Verdict::Finding(finding);
    }
    let mut problems: Vec<Problem<'_>> = Vec::new();
    if let Some(loss) = &history.server_lost {
        problems.push(Problem {
            kind: if loss.server_went_down() {
                Kind::ServerCrash
            } else {
                Kind::ConnectionLost
            },
            at: loss.at,
            error: None,
        });
    }
    // Every statement that lost its connection; one problem for all of them.
    let mut lost: Vec<(StatementRef, &DbError)> = Vec::new();
    for at in statement_order(history) {
        let Some(Outcome::Error(e)) = history.record(at).map(|r| &r.outcome) else {
            continue;
        };
        let kind = match e.class {
            ErrorClass::ConnectionLost => {
                lost.push((at, e));
                continue;
            }
            ErrorClass::Internal => Kind::Internal,
            ErrorClass::Other => Kind::Unclassified,
            class if also.contains(&class) => Kind::Also,
            _ => continue,
        };
        problems.push(Problem {
            kind,
            at: Some(at),
            error: Some(e),
        });
    }
    if history.server_lost.is_none() {
        if let Some(&(at, e)) = lost.first() {
            problems.push(Problem {
                kind: Kind::ConnectionLost,
                at: Some(at),
                error: Some(e),
            });
        }
    }
    // Stable: within a kind, the first error in the completion order leads.
    problems.sort_by_key(|p| p.kind);
    let Some(first) = problems.first() else {
        return Verdict::Pass;
    };
    let others = &problems[1..];
    Verdict::Finding(Finding {
        title: title(case, history, first),
        signature: first.signature(),
        model: MODEL.into(),
        assumed_semantics: assumed_semantics(dialect, also),
        explanation: explanation(case, history, first, others, &lost, dialect),
        summary: format!(
            "a DBMS answers every statement with a result or a documented error and stays up; here {}",
            title(case, history, first)
        ),
        evidence: json!({
            "kind": first.kind.name(),
            "at": first.at.map(|at| at.to_string()),
            "statement": first.at.map(|at| case.kind_name(at)),
            "sql": first.at.and_then(|at| history.record(at)).map(|r| r.sql.clone()),
            "error": first.error,
            "server_lost": history.server_lost,
            "lost_connections": lost.iter().map(|(at, e)| json!({
                "at": at.to_string(),
                "error": e,
            })).collect::<Vec<_>>(),
            "others": others.iter().map(|p| json!({
                "signature": p.signature(),
                "at": p.at.map(|at| at.to_string()),
                "error": p.error,
            })).collect::<Vec<_>>(),
        }),
        files: Vec::new(),
    })
}

fn title(case: &TestCase, history: &History, p: &Problem<'_>) -> String {
    let during = match p.at {
        Some(at) => format!("during {}", place(case, at)),
        None => "outside the case's statements".into(),
    };
    match (p.kind, &history.server_lost, p.error, p.at) {
        (Kind::ServerCrash, Some(loss), _, _) => {
            format!("the server went down {during}: {}", after_crash(loss))
        }
        (Kind::ConnectionLost, Some(loss), _, _) => match loss.restarted {
            Some(false) => format!("the server dropped the connection {during} without restarting"),
            _ => format!(
                "the server dropped the connection {during} and accepted a new one at once \
                 (whether it restarted is unknown)"
            ),
        },
        (Kind::ConnectionLost, None, Some(e), _) => format!(
            "the connection broke {during} (whether the server went down is unknown): {}",
            short_error(e)
        ),
        (_, _, Some(e), Some(at)) => {
            let mut title = format!("{} failed with {}", place(case, at), short_error(e));
            if p.kind == Kind::Also {
                title.push_str(" (also_findings)");
            }
            title
        }
        // Not reached: every problem but a server loss has an error and a
        // statement.
        _ => format!("{} {during}", p.kind.name()),
    }
}

/// Why the kind is a bug, for the explanation.
fn why(kind: Kind, dialect: &str, class: Option<ErrorClass>) -> String {
    match kind {
        Kind::ServerCrash => "The server went down during the case. Nothing a test case sends may \
            bring a DBMS down: a crash, a failed assertion or an out-of-memory kill shows as a \
            server that restarts or stops accepting connections. The server's error log around \
            the time of the loss has the assertion, signal or stack trace."
            .into(),
        Kind::ConnectionLost => "A session lost its connection while the server stayed up. No \
            statement of the case asks for that: the server dropped the session (a crashed \
            thread or worker process, a killed connection, a protocol error). The server's error \
            log may say why; check also that nothing outside txlab killed the session."
            .into(),
        Kind::Internal => "The DBMS reported an internal error: a bug in itself or damage it \
            found in its own data (a failed assertion, a corrupted table or index), never a \
            documented answer to the SQL it was sent."
            .into(),
        Kind::Unclassified => format!(
            "The DBMS answered with an error the dialect `{dialect}` does not classify: none of \
            the errors a concurrent run meets by design, and not a known internal error. It may \
            be a bug, or a documented error the dialect does not know yet: look the code up in \
            the vendor's documentation, and if it is documented, teach the dialect's \
            `classify_error` its class."
        ),
        Kind::Also => format!(
            "The DBMS answered with a {}, which this run reports as a finding (`also_findings`): \
            a generator or dialect may have produced SQL the DBMS refuses, or the run's limits \
            may be too tight.",
            class.map_or_else(|| "documented error".to_string(), |c| c.to_string())
        ),
    }
}

fn fenced(s: &mut String, language: &str, text: &str) {
    let fence = if text.contains("```") { "~~~~" } else { "```" };
    let _ = writeln!(s, "{fence}{language}\n{}\n{fence}\n", text.trim_end());
}

fn explanation(
    case: &TestCase,
    history: &History,
    first: &Problem<'_>,
    others: &[Problem<'_>],
    lost: &[(StatementRef, &DbError)],
    dialect: &str,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "APTrans's explicit phase: an error that reveals a bug by itself, whatever the \
         transactions should have seen. {}\n",
        why(first.kind, dialect, first.error.map(|e| e.class))
    );
    if let Some(at) = first.at {
        let level = case.transactions.get(at.txn()).map_or_else(
            || "an unknown level".to_string(),
            |t| t.isolation.to_string(),
        );
        let _ = writeln!(
            s,
            "**Statement:** {}, in {} at {level}",
            place(case, at),
            txn_label(at.txn())
        );
        if let Some(record) = history.record(at) {
            let _ = writeln!(s, "\n**SQL:**\n");
            fenced(&mut s, "sql", &record.sql);
            if first.error.is_none() {
                let _ = writeln!(s, "**Outcome:** it {}\n", record.outcome);
            }
        } else {
            s.push('\n');
        }
    }
    if let Some(e) = first.error {
        let _ = writeln!(s, "**Error:**\n");
        fenced(&mut s, "text", &e.to_string());
    }
    if let (Kind::ServerCrash | Kind::ConnectionLost, Some(loss)) =
        (first.kind, &history.server_lost)
    {
        let _ = writeln!(s, "**What the host found:** {loss}.\n");
        if loss.restarted.is_none() {
            let _ = writeln!(
                s,
                "The host could not tell whether the server restarted (its start time was not \
                 readable).\n"
            );
        }
    }
    if !lost.is_empty() {
        let _ = writeln!(s, "**Statements that lost their connection:**\n");
        for (at, e) in lost {
            let _ = writeln!(s, "- {}: {}", place(case, *at), short_error(e));
        }
        s.push('\n');
    }
    if !others.is_empty() {
        let _ = writeln!(
            s,
            "### {} more explicit {} in this case\n",
            others.len(),
            if others.len() == 1 { "error" } else { "errors" }
        );
        let _ = writeln!(
            s,
            "Reported here, not as findings of their own (the finding is the most severe: \
             server-crash, connection-lost, internal-error, unclassified-error, also_findings):\n"
        );
        for p in others {
            let what = match p.error {
                Some(e) => short_error(e),
                None => match &history.server_lost {
                    Some(loss) => loss.to_string(),
                    None => p.kind.name().into(),
                },
            };
            let at =
                p.at.map_or_else(|| "outside the statements".into(), |at| place(case, at));
            let _ = writeln!(s, "- `{}` at {at}: {what}", p.signature());
        }
    }
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
}

/// The model a cluster's replicas are held to.
pub const REPLICA_MODEL: &str = "replica consistency: once a case has ended and replication \
has settled, every node of a cluster holds the same rows";

/// A cluster whose nodes still held different rows after the case, once the
/// host had waited for replication to settle: whatever the isolation level,
/// the nodes of one database must not diverge (Galera: "data consistency
/// between the nodes is always guaranteed regardless of the isolation level
/// chosen by the client", https://galeracluster.com/library/documentation/isolation-levels.html).
fn nodes_disagree(history: &History, dialect: &str) -> Option<Finding> {
    let cluster = history.cluster.as_ref()?;
    let first = history.final_state.as_ref()?;
    let node = cluster.disagreeing.first()?;
    let mut differences = Vec::new();
    for table in &first.tables {
        let other = node.state.table(&table.table);
        let (mine, theirs) = (
            table.rows.len(),
            other.map(|t| t.rows.len()).unwrap_or_default(),
        );
        if other.map(|t| &t.rows) != Some(&table.rows) {
            let only_first = table
                .rows
                .iter()
                .filter(|r| !other.is_some_and(|t| t.rows.contains(r)))
                .count();
            let only_node = other
                .map(|t| t.rows.iter().filter(|r| !table.rows.contains(r)).count())
                .unwrap_or_default();
            differences.push(format!(
                "`{}`: node 1 holds {mine} rows and node {} {theirs}; {only_first} of node 1's rows are not on node {}, {only_node} of node {}'s are not on node 1",
                table.table,
                node.node + 1,
                node.node + 1,
                node.node + 1
            ));
        }
    }
    if differences.is_empty() {
        differences.push(format!(
            "node {} could not be read as node 1 was",
            node.node + 1
        ));
    }
    let title = format!(
        "the cluster's nodes disagree: node {} differs from node 1 after the case",
        node.node + 1
    );
    Some(Finding {
        summary: format!(
            "once a case has ended and replication has settled every node holds the same rows; here {title}"
        ),
        signature: "nodes-disagree".into(),
        model: REPLICA_MODEL.into(),
        assumed_semantics: format!(
            "dialect `{dialect}`: the nodes replicate every committed transaction; the host waited {} ms for them to agree",
            cluster.settle_ms
        ),
        explanation: format!(
            "After the case the host read every table on each of the {} nodes and waited {} ms for them to agree; {} of them still differed from node 1. {}.",
            cluster.node_count,
            cluster.settle_ms,
            cluster.disagreeing.len(),
            differences.join("; ")
        ),
        evidence: json!({
            "kind": "nodes_disagree",
            "nodes": cluster.nodes,
            "disagreeing": cluster.disagreeing,
            "settle_ms": cluster.settle_ms,
        }),
        title,
        files: Vec::new(),
    })
}

fn assumed_semantics(dialect: &str, also: &[ErrorClass]) -> String {
    use crate::config::EXPECTED_CLASSES;
    let expected: Vec<String> = EXPECTED_CLASSES
        .iter()
        .filter(|(_, class)| !also.contains(class))
        .map(|(_, class)| class.to_string())
        .collect();
    let mut s = format!(
        "the dialect `{dialect}` classifies the DBMS's errors: the errors a concurrent run meets by \
         design are documented answers, not findings ({}); a connection breaks only when the \
         server goes down or drops the session; an internal error is a bug of the DBMS",
        expected.join(", ")
    );
    if !also.is_empty() {
        let named: Vec<String> = also.iter().map(|c| c.to_string()).collect();
        let _ = write!(
            s,
            "; this run also reports {} (also_findings)",
            named.join(", ")
        );
    }
    s
}
