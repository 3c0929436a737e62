//! The timeline's geometry and its SVG.

use super::*;
use txlab_plugin_api::ir::*;

fn record(
    txn: usize,
    stmt: usize,
    sql: &str,
    span: (u64, Option<u64>),
    blocked: Option<(u64, Option<StatementRef>)>,
    outcome: Outcome,
) -> StatementRecord {
    StatementRecord {
        at: StatementRef::new(txn, stmt),
        sql: sql.into(),
        submitted_us: Some(span.0),
        completed_us: span.1,
        blocked: blocked.map(|(detected_us, resumed_after)| Blocking {
            detected_us,
            evidence: BlockEvidence::Probe,
            resumed_after,
        }),
        outcome,
    }
}

/// T1 updates a row, T2's UPDATE of it waits until T1's COMMIT and then
/// goes on; T2's COMMIT fails with a deadlock.
fn history() -> History {
    let t1_commit = StatementRef::new(0, 1);
    History {
        statements: vec![
            vec![
                record(
                    0,
                    0,
                    "UPDATE t SET v = 1",
                    (100, Some(400)),
                    None,
                    Outcome::Affected { rows: 1 },
                ),
                record(
                    0,
                    1,
                    "COMMIT",
                    (2_000_000, Some(2_000_300)),
                    None,
                    Outcome::Done,
                ),
            ],
            vec![
                record(
                    1,
                    0,
                    "update t SET v = 2",
                    (500, Some(2_000_500)),
                    Some((20_000, Some(t1_commit))),
                    Outcome::Affected { rows: 1 },
                ),
                record(
                    1,
                    1,
                    "COMMIT",
                    (2_000_600, Some(2_000_700)),
                    None,
                    Outcome::Error(DbError {
                        class: ErrorClass::Deadlock,
                        scope: ErrorScope::Transaction,
                        code: Some(1213),
                        sqlstate: None,
                        message: "Deadlock <found>".into(),
                    }),
                ),
                StatementRecord {
                    at: StatementRef::new(1, 2),
                    sql: "SELECT 1".into(),
                    submitted_us: None,
                    completed_us: None,
                    blocked: None,
                    outcome: Outcome::NotSubmitted,
                },
            ],
        ],
        transactions: vec![
            TransactionRecord {
                isolation: IsolationLevel::RepeatableRead,
                end: TxnEnd::Committed,
                ended_us: Some(2_000_300),
            },
            TransactionRecord {
                isolation: IsolationLevel::ReadCommitted,
                end: TxnEnd::Aborted {
                    by: StatementRef::new(1, 1),
                    class: ErrorClass::Deadlock,
                },
                ended_us: Some(2_000_700),
            },
        ],
        completion_order: vec![],
        ..History::default()
    }
}

#[test]
fn the_compressed_scale_keeps_order_and_a_minimum_gap() {
    let s = Scale::new(vec![500, 100, 100, 2_000_000, 400], 10.0, 0.0);
    assert_eq!(s.x(100), 10.0);
    let xs: Vec<f64> = [100, 400, 500, 2_000_000].iter().map(|&t| s.x(t)).collect();
    for w in xs.windows(2) {
        assert!(w[1] - w[0] >= MIN_GAP, "{xs:?}");
    }
    // Longer gaps are wider, but far less than in proportion.
    let short = xs[2] - xs[1]; // 100 µs
    let long = xs[3] - xs[2]; // ~2 s
    assert!(long > 3.0 * short && long < 20.0 * short, "{short} {long}");
    // Between two events: interpolated; outside: clamped.
    assert!(s.x(450) > xs[1] && s.x(450) < xs[2]);
    assert_eq!(s.x(0), 10.0);
    assert_eq!(s.x(9_000_000), xs[3]);
    assert_eq!(gap_width(0), MIN_GAP);
    // Stretched to a minimum width, in proportion.
    let wide = Scale::new(vec![500, 100, 2_000_000, 400], 10.0, 1000.0);
    assert!((wide.end_x() - 1000.0).abs() < 1e-6);
    let ratio = (wide.x(500) - wide.x(400)) / (s.x(500) - s.x(400));
    assert!((ratio - 990.0 / (s.end_x() - 10.0)).abs() < 1e-9);
    // A single event or none.
    assert_eq!(Scale::new(vec![7], 10.0, 500.0).x(7), 10.0);
    assert_eq!(Scale::new(vec![], 10.0, 500.0).end_x(), 0.0);
}

