//! Both models, at every level, for every class; the mixed-level rule.

use super::classes::Case;
use super::*;
use crate::model::{breakers, is_snapshot_isolation, Regime};
use txlab_plugin_api::ir::{
    AfterWait, DialectInfo, EngineSemantics, Features, IsolationLevel, LevelSemantics, LockProbe,
    MixedLevels, SerialOrder, SessionControl, SnapshotPoint, WriteConflict, WriteReads,
};

fn sem(
    level: IsolationLevel,
    snapshot: SnapshotPoint,
    write_reads: WriteReads,
    write_conflict: WriteConflict,
    serializable: bool,
) -> LevelSemantics {
    LevelSemantics {
        level,
        snapshot,
        write_reads,
        write_conflict,
        semi_consistent_writes: false,
        predicate_conflicts: false,
        serial_order: SerialOrder::CommitOrder,
        serializable,
        after_wait: AfterWait::Unknown,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes: vec![format!("declared note for {level}")],
        references: vec![format!("https://example.invalid/{level}")],
    }
}

/// A dialect whose five levels are the five regimes: InnoDB's RU, RC and
/// RR, PostgreSQL's RR as SNAPSHOT, InnoDB's SERIALIZABLE.
fn dialect() -> DialectInfo {
    use IsolationLevel::*;
    use SnapshotPoint as S;
    use WriteConflict as C;
    use WriteReads as W;
    DialectInfo {
        name: "test".into(),
        driver: "sqlite".into(),
        levels: vec![
            sem(
                ReadUncommitted,
                S::None,
                W::LatestCommitted,
                C::BlockThenProceed,
                false,
            ),
            sem(
                ReadCommitted,
                S::PerStatement,
                W::LatestCommitted,
                C::BlockThenProceed,
                false,
            ),
            sem(
                RepeatableRead,
                S::FirstRead,
                W::LatestCommitted,
                C::BlockThenProceed,
                false,
            ),
            sem(
                Snapshot,
                S::FirstStatement,
                W::Snapshot,
                C::BlockThenAbort,
                false,
            ),
            LevelSemantics {
                // Strict two-phase locking: the promise holds beside
                // transactions at weaker levels too.
                mixed_levels: MixedLevels::Covered,
                ..sem(
                    Serializable,
                    S::PerStatement,
                    W::LatestCommitted,
                    C::BlockThenProceed,
                    true,
                )
            },
        ],
        features: Features::default(),
        lock_probe: LockProbe::None,
        session_control: SessionControl::default(),
        engine: EngineSemantics::default(),
        server_query: None,
        server: None,
    }
}

const LEVELS: [IsolationLevel; 5] = [
    IsolationLevel::ReadUncommitted,
    IsolationLevel::ReadCommitted,
    IsolationLevel::RepeatableRead,
    IsolationLevel::Snapshot,
    IsolationLevel::Serializable,
];

/// Per case: forbidden (F) or permitted (P) at RU, RC, RR, SNAPSHOT, SER,
/// by the standard model, then by the vendor model.
const TABLE: [(Case, &str, &str); 11] = [
    (Case::G0, "FFFFF", "FFFFF"),
    (Case::G1a, "PFFFF", "PFFFF"),
    (Case::G1b, "PFFFF", "PFFFF"),
    (Case::G1c, "PFFFF", "PFFFF"),
    (Case::LostUpdate, "PPFFF", "PPPFF"),
    (Case::ReadWriteSkew, "PPFFF", "PPPFF"),
    (Case::NonRepeatableRead, "PPFFF", "PPFFF"),
    (Case::ReadSkew, "PPFFF", "PPFFF"),
    (Case::WriteSkew, "PPFPF", "PPPPF"),
    (Case::GSIa, "PPPFP", "PPFFP"),
    (Case::GSIb, "PPPFP", "PPFFF"),
];

