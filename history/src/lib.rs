//! Isolation anomalies from histories whose reads observe each row's
//! identity and version list.
//!
//! The histories are IsoRel's (Yang et al., ISSTA 2025): every read returns,
//! for each row, the row's identity and its version list, the ids of the
//! transactions that wrote the row in installation order (`0` is the
//! initial data). From them this crate infers Adya's dependencies with
//! their provenance (ww, wr, rw, and optionally session order), builds the
//! dependency graph of the committed transactions, finds its strongly
//! connected components, and inside each component the shortest cycle of
//! each class (Elle's way: for each edge `u → v` of the class, a shortest
//! path `v ⇝ u` within the edges the class allows). It reports the
//! phenomena that are not cycles (G1a, G1b, G-SIa) and what no isolation
//! level allows (forked version orders, aborted writes that survived, a
//! transaction losing its own write). Two models judge each anomaly
//! ([`model`]): Adya's levels, and the vendor's semantics as the dialect's
//! profile declares them.
//!
//! ```
//! use txlab_history::*;
//!
//! // Lost update: T1 reads row 1 (initial version), T2 updates it and
//! // commits, T1 updates it and commits; a later read sees both writes.
//! let mut h = History::new();
//! for id in 1..=3 {
//!     h.add_transaction(Transaction::committed(id)).unwrap();
//! }
//! let read = |txn, index, versions: Vec<TxnId>| Observation {
//!     statement: StatementId::new(txn, index),
//!     kind: ReadKind::Plain,
//!     table: "t".into(),
//!     row: 1,
//!     versions,
//!     values: String::new(),
//!     at: None,
//! };
//! h.observe(read(1, 1, vec![0])).unwrap();
//! h.observe(read(3, 1, vec![0, 2, 1])).unwrap();
//! let report = check(&h, &Options::default());
//! assert_eq!(report.anomalies.len(), 1);
//! let a = &report.anomalies[0];
//! assert_eq!(a.phenomenon, Phenomenon::GSingle);
//! assert_eq!(a.subtype, Some(SqlAnomaly::LostUpdate));
//! assert!(to_dot(a, &h).contains("t1 -> t2 [label=\"rw t row 1\""));
//! ```
//!
//! The crate's model, classes and both models' tables are in
//! `docs/history.md`.

#![warn(missing_docs)]

mod check;
mod dot;
pub mod formats;
mod fx;
mod graph;
mod history;
mod infer;
pub mod ir;
pub mod model;
mod report;
pub mod verdict;

pub use check::check;
pub use dot::to_dot;
pub use history::{
    History, HistoryError, Interval, Observation, ObservationRef, ReadKind, RowId, StatementId,
    Transaction, TxnId, TxnOutcome, Write, WriteRef, T0,
};
pub use model::{judge, AdyaLevel, Judgement, VendorJudgement, VendorModel};
pub use report::{
    Anomaly, DepKind, Edge, Options, Phenomenon, Report, Sighting, SqlAnomaly, StartOrder, Stats,
    Survival, Violation,
};

#[cfg(test)]
mod tests;
