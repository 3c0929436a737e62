//! Calling a dialect the way the host does, with the values every dialect suite
//! renders with.

use txlab_plugin_api::prelude::*;

/// The session limits the tests render cases and set sessions up with.
pub const LIMITS: SessionLimits = SessionLimits {
    statement_timeout_ms: 5_000,
    lock_wait_timeout_ms: 8_000,
};

/// Renders one statement against `schema` for a transaction at `level`.
pub fn render_at(
    dialect: &dyn Dialect,
    schema: &Schema,
    level: IsolationLevel,
    statement: &Statement,
) -> Result<String, PluginError> {
    dialect.render(
        statement,
        &RenderContext {
            schema,
            isolation: level,
        },
    )
}

/// [`render_at`] for statements that must render.
///
/// # Panics
/// When the dialect refuses the statement.
pub fn render_ok_at(
    dialect: &dyn Dialect,
    schema: &Schema,
    level: IsolationLevel,
    statement: &Statement,
) -> String {
    render_at(dialect, schema, level, statement)
        .unwrap_or_else(|e| panic!("cannot render {statement:?}: {e}"))
}

/// The session set-up `dialect` asks for at `level` with `limits`.
pub fn session_setup(
    dialect: &dyn Dialect,
    level: IsolationLevel,
    limits: SessionLimits,
) -> Result<SessionSetup, PluginError> {
    dialect.session_setup(&SessionRequest {
        isolation: level,
        limits,
    })
}

/// The SQL that creates every table of `schema`, then runs `statements`
/// rendered at `level`: a database in a known state without a whole case.
///
/// # Panics
/// When the dialect refuses a table or a statement.
pub fn create_and_run_sql(
    dialect: &dyn Dialect,
    schema: &Schema,
    level: IsolationLevel,
    statements: &[Statement],
) -> Vec<String> {
    let mut sql = Vec::new();
    for table in &schema.tables {
        sql.extend(
            dialect
                .create_table(table)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", table.name)),
        );
    }
    sql.extend(
        statements
            .iter()
            .map(|s| render_ok_at(dialect, schema, level, s)),
    );
    sql
}
