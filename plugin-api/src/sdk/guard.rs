//! Every plugin entry point runs inside `catch_unwind`: a panic must become an
//! error, because unwinding out of an `extern "C"` function aborts the process.

use super::PluginError;
use crate::abi::{AbiError, ErrorKind};
use abi_stable::std_types::{RErr, ROk, RResult, RString};
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    static GUARDED: Cell<u32> = const { Cell::new(0) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Inside guarded calls, record the panic's location instead of printing it (the
/// host reports it); elsewhere keep the previous hook. Each library has its own
/// copy of std and therefore its own hook.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if GUARDED.with(|g| g.get()) > 0 {
                let location = info
                    .location()
                    .map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(location));
            } else {
                previous(info);
            }
        }));
    });
}

fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// Runs `f`, turning an `Err` or a panic into a `PluginError`.
pub fn catch<T>(
    method: &str,
    f: impl FnOnce() -> Result<T, PluginError>,
) -> Result<T, PluginError> {
    install_hook();
    GUARDED.with(|g| g.set(g.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(g.get() - 1));
    match result {
        Ok(r) => r,
        Err(payload) => {
            let location = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_default();
            Err(PluginError::new(
                ErrorKind::PANICKED,
                format!(
                    "panicked in `{method}`: {}{location}",
                    payload_message(&*payload)
                ),
            ))
        }
    }
}

/// [`catch`] with the result in ABI form.
pub fn guard<T>(method: &str, f: impl FnOnce() -> Result<T, PluginError>) -> RResult<T, AbiError> {
    match catch(method, f) {
        Ok(v) => ROk(v),
        Err(e) => RErr(e.into()),
    }
}

impl From<PluginError> for AbiError {
    fn from(e: PluginError) -> Self {
        AbiError {
            kind: e.kind,
            message: RString::from(e.message),
        }
    }
}

impl From<AbiError> for PluginError {
    fn from(e: AbiError) -> Self {
        PluginError {
            kind: e.kind,
            message: e.message.into_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_with_its_location() {
        let e = catch::<()>("check", || panic!("boom")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::PANICKED);
        assert!(
            e.message.starts_with("panicked in `check`: boom at "),
            "{e}"
        );
        assert!(e.message.contains("guard.rs"), "{e}");
    }

    #[test]
    fn errors_and_values_pass_through() {
        assert_eq!(catch("x", || Ok(3)).unwrap(), 3);
        let e = catch::<()>("x", || Err(PluginError::internal("no"))).unwrap_err();
        assert_eq!(e, PluginError::internal("no"));
    }
}
