//! A database as its handles share it: how to connect to it, and which
//! schema's tables it holds.

use crate::driver::Driver;
use std::sync::{Arc, Mutex, PoisonError};
use txlab_plugin_api::ir::Schema;

/// A database for another handle on it: the scratch database replays on the
/// case database's tables (`[executor] fewer_round_trips` on a server), so
/// that a case's tables are created once, not once per database.
#[derive(Clone)]
pub struct Database {
    pub driver: Arc<dyn Driver>,
    pub tables: InstalledTables,
}

impl Database {
    /// A database of its own, its tables not known yet.
    pub fn new(driver: impl Into<Arc<dyn Driver>>) -> Self {
        Database {
            driver: driver.into(),
            tables: InstalledTables::default(),
        }
    }
}

/// The schema whose tables a database holds; `None` when unknown (before the
/// first install, after a failure or a lost connection). Shared by the case
/// and the scratch database when they are one database, so that neither
/// creates tables the other made, nor trusts tables the other dropped.
#[derive(Clone, Debug, Default)]
pub struct InstalledTables(Arc<Mutex<Option<Schema>>>);

impl InstalledTables {
    /// Takes the schema out for an install, which puts back what it leaves.
    pub fn take(&self) -> Option<Schema> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    pub fn set(&self, schema: Option<Schema>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = schema;
    }

    pub fn get(&self) -> Option<Schema> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The tables are in no known state: the next install drops and
    /// creates them.
    pub fn forget(&self) {
        self.set(None);
    }
}
