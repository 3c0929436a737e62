//! What `txlab clean` does: find what runs that are no longer alive left
//! behind — databases on a server, `txlab-run-*` SQLite directories — by
//! their txlab mark, never by their name alone, and remove it after reading
//! the mark again.

use super::owner::{Here, Liveness, Mark, MarkKind};
use super::servers::{mysql_admin, mysql_ident, pg_ident, postgres_admin, read_mark, StoredMark};
use super::sqlite_dir::{MARK_FILE, RUN_DIR_PREFIX};
use crate::driver::{redact_url, DriverError, ServerKind};
use mysql_async::prelude::Queryable;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// What `txlab clean` takes into account.
#[derive(Clone, Debug, Default)]
pub struct CleanOptions {
    /// Runs on other hosts count as ended (txlab cannot see them).
    pub other_hosts: bool,
    /// Only this run's databases and directories (its tag or directory name).
    pub run: Option<String>,
}

/// What txlab makes of one database or directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Marked by a run that has ended: `--drop` removes it.
    Ended { why: String },
    /// txlab's, but left alone: why.
    LeftAlone(String),
    /// Not txlab's (no mark, or a mark that is not txlab's or not for it).
    NotTxlabs(String),
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Ended { why } => write!(f, "left by a run that is no longer alive ({why})"),
            Verdict::LeftAlone(why) => write!(f, "{why}, left alone"),
            Verdict::NotTxlabs(why) => write!(f, "not txlab's ({why}), left alone"),
        }
    }
}

/// One database or directory that looks like txlab's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The database's name, or the directory's path.
    pub name: String,
    /// The mark as stored; compared again before removing.
    pub mark: Option<String>,
    /// The run tag the mark names.
    pub run: Option<String>,
    pub verdict: Verdict,
}

/// Decides about `name` from the mark it carries.
pub fn judge(
    kind: MarkKind,
    name: &str,
    stored: Option<&str>,
    here: &Here,
    options: &CleanOptions,
) -> Found {
    let found = |run: Option<String>, verdict| Found {
        name: name.to_string(),
        mark: stored.map(str::to_string),
        run,
        verdict,
    };
    let Some(text) = stored else {
        return found(None, Verdict::NotTxlabs("no mark".into()));
    };
    let mark = match Mark::parse(kind, text) {
        Ok(m) => m,
        Err(e) => {
            return found(
                None,
                Verdict::NotTxlabs(format!("its mark is not txlab's: {e}")),
            )
        }
    };
    if !mark.fits(name) {
        return found(
            None,
            Verdict::NotTxlabs(format!("its mark is run {}'s, which this is not", mark.tag)),
        );
    }
    let run = Some(mark.tag.clone());
    let Some(owner) = mark.owner else {
        return found(
            run,
            Verdict::LeftAlone(
                "unknown owner (marked by an older txlab, which did not record its process)".into(),
            ),
        );
    };
    let verdict = match owner.liveness(here, options.other_hosts) {
        Liveness::Ended(why) => Verdict::Ended {
            why: format!("{why}; run {}, started {}", mark.tag, owner.started),
        },
        Liveness::Alive(pid) => Verdict::LeftAlone(format!(
            "in use by a running txlab (pid {pid}, run {}, started {})",
            mark.tag, owner.started
        )),
        other => Verdict::LeftAlone(other.to_string()),
    };
    found(run, verdict)
}

fn wanted(found: &Found, options: &CleanOptions) -> bool {
    options
        .run
        .as_ref()
        .is_none_or(|run| found.run.as_ref() == Some(run))
}

/// Every database on the server that carries a txlab mark or whose name
/// starts with `txlab`, judged.
pub async fn survey_server(
    kind: ServerKind,
    url: &str,
    options: &CleanOptions,
) -> Result<Vec<Found>, DriverError> {
    let here = Here::now();
    let fail = |e: &dyn fmt::Display| {
        DriverError::Other(format!("listing the databases on {}: {e}", redact_url(url)))
    };
    let mut marks: BTreeMap<String, Option<String>> = BTreeMap::new();
    match kind {
        ServerKind::Mysql => {
            let mut conn = mysql_admin(url).await?;
            let named: Vec<String> = conn
                .query(
                    "SELECT schema_name FROM information_schema.schemata \
                     WHERE schema_name LIKE 'txlab%'",
                )
                .await
                .map_err(|e| fail(&e))?;
            let marked: Vec<String> = conn
                .query(
                    "SELECT table_schema FROM information_schema.tables \
                     WHERE table_name = 'txlab_marker'",
                )
                .await
                .map_err(|e| fail(&e))?;
            for name in named {
                marks.insert(name, None);
            }
            for name in marked {
                let rows: Result<Vec<String>, _> = conn
                    .query(format!(
                        "SELECT mark FROM {}.txlab_marker",
                        mysql_ident(&name)
                    ))
                    .await;
                let mark = match rows.as_deref() {
                    Ok([one]) => Some(one.clone()),
                    _ => None,
                };
                marks.insert(name, mark);
            }
            let _ = conn.disconnect().await;
        }
        ServerKind::Postgres => {
            let client = postgres_admin(url).await?;
            let rows = client
                .query(
                    "SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database \
                     WHERE datname LIKE 'txlab%' \
                        OR shobj_description(oid, 'pg_database') LIKE 'txlab %'",
                    &[],
                )
                .await
                .map_err(|e| fail(&e))?;
            for r in rows {
                marks.insert(r.get(0), r.get(1));
            }
        }
    }
    Ok(marks
        .into_iter()
        .map(|(name, mark)| judge(MarkKind::Database, &name, mark.as_deref(), &here, options))
        .filter(|f| wanted(f, options))
        .collect())
}

