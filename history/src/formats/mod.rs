//! Histories in and out: Elle's (Jepsen's EDN, and the JSON form elle-cli
//! reads) for list-append and read-write registers, and dbcop's (the JSON of
//! today's dbcop and the bincode of its OOPSLA 2019 version).
//!
//! - [`elle::import`] and [`dbcop::import`] build a [`History`] from a file;
//!   list-append maps onto version lists directly (a key is a row, a read
//!   list is the row's version list), registers through the sound part of
//!   Elle's inference ([`register`]).
//! - [`elle::export`] and [`dbcop::export`] write a [`History`] out; a
//!   history exported by txlab carries its own details in an extra key each
//!   checker ignores, so that importing it again gives the same history.
//! - [`names`] puts txlab's anomalies in Elle's terms and says which of
//!   Elle's consistency models forbid each; [`elle_checks`] finds the
//!   anomalies Elle reports that are no cycle (internal, lost update, …).
//!
//! The formats, the mapping and its limits are in `docs/history.md`.

pub mod dbcop;
mod edn;
pub mod elle;
pub mod elle_checks;
mod export;
pub mod names;
mod ops;
pub mod register;
pub mod sql_list;

pub use ops::{to_edn, Mop, MopKind, MopMeta, MopValue, Op, OpType, Scalar, TxnMeta};

use crate::History;
use std::fmt;

/// A place in an input file: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// Why an input could not be read as a history.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The input is malformed at a known place.
    #[error("{pos}: {message}")]
    At {
        /// Where.
        pos: Pos,
        /// What is wrong.
        message: String,
    },
    /// The input is well-formed, but is no history of the kind asked for,
    /// or contradicts itself (a value appended twice, …).
    #[error("{0}")]
    Invalid(String),
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl FormatError {
    pub(crate) fn at(pos: Pos, message: impl Into<String>) -> FormatError {
        FormatError::At {
            pos,
            message: message.into(),
        }
    }

    pub(crate) fn io(pos: Pos, e: std::io::Error) -> FormatError {
        FormatError::at(pos, format!("cannot read: {e}"))
    }
}

/// A history read from a file, with what the file's format itself says
/// beyond the history's dependencies.
#[derive(Debug)]
pub struct Imported {
    /// The history.
    pub history: History,
    /// Which workload the file holds.
    pub workload: Workload,
    /// The anomalies Elle finds without a cycle, from the operations
    /// themselves ([`elle_checks`]): internal inconsistencies, future reads,
    /// duplicate elements, lost updates.
    pub findings: Vec<elle_checks::Finding>,
    /// For each transaction of the history (by id), the operation it came
    /// from: its `:index`, process and how it is written in the file.
    pub ops: Vec<OpOrigin>,
    /// How the file's keys are named, for a key that is not a non-negative
    /// integer (rows are then numbered): `(row, key as written)`.
    pub keys: Vec<(crate::RowId, String)>,
    /// Whether the file carried txlab's own details (it was exported by
    /// txlab), which were used instead of inference.
    pub from_txlab: bool,
}

impl Imported {
    /// Where transaction `id` came from.
    pub fn origin(&self, id: crate::TxnId) -> Option<&OpOrigin> {
        self.ops
            .binary_search_by_key(&id, |o| o.txn)
            .ok()
            .map(|i| &self.ops[i])
    }

    /// How the file names row `row`'s key.
    pub fn key_name(&self, row: crate::RowId) -> String {
        match self.keys.binary_search_by_key(&row, |k| k.0) {
            Ok(i) => self.keys[i].1.clone(),
            Err(_) => row.to_string(),
        }
    }
}

/// Where a transaction came from in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpOrigin {
    /// The transaction's id in the history.
    pub txn: crate::TxnId,
    /// The completion's (or, unfinished, the invocation's) `:index`.
    pub index: Option<i64>,
    /// The process (or dbcop session).
    pub process: Option<i64>,
    /// The line it is on.
    pub line: usize,
}

/// The kinds of history the formats hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Elle's list-append: `[:append k v]` and `[:r k [v …]]`.
    ListAppend,
    /// Elle's read-write registers: `[:w k v]` and `[:r k v]`.
    RwRegister,
    /// dbcop's registers (unique values, `0` or null the initial one).
    Dbcop,
}

impl Workload {
    /// `list-append`, `rw-register`, `dbcop`.
    pub fn name(self) -> &'static str {
        match self {
            Workload::ListAppend => "list-append",
            Workload::RwRegister => "rw-register",
            Workload::Dbcop => "dbcop",
        }
    }
}
