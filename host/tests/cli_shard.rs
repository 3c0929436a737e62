//! `txlab run --shard INDEX/COUNT`: the shards of a run with one seed run the
//! cases the unsharded run runs, each once, with the same case seeds.

mod common;

use common::cli_env::*;
use std::collections::BTreeSet;
use std::path::Path;

/// (case index, case seed) of every case a run judged, read off its
/// findings: the `accuse` fixture oracle reports every case.
fn cases_of(run: &Path) -> BTreeSet<(u64, String)> {
    std::fs::read_dir(run.join("findings"))
        .unwrap()
        .map(|e| {
            let dir = e.unwrap().path();
            let p: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join("provenance.json")).unwrap(),
            )
            .unwrap();
            (
                p["case_index"].as_u64().unwrap(),
                p["case_seed"].to_string(),
            )
        })
        .collect()
}

/// A pipeline without a seed of its own: the command line gives it.
fn unseeded(env: &Env) -> std::path::PathBuf {
    let text = pipeline("random", &["plugin = \"accuse\""]).replace("seed = 7\n", "");
    env.pipeline("p.toml", &text)
}

fn run(env: &Env, p: &Path, extra: &[&str]) -> std::path::PathBuf {
    let out = env
        .work
        .path()
        .join(format!("out-{}", extra.join("-").replace('/', "of")));
    let mut args = vec![
        "run",
        p.to_str().unwrap(),
        "--cases",
        "11",
        "--no-reduce",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = env.txlab(&args);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    run_dir(&out)
}

#[test]
fn the_shards_of_a_run_run_its_cases_once_each() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = unseeded(&env);
    let whole = cases_of(&run(&env, &p, &["--seed", "31"]));
    assert_eq!(whole.len(), 11);
    let mut union = BTreeSet::new();
    let mut total = 0;
    for k in 0..3 {
        let shard = format!("{k}/3");
        let dir = run(&env, &p, &["--seed", "31", "--shard", &shard]);
        let mine = cases_of(&dir);
        assert!(mine.iter().all(|(i, _)| i % 3 == k), "{shard}: {mine:?}");
        assert_eq!(summary(&dir)["shard"], shard.as_str());
        let schema: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(common::repo_root().join("docs/summary.schema.json")).unwrap(),
        )
        .unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert!(
            validator.is_valid(&summary(&dir)),
            "{shard}: not valid per docs/summary.schema.json"
        );
        assert_eq!(summary(&dir)["cases"], mine.len());
        total += mine.len();
        union.extend(mine);
    }
    assert_eq!(total, 11, "the shards overlap");
    assert_eq!(union, whole);
}

#[test]
fn a_shard_needs_a_seed_and_a_valid_slice() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = unseeded(&env);
    let o = env.txlab(&["run", p.to_str().unwrap(), "--shard", "0/2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--shard 0/2 needs the run's seed"),
        "{}",
        stderr(&o)
    );
    for (bad, says) in [
        ("2/2", "INDEX must be below COUNT"),
        ("1", "expected INDEX/COUNT"),
        ("0/0", "COUNT must be between 1"),
    ] {
        let o = env.txlab(&["run", p.to_str().unwrap(), "--seed", "1", "--shard", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains(says), "{bad}: {}", stderr(&o));
    }
}

/// `txlab merge` of three shards: the counts of the unsharded run, every
/// finding kind once with all its occurrences listed, and a warning for a
/// shard left out.
#[test]
fn merging_the_shards_gives_the_unsharded_runs_counts() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = unseeded(&env);
    let whole = summary(&run(&env, &p, &["--seed", "31"]));
    let shards: Vec<std::path::PathBuf> = (0..3)
        .map(|k| run(&env, &p, &["--seed", "31", "--shard", &format!("{k}/3")]))
        .collect();
    let out = env.work.path().join("merged");
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(|s| s.to_str().unwrap()));
    args.extend(["--out", out.to_str().unwrap()]);
    let o = env.txlab(&args);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    let merged = summary(&out);
    for key in [
        "cases",
        "passed",
        "findings",
        "cases_with_findings",
        "undecided",
        "errors",
    ] {
        assert_eq!(merged[key], whole[key], "{key}: {merged}");
    }
    assert_eq!(merged["finding_kinds"], whole["finding_kinds"]);
    assert_eq!(merged["seed"], 31);
    assert_eq!(merged["shards_missing"], serde_json::json!([]));
    // `accuse` reports every case with one signature: one distinct finding.
    let listing: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("findings.json")).unwrap()).unwrap();
    let kinds = listing.as_array().unwrap();
    assert_eq!(kinds.len(), 1, "{listing}");
    assert_eq!(kinds[0]["count"], 11);
    assert_eq!(kinds[0]["occurrences"].as_array().unwrap().len(), 11);
    let kept = out.join(kinds[0]["kept"].as_str().unwrap());
    assert!(kept.join("report.md").is_file(), "{}", kept.display());
    assert!(
        stdout(&o).contains("findings 11 (1 distinct)"),
        "{}",
        stdout(&o)
    );

    // Two of three shards: merged, with the missing one named.
    let out2 = env.work.path().join("merged-two");
    let o = env.txlab(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[2].to_str().unwrap(),
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("miss shards 1/3"), "{}", stderr(&o));
    // The same shard twice, or runs of other seeds, are refused.
    let o = env.txlab(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[0].to_str().unwrap(),
        "--out",
        env.work.path().join("m3").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("shard 0/3 is given twice"),
        "{}",
        stderr(&o)
    );
    let other = run(&env, &p, &["--seed", "32"]);
    let o = env.txlab(&[
        "merge",
        shards[0].to_str().unwrap(),
        other.to_str().unwrap(),
        "--out",
        env.work.path().join("m4").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("different seeds (31 and 32)"),
        "{}",
        stderr(&o)
    );
}