fn at_level(case: Case, level: IsolationLevel) -> (B, Anomaly) {
    let mut b = case.build();
    let ids: Vec<TxnId> = b.h.transactions().map(|t| t.id).collect();
    for id in ids {
        b.h.set_level(id, level).unwrap();
    }
    let r = b.check();
    assert_eq!(r.anomalies.len(), 1, "{case:?}");
    let a = r.anomalies[0].clone();
    (b, a)
}

#[test]
fn every_class_at_every_level_by_both_models() {
    let d = dialect();
    for (case, standard, vendor) in TABLE {
        let mut got_standard = String::new();
        let mut got_vendor = String::new();
        for level in LEVELS {
            let (b, a) = at_level(case, level);
            let j = judge(&a, &b.h, &d);
            got_standard.push(if j.standard.forbidden { 'F' } else { 'P' });
            got_vendor.push(if j.vendor.is_forbidden() { 'F' } else { 'P' });
            assert_eq!(j.is_finding(), j.vendor.is_forbidden());
            // The standard model's level is the level's, from the profile.
            let expected_level = match level {
                IsolationLevel::ReadUncommitted => AdyaLevel::PL1,
                IsolationLevel::ReadCommitted => AdyaLevel::PL2,
                IsolationLevel::RepeatableRead => AdyaLevel::PL299,
                IsolationLevel::Snapshot => AdyaLevel::PLSI,
                _ => AdyaLevel::PL3,
            };
            assert_eq!(j.standard.level, expected_level, "{case:?} at {level}");
        }
        assert_eq!(got_standard, standard, "standard model, {case:?}");
        assert_eq!(got_vendor, vendor, "vendor model, {case:?}");
    }
}

#[test]
fn the_adya_table() {
    use Phenomenon::*;
    // G0 G1a G1b G1c G-single G-SIa G-SIb G2-item
    let table = [
        (AdyaLevel::PL1, "FPPPPPPP"),
        (AdyaLevel::PL2, "FFFFPPPP"),
        (AdyaLevel::PL2Plus, "FFFFFPPP"),
        (AdyaLevel::PLSI, "FFFFFFFP"),
        (AdyaLevel::PL299, "FFFFFPPF"),
        (AdyaLevel::PL3, "FFFFFPPF"),
    ];
    for (level, row) in table {
        let got: String = [G0, G1a, G1b, G1c, GSingle, GSIa, GSIb, G2Item]
            .iter()
            .map(|&p| if level.forbids(p) { 'F' } else { 'P' })
            .collect();
        assert_eq!(got, row, "{level}");
    }
}

