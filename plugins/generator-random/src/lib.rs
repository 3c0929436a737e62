//! txlab generator plugin: random schemas, rows and concurrent transactions
