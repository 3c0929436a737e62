//! txlab's mark on what a run creates (a database on a server, a SQLite
//! directory) and the owner it names: the host, the process (pid and the
//! kernel's start time of that pid, so that a reused pid is not taken for the
//! run), the boot, and when the run started. `txlab clean` reads the mark to
//! decide whether the run that made something is still alive.
//!
//! The mark is one line of text:
//!
//! ```text
//! txlab scratch database, run txlab_20250101t120000_0a1b2c; host=db1; pid=4242; pid_start=73772; boot=881c…; started=2025-01-01T12:00:00Z
//! ```
//!
//! Marks that older txlab versions wrote end after the run tag: they are
//! recognised as txlab's, with an unknown owner, and `txlab clean` leaves
//! them alone.

use std::fmt;
use std::path::Path;

/// What a mark is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// A database on a server; its name starts with the run tag and `_`.
    Database,
    /// A `txlab-run-*` directory of SQLite files; its name is the tag.
    Directory,
}

impl MarkKind {
    fn prefix(self) -> &'static str {
        match self {
            MarkKind::Database => "txlab scratch database, run ",
            MarkKind::Directory => "txlab run directory, run ",
        }
    }
}

/// The process that made something, as its mark records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub host: String,
    pub pid: u32,
    /// The pid's start time in clock ticks after boot (/proc/PID/stat, field 22).
    pub pid_start: u64,
    /// The kernel's boot id: a restarted machine ended every run.
    pub boot: String,
    /// When the run started (RFC 3339, seconds).
    pub started: String,
}

/// A parsed mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub kind: MarkKind,
    /// The run tag (databases) or the directory's name.
    pub tag: String,
    /// `None` on a mark an older txlab wrote.
    pub owner: Option<Owner>,
}

/// Why a text is not a txlab mark.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadMark(pub String);

fn valid_tag(tag: &str) -> bool {
    !tag.is_empty()
        && tag.len() <= 64
        && tag
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A host name as a mark holds it: only characters that cannot break the line.
fn clean_host(host: &str) -> String {
    host.trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl Mark {
    /// The mark of something this process creates now.
    pub fn new(kind: MarkKind, tag: &str) -> Mark {
        Mark {
            kind,
            tag: tag.to_string(),
            owner: Owner::current(),
        }
    }

    pub fn render(&self) -> String {
        let mut s = format!("{}{}", self.kind.prefix(), self.tag);
        if let Some(o) = &self.owner {
            s.push_str(&format!(
                "; host={}; pid={}; pid_start={}; boot={}; started={}",
                o.host, o.pid, o.pid_start, o.boot, o.started
            ));
        }
        s
    }

    pub fn parse(kind: MarkKind, text: &str) -> Result<Mark, BadMark> {
        let rest = text
            .trim()
            .strip_prefix(kind.prefix())
            .ok_or_else(|| BadMark("not a txlab mark".into()))?;
        let mut parts = rest.split("; ");
        let tag = parts.next().unwrap_or_default();
        if !valid_tag(tag) {
            return Err(BadMark(format!("a run tag txlab does not make: `{tag}`")));
        }
        let fields: Vec<(&str, &str)> = parts
            .map(|p| p.split_once('=').unwrap_or((p, "")))
            .collect();
        if fields.is_empty() {
            return Ok(Mark {
                kind,
                tag: tag.to_string(),
                owner: None,
            });
        }
        let get = |key: &str| {
            fields
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| *v)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| BadMark(format!("the mark has no `{key}`")))
        };
        let number = |key: &str| -> Result<u64, BadMark> {
            get(key)?
                .parse()
                .map_err(|_| BadMark(format!("the mark's `{key}` is not a number")))
        };
        let owner = Owner {
            host: get("host")?.to_string(),
            pid: u32::try_from(number("pid")?)
                .map_err(|_| BadMark("the mark's `pid` is out of range".into()))?,
            pid_start: number("pid_start")?,
            boot: get("boot")?.to_string(),
            started: get("started")?.to_string(),
        };
        Ok(Mark {
            kind,
            tag: tag.to_string(),
            owner: Some(owner),
        })
    }

    /// Whether the mark belongs on something of this name: a database
    /// `<tag>_…`, a directory named `<tag>`. A mark copied elsewhere does not.
    pub fn fits(&self, name: &str) -> bool {
        match self.kind {
            MarkKind::Database => name
                .strip_prefix(&self.tag)
                .is_some_and(|rest| rest.starts_with('_') && rest.len() > 1),
            MarkKind::Directory => name == self.tag,
        }
    }
}

