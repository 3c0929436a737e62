//! A Galera cluster as a target (`[target] nodes`, the `galera` dialect):
//! each transaction of a case on its own node, the case's tables waited for
//! on every node, the final state read from every node.
//!
//! The cluster is the three MariaDB 11.8 nodes `servers/servers.sh` starts
//! (`TXLAB_GALERA_URLS`, comma-separated; default 127.0.0.1:4401-4403). An
//! unreachable cluster skips these tests, or fails them with
//! `TXLAB_REQUIRE_LIVE=1`.

mod common;

use common::cli_env::*;
use common::servers;
use mysql_async::prelude::Queryable;
use std::sync::Arc;
use std::time::Duration;
use txlab_host::driver::{ServerKind, Timeouts};
use txlab_host::target::{open_driver, CaseDb, ServerDatabases, TargetLocation};
use txlab_loader::PluginLibrary;
use txlab_plugin_api::ir::*;
use txlab_plugin_api::sdk::HostDb;

async fn cluster_reachable(what: &str) -> Option<Vec<String>> {
    let nodes = servers::galera_urls();
    for url in &nodes {
        if !servers::reachable_at(ServerKind::Mysql, url, what).await {
            return None;
        }
    }
    Some(nodes)
}

const PIPELINE: &str = r#"
[target]
dialect = "galera"

[executor]
statement_timeout = "10s"
lock_wait_timeout = "10s"

[generator]
plugin = "random"

[[oracle]]
plugin = "wss"

[[oracle]]
plugin = "isorel"

[[oracle]]
plugin = "errors"

[[oracle]]
plugin = "troc"

[[oracle]]
plugin = "txcheck"
"#;

