//! Freezing a private server's processes with SIGSTOP, as a frozen host
//! would: connections stay open and nothing answers.

use std::process::Command;

/// Frozen processes; they run again when this drops.
pub struct Frozen {
    pids: Vec<u32>,
}

/// Stops `pids` with SIGSTOP until the returned guard drops.
pub fn freeze(pids: Vec<u32>) -> Frozen {
    assert!(!pids.is_empty(), "no server processes to freeze");
    signal("STOP", &pids);
    Frozen { pids }
}

impl Drop for Frozen {
    fn drop(&mut self) {
        signal("CONT", &self.pids);
    }
}

fn signal(name: &str, pids: &[u32]) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .args(pids.iter().map(u32::to_string))
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{name} {pids:?}");
}

/// Whether this process runs as root (the servers then run as another user,
/// or are told that root is meant).
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A free TCP port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}
