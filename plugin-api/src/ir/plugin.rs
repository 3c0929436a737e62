//! The messages between the host and generator or oracle plugins.

use super::{
    DbState, DialectInfo, History, IsolationLevel, Outcome, Schema, Statement, TableRows, TestCase,
};
use serde::{Deserialize, Serialize};

/// What a generator is told when it is created.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeneratorContext {
    pub dialect: DialectInfo,
    /// The isolation levels the pipeline asks for, all supported by the dialect.
    pub levels: Vec<IsolationLevel>,
}

/// Asks a generator for one case. The case must depend on these numbers only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseRequest {
    /// The run's seed.
    pub run_seed: u64,
    /// Position of the case in the run, from 0.
    pub index: u64,
    /// The case's own seed, derived from the two above.
    pub seed: u64,
}

impl CaseRequest {
    /// The case seed for position `index` of a run: a SplitMix64 step, so that
    /// neighbouring cases get unrelated seeds.
    pub fn new(run_seed: u64, index: u64) -> Self {
        CaseRequest {
            run_seed,
            index,
            seed: splitmix64(run_seed ^ splitmix64(index)),
        }
    }
}

/// SplitMix64's output function, used to derive independent seeds.
pub fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// What an oracle is told when it is created.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OracleContext {
    pub dialect: DialectInfo,
}

/// How an oracle needs the case run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OracleRequirements {
    /// The oracle replays statements on a scratch database through [`HostDbRequest`].
    pub scratch_db: bool,
    /// The oracle needs the table contents after the run.
    pub final_state: bool,
    /// Executor modes the oracle can check.
    pub modes: Vec<ExecutorMode>,
}

impl Default for OracleRequirements {
    fn default() -> Self {
        OracleRequirements {
            scratch_db: false,
            final_state: true,
            modes: vec![ExecutorMode::Schedule],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ExecutorMode {
    /// Statements sent one at a time in a case's submitted order.
    Schedule,
    /// Sessions running transactions back to back for a duration.
    Stream,
}

/// The input of an oracle's check: the case as run and what was observed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckInput {
    pub case: TestCase,
    pub history: History,
}

/// A request from an oracle to the host's scratch database.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "op")]
#[non_exhaustive]
pub enum HostDbRequest {
    /// Recreate the tables of `schema` on the scratch database and load `rows`.
    Reset {
        schema: Schema,
        rows: Vec<TableRows>,
    },
    /// Open a session whose transactions run at `isolation`.
    OpenSession { isolation: IsolationLevel },
    /// Run one statement on a session; DB errors come back as an outcome.
    Execute { session: u32, statement: Statement },
    /// Run `statements` on a session in order, each with the outcome
    /// `Execute` would give it, in as few round trips as the host's driver
    /// can (a multi-statement request on the MySQL protocol). With
    /// `until_conflict`, the run stops after the first outcome that breaks a
    /// serial run ([`Outcome::breaks_serial_run`]). Answered with one outcome
    /// per statement run. IR 1.1; an older host answers with an error.
    ExecuteEach {
        session: u32,
        statements: Vec<Statement>,
        #[serde(default)]
        until_conflict: bool,
    },
    /// Read every table of the last reset schema.
    ReadState,
    /// Close a session, rolling back anything it left open.
    CloseSession { session: u32 },
    /// Run a whole case on the scratch database as the run ran the original:
    /// its tables reset to its initial rows, each transaction on its own
    /// session, statements submitted in `submitted_order` by the schedule
    /// executor, the final state read. The case is run as given (no oracle
    /// instruments it again). For oracles that judge a case by running an
    /// edited copy of it (TxCheck's decycling). IR 1.1; an older host answers
    /// with an error.
    RunCase { case: TestCase },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reply")]
#[non_exhaustive]
pub enum HostDbResponse {
    Done,
    Session {
        id: u32,
    },
    Outcome {
        outcome: Outcome,
    },
    State {
        state: DbState,
    },
    /// The outcomes of an `ExecuteEach`, in order. IR 1.1.
    Outcomes {
        outcomes: Vec<Outcome>,
    },
    /// The history of a `RunCase`, with its final state. IR 1.1.
    History {
        history: Box<History>,
    },
}