/// This machine, as the liveness check needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Here {
    pub host: String,
    pub boot: Option<String>,
}

impl Here {
    pub fn now() -> Here {
        Here {
            host: host_name(),
            boot: read_trimmed("/proc/sys/kernel/random/boot_id"),
        }
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn host_name() -> String {
    read_trimmed("/proc/sys/kernel/hostname")
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| clean_host(&h))
        .unwrap_or_else(|| "unknown".into())
}

/// What `/proc/PID/stat` says of a process: its start time, and whether it
/// has exited (a zombie nobody has reaped yet).
fn process_stat(pid: u32) -> std::io::Result<(u64, bool)> {
    let text = std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat"))?;
    // The command name (field 2) is in parentheses and may hold anything.
    let after = text
        .rfind(')')
        .map(|i| &text[i + 1..])
        .ok_or_else(|| std::io::Error::other("no command name"))?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // fields[0] is field 3 (state), so field 22 (starttime) is fields[19].
    let state = fields.first().copied().unwrap_or("?");
    let start = fields
        .get(19)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other("no start time"))?;
    Ok((start, state == "Z" || state == "X"))
}

impl Owner {
    /// This process, or `None` where /proc cannot tell (not Linux).
    pub fn current() -> Option<Owner> {
        let pid = std::process::id();
        let (pid_start, _) = process_stat(pid).ok()?;
        Some(Owner {
            host: host_name(),
            pid,
            pid_start,
            boot: read_trimmed("/proc/sys/kernel/random/boot_id")?,
            started: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        })
    }

    /// Whether this owner still runs, seen from `here`. A run on another host
    /// cannot be seen: it counts as ended only when `other_hosts` says so.
    pub fn liveness(&self, here: &Here, other_hosts: bool) -> Liveness {
        if self.host != here.host {
            return if other_hosts {
                Liveness::Ended(format!(
                    "it ran on host {} (taken as ended: --other-hosts)",
                    self.host
                ))
            } else {
                Liveness::OtherHost(self.host.clone())
            };
        }
        if here.boot.as_deref() != Some(self.boot.as_str()) {
            return Liveness::Ended("the machine has restarted since".into());
        }
        match process_stat(self.pid) {
            Ok((_, true)) => Liveness::Ended(format!("process {} has exited", self.pid)),
            Ok((start, false)) if start == self.pid_start => Liveness::Alive(self.pid),
            Ok(_) => Liveness::Ended(format!(
                "process {} has ended (the pid now belongs to another process)",
                self.pid
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match signal_zero(self.pid) {
                SignalZero::NoSuchProcess => {
                    Liveness::Ended(format!("process {} has ended", self.pid))
                }
                SignalZero::Exists => Liveness::CannotTell(format!(
                    "process {} exists but /proc does not show it",
                    self.pid
                )),
            },
            Err(e) => Liveness::CannotTell(format!("cannot read process {}: {e}", self.pid)),
        }
    }
}

enum SignalZero {
    NoSuchProcess,
    /// It exists (or may: the answer was not "no such process").
    Exists,
}

/// `kill(pid, 0)`: asks the kernel whether the process exists, without
/// signalling it; a process of another user answers EPERM, not ESRCH.
fn signal_zero(pid: u32) -> SignalZero {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return SignalZero::NoSuchProcess;
    };
    if pid <= 0 {
        return SignalZero::Exists;
    }
    // SAFETY: signal 0 performs only the existence and permission checks.
    let r = unsafe { libc::kill(pid, 0) };
    if r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH) {
        SignalZero::Exists
    } else {
        SignalZero::NoSuchProcess
    }
}

/// Whether the run that made something still runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// The process (this pid, started at the marked time) is running.
    Alive(u32),
    /// It has ended: why we know.
    Ended(String),
    /// It ran on another host, where this txlab cannot look.
    OtherHost(String),
    /// It may run: why txlab cannot tell.
    CannotTell(String),
}