#[test]
fn the_standard_model_reads_snapshot_isolation_from_the_profile() {
    use IsolationLevel::*;
    use SnapshotPoint as S;
    use WriteConflict as C;
    use WriteReads as W;
    let cases = [
        // PostgreSQL REPEATABLE READ
        (
            sem(
                RepeatableRead,
                S::FirstStatement,
                W::Snapshot,
                C::BlockThenAbort,
                false,
            ),
            AdyaLevel::PLSI,
            Regime::SnapshotIsolation,
        ),
        // TiDB optimistic REPEATABLE READ
        (
            sem(
                RepeatableRead,
                S::Begin,
                W::Snapshot,
                C::AbortAtCommit,
                false,
            ),
            AdyaLevel::PLSI,
            Regime::SnapshotIsolation,
        ),
        // MariaDB REPEATABLE READ with innodb_snapshot_isolation = ON
        (
            sem(
                RepeatableRead,
                S::FirstRead,
                W::Snapshot,
                C::BlockThenAbort,
                false,
            ),
            AdyaLevel::PLSI,
            Regime::SnapshotIsolation,
        ),
        // InnoDB and TiDB pessimistic REPEATABLE READ
        (
            sem(
                RepeatableRead,
                S::FirstRead,
                W::LatestCommitted,
                C::BlockThenProceed,
                false,
            ),
            AdyaLevel::PL299,
            Regime::SnapshotWithCurrentWrites,
        ),
        (
            sem(
                RepeatableRead,
                S::Begin,
                W::LatestCommitted,
                C::BlockThenProceed,
                false,
            ),
            AdyaLevel::PL299,
            Regime::SnapshotWithCurrentWrites,
        ),
        // PostgreSQL SERIALIZABLE (SSI) and SQLite: serializable, not SI
        (
            sem(
                Serializable,
                S::FirstStatement,
                W::Snapshot,
                C::BlockThenAbort,
                true,
            ),
            AdyaLevel::PL3,
            Regime::Serializable,
        ),
        (
            sem(
                Serializable,
                S::FirstRead,
                W::Snapshot,
                C::SingleWriter,
                true,
            ),
            AdyaLevel::PL3,
            Regime::Serializable,
        ),
        // An SI level called SERIALIZABLE that does not promise it
        (
            sem(Serializable, S::Begin, W::Snapshot, C::AbortAtCommit, false),
            AdyaLevel::PLSI,
            Regime::SnapshotIsolation,
        ),
        (
            sem(
                ReadCommitted,
                S::PerStatement,
                W::LatestCommitted,
                C::BlockThenProceed,
                false,
            ),
            AdyaLevel::PL2,
            Regime::StatementSnapshot,
        ),
        (
            sem(
                ReadUncommitted,
                S::None,
                W::LatestCommitted,
                C::BlockThenProceed,
                false,
            ),
            AdyaLevel::PL1,
            Regime::NoSnapshot,
        ),
    ];
    for (s, adya, regime) in cases {
        assert_eq!(AdyaLevel::standard(s.level, &s), adya, "{}", s.summary());
        assert_eq!(Regime::of(&s), regime, "{}", s.summary());
        assert_eq!(
            is_snapshot_isolation(&s),
            regime == Regime::SnapshotIsolation
        );
    }
}

#[test]
fn vendor_judgements_quote_the_profile() {
    let d = dialect();
    let (b, a) = at_level(Case::LostUpdate, IsolationLevel::RepeatableRead);
    let rr = d.level(IsolationLevel::RepeatableRead).unwrap();
    let VendorJudgement::Permitted { facts } =
        VendorModel::from_semantics(rr, &d.engine).permits(&a, &b.h)
    else {
        panic!("InnoDB RR permits lost updates")
    };
    assert!(
        facts[0].starts_with("repeatable-read: writes read the latest committed version"),
        "{facts:?}"
    );
    assert!(facts[0].contains("T2 ww t row 1 T1"), "{facts:?}");
    assert!(facts.contains(&"declared: declared note for repeatable-read".to_string()));
    assert!(facts.contains(&"reference: https://example.invalid/repeatable-read".to_string()));
    let (b, a) = at_level(Case::LostUpdate, IsolationLevel::Snapshot);
    let j = judge(&a, &b.h, &d);
    let VendorJudgement::Forbidden { why } = &j.vendor else {
        panic!("SI forbids lost updates")
    };
    assert!(
        why.starts_with("T1 at snapshot: snapshot isolation"),
        "{why}"
    );
    assert!(j
        .standard
        .why
        .contains("T1 ran at snapshot (PL-SI), which proscribes G-single"));
}

