//! txlab oracle plugin: write-specific serializability (WriteCheck)
