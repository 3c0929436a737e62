//! txlab dialect plugin for SQLite, the embedded zero-setup default