/// What became of one database or directory `--drop` was to remove.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Removal {
    Removed,
    /// Someone else removed it meanwhile.
    AlreadyGone,
    /// Its mark or its run's state changed since it was listed: why.
    LeftAlone(String),
}

/// Checks `found`'s mark again and whether its run has still ended, then
/// drops the database.
pub async fn drop_database(
    kind: ServerKind,
    url: &str,
    found: &Found,
    options: &CleanOptions,
) -> Result<Removal, DriverError> {
    let stored = match read_mark(kind, url, &found.name).await? {
        StoredMark::NoDatabase => return Ok(Removal::AlreadyGone),
        StoredMark::Unmarked => None,
        StoredMark::Text(t) => Some(t),
    };
    if let Some(why) = changed(MarkKind::Database, found, stored.as_deref(), options) {
        return Ok(Removal::LeftAlone(why));
    }
    let fail = |e: &dyn fmt::Display| {
        DriverError::Other(format!(
            "DROP DATABASE {} on {}: {e}",
            found.name,
            redact_url(url)
        ))
    };
    match kind {
        ServerKind::Mysql => {
            let mut conn = mysql_admin(url).await?;
            conn.query_drop(format!(
                "DROP DATABASE IF EXISTS {}",
                mysql_ident(&found.name)
            ))
            .await
            .map_err(|e| fail(&e))?;
            let _ = conn.disconnect().await;
        }
        ServerKind::Postgres => {
            // Without FORCE: a session in the database (someone looking at
            // what the run left) makes this fail rather than end it.
            let client = postgres_admin(url).await?;
            client
                .batch_execute(&format!(
                    "DROP DATABASE IF EXISTS {}",
                    pg_ident(&found.name)
                ))
                .await
                .map_err(|e| fail(&e))?;
        }
    }
    Ok(Removal::Removed)
}

/// Why `found` may no longer be removed, judged again from the mark stored
/// now: `None` when it still may.
fn changed(
    kind: MarkKind,
    found: &Found,
    stored: Option<&str>,
    options: &CleanOptions,
) -> Option<String> {
    if stored != found.mark.as_deref() {
        return Some("its mark changed since it was listed".into());
    }
    let again = judge(kind, &found.name, stored, &Here::now(), options);
    match again.verdict {
        Verdict::Ended { .. } => None,
        other => Some(other.to_string()),
    }
}