#[test]
fn mixed_levels_judge_each_transaction_whose_guarantee_breaks() {
    use IsolationLevel::*;
    let d = dialect();
    let run = |case: Case, levels: &[(TxnId, IsolationLevel)]| {
        let mut b = case.build();
        for &(t, l) in levels {
            b.h.set_level(t, l).unwrap();
        }
        let r = b.check();
        let a = r.anomalies[0].clone();
        (breakers(&a), judge(&a, &b.h, &d))
    };
    // Lost update: T1 read r1 and overwrote T2's update: T1's guarantee.
    let (who, j) = run(Case::LostUpdate, &[(1, ReadCommitted), (2, Serializable)]);
    assert_eq!(who, vec![1]);
    assert!(!j.vendor.is_forbidden() && !j.standard.forbidden);
    assert_eq!(j.standard.level, AdyaLevel::PL2);
    let (_, j) = run(Case::LostUpdate, &[(1, Serializable), (2, ReadCommitted)]);
    assert!(j.vendor.is_forbidden() && j.standard.forbidden);
    // Write skew breaks both: forbidden only if both levels forbid it.
    // (PL-2.99 proscribes it; InnoDB's REPEATABLE READ allows it.)
    let (who, j) = run(Case::WriteSkew, &[(1, Serializable), (2, RepeatableRead)]);
    assert_eq!(who, vec![1, 2]);
    assert!(!j.vendor.is_forbidden() && j.standard.forbidden);
    let VendorJudgement::Permitted { facts } = &j.vendor else {
        unreachable!()
    };
    assert!(facts[0].starts_with("T2 at repeatable-read"), "{facts:?}");
    let (_, j) = run(Case::WriteSkew, &[(1, Serializable), (2, Snapshot)]);
    assert!(!j.vendor.is_forbidden() && !j.standard.forbidden);
    assert_eq!(j.standard.level, AdyaLevel::PLSI);
    let (_, j) = run(Case::WriteSkew, &[(1, Serializable), (2, Serializable)]);
    assert!(j.vendor.is_forbidden() && j.standard.forbidden);
    // A transaction without a level: nothing is claimed.
    let (_, j) = run(Case::WriteSkew, &[(1, Serializable)]);
    assert!(!j.vendor.is_forbidden() && !j.standard.forbidden);
    assert!(j
        .standard
        .why
        .contains("T2's isolation level is not recorded"));
    // G1a: the reader's guarantee.
    let (who, _) = run(Case::G1a, &[]);
    assert_eq!(who, vec![2]);
    // A level the dialect does not declare: nothing claimed by the vendor
    // model; the standard model goes by the level's name.
    let mut sqlite_like = dialect();
    sqlite_like.levels.retain(|l| l.level == Serializable);
    let mut b = Case::NonRepeatableRead.build();
    b.h.set_level(1, RepeatableRead).unwrap();
    let a = b.check().anomalies[0].clone();
    let j = judge(&a, &b.h, &sqlite_like);
    assert!(!j.vendor.is_forbidden());
    assert!(j.standard.forbidden);
}

/// PostgreSQL's SERIALIZABLE: snapshot isolation plus dependency tracking
/// between serializable transactions only.
fn ssi_dialect(mixed_levels: MixedLevels) -> DialectInfo {
    let mut d = dialect();
    let ssi = d
        .levels
        .iter_mut()
        .find(|l| l.level == IsolationLevel::Serializable)
        .unwrap();
    *ssi = LevelSemantics {
        serial_order: SerialOrder::AnyOrder,
        mixed_levels,
        ..sem(
            IsolationLevel::Serializable,
            SnapshotPoint::FirstStatement,
            WriteReads::Snapshot,
            WriteConflict::BlockThenAbort,
            true,
        )
    };
    d
}