impl fmt::Display for Liveness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Liveness::Alive(pid) => write!(f, "its run is alive (pid {pid})"),
            Liveness::Ended(why) => write!(f, "its run is no longer alive: {why}"),
            Liveness::OtherHost(host) => write!(
                f,
                "its run was on host {host}, where txlab cannot tell whether it still runs (--other-hosts takes such runs as ended)"
            ),
            Liveness::CannotTell(why) => write!(f, "txlab cannot tell whether its run is alive: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(pid: u32, pid_start: u64) -> Owner {
        Owner {
            host: "h1".into(),
            pid,
            pid_start,
            boot: "b1".into(),
            started: "2025-01-01T12:00:00Z".into(),
        }
    }

    #[test]
    fn a_mark_reads_back_as_written() {
        let mark = Mark {
            kind: MarkKind::Database,
            tag: "txlab_20250101t120000_0a1b2c".into(),
            owner: Some(owner(42, 7)),
        };
        let text = mark.render();
        assert_eq!(
            text,
            "txlab scratch database, run txlab_20250101t120000_0a1b2c; host=h1; pid=42; pid_start=7; boot=b1; started=2025-01-01T12:00:00Z"
        );
        assert_eq!(Mark::parse(MarkKind::Database, &text), Ok(mark.clone()));
        assert!(Mark::parse(MarkKind::Directory, &text).is_err());
        assert!(mark.fits("txlab_20250101t120000_0a1b2c_w0_case"));
        assert!(!mark.fits("txlab_20250101t120000_0a1b2c"));
        assert!(!mark.fits("txlab_20250101t120000_0a1b2cd_w0_case"));
        assert!(!mark.fits("other_w0_case"));
    }

    #[test]
    fn an_older_mark_has_an_unknown_owner() {
        let m = Mark::parse(
            MarkKind::Database,
            "txlab scratch database, run txlab_20250101t120000_0a1b2c",
        )
        .unwrap();
        assert_eq!(m.owner, None);
        assert_eq!(m.tag, "txlab_20250101t120000_0a1b2c");
    }

    #[test]
    fn what_is_not_a_mark_is_refused() {
        for text in [
            "",
            "some comment",
            "txlab scratch database, run ",
            "txlab scratch database, run a b",
            "txlab scratch database, run t; host=h1; pid=x; pid_start=1; boot=b; started=s",
            "txlab scratch database, run t; host=h1; pid=1",
        ] {
            assert!(Mark::parse(MarkKind::Database, text).is_err(), "{text}");
        }
    }

    #[test]
    fn this_process_is_alive_and_a_reused_pid_is_not() {
        let me = Owner::current().expect("Linux /proc");
        let here = Here::now();
        assert_eq!(me.host, here.host);
        assert_eq!(me.liveness(&here, false), Liveness::Alive(me.pid));
        // The same pid with another start time: the pid was reused.
        let reused = Owner {
            pid_start: me.pid_start + 1,
            ..me.clone()
        };
        assert!(matches!(reused.liveness(&here, false), Liveness::Ended(_)));
        let rebooted = Owner {
            boot: "another boot".into(),
            ..me.clone()
        };
        assert!(matches!(
            rebooted.liveness(&here, false),
            Liveness::Ended(why) if why.contains("restarted")
        ));
        let elsewhere = Owner {
            host: "another-host".into(),
            ..me.clone()
        };
        assert_eq!(
            elsewhere.liveness(&here, false),
            Liveness::OtherHost("another-host".into())
        );
        assert!(matches!(
            elsewhere.liveness(&here, true),
            Liveness::Ended(_)
        ));
    }

    #[test]
    fn an_ended_process_is_ended() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let (start, _) = process_stat(pid).unwrap_or((0, false));
        child.wait().unwrap();
        let o = Owner {
            pid,
            pid_start: start,
            ..Owner::current().unwrap()
        };
        assert!(
            matches!(o.liveness(&Here::now(), false), Liveness::Ended(_)),
            "{:?}",
            o.liveness(&Here::now(), false)
        );
    }

    #[test]
    fn host_names_cannot_break_the_mark() {
        assert_eq!(clean_host("a b;c=d\n"), "a_b_c_d");
    }
}