#[test]
fn lanes_bars_waits_arrows_and_aborts() {
    let t = layout(&history());
    assert_eq!(t.lanes.len(), 2);
    assert_eq!(t.lanes[1].label, "T2");
    assert_eq!(t.lanes[1].detail, "read-committed · aborted (deadlock)");
    assert!(t.lanes[1].y >= t.lanes[0].y + LANE_HEIGHT);
    // The statement that was never sent has no bar.
    assert_eq!(t.bars.len(), 4);
    let bar = |txn, stmt| {
        t.bars
            .iter()
            .find(|b| b.at == StatementRef::new(txn, stmt))
            .unwrap()
    };
    let (update1, commit1, update2, commit2) = (bar(0, 0), bar(0, 1), bar(1, 0), bar(1, 1));
    // Each bar sits in its own lane.
    for b in [update1, commit1] {
        assert!(b.y > t.lanes[0].y && b.y + BAR_HEIGHT < t.lanes[1].y);
    }
    assert!(update2.y > t.lanes[1].y);
    // Submission to reply, in time order across lanes.
    assert!(update1.x0 < update1.x1 && update1.x1 < update2.x0);
    assert!(update2.x0 < commit1.x0 && commit1.x1 < update2.x1);
    assert!(update2.x1 < commit2.x0);
    // T2's UPDATE waited from when the probe saw it, to its reply.
    let wait = update2.blocked_from.unwrap();
    assert!(wait > update2.x0 && wait < commit1.x0, "{wait}");
    assert_eq!(update1.blocked_from, None);
    assert_eq!(commit2.state, BarState::Error);
    assert_eq!(
        (update2.verb.as_str(), update1.state),
        ("UPDATE", BarState::Ok)
    );
    assert!(
        update2.tip.contains("resumed after T1.2"),
        "{}",
        update2.tip
    );
    // T1's COMMIT let it go on: an arrow from its end down to T2's bar.
    assert_eq!(t.arrows.len(), 1);
    let a = &t.arrows[0];
    assert_eq!(
        (a.from, a.to),
        (StatementRef::new(0, 1), StatementRef::new(1, 0))
    );
    assert_eq!(a.x0, commit1.x1);
    assert!(a.x1 >= wait && a.x1 <= update2.x1);
    assert_eq!((a.y0, a.y1), (commit1.y + BAR_HEIGHT, update2.y));
    // T2 aborted at its COMMIT: a cross just after that bar, in its lane.
    assert_eq!(t.aborts.len(), 1);
    assert!(t.aborts[0].x > commit2.x1);
    assert_eq!(t.aborts[0].y, t.lanes[1].y + LANE_HEIGHT / 2.0);
    assert!(t.aborts[0].label.contains("T2.2: deadlock"));
    // Everything fits in the picture.
    assert!(t
        .bars
        .iter()
        .all(|b| b.x1 <= t.width && b.y + BAR_HEIGHT <= t.height));
    assert!(
        t.ticks.len() >= 2 && t.ticks[0].label == "100 µs",
        "{:?}",
        t.ticks
    );
    assert!(t.ticks.windows(2).all(|w| w[1].x - w[0].x >= 70.0));
}

#[test]
fn a_statement_without_reply_runs_past_the_last_event() {
    let mut h = history();
    h.statements[1][1].completed_us = None;
    h.statements[1][1].outcome = Outcome::NoReply;
    let t = layout(&h);
    let open = t
        .bars
        .iter()
        .find(|b| b.at == StatementRef::new(1, 1))
        .unwrap();
    assert_eq!(open.state, BarState::NoReply);
    assert!(t.bars.iter().all(|b| b.at == open.at || b.x1 < open.x1));
    // Same-microsecond replies still get a visible bar.
    h.statements[0][0].completed_us = Some(100);
    let t = layout(&h);
    assert!(t.bars[0].x1 - t.bars[0].x0 >= MIN_BAR);
}

#[test]
fn the_svg_has_a_lane_per_transaction_and_escapes_sql() {
    let mut h = history();
    h.statements[0][0].sql = "UPDATE t SET v = '</svg><script>'".into();
    let svg = render(&layout(&h), "c1");
    assert_eq!(svg.matches(r#"<g class="lane""#).count(), 2);
    assert_eq!(svg.matches(r#"<rect class="bar""#).count(), 4);
    assert_eq!(svg.matches(r#"<rect class="wait""#).count(), 1);
    assert_eq!(svg.matches(r#"<path class="resume""#).count(), 1);
    assert_eq!(svg.matches(r#"<g class="abort""#).count(), 1);
    assert!(!svg.contains("<script>") && svg.contains("&lt;/svg&gt;&lt;script&gt;"));
    assert_eq!(svg.matches("<svg").count(), 1);
    assert!(svg.contains(r#"fill="url(#c1-wait)""#));
    assert_eq!(duration_text(2_000_500), "2 s");
    assert_eq!(duration_text(1_250), "1.25 ms");
    assert_eq!(duration_text(20_000), "20 ms");
}
