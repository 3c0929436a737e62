//! A cluster target: one driver per node, the first node's for everything
//! that is the whole target's (loading tables, the final state, the
//! server's version), any node's for a case's sessions. Each session's key
//! carries its node, so the lock-wait probe asks that node.

use super::{Driver, DriverError, GoOn, Monitor, QueryResult, Session, SessionKey};
use async_trait::async_trait;
use txlab_plugin_api::ir::RawDbError;

/// A cluster of nodes that each hold the whole database (Galera).
pub struct ClusterDriver {
    nodes: Vec<Box<dyn Driver>>,
}

impl ClusterDriver {
    /// A driver for the cluster whose nodes `nodes` reach, the first node's
    /// first.
    ///
    /// # Panics
    /// When `nodes` is empty.
    pub fn new(nodes: Vec<Box<dyn Driver>>) -> Self {
        assert!(!nodes.is_empty(), "a cluster has at least one node");
        ClusterDriver { nodes }
    }
}

#[async_trait]
impl Driver for ClusterDriver {
    fn target(&self) -> String {
        let each: Vec<String> = self.nodes.iter().map(|n| n.target()).collect();
        format!(
            "a cluster of {} nodes: {}",
            self.nodes.len(),
            each.join(", ")
        )
    }

    async fn connect(&self) -> Result<Box<dyn Session>, DriverError> {
        self.connect_to(0).await
    }

    fn nodes(&self) -> usize {
        self.nodes.len()
    }

    async fn connect_to(&self, node: usize) -> Result<Box<dyn Session>, DriverError> {
        let driver = self.nodes.get(node).ok_or_else(|| {
            DriverError::Other(format!(
                "the cluster has {} nodes, not a node {}",
                self.nodes.len(),
                node + 1
            ))
        })?;
        let inner = driver.connect().await?;
        Ok(Box::new(NodeSession { inner, node }))
    }

    async fn monitor(&self) -> Result<Box<dyn Monitor>, DriverError> {
        let mut monitors = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            monitors.push(node.monitor().await?);
        }
        Ok(Box::new(ClusterMonitor { monitors }))
    }

    async fn server_started(&self) -> Option<i64> {
        self.nodes[0].server_started().await
    }

    async fn server_version(&self) -> Option<String> {
        self.nodes[0].server_version().await
    }

    fn relaxed_commits(&self) -> Option<&'static str> {
        self.nodes[0].relaxed_commits()
    }
}

/// A session on one node: the node's own, its key naming the node.
struct NodeSession {
    inner: Box<dyn Session>,
    node: usize,
}

#[async_trait]
impl Session for NodeSession {
    fn key(&self) -> SessionKey {
        SessionKey {
            node: self.node,
            ..self.inner.key()
        }
    }

    async fn execute(&mut self, sql: &str) -> Result<QueryResult, RawDbError> {
        self.inner.execute(sql).await
    }

    async fn execute_batch(&mut self, statements: &[String]) -> Result<(), super::BatchError> {
        self.inner.execute_batch(statements).await
    }

    async fn execute_until_failure(
        &mut self,
        statements: &[String],
    ) -> Vec<Result<QueryResult, RawDbError>> {
        self.inner.execute_until_failure(statements).await
    }

    async fn execute_each(
        &mut self,
        statements: &[String],
        go_on: GoOn<'_>,
    ) -> Vec<Result<QueryResult, RawDbError>> {
        self.inner.execute_each(statements, go_on).await
    }
}

/// One monitor per node; a session's waits are its node's.
struct ClusterMonitor {
    monitors: Vec<Box<dyn Monitor>>,
}

impl ClusterMonitor {
    fn of(&self, session: &SessionKey) -> Result<&dyn Monitor, DriverError> {
        self.monitors
            .get(session.node)
            .map(|m| m.as_ref())
            .ok_or_else(|| DriverError::Other(format!("no node {} to ask", session.node + 1)))
    }
}

#[async_trait]
impl Monitor for ClusterMonitor {
    async fn is_waiting(&self, session: &SessionKey) -> Result<Option<bool>, DriverError> {
        self.of(session)?.is_waiting(session).await
    }

    async fn cancel(&self, session: &SessionKey) -> Result<(), DriverError> {
        self.of(session)?.cancel(session).await
    }
}
