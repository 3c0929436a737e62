//! Test doubles for txlab plugins.