/// The mark file of a run directory: `None` unless it is a small regular
/// file (never followed through a link).
fn dir_mark(dir: &Path) -> Option<String> {
    let path = dir.join(MARK_FILE);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > 4096 {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Every `txlab-run-*` directory in `parent`, judged. A directory that is
/// not there holds none.
pub fn survey_dir(parent: &Path, options: &CleanOptions) -> std::io::Result<Vec<Found>> {
    let here = Here::now();
    let entries = match std::fs::read_dir(parent) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(RUN_DIR_PREFIX) {
            continue;
        }
        // A link is not a directory txlab made.
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let mark = dir_mark(&entry.path());
        let mut f = judge(MarkKind::Directory, &name, mark.as_deref(), &here, options);
        f.name = entry.path().display().to_string();
        if wanted(&f, options) {
            found.push(f);
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

/// Checks `found`'s mark again and whether its run has still ended, then
/// removes the directory and everything in it.
pub fn remove_dir(found: &Found, options: &CleanOptions) -> std::io::Result<Removal> {
    let path = Path::new(&found.name);
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Removal::AlreadyGone),
        Err(e) => return Err(e),
        Ok(m) if !m.is_dir() => {
            return Ok(Removal::LeftAlone("it is no longer a directory".into()))
        }
        Ok(_) => {}
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stored = dir_mark(path);
    let as_named = Found {
        name,
        ..found.clone()
    };
    if let Some(why) = changed(MarkKind::Directory, &as_named, stored.as_deref(), options) {
        return Ok(Removal::LeftAlone(why));
    }
    std::fs::remove_dir_all(path)?;
    Ok(Removal::Removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::owner::Owner;

    fn mark(tag: &str, owner: Option<Owner>) -> String {
        Mark {
            kind: MarkKind::Database,
            tag: tag.into(),
            owner,
        }
        .render()
    }

    #[test]
    fn only_a_fitting_mark_of_an_ended_run_is_removable() {
        let here = Here::now();
        let me = Owner::current().unwrap();
        let gone = Owner {
            pid_start: me.pid_start + 1,
            ..me.clone()
        };
        let o = CleanOptions::default();
        let tag = "txlab_20250101t120000_0a1b2c";
        let name = format!("{tag}_w0_case");
        let verdict =
            |stored: Option<&str>| judge(MarkKind::Database, &name, stored, &here, &o).verdict;
        assert!(matches!(
            verdict(Some(&mark(tag, Some(gone.clone())))),
            Verdict::Ended { .. }
        ));
        assert!(
            matches!(verdict(Some(&mark(tag, Some(me.clone())))), Verdict::LeftAlone(w) if w.contains("in use"))
        );
        assert!(
            matches!(verdict(Some(&mark(tag, None))), Verdict::LeftAlone(w) if w.contains("unknown owner"))
        );
        assert!(matches!(verdict(None), Verdict::NotTxlabs(w) if w == "no mark"));
        assert!(matches!(verdict(Some("hello")), Verdict::NotTxlabs(_)));
        // A mark copied onto another database is not its mark.
        let other = mark("txlab_20250101t120000_ffffff", Some(gone.clone()));
        assert!(
            matches!(verdict(Some(&other)), Verdict::NotTxlabs(w) if w.contains("which this is not"))
        );
        let elsewhere = Owner {
            host: "elsewhere".into(),
            ..gone
        };
        assert!(
            matches!(verdict(Some(&mark(tag, Some(elsewhere.clone())))), Verdict::LeftAlone(w) if w.contains("--other-hosts"))
        );
        let all_hosts = CleanOptions {
            other_hosts: true,
            ..CleanOptions::default()
        };
        let f = judge(
            MarkKind::Database,
            &name,
            Some(&mark(tag, Some(elsewhere))),
            &here,
            &all_hosts,
        );
        assert!(matches!(f.verdict, Verdict::Ended { .. }));
        assert_eq!(f.run.as_deref(), Some(tag));
    }

    #[test]
    fn a_directory_is_removed_only_with_its_mark_unchanged() {
        let parent = tempfile::tempdir().unwrap();
        let me = Owner::current().unwrap();
        let gone = Owner {
            pid_start: me.pid_start + 1,
            ..me.clone()
        };
        let make = |name: &str, owner: Option<Owner>| {
            let d = parent.path().join(name);
            std::fs::create_dir(&d).unwrap();
            if let Some(owner) = owner {
                let m = Mark {
                    kind: MarkKind::Directory,
                    tag: name.into(),
                    owner: Some(owner),
                };
                std::fs::write(d.join(MARK_FILE), m.render()).unwrap();
            }
            d
        };
        let dead = make("txlab-run-dead01", Some(gone.clone()));
        let alive = make("txlab-run-alive1", Some(me));
        let unmarked = make("txlab-run-nomark", None);
        let _other = make("not-txlab", Some(gone.clone()));
        let o = CleanOptions::default();
        let found = survey_dir(parent.path(), &o).unwrap();
        let names: Vec<&str> = found.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        for f in &found {
            let expect_removable = f.name == dead.display().to_string();
            assert_eq!(
                matches!(f.verdict, Verdict::Ended { .. }),
                expect_removable,
                "{f:?}"
            );
        }
        let dead_found = found
            .iter()
            .find(|f| f.name == dead.display().to_string())
            .unwrap();
        // Its mark changed since it was listed: left alone.
        std::fs::write(dead.join(MARK_FILE), "changed").unwrap();
        assert!(matches!(
            remove_dir(dead_found, &o).unwrap(),
            Removal::LeftAlone(_)
        ));
        assert!(dead.exists());
        std::fs::write(dead.join(MARK_FILE), dead_found.mark.clone().unwrap()).unwrap();
        assert_eq!(remove_dir(dead_found, &o).unwrap(), Removal::Removed);
        assert!(!dead.exists());
        assert_eq!(remove_dir(dead_found, &o).unwrap(), Removal::AlreadyGone);
        assert!(alive.exists() && unmarked.exists());
        // Only one run's.
        let one = CleanOptions {
            run: Some("txlab-run-alive1".into()),
            ..o
        };
        let found = survey_dir(parent.path(), &one).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, alive.display().to_string());
    }
}
