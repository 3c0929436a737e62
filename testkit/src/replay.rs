//! Running a rendered case's SQL by hand, through whatever connection a test
//! holds: the test passes a function that runs one statement and returns its rows.

use txlab_plugin_api::prelude::*;

/// Rows as a driver returns them, one value per column.
pub type Rows = Vec<Vec<Value>>;

/// The statements that create the case's tables and fill them, in order.
pub fn set_up_sql(rendered: &RenderedCase) -> impl Iterator<Item = &str> {
    rendered
        .create
        .iter()
        .chain(&rendered.populate)
        .map(String::as_str)
}

/// Each table's name and rows, read with the case's state queries.
pub fn read_state(
    rendered: &RenderedCase,
    mut run: impl FnMut(&str) -> Rows,
) -> Vec<(String, Rows)> {
    rendered
        .read_state
        .iter()
        .map(|q| (q.table.clone(), run(&q.sql)))
        .collect()
}
