//! Which patterns a case may be drawn from: the config's `patterns` entries.

use crate::catalogue::{Pattern, CATALOGUE};
use txlab_plugin_api::prelude::*;

/// The resolved `patterns` option.
#[derive(Clone, Debug)]
pub struct Selection {
    /// Patterns selected whatever the levels (by name, anomaly, phenomenon or "all").
    fixed: Vec<Pattern>,
    /// Whether "forbidden" adds the patterns the case's levels forbid.
    forbidden: bool,
    /// Every pattern, parsed, for "forbidden" (without repeated operations).
    distinct: Vec<Pattern>,
}

impl Selection {
    /// Resolves the entries; an entry that matches nothing is an error that
    /// names what it may be.
    pub fn new(entries: &[String]) -> Result<Selection, PluginError> {
        let all = distinct_patterns();
        let mut fixed: Vec<Pattern> = Vec::new();
        let mut forbidden = false;
        let add = |p: &Pattern, fixed: &mut Vec<Pattern>| {
            if !fixed.iter().any(|q| q.spec.name == p.spec.name) {
                fixed.push(p.clone());
            }
        };
        for entry in entries {
            let e = entry.trim();
            if e == "forbidden" {
                forbidden = true;
                continue;
            }
            if e == "all" {
                for p in &all {
                    add(p, &mut fixed);
                }
                continue;
            }
            if let Some(p) = Pattern::named(e) {
                add(&p, &mut fixed);
                continue;
            }
            let by_class: Vec<&Pattern> = all
                .iter()
                .filter(|p| {
                    p.spec.anomaly.eq_ignore_ascii_case(e)
                        || (!p.spec.phenomenon.is_empty()
                            && p.spec.phenomenon.eq_ignore_ascii_case(e))
                })
                .collect();
            if by_class.is_empty() {
                return Err(PluginError::config(format!(
                    "patterns: {e:?} is no pattern, anomaly or phenomenon of the catalogue \
                     (`txlab plugins show pattern` lists them), nor \"forbidden\" or \"all\""
                )));
            }
            for p in by_class {
                add(p, &mut fixed);
            }
        }
        Ok(Selection {
            fixed,
            forbidden,
            distinct: all,
        })
    }

    /// The patterns a case whose transactions run at `levels` may be drawn
    /// from; with "forbidden", a pattern of n transactions counts when the
    /// first n levels all forbid it. In catalogue order, each once.
    pub fn candidates(&self, levels: &[IsolationLevel]) -> Vec<&Pattern> {
        let mut out: Vec<&Pattern> = self.fixed.iter().collect();
        if self.forbidden {
            for p in &self.distinct {
                let applies =
                    p.txns <= levels.len() && levels[..p.txns].iter().all(|&l| p.forbidden_at(l));
                if applies && !out.iter().any(|q| q.spec.name == p.spec.name) {
                    out.push(p);
                }
            }
        }
        out.sort_by_key(|p| {
            CATALOGUE
                .iter()
                .position(|s| s.name == p.spec.name)
                .expect("from the catalogue")
        });
        out
    }

    /// The most transactions any selectable pattern has.
    pub fn max_txns(&self) -> usize {
        self.fixed
            .iter()
            .chain(if self.forbidden {
                self.distinct.iter()
            } else {
                [].iter()
            })
            .map(|p| p.txns)
            .max()
            .unwrap_or(0)
    }
}

/// Every pattern of the catalogue, parsed, leaving out one whose operations an
/// earlier pattern already has (aptrans-38 repeats write-skew).
pub fn distinct_patterns() -> Vec<Pattern> {
    let mut out: Vec<Pattern> = Vec::new();
    for spec in CATALOGUE {
        let p = Pattern::parse(spec).expect("the catalogue parses (tested)");
        if !out.iter().any(|q| q.ops == p.ops) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use IsolationLevel::*;

    fn names(s: &Selection, levels: &[IsolationLevel]) -> Vec<&'static str> {
        s.candidates(levels).iter().map(|p| p.spec.name).collect()
    }

    #[test]
    fn forbidden_follows_the_levels() {
        let s = Selection::new(&["forbidden".into()]).unwrap();
        let ser = names(&s, &[Serializable, Serializable]);
        assert!(ser.contains(&"write-skew") && ser.contains(&"lost-update"));
        // aptrans-38 repeats write-skew's operations.
        assert!(!ser.contains(&"aptrans-38"));
        // Only snapshot isolation (with the snapshot at BEGIN) forbids these.
        assert!(!ser.contains(&"aptrans-2") && !ser.contains(&"aptrans-36"));
        let rc = names(&s, &[ReadCommitted, ReadCommitted]);
        assert!(rc.contains(&"dirty-read") && !rc.contains(&"lost-update"));
        let ru = names(&s, &[ReadUncommitted, ReadUncommitted]);
        assert!(ru.contains(&"dirty-write") && !ru.contains(&"dirty-read"));
        let si = names(&s, &[Snapshot, Snapshot]);
        assert!(si.contains(&"aptrans-2") && !si.contains(&"write-skew"));
        // Mixed levels: forbidden at both.
        let mixed = names(&s, &[ReadCommitted, Serializable]);
        assert_eq!(mixed, rc);
    }

    #[test]
    fn names_anomalies_and_phenomena_select() {
        let s = Selection::new(&["aptrans-38".into(), "lost update".into(), "G0".into()]).unwrap();
        assert_eq!(
            names(&s, &[ReadCommitted, ReadCommitted]),
            [
                "lost-update",
                "aptrans-4",
                "aptrans-5",
                "aptrans-6",
                "aptrans-7",
                "aptrans-31",
                "aptrans-38"
            ]
        );
        let s = Selection::new(&["Write Skew".into()]).unwrap();
        assert_eq!(
            names(&s, &[ReadCommitted, ReadCommitted]),
            ["write-skew", "aptrans-37", "aptrans-39", "aptrans-40"]
        );
        let all = Selection::new(&["all".into()]).unwrap();
        assert_eq!(
            names(&all, &[ReadCommitted, ReadCommitted]).len(),
            CATALOGUE.len() - 1
        );
        assert_eq!(all.max_txns(), 2);
    }

    #[test]
    fn unknown_entries_are_refused() {
        let e = Selection::new(&["lost-updates".into()]).unwrap_err();
        assert!(
            e.message
                .starts_with("patterns: \"lost-updates\" is no pattern"),
            "{e}"
        );
    }
}