/// Two transactions on two nodes write one row: the second to commit fails
/// certification (first committer wins, error 1213), which the galera
/// profile declares. WSS, IsoRel and the errors oracle judge the run as
/// that profile says (a pass); Troc and TxCheck, which model one node's
/// pessimistic locks, say that the run is outside their model, never pass
/// or finding.
#[tokio::test(flavor = "multi_thread")]
async fn a_write_write_conflict_across_nodes_fails_certification_as_every_oracle_expects() {
    let Some(nodes) = cluster_reachable("galera_live: write-write conflict").await else {
        return;
    };
    let env = Env::new(&[]);
    let pipeline = env.pipeline("galera.toml", PIPELINE);
    let script = env.work.path().join("conflict.sql");
    std::fs::write(
        &script,
        "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);\n\
         INSERT INTO t (id, v) VALUES (1, 10), (2, 20);\n\
         -- isolation: T1 repeatable-read, T2 repeatable-read\n\
         -- T1: BEGIN;\n\
         -- T1: UPDATE t SET v = v + 1 WHERE id = 1;\n\
         -- T2: BEGIN;\n\
         -- T2: UPDATE t SET v = v + 10 WHERE id = 1;\n\
         -- T1: COMMIT;\n\
         -- T2: COMMIT;\n",
    )
    .unwrap();
    let out = env.work.path().join("checked");
    let o = env.txlab(&[
        "check",
        script.to_str().unwrap(),
        "--pipeline",
        pipeline.to_str().unwrap(),
        "--url",
        &nodes.join(","),
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{text}");
    for line in [
        "wss: pass",
        "isorel: pass",
        "errors: pass",
        // Troc models pessimistic locking on one node: the galera profile's
        // conflicts at COMMIT already put the run outside it.
        "troc: undecided: outside the model:",
        "txcheck: undecided: outside the model: the transactions ran on different nodes",
    ] {
        assert!(text.contains(line), "`{line}` in:\n{text}");
    }
    let history: History =
        serde_json::from_str(&std::fs::read_to_string(out.join("history.json")).unwrap()).unwrap();
    let cluster = history.cluster.as_ref().expect("a cluster run");
    assert_eq!((cluster.node_count, &cluster.nodes[..]), (3, &[0, 1][..]));
    assert!(cluster.disagreeing.is_empty());
    // T1 committed; T2 lost certification, a serialization failure, without
    // ever waiting for T1 (no lock crosses nodes).
    assert_eq!(history.transactions[0].end, TxnEnd::Committed);
    assert!(
        matches!(
            history.transactions[1].end,
            TxnEnd::Aborted {
                class: ErrorClass::SerializationFailure,
                ..
            }
        ),
        "{:?}",
        history.transactions[1]
    );
    assert!(history
        .statements
        .iter()
        .flatten()
        .all(|s| s.blocked.is_none()));
    // Row 1 holds T1's write only (the oracles' columns follow id and v).
    let rows = &history
        .final_state
        .as_ref()
        .unwrap()
        .table("t")
        .unwrap()
        .rows;
    assert!(
        rows.iter()
            .any(|r| r[..2] == [Value::Int(1), Value::Int(11)]),
        "{rows:?}"
    );
}

/// A row changed on one node with replication switched off for that
/// session (`wsrep_on = OFF`) makes the nodes disagree: the host reads every
/// node after the case, waits for them to agree, records the node that
/// still differs, and the errors oracle reports it.
#[tokio::test(flavor = "multi_thread")]
async fn a_row_changed_on_one_node_only_is_reported_as_nodes_that_disagree() {
    let Some(nodes) = cluster_reachable("galera_live: nodes that disagree").await else {
        return;
    };
    let mysql = PluginLibrary::load(&common::library("txlab-dialect-mysql")).unwrap();
    let dialect = Arc::new(mysql.new_dialect("galera", "{}").unwrap());
    let info = dialect.info().unwrap();
    let server = Arc::new(
        ServerDatabases::new(ServerKind::Mysql, &nodes[0]).with_other_nodes(nodes[1..].to_vec()),
    );
    let timeouts = Timeouts {
        statement: Duration::from_secs(10),
        lock_wait: Duration::from_secs(10),
    };
    let limits = SessionLimits {
        statement_timeout_ms: 10_000,
        lock_wait_timeout_ms: 10_000,
    };
    let setup = dialect
        .session_setup(&SessionRequest {
            isolation: IsolationLevel::RepeatableRead,
            limits,
        })
        .unwrap();
    let location = TargetLocation::Server(server.clone());
    let driver = open_driver(&dialect, &info, &location, "diverge", timeouts)
        .await
        .unwrap();
    assert_eq!(driver.nodes(), 3);
    let mut db = CaseDb::open(driver, &setup, timeouts.deadlines(), Default::default())
        .await
        .unwrap();
    db.set_replication_timeout(Duration::from_millis(500));
    let case: TestCase = txlab_script::import(
        "rows.sql",
        "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL);\n\
         INSERT INTO t (id, v) VALUES (1, 10), (2, 20);\n\
         -- T1: BEGIN;\n-- T1: SELECT v FROM t WHERE id = 1;\n-- T1: COMMIT;\n",
        &txlab_script::ImportOptions {
            level: Some(IsolationLevel::RepeatableRead),
            ..Default::default()
        },
    )
    .unwrap()
    .case;
    let rendered = dialect.render_case(&case, &limits).unwrap();
    db.prepare(&dialect, &case, &rendered).await.unwrap();
    let (agreed, read) = db.read_final_states(&rendered).await.unwrap();
    assert!(read.disagreeing.is_empty(), "{read:?}");

    // Node 2 alone: replication off for this session.
    let database = server.created()[0].clone();
    let mut node2 = mysql_async::Conn::from_url(format!("{}/{database}", nodes[1]))
        .await
        .unwrap();
    node2
        .query_drop("SET SESSION wsrep_on = OFF")
        .await
        .unwrap();
    node2
        .query_drop("UPDATE t SET v = 99 WHERE id = 2")
        .await
        .unwrap();
    drop(node2);

    let (first, read) = db.read_final_states(&rendered).await.unwrap();
    assert_eq!(first, agreed, "node 1 kept its rows");
    assert_eq!(read.disagreeing.len(), 1, "{read:?}");
    assert_eq!(read.disagreeing[0].node, 1);
    assert!(read.waited >= Duration::from_millis(500));

    let history = History {
        statements: case
            .transactions
            .iter()
            .enumerate()
            .map(|(t, txn)| {
                (0..txn.statements.len())
                    .map(|s| StatementRecord {
                        at: StatementRef::new(t, s),
                        sql: String::new(),
                        submitted_us: Some(1),
                        completed_us: Some(2),
                        blocked: None,
                        outcome: Outcome::Done,
                    })
                    .collect()
            })
            .collect(),
        transactions: vec![TransactionRecord {
            isolation: IsolationLevel::RepeatableRead,
            end: TxnEnd::Committed,
            ended_us: Some(2),
        }],
        completion_order: (0..3).map(|s| StatementRef::new(0, s)).collect(),
        final_state: Some(first),
        cluster: Some(ClusterRun {
            node_count: 3,
            nodes: vec![0],
            disagreeing: read.disagreeing,
            settle_ms: read.waited.as_millis() as u64,
        }),
        ..History::default()
    };
    let errors = PluginLibrary::load(&common::library("txlab-oracle-errors")).unwrap();
    let mut oracle = errors
        .new_oracle("errors", "{}", &OracleContext { dialect: info })
        .unwrap();
    let verdict = oracle
        .check(&CheckInput { case, history }, &mut NoDb)
        .unwrap();
    let Verdict::Finding(finding) = verdict else {
        panic!("a finding, not {verdict:?}");
    };
    assert_eq!(finding.signature, "nodes-disagree");
    assert!(
        finding.title.contains("node 2 differs from node 1"),
        "{}",
        finding.title
    );
    assert!(
        finding.explanation.contains(
            "`t`: node 1 holds 2 rows and node 2 2; 1 of node 1's rows are not on node 2"
        ),
        "{}",
        finding.explanation
    );
    let problems = server.drop_created().await;
    assert!(problems.is_empty(), "{problems:?}");
}

struct NoDb;

impl HostDb for NoDb {
    fn call(
        &mut self,
        _: txlab_plugin_api::ir::HostDbRequest,
    ) -> Result<txlab_plugin_api::ir::HostDbResponse, txlab_plugin_api::sdk::PluginError> {
        Err(txlab_plugin_api::sdk::PluginError::host("no database here"))
    }
}
