//! docker/compose.yml: every server users start with it has a health check
//! (so `docker compose up --wait` returns once it accepts connections), an
//! image tag and host ports the environment can change, binds 127.0.0.1
//! only, and by default listens where the shipped pipelines connect.

mod common;

use serde_yaml::Value;
use std::collections::BTreeMap;

fn compose() -> Value {
    let path = common::repo_root().join("docker/compose.yml");
    serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn services() -> BTreeMap<String, Value> {
    let compose = compose();
    compose["services"]
        .as_mapping()
        .expect("services")
        .iter()
        .map(|(k, v)| (k.as_str().unwrap().to_string(), v.clone()))
        .collect()
}

/// The environment variable prefix of a service: `TXLAB_COCKROACHDB`.
fn prefix(service: &str) -> String {
    format!("TXLAB_{}", service.to_uppercase())
}

fn ports(service: &Value) -> Vec<String> {
    service["ports"]
        .as_sequence()
        .expect("ports")
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_service_has_a_health_check() {
    for (name, service) in services() {
        let test = &service["healthcheck"]["test"];
        let command = test
            .as_sequence()
            .unwrap_or_else(|| panic!("{name}: no healthcheck.test"));
        assert!(
            matches!(
                command.first().and_then(Value::as_str),
                Some("CMD") | Some("CMD-SHELL")
            ),
            "{name}: {command:?}"
        );
        assert!(command.len() >= 2, "{name}: {command:?}");
    }
}

#[test]
fn tags_and_ports_come_from_the_environment_on_localhost_only() {
    for (name, service) in services() {
        let image = service["image"].as_str().unwrap();
        let tag = format!("${{{}_TAG:-", prefix(&name));
        assert!(image.contains(&tag), "{name}: image {image} lacks {tag}");
        for port in ports(&service) {
            assert!(port.starts_with("127.0.0.1:"), "{name}: {port}");
            assert!(
                port.contains(&format!("${{{}_", prefix(&name))),
                "{name}: {port} is not overridable"
            );
        }
    }
}

/// The host port a service listens on by default: the `:-DEFAULT` of its
/// first port mapping.
fn default_port(service: &Value) -> u16 {
    let first = &ports(service)[0];
    let default = first
        .split(":-")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .unwrap_or_else(|| panic!("{first}: no default"));
    default.parse().unwrap()
}

#[test]
fn the_default_ports_are_the_shipped_pipelines_ports() {
    let services = services();
    for (config, service) in [
        ("mariadb.toml", "mariadb"),
        ("mysql.toml", "mysql"),
        ("tidb.toml", "tidb"),
        ("postgres.toml", "postgres"),
        ("cockroachdb.toml", "cockroachdb"),
    ] {
        let text =
            std::fs::read_to_string(common::repo_root().join("configs").join(config)).unwrap();
        let pipeline: toml::Value = toml::from_str(&text).unwrap();
        let url = pipeline["target"]["url"].as_str().unwrap();
        let port = default_port(&services[service]);
        assert!(
            url.contains(&format!("127.0.0.1:{port}")),
            "configs/{config} connects to {url}, docker/compose.yml's {service} listens on {port}"
        );
    }
}
