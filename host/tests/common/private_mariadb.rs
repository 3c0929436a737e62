//! A MariaDB server of a test's own: its own data directory, port and
//! socket, so a test may freeze or kill it without touching the shared
//! server. Built from Debian's `mariadb-install-db` and `mariadbd`; as root,
//! the server is told to run as root (`--user=root`).

use super::frozen::{free_port, is_root, Frozen};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SERVER: &str = "/usr/sbin/mariadbd";
const INSTALL: &str = "mariadb-install-db";

pub struct PrivateMariadb {
    dir: tempfile::TempDir,
    pub port: u16,
    server: Child,
}

impl PrivateMariadb {
    /// A server for `test`, or `None` when this machine has no MariaDB
    /// binaries: the test then says that it skipped, and fails under
    /// TXLAB_REQUIRE_LIVE=1.
    pub fn for_test(test: &str) -> Option<PrivateMariadb> {
        match PrivateMariadb::start() {
            Ok(server) => Some(server),
            Err(why) => {
                let why = format!("{test}: cannot start a private MariaDB: {why}");
                if std::env::var("TXLAB_REQUIRE_LIVE").as_deref() == Ok("1") {
                    panic!("{why}");
                }
                eprintln!("skipped: {why}");
                None
            }
        }
    }

    /// Initialises a data directory and starts a server on a free port, or
    /// says why it cannot.
    pub fn start() -> Result<PrivateMariadb, String> {
        if !std::path::Path::new(SERVER).exists() {
            return Err(format!("no {SERVER}"));
        }
        let dir = tempfile::Builder::new()
            .prefix("txlab-private-mariadb-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let data = dir.path().join("data");
        let mut install = Command::new(INSTALL);
        install
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .args(["--auth-root-authentication-method=normal", "--skip-test-db"]);
        if is_root() {
            install.arg("--user=root");
        }
        let out = install
            .output()
            .map_err(|e| format!("cannot run {INSTALL}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{INSTALL} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let port = free_port();
        let mut command = Command::new(SERVER);
        command
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--port={port}"))
            .arg("--bind-address=127.0.0.1")
            .arg(format!("--socket={}", dir.path().join("sock").display()))
            .arg(format!("--pid-file={}", dir.path().join("pid").display()))
            .arg(format!(
                "--log-error={}",
                dir.path().join("error.log").display()
            ))
            .args(["--innodb-buffer-pool-size=32M", "--skip-log-bin"]);
        if is_root() {
            command.arg("--user=root");
        }
        let server = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {SERVER}: {e}"))?;
        let mut server = PrivateMariadb { dir, port, server };
        server.wait_until_up()?;
        Ok(server)
    }

    fn wait_until_up(&mut self) -> Result<(), String> {
        let started = Instant::now();
        while self.query("SELECT 1") != "1" {
            if let Ok(Some(status)) = self.server.try_wait() {
                return Err(format!("mariadbd ended ({status}): {}", self.log()));
            }
            if started.elapsed() > Duration::from_secs(60) {
                return Err(format!("mariadbd did not answer in 60 s: {}", self.log()));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(())
    }

    pub fn url(&self) -> String {
        format!("mysql://root@127.0.0.1:{}", self.port)
    }

    /// Runs `sql` with the mariadb client; what it printed (no column names).
    pub fn query(&self, sql: &str) -> String {
        Command::new("mariadb")
            .args([
                "--protocol=tcp",
                "-h",
                "127.0.0.1",
                "-P",
                &self.port.to_string(),
            ])
            .args(["-u", "root", "-N", "-B", "-e", sql])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    }

    /// The databases txlab runs created and left on this server.
    pub fn txlab_databases(&self) -> Vec<String> {
        self.query(
            "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'txlab\\_%' ORDER BY 1",
        )
        .lines()
        .map(str::to_string)
        .collect()
    }

    /// Stops the server with SIGSTOP until the guard drops.
    pub fn freeze(&self) -> Frozen {
        super::frozen::freeze(vec![self.server.id()])
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }

    pub fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for PrivateMariadb {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}
