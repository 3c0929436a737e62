//! A PostgreSQL server of a test's own: its own data directory and port, so a
//! test may crash, stop and restart it without touching the shared server.
//! Built from Debian's PostgreSQL binaries; as root, the server runs as the
//! `postgres` user (initdb refuses root).

use super::frozen::{free_port, is_root, Frozen};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

pub struct PrivatePostgres {
    bin: PathBuf,
    dir: tempfile::TempDir,
    pub port: u16,
    as_postgres: bool,
}

/// The newest installed PostgreSQL's binaries, if any.
fn bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| Some(e.ok()?.path().join("bin")))
        .filter(|p| p.join("initdb").exists() && p.join("pg_ctl").exists())
        .collect();
    versions.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok())
            .unwrap_or(0)
    });
    versions.pop()
}

impl PrivatePostgres {
    /// A server for `test`, or `None` when this machine has no PostgreSQL
    /// binaries: the test then says that it skipped, and fails under
    /// TXLAB_REQUIRE_LIVE=1.
    pub fn for_test(test: &str) -> Option<PrivatePostgres> {
        match PrivatePostgres::start() {
            Ok(server) => Some(server),
            Err(why) => {
                let why = format!("{test}: cannot start a private PostgreSQL: {why}");
                if std::env::var("TXLAB_REQUIRE_LIVE").as_deref() == Ok("1") {
                    panic!("{why}");
                }
                eprintln!("skipped: {why}");
                None
            }
        }
    }

    /// Initialises and starts a server, or says why it cannot (no binaries).
    pub fn start() -> Result<PrivatePostgres, String> {
        Self::start_with(None)
    }

    /// A server that asks for passwords (scram-sha-256); the superuser
    /// `postgres` has `password`.
    pub fn start_with_password(password: &str) -> Result<PrivatePostgres, String> {
        Self::start_with(Some(password))
    }

    fn start_with(password: Option<&str>) -> Result<PrivatePostgres, String> {
        let bin = bin_dir().ok_or("no PostgreSQL binaries under /usr/lib/postgresql")?;
        let dir = tempfile::Builder::new()
            .prefix("txlab-private-pg-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let as_postgres = is_root();
        let server = PrivatePostgres {
            bin,
            dir,
            port: free_port(),
            as_postgres,
        };
        if as_postgres {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(server.dir.path())
                .status()
                .map_err(|e| e.to_string())?;
            if !status.success() {
                return Err("cannot hand the data directory to the postgres user".into());
            }
        }
        let data = server.data().display().to_string();
        let mut args = vec!["-D", &data, "-U", "postgres", "--no-sync"];
        let pwfile = server.dir.path().join("pwfile").display().to_string();
        match password {
            None => args.extend(["-A", "trust"]),
            Some(pw) => {
                std::fs::write(&pwfile, format!("{pw}\n")).map_err(|e| e.to_string())?;
                args.extend(["-A", "scram-sha-256", "--pwfile", &pwfile]);
            }
        }
        let init = server.tool("initdb", &args);
        if !init.status.success() {
            return Err(format!(
                "initdb failed: {}",
                String::from_utf8_lossy(&init.stderr)
            ));
        }
        server.start_again()?;
        Ok(server)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn tool(&self, name: &str, args: &[&str]) -> Output {
        let program = self.bin.join(name);
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        };
        command.args(args).output().expect("run a PostgreSQL tool")
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Starts the server (again) and waits until it accepts connections.
    pub fn start_again(&self) -> Result<(), String> {
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("server.log").display().to_string();
        let out = self.tool(
            "pg_ctl",
            &[
                "-D",
                &self.data().display().to_string(),
                "-o",
                &options,
                "-l",
                &log,
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
        if !out.status.success() {
            return Err(format!(
                "pg_ctl start failed: {}{}",
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(&log).unwrap_or_default()
            ));
        }
        Ok(())
    }

    /// Stops the server the way a crash does: every process quits at once,
    /// without a shutdown checkpoint; the next start runs crash recovery.
    pub fn crash(&self) {
        let out = self.tool(
            "pg_ctl",
            &[
                "-D",
                &self.data().display().to_string(),
                "-m",
                "immediate",
                "stop",
            ],
        );
        assert!(
            out.status.success(),
            "pg_ctl stop: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Waits until nothing listens on the port any more.
    pub fn wait_until_down(&self, limit: Duration) {
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
            assert!(started.elapsed() < limit, "the server did not go down");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Runs `sql` with psql and returns what it printed (unaligned, tuples only).
    pub fn query(&self, sql: &str) -> String {
        let out = std::process::Command::new("psql")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(["-U", "postgres", "-Atc", sql, "postgres"])
            .output()
            .expect("psql runs");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The databases txlab runs created and left on this server.
    pub fn txlab_databases(&self) -> Vec<String> {
        self.query("SELECT datname FROM pg_database WHERE datname LIKE 'txlab\\_%' ORDER BY 1")
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Stops every process of the server with SIGSTOP, as a frozen host
    /// would: connections stay open and nothing answers. The server runs
    /// again when the guard drops.
    pub fn freeze(&self) -> Frozen {
        super::frozen::freeze(self.processes())
    }

    /// The postmaster and its children.
    fn processes(&self) -> Vec<u32> {
        let pid_file =
            std::fs::read_to_string(self.data().join("postmaster.pid")).unwrap_or_default();
        let Some(master) = pid_file
            .lines()
            .next()
            .and_then(|l| l.trim().parse::<u32>().ok())
        else {
            return Vec::new();
        };
        let mut pids = vec![master];
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // "pid (comm) state ppid …": the fields after the command name.
            let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
            let ppid = after
                .split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u32>().ok());
            if ppid == Some(master) {
                pids.push(pid);
            }
        }
        pids
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        let _ = self.tool(
            "pg_ctl",
            &[
                "-D",
                &self.data().display().to_string(),
                "-m",
                "immediate",
                "stop",
            ],
        );
    }
}
