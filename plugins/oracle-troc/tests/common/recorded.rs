//! Cases and histories recorded from txlab runs on MySQL 9.7.4
//! (`tests/data/mysql9/`), judged again with the mysql dialect's profile on
//! the in-memory database.

#![allow(dead_code)]

use super::oracle;
use txlab_plugin_api::prelude::*;

/// The mysql dialect's description, as the runs had it.
pub fn mysql() -> DialectInfo {
    <txlab_mysql::MysqlDialect as DialectPlugin>::new(txlab_mysql::MysqlConfig {})
        .unwrap()
        .info()
}

/// The case (as troc prepared it) and history of a recorded run.
pub fn recorded(name: &str) -> (TestCase, History) {
    let path = format!(
        "{}/tests/data/mysql9/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let input: CheckInput = serde_json::from_str(&text).unwrap();
    input.case.validate().unwrap();
    input.history.check_shape(&input.case).unwrap();
    (input.case, input.history)
}

/// The in-memory database as MySQL's driver answers: BOOLEAN columns are
/// TINYINT(1) and come back as the integers 0 and 1, as the recorded runs
/// returned them.
pub struct BooleansAsIntegers(pub txlab_testkit::MemoryDb);

fn as_integers(rows: &mut [Vec<Value>]) {
    for value in rows.iter_mut().flatten() {
        if let Value::Bool(b) = value {
            *value = Value::Int(i64::from(*b));
        }
    }
}

impl HostDb for BooleansAsIntegers {
    fn call(&mut self, request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
        let mut response = self.0.call(request)?;
        let outcomes = |outcomes: &mut [Outcome]| {
            for outcome in outcomes {
                if let Outcome::Rows { rows, .. } = outcome {
                    as_integers(rows);
                }
            }
        };
        match &mut response {
            HostDbResponse::Outcome { outcome } => outcomes(std::slice::from_mut(outcome)),
            HostDbResponse::Outcomes { outcomes: all } => outcomes(all),
            HostDbResponse::State { state } => {
                for table in &mut state.tables {
                    as_integers(&mut table.rows);
                }
            }
            _ => {}
        }
        Ok(response)
    }
}

/// The oracle's verdict on a recorded case, checked with the mysql dialect's
/// profile on the in-memory database.
pub fn check_recorded(case: &TestCase, history: &History) -> Verdict {
    let mut db = BooleansAsIntegers(txlab_testkit::MemoryDb::new());
    let verdict = oracle(mysql())
        .check(
            &CheckInput {
                case: case.clone(),
                history: history.clone(),
            },
            &mut db,
        )
        .unwrap();
    assert_eq!(db.0.open_sessions(), 0, "the oracle left sessions open");
    verdict
}
