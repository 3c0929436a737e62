//! Checker throughput on exported histories: writes a generated
//! list-append-shaped history of N transactions as Elle EDN, then (in a
//! fresh process, so that the peak memory is the check's own) reads it back
//! and checks it as `txlab history check` does, printing transactions per
//! second and the process's peak resident memory (VmHWM).
//!
//! ```sh
//! cargo bench -p txlab-history --bench formats -- write 1000000 /tmp/h.edn
//! cargo bench -p txlab-history --bench formats -- check /tmp/h.edn
//! ```
//!
//! `write` generates with `tests/common/gen.rs` (the round-trip tests'
//! generator: 8 sessions, transactions of 2–6 reads and appends over a
//! quarter as many rows as transactions, a hundredth of them hot, 5% of
//! first reads stale, 3% aborted and 1% unknown transactions, a last read of
//! every row). `--plain` leaves out txlab's details (the file is what Elle
//! reads).

#[path = "../tests/common/gen.rs"]
mod gen;

use std::time::Instant;
use txlab_history::formats::elle;
use txlab_history::formats::names::{check_options, named, Model};

fn vm_hwm_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.first().map(String::as_str) {
        Some("write") => {
            let n: usize = args[1].parse().expect("a transaction count");
            let path = &args[2];
            let plain = args.iter().any(|a| a == "--plain");
            let t0 = Instant::now();
            let h = gen::history(n, 0x5eed ^ n as u64);
            let built = t0.elapsed().as_secs_f64();
            let t1 = Instant::now();
            let mut f = std::io::BufWriter::with_capacity(
                1 << 20,
                std::fs::File::create(path).expect("the output file"),
            );
            elle::export(&h, &mut f, &elle::ExportOptions { plain }).expect("written");
            drop(f);
            let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            println!(
                "wrote {path}: {} transactions, {} reads, {} recorded writes, {:.0} MB; generated in {built:.2} s, exported in {:.2} s",
                h.len(),
                h.observation_count(),
                h.write_count(),
                size as f64 / 1e6,
                t1.elapsed().as_secs_f64()
            );
        }
        Some("check") => {
            let path = &args[1];
            let t0 = Instant::now();
            let f = std::fs::File::open(path).expect("the history file");
            let imported = elle::import(
                std::io::BufReader::with_capacity(1 << 20, f),
                elle::Syntax::Edn,
            )
            .expect("a history");
            let read = t0.elapsed().as_secs_f64();
            let t1 = Instant::now();
            let report = txlab_history::check(&imported.history, &check_options());
            let checked = t1.elapsed().as_secs_f64();
            let all = named(&imported, &report);
            let n = imported.history.len();
            let forbidden = all
                .iter()
                .filter(|a| Model::Serializable.forbids(a.name))
                .count();
            println!(
                "{path}: {n} transactions, {} reads; read {read:.2} s, checked {checked:.2} s, total {:.2} s: {:.0} transactions/s (check alone {:.0}/s); {} anomalies ({forbidden} forbidden by serializable), largest component {}, searches cut {}; peak RSS (VmHWM) {:.0} MB",
                imported.history.observation_count(),
                read + checked,
                n as f64 / (read + checked),
                n as f64 / checked,
                all.len(),
                report.stats.largest_component,
                report.stats.searches_cut,
                vm_hwm_mb()
            );
        }
        _ => eprintln!("usage: formats write N FILE [--plain] | formats check FILE"),
    }
}
