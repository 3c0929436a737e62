//! Whole test cases.

use txlab_plugin_api::prelude::*;

/// A valid case whose transactions were submitted one after another, each
/// statement in turn.
///
/// # Panics
/// When the case does not validate.
pub fn case_of(
    schema: Schema,
    initial_rows: Vec<TableRows>,
    transactions: Vec<Transaction>,
) -> TestCase {
    let submitted_order = transactions
        .iter()
        .enumerate()
        .flat_map(|(t, txn)| (0..txn.statements.len()).map(move |s| StatementRef::new(t, s)))
        .collect();
    let case = TestCase {
        seed: 0,
        generator: "hand-written".into(),
        schema,
        initial_rows,
        transactions,
        submitted_order,
        intent: None,
        pace_ms: None,
    };
    case.validate().unwrap();
    case
}

/// A transaction that runs `statements` (BEGIN and its end included) at `level`.
pub fn explicit(level: IsolationLevel, statements: Vec<Statement>) -> Transaction {
    Transaction {
        isolation: level,
        kind: TxnKind::Explicit,
        statements,
    }
}
