//! Forwards a plugin's `tracing` events to the host. Each library has its own copy
//! of tracing's globals, so without this the host would never see plugin logs.

use crate::abi::HostServicesBox;
use std::fmt::Write;
use std::sync::OnceLock;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

static HOST: OnceLock<HostServicesBox> = OnceLock::new();

pub(crate) fn level_number(level: &Level) -> u8 {
    match *level {
        Level::ERROR => 1,
        Level::WARN => 2,
        Level::INFO => 3,
        Level::DEBUG => 4,
        Level::TRACE => 5,
    }
}

fn level_filter(max: u8) -> LevelFilter {
    match max {
        0 => LevelFilter::OFF,
        1 => LevelFilter::ERROR,
        2 => LevelFilter::WARN,
        3 => LevelFilter::INFO,
        4 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    }
}

struct Forward;

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        } else {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }
}

impl<S: Subscriber> Layer<S> for Forward {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let Some(host) = HOST.get() else { return };
        let meta = event.metadata();
        let mut message = Message(String::new());
        event.record(&mut message);
        host.log(
            level_number(meta.level()),
            meta.target().into(),
            message.0.as_str().into(),
        );
    }
}

/// Called once when the host attaches to a loaded library.
pub(crate) fn attach(host: HostServicesBox) {
    let max = host.max_level();
    if HOST.set(host).is_ok() {
        let subscriber = tracing_subscriber::registry()
            .with(level_filter(max))
            .with(Forward);
        // Fails only if this library already has a global subscriber; then the
        // plugin chose its own logging.
        let _ = tracing::subscriber::set_global_default(subscriber);
    }
}
