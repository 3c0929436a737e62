//! Whether a run is inside what the Troc model describes soundly. Everything
//! outside is undecided, with a reason that names the limit.

use txlab_plugin_api::prelude::*;

/// Why the case is outside the model, if it is: Troc's model is two explicit
/// transactions of single-table statements (no IR 1.1 query, INSERT … SELECT
/// or subquery: a subquery's read is not the statement's view) on one table
/// under pessimistic concurrency control, at levels whose semantics the
/// dialect's profile pins down.
pub fn outside(case: &TestCase, dialect: &DialectInfo) -> Option<String> {
    if case.transactions.len() != 2 {
        return Some(format!(
            "outside the model: Troc models exactly two transactions, the case has {}",
            case.transactions.len()
        ));
    }
    // Before the table count: a query over two tables should say so.
    if let Some(form) = case.first_query_form() {
        return Some(format!(
            "outside the model: {form}; Troc's views hold one table, and it runs \
             single-table statements on them"
        ));
    }
    if case.schema.tables.len() != 1 {
        return Some(format!(
            "outside the model: Troc models one table, the case has {}",
            case.schema.tables.len()
        ));
    }
    for (t, txn) in case.transactions.iter().enumerate() {
        if txn.kind != TxnKind::Explicit {
            return Some(format!(
                "outside the model: {} is an autocommit statement, Troc models explicit transactions",
                txn_label(t)
            ));
        }
        let Some(semantics) = dialect.level(txn.isolation) else {
            return Some(format!(
                "outside the model: the dialect `{}` does not describe {}",
                dialect.name, txn.isolation
            ));
        };
        if semantics.write_conflict == WriteConflict::AbortAtCommit {
            return Some(format!(
                "outside the model: {} at {} detects write conflicts at commit (optimistic), Troc models pessimistic concurrency control",
                dialect.name, txn.isolation
            ));
        }
    }
    None
}
