//! What a process would leave behind if it quit now (databases it created
//! and has not dropped, a temporary SQLite directory), so that a run that
//! cannot clean up — a second Ctrl-C, a lost server — names it, with the
//! `txlab clean` command that removes it later.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

struct Entry {
    names: Weak<Mutex<Vec<String>>>,
    place: String,
    command: String,
}

static REGISTRY: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// Lists `names` (as long as their owner keeps them) among what this process
/// would leave behind.
pub(super) fn register(names: &Arc<Mutex<Vec<String>>>, place: String, command: String) {
    let mut registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    registry.retain(|e| e.names.strong_count() > 0);
    registry.push(Entry {
        names: Arc::downgrade(names),
        place,
        command,
    });
}

/// Databases or directories left in one place, and the command that removes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leftovers {
    /// The server (its URL, password hidden) or the directory.
    pub place: String,
    pub names: Vec<String>,
    pub command: String,
}

impl fmt::Display for Leftovers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "left on {}: {}", self.place, self.names.join(", "))?;
        write!(
            f,
            "  they carry this run's mark; once this txlab has ended, `{}` removes them",
            self.command
        )
    }
}

/// Everything this process would leave behind if it quit now.
pub fn leftovers_of_this_process() -> Vec<Leftovers> {
    let registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    registry
        .iter()
        .filter_map(|e| {
            let names = e.names.upgrade()?;
            let names = names.lock().unwrap_or_else(|e| e.into_inner()).clone();
            (!names.is_empty()).then(|| Leftovers {
                place: e.place.clone(),
                names,
                command: e.command.clone(),
            })
        })
        .collect()
}

/// `s` as one word for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The `txlab clean` command that drops run `run`'s leftovers: on the server
/// at `url` (shown without password; `password_file` when the run had one), or
/// in `dirs`.
pub fn clean_command(url: &str, password_file: Option<&Path>, dirs: &[&Path], run: &str) -> String {
    let mut words = vec!["txlab".to_string(), "clean".to_string()];
    if !url.is_empty() {
        words.push("--url".into());
        words.push(shell_quote(url));
    }
    if let Some(p) = password_file {
        words.push("--password-file".into());
        words.push(shell_quote(&p.display().to_string()));
    }
    for d in dirs {
        words.push("--dir".into());
        words.push(shell_quote(&d.display().to_string()));
    }
    words.push("--run".into());
    words.push(shell_quote(run));
    words.push("--drop".into());
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_quote_what_a_shell_would_split() {
        assert_eq!(shell_quote("mysql://u@h:3306"), "mysql://u@h:3306");
        assert_eq!(
            shell_quote("postgres://u@h/d?a=b&c=d"),
            "'postgres://u@h/d?a=b&c=d'"
        );
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(
            clean_command("", None, &[Path::new("/tmp/my dir")], "txlab-run-x"),
            "txlab clean --dir '/tmp/my dir' --run txlab-run-x --drop"
        );
    }

    #[test]
    fn only_what_is_still_held_is_listed() {
        let names = Arc::new(Mutex::new(vec!["only_in_this_test_a".to_string()]));
        register(&names, "here".into(), "txlab clean …".into());
        let listed = |name: &str| {
            leftovers_of_this_process()
                .iter()
                .any(|l| l.names.iter().any(|n| n == name))
        };
        assert!(listed("only_in_this_test_a"));
        names.lock().unwrap().clear();
        assert!(!listed("only_in_this_test_a"));
        names.lock().unwrap().push("only_in_this_test_b".into());
        assert!(listed("only_in_this_test_b"));
        drop(names);
        assert!(!listed("only_in_this_test_b"));
    }
}
