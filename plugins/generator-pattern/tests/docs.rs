//! docs/generator-pattern.md lists the catalogue as it is.

use txlab_generator_pattern::catalogue::short_level;
use txlab_generator_pattern::CATALOGUE;

/// The catalogue as the documentation's table shows it.
fn table() -> String {
    let mut out = String::from(
        "| pattern | operations | anomaly | phenomenon | forbidden at | paper |\n|---|---|---|---|---|---|\n",
    );
    for s in CATALOGUE {
        let levels: Vec<&str> = s.forbidden_at.iter().map(|&l| short_level(l)).collect();
        let mut ops = format!("`{}`", s.ops);
        if s.predicate_read {
            ops.push_str(" (R1 by a predicate over x and y)");
        }
        if !s.erratum.is_empty() {
            ops.push_str(" *");
        }
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            s.name,
            ops,
            s.anomaly,
            if s.phenomenon.is_empty() {
                "–"
            } else {
                s.phenomenon
            },
            levels.join(" "),
            s.paper_levels,
        ));
    }
    out
}

#[test]
fn the_documentation_lists_the_catalogue() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/generator-pattern.md"
    );
    let doc = std::fs::read_to_string(path).unwrap();
    let table = table();
    assert!(
        doc.contains(&table),
        "docs/generator-pattern.md should hold:\n{table}"
    );
}
