//! abi_stable writes the version of the crate that defines a type into the type's
//! layout, and refuses a library whose layouts carry a version of another semver
//! line (for 0.y versions: another y). txlab's ABI types are defined here, so
//! abi_stable would tie loading to this crate's version, which must be free to
//! change while the binary ABI stays the same.
//!
//! This script therefore compiles the crate with `CARGO_PKG_VERSION` set to the
//! binary ABI line (`abi::ABI_LINE`, as `major.minor.0`), the version abi_stable
//! records, and passes the real crate version on as `TXLAB_PLUGIN_API_VERSION`.
//! Inside this crate, `env!("CARGO_PKG_VERSION")` is therefore the ABI line; use
//! `PLUGIN_API_VERSION` for the crate version.

/// Must equal `abi::ABI_LINE`; a unit test checks that they agree.
const ABI_LINE: &str = "0.1";

fn main() {
    let crate_version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    println!("cargo:rustc-env=TXLAB_PLUGIN_API_VERSION={crate_version}");
    println!("cargo:rustc-env=CARGO_PKG_VERSION={ABI_LINE}.0");
    println!("cargo:rerun-if-changed=build.rs");
}