#[test]
fn a_cycle_through_a_weaker_level_is_judged_by_what_ssi_covers() {
    use IsolationLevel::*;
    // T1 -rw r1-> T2 -wr r2-> T3 -rw r4-> T1: T1 and T3 miss each other's
    // writes through T2, which wrote r1 and r2 and breaks no guarantee of
    // its own (T4 only shows the versions).
    let run = |d: &DialectInfo, middle: IsolationLevel| {
        let mut b = B::new()
            .txns(&[1, 2, 3, 4])
            .read(1, 1, &[0])
            .read(4, 1, &[0, 2])
            .read(3, 2, &[0, 2])
            .read(3, 4, &[0])
            .read(4, 4, &[0, 1]);
        for (t, l) in [(1, Serializable), (2, middle), (3, Serializable)] {
            b.h.set_level(t, l).unwrap();
        }
        let r = b.check();
        assert_eq!(r.anomalies.len(), 1, "{r:?}");
        let a = r.anomalies[0].clone();
        assert_eq!(a.phenomenon, Phenomenon::G2Item);
        assert_eq!(breakers(&a), vec![1, 3]);
        judge(&a, &b.h, d)
    };
    // All three serializable: forbidden by both models.
    let ssi = ssi_dialect(MixedLevels::SameLevelOnly);
    let j = run(&ssi, Serializable);
    assert!(j.vendor.is_forbidden() && j.standard.forbidden);
    // Through a READ COMMITTED writer: Adya's mixed model still forbids it
    // (both breakers ran at PL-3), PostgreSQL's promise does not cover it.
    let j = run(&ssi, ReadCommitted);
    assert!(j.standard.forbidden);
    let VendorJudgement::Permitted { facts } = &j.vendor else {
        panic!("{j:?}")
    };
    assert!(
        facts[0].contains("covers only transactions that all ran at serializable")
            && facts[0].contains("T2 ran at read-committed")
            && facts[0].contains("snapshot isolation"),
        "{facts:?}"
    );
    // Strict two-phase locking covers the cycle.
    let j = run(&ssi_dialect(MixedLevels::Covered), ReadCommitted);
    assert!(j.vendor.is_forbidden());
    // What snapshot isolation forbids stays forbidden through a weaker
    // level: T1 (serializable) overwrote T2's (read committed) update of a
    // row it had read.
    let mut b = Case::LostUpdate.build();
    b.h.set_level(1, Serializable).unwrap();
    b.h.set_level(2, ReadCommitted).unwrap();
    let a = b.check().anomalies[0].clone();
    let j = judge(&a, &b.h, &ssi);
    let VendorJudgement::Forbidden { why } = &j.vendor else {
        panic!("{j:?}")
    };
    assert!(why.contains("snapshot isolation"), "{why}");
}

#[test]
fn judgements_serialize() {
    let d = dialect();
    let (b, a) = at_level(Case::WriteSkew, IsolationLevel::Snapshot);
    let j = judge(&a, &b.h, &d);
    let json = serde_json::to_string(&j).unwrap();
    assert!(json.contains("\"verdict\":\"permitted\""), "{json}");
    let back: Judgement = serde_json::from_str(&json).unwrap();
    assert_eq!(back, j);
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(serde_json::from_str::<Anomaly>(&json).unwrap(), a);
}

/// A write skew between two serializable transactions over a row a READ
/// UNCOMMITTED transaction outside the cycle wrote: PostgreSQL promises
/// serializability only when every writer is serializable (a stream on
/// PostgreSQL 15 and 17 reported such a cycle as a finding). The same
/// cycle with every writer serializable stays forbidden.
#[test]
fn a_weaker_writer_of_a_cycles_rows_puts_it_outside_the_ssi_promise() {
    use IsolationLevel::*;
    // T1 -rw r1-> T2 -rw r2-> T1; T3 wrote r2's version both read.
    let run = |d: &DialectInfo, writer: IsolationLevel| {
        let mut b = B::new()
            .txns(&[1, 2, 3, 4])
            .read(1, 1, &[0])
            .read(2, 2, &[0, 3])
            .read(4, 1, &[0, 2])
            .read(4, 2, &[0, 3, 1]);
        for (t, l) in [(1, Serializable), (2, Serializable), (3, writer)] {
            b.h.set_level(t, l).unwrap();
        }
        let r = b.check();
        let a = r
            .anomalies
            .iter()
            .find(|a| a.phenomenon == Phenomenon::G2Item)
            .unwrap_or_else(|| panic!("{r:?}"))
            .clone();
        assert_eq!(a.transactions, vec![1, 2]);
        judge(&a, &b.h, d)
    };
    let ssi = ssi_dialect(MixedLevels::SameLevelOnly);
    assert!(run(&ssi, Serializable).vendor.is_forbidden());
    let j = run(&ssi, ReadUncommitted);
    let VendorJudgement::Permitted { facts } = &j.vendor else {
        panic!("{j:?}")
    };
    assert!(
        facts[0].contains("T3 (read-uncommitted) wrote") && facts[0].contains("row 2"),
        "{facts:?}"
    );
    // Under strict two-phase locking the promise covers it.
    assert!(run(&ssi_dialect(MixedLevels::Covered), ReadUncommitted)
        .vendor
        .is_forbidden());
}
