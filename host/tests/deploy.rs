//! deploy/: the Kubernetes Indexed Job that runs a campaign as shards
//! (docs/scale-out.md) and the image it runs. The manifest is read as a
//! Job must be for the campaign to be one run — one pod per shard, the
//! shard from the completion index, the same seed everywhere, a DBMS
//! sidecar that is up before txlab starts — and, where the
//! `kubernetes-validate` tool is installed (`.ci/run` installs it), checked
//! against the Kubernetes API schema.

mod common;

use common::cli_env::*;
use serde::Deserialize;
use serde_yaml::Value;

fn manifest_path() -> std::path::PathBuf {
    common::repo_root().join("deploy/k8s/campaign.yaml")
}

fn documents() -> Vec<Value> {
    let text = std::fs::read_to_string(manifest_path()).unwrap();
    serde_yaml::Deserializer::from_str(&text)
        .map(|d| Value::deserialize(d).unwrap())
        .collect()
}

fn of_kind(docs: &[Value], kind: &str) -> Value {
    docs.iter()
        .find(|d| d["kind"].as_str() == Some(kind))
        .unwrap_or_else(|| panic!("no {kind} in the manifest"))
        .clone()
}

#[test]
fn the_job_runs_one_shard_per_pod_of_one_seeded_run() {
    let docs = documents();
    let job = of_kind(&docs, "Job");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    let completions = spec["completions"].as_u64().unwrap();
    assert_eq!(spec["parallelism"].as_u64(), Some(completions));
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"].as_str(), Some("Never"));
    let txlab = &pod["containers"][0];
    let args: Vec<&str> = txlab["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let line = args.join(" ");
    assert!(
        line.contains(&format!("--shard \"$JOB_COMPLETION_INDEX/{completions}\"")),
        "the shard count must be the Job's completions ({completions}): {line}"
    );
    assert!(
        line.contains("--seed"),
        "every shard needs the run's seed: {line}"
    );
    assert!(
        line.contains("--out \"/results/shard-$JOB_COMPLETION_INDEX\""),
        "{line}"
    );
    // The DBMS is a native sidecar that has started before txlab does.
    let sidecar = &pod["initContainers"][0];
    assert_eq!(sidecar["restartPolicy"].as_str(), Some("Always"));
    assert!(sidecar["startupProbe"].is_mapping(), "{sidecar:?}");
    // The volumes name the ConfigMap and the claim the manifest defines.
    let config_map = of_kind(&docs, "ConfigMap");
    let claim = of_kind(&docs, "PersistentVolumeClaim");
    let volumes = pod["volumes"].as_sequence().unwrap();
    assert!(volumes
        .iter()
        .any(|v| v["configMap"]["name"] == config_map["metadata"]["name"]));
    assert!(volumes
        .iter()
        .any(|v| v["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]));
}

/// The pipeline in the ConfigMap is one txlab accepts.
#[test]
fn the_campaign_pipeline_checks() {
    let docs = documents();
    let pipeline = of_kind(&docs, "ConfigMap")["data"]["pipeline.toml"]
        .as_str()
        .unwrap()
        .to_string();
    let env = Env::new(&[]);
    let path = env.pipeline("pipeline.toml", &pipeline);
    let o = env.txlab(&["check-config", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("dialect mariadb"), "{}", stdout(&o));
}

#[test]
fn the_manifest_is_valid_against_the_kubernetes_schema() {
    let path = manifest_path();
    let o = std::process::Command::new("kubernetes-validate")
        .args(["--strict", "--quiet"])
        .arg(&path)
        .output();
    let o = match o {
        Ok(o) => o,
        Err(e) => {
            let why = format!(
                "kubernetes-validate is not installed ({e}); pip install kubernetes-validate"
            );
            if std::env::var("TXLAB_REQUIRE_LIVE").as_deref() == Ok("1") {
                panic!("{why}");
            }
            eprintln!("skipped: {why}");
            return;
        }
    };
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert!(o.status.success(), "{text}");
    assert!(!text.contains("ERROR"), "{text}");
}

/// The image's build names files that exist.
#[test]
fn the_dockerfile_copies_what_the_repository_has() {
    let root = common::repo_root();
    let text = std::fs::read_to_string(root.join("deploy/Dockerfile")).unwrap();
    for line in text
        .lines()
        .filter(|l| l.starts_with("COPY ") && !l.contains("--from"))
    {
        let source = line.split_whitespace().nth(1).unwrap();
        assert!(root.join(source).exists(), "{line}");
    }
}
