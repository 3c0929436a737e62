//! The interleaving timeline of a case as an SVG picture: one lane per
//! transaction, a bar per statement from its submission to its reply, the
//! span it waited for a lock drawn hatched from when the executor knew it
//! waited, an arrow from the statement whose completion let a blocked one go
//! on to that one, and a cross where a transaction was aborted.
//!
//! The time axis is compressed: the distinct event times (submissions,
//! replies, detected waits, ends) keep their order, and the gap between two
//! neighbours is drawn on a logarithmic scale with a minimum width, so that
//! a 200 µs statement stays visible beside a 2 s lock wait.
//! [`layout`] computes the geometry (tested), [`render`] draws it.

use super::escape::{esc, Esc};
use std::fmt::Write as _;
use txlab_plugin_api::ir::{History, Outcome, StatementRef, TxnEnd};

/// Left margin: the lane labels.
pub const LABEL_WIDTH: f64 = 190.0;
/// Top margin: the time axis.
pub const AXIS_HEIGHT: f64 = 30.0;
pub const LANE_HEIGHT: f64 = 44.0;
pub const BAR_HEIGHT: f64 = 20.0;
/// The narrowest gap between two distinct event times, in pixels.
pub const MIN_GAP: f64 = 22.0;
/// Pixels per doubling of a gap (in units of 50 µs).
const GAP_PER_DOUBLING: f64 = 9.0;
/// The narrowest bar (a statement whose reply came in the same microsecond).
pub const MIN_BAR: f64 = 6.0;
const RIGHT_MARGIN: f64 = 24.0;
/// The width a timeline fills at least (the page's content width): short
/// cases are spread out rather than crowded at the left.
pub const MIN_WIDTH: f64 = 1130.0;

/// Maps times (µs from the case start) to x coordinates.
#[derive(Debug)]
pub struct Scale {
    times: Vec<u64>,
    xs: Vec<f64>,
}

impl Scale {
    /// A scale over these event times, starting at `x0`, its gaps widened
    /// in proportion where they would end before `min_end`.
    pub fn new(mut times: Vec<u64>, x0: f64, min_end: f64) -> Scale {
        times.sort_unstable();
        times.dedup();
        let gaps: Vec<f64> = times.windows(2).map(|w| gap_width(w[1] - w[0])).collect();
        let natural: f64 = gaps.iter().sum();
        let stretch = if natural > 0.0 && x0 + natural < min_end {
            (min_end - x0) / natural
        } else {
            1.0
        };
        let mut xs = Vec::with_capacity(times.len());
        let mut x = x0;
        xs.extend(times.first().map(|_| x0));
        for g in gaps {
            x += g * stretch;
            xs.push(x);
        }
        Scale { times, xs }
    }

    /// The x of time `t`: exact at an event time, interpolated between two,
    /// clamped to the first and last.
    pub fn x(&self, t: u64) -> f64 {
        match self.times.binary_search(&t) {
            Ok(i) => self.xs[i],
            Err(0) => self.xs.first().copied().unwrap_or(0.0),
            Err(i) if i >= self.times.len() => self.xs.last().copied().unwrap_or(0.0),
            Err(i) => {
                let (t0, t1) = (self.times[i - 1], self.times[i]);
                let f = (t - t0) as f64 / (t1 - t0) as f64;
                self.xs[i - 1] + f * (self.xs[i] - self.xs[i - 1])
            }
        }
    }

    pub fn first(&self) -> u64 {
        self.times.first().copied().unwrap_or(0)
    }

    pub fn last(&self) -> u64 {
        self.times.last().copied().unwrap_or(0)
    }

    pub fn end_x(&self) -> f64 {
        self.xs.last().copied().unwrap_or(0.0)
    }
}

/// The width of the gap between two neighbouring event times `d` µs apart.
pub fn gap_width(d: u64) -> f64 {
    MIN_GAP + GAP_PER_DOUBLING * (1.0 + d as f64 / 50.0).log2()
}

/// How a statement ended, as its bar shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarState {
    Ok,
    Error,
    /// Sent, but no reply came: the bar runs to the end of the axis.
    NoReply,
}

#[derive(Debug)]
pub struct Lane {
    pub txn: usize,
    /// The top of the lane.
    pub y: f64,
    pub label: String,
    pub detail: String,
}

#[derive(Debug)]
pub struct Bar {
    pub at: StatementRef,
    pub x0: f64,
    pub x1: f64,
    /// The top of the bar.
    pub y: f64,
    /// Where the hatched span (waiting for a lock) starts; it ends at `x1`.
    pub blocked_from: Option<f64>,
    pub state: BarState,
    /// The statement's first SQL word (`UPDATE`, `COMMIT`).
    pub verb: String,
    /// The tooltip: SQL, times, what it did.
    pub tip: String,
}

/// From the end of the statement whose completion let a blocked one go on,
/// to the blocked one's bar.
#[derive(Debug)]
pub struct Arrow {
    pub from: StatementRef,
    pub to: StatementRef,
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

/// Where a transaction was aborted.
#[derive(Debug)]
pub struct AbortMark {
    pub txn: usize,
    pub x: f64,
    /// The lane's centre line.
    pub y: f64,
    pub label: String,
}

#[derive(Debug)]
pub struct Tick {
    pub x: f64,
    pub label: String,
}

#[derive(Debug)]
pub struct Timeline {
    pub width: f64,
    pub height: f64,
    pub lanes: Vec<Lane>,
    pub bars: Vec<Bar>,
    pub arrows: Vec<Arrow>,
    pub aborts: Vec<AbortMark>,
    pub ticks: Vec<Tick>,
}

fn lane_top(txn: usize) -> f64 {
    AXIS_HEIGHT + txn as f64 * LANE_HEIGHT
}

fn bar_top(txn: usize) -> f64 {
    lane_top(txn) + (LANE_HEIGHT - BAR_HEIGHT) / 2.0
}

fn verb(sql: &str) -> String {
    let word: String = sql
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    word.to_uppercase()
}

/// A duration in µs as people read it: `850 µs`, `1.2 ms`, `2.05 s`.
pub fn duration_text(us: u64) -> String {
    if us < 1000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        trim_float(us as f64 / 1000.0, "ms")
    } else {
        trim_float(us as f64 / 1e6, "s")
    }
}

fn trim_float(v: f64, unit: &str) -> String {
    let text = if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text} {unit}")
}

/// The geometry of the history's timeline.
pub fn layout(history: &History) -> Timeline {
    let mut times = Vec::new();
    for r in history.statements.iter().flatten() {
        times.extend(r.submitted_us);
        times.extend(r.completed_us);
        times.extend(r.blocked.as_ref().map(|b| b.detected_us));
    }
    times.extend(history.transactions.iter().filter_map(|t| t.ended_us));
    // Room on the right for an open bar or an abort's cross.
    let tail = MIN_GAP * 2.0 + 20.0;
    let scale = Scale::new(times, LABEL_WIDTH, MIN_WIDTH - RIGHT_MARGIN - tail);
    // A statement without a reply runs two gaps past the last event.
    let open_end = scale.end_x() + MIN_GAP * 2.0;
    let lanes_count = history.statements.len().max(history.transactions.len());

    let lanes = (0..lanes_count)
        .map(|txn| {
            let detail = match history.transactions.get(txn) {
                Some(t) => {
                    let end = match &t.end {
                        TxnEnd::Committed => "committed".to_string(),
                        TxnEnd::RolledBack => "rolled back".to_string(),
                        TxnEnd::Aborted { class, .. } => format!("aborted ({class})"),
                        TxnEnd::Unfinished => "unfinished".to_string(),
                    };
                    match history.node_of(txn) {
                        Some(n) => format!("{} · {end} · node {}", t.isolation, n + 1),
                        None => format!("{} · {end}", t.isolation),
                    }
                }
                None => String::new(),
            };
            Lane {
                txn,
                y: lane_top(txn),
                label: format!("T{}", txn + 1),
                detail,
            }
        })
        .collect();

    let mut bars = Vec::new();
    for r in history.statements.iter().flatten() {
        let Some(submitted) = r.submitted_us else {
            continue;
        };
        let x0 = scale.x(submitted);
        let (x1, state) = match (&r.outcome, r.completed_us) {
            (Outcome::NoReply, _) | (_, None) => (open_end, BarState::NoReply),
            (Outcome::Error(_), Some(c)) => (scale.x(c), BarState::Error),
            (_, Some(c)) => (scale.x(c), BarState::Ok),
        };
        let x1 = x1.max(x0 + MIN_BAR);
        let blocked_from = r
            .blocked
            .as_ref()
            .map(|b| scale.x(b.detected_us.max(submitted)).clamp(x0, x1));
        let mut tip = format!(
            "{} {}\nsubmitted at {}",
            r.at,
            r.sql.trim(),
            duration_text(submitted)
        );
        if let Some(b) = &r.blocked {
            let _ = write!(
                tip,
                "\nwaiting for a lock from {}",
                duration_text(b.detected_us)
            );
            if let Some(after) = b.resumed_after {
                let _ = write!(tip, ", resumed after {after}");
            }
        }
        match r.completed_us {
            Some(c) => {
                let _ = write!(
                    tip,
                    "\nreplied at {} ({} after it was sent): {}",
                    duration_text(c),
                    duration_text(c.saturating_sub(submitted)),
                    r.outcome
                );
            }
            None => tip.push_str("\nno reply"),
        }
        bars.push(Bar {
            at: r.at,
            x0,
            x1,
            y: bar_top(r.at.txn()),
            blocked_from,
            state,
            verb: verb(&r.sql),
            tip,
        });
    }

    let bar_of = |at: StatementRef| bars.iter().find(|b| b.at == at);
    let mut arrows = Vec::new();
    for r in history.statements.iter().flatten() {
        let Some(after) = r.blocked.as_ref().and_then(|b| b.resumed_after) else {
            continue;
        };
        let (Some(from), Some(to)) = (bar_of(after), bar_of(r.at)) else {
            continue;
        };
        // Down or up to the blocked bar, at the moment the releaser ended,
        // kept within the blocked bar.
        let x1 = from.x1.clamp(to.blocked_from.unwrap_or(to.x0), to.x1);
        let (y0, y1) = if from.y < to.y {
            (from.y + BAR_HEIGHT, to.y)
        } else {
            (from.y, to.y + BAR_HEIGHT)
        };
        arrows.push(Arrow {
            from: after,
            to: r.at,
            x0: from.x1,
            y0,
            x1,
            y1,
        });
    }

    let mut aborts = Vec::new();
    for (txn, t) in history.transactions.iter().enumerate() {
        if let TxnEnd::Aborted { by, class } = &t.end {
            let x = bar_of(*by)
                .map(|b| b.x1)
                .or(t.ended_us.map(|e| scale.x(e)))
                .unwrap_or(scale.end_x());
            aborts.push(AbortMark {
                txn,
                x: x + 8.0,
                y: lane_top(txn) + LANE_HEIGHT / 2.0,
                label: format!("T{} aborted at {by}: {class}", txn + 1),
            });
        }
    }

    let right = bars
        .iter()
        .map(|b| b.x1)
        .chain(aborts.iter().map(|a| a.x + 10.0))
        .fold(scale.end_x(), f64::max);
    Timeline {
        width: (right + RIGHT_MARGIN).max(MIN_WIDTH).ceil(),
        height: (lane_top(lanes_count) + 8.0).ceil(),
        lanes,
        bars,
        arrows,
        aborts,
        ticks: ticks(&scale),
    }
}

/// Axis ticks at round times (1, 2 and 5 of each power of ten µs), each at
/// least 70 px from the one before, the first event time first.
fn ticks(scale: &Scale) -> Vec<Tick> {
    let (first, last) = (scale.first(), scale.last());
    let mut candidates = vec![first];
    let mut decade = 1u64;
    while decade <= last {
        for m in [1, 2, 5] {
            let t = decade * m;
            if t > first && t <= last {
                candidates.push(t);
            }
        }
        decade = decade.saturating_mul(10);
    }
    candidates.sort_unstable();
    let mut out: Vec<Tick> = Vec::new();
    for t in candidates {
        let x = scale.x(t);
        if out.last().is_none_or(|p| x - p.x >= 70.0) {
            out.push(Tick {
                x,
                label: duration_text(t),
            });
        }
    }
    out
}

fn f(v: f64) -> String {
    format!("{v:.1}")
}

/// The timeline as an inline `<svg>`; `id` makes its marker and pattern ids
/// unique in the page.
pub fn render(t: &Timeline, id: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="interleaving timeline: {n} transactions, {b} statements">"#,
        w = t.width,
        h = t.height,
        n = t.lanes.len(),
        b = t.bars.len(),
    );
    let _ = write!(
        s,
        r#"<defs><pattern id="{id}-wait" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" class="wait-bg"/><line x1="0" y1="0" x2="0" y2="6" class="wait-line"/></pattern><marker id="{id}-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrow-head"/></marker></defs>"#
    );
    // Axis.
    let _ = write!(
        s,
        r#"<g class="axis"><line x1="{}" y1="{y}" x2="{}" y2="{y}"/>"#,
        f(LABEL_WIDTH),
        f(t.width - RIGHT_MARGIN / 2.0),
        y = f(AXIS_HEIGHT - 6.0)
    );
    for tick in &t.ticks {
        let _ = write!(
            s,
            r#"<line x1="{x}" y1="{}" x2="{x}" y2="{}"/><text x="{x}" y="{}">{}</text>"#,
            f(AXIS_HEIGHT - 10.0),
            f(t.height),
            f(AXIS_HEIGHT - 13.0),
            Esc(&tick.label),
            x = f(tick.x),
        );
    }
    s.push_str("</g>");
    for lane in &t.lanes {
        let _ = write!(
            s,
            r#"<g class="lane" data-txn="{label}"><rect class="lane-bg{odd}" x="0" y="{y}" width="{w}" height="{h}"/><text class="lane-label" x="10" y="{ly}">{label}</text><text class="lane-detail" x="10" y="{dy}">{detail}</text>"#,
            label = Esc(&lane.label),
            odd = if lane.txn % 2 == 1 { " odd" } else { "" },
            y = f(lane.y),
            w = t.width,
            h = f(LANE_HEIGHT),
            ly = f(lane.y + 18.0),
            dy = f(lane.y + 34.0),
            detail = Esc(&lane.detail),
        );
        for bar in t.bars.iter().filter(|b| b.at.txn() == lane.txn) {
            render_bar(&mut s, bar, id);
        }
        s.push_str("</g>");
    }
    for a in &t.arrows {
        let _ = write!(
            s,
            r#"<path class="resume" data-from="{}" data-to="{}" d="M{},{} L{},{}" marker-end="url(#{id}-head)"><title>{} resumed after {} completed</title></path>"#,
            a.from,
            a.to,
            f(a.x0),
            f(a.y0),
            f(a.x1),
            f(a.y1),
            a.to,
            a.from,
        );
    }
    for m in &t.aborts {
        let (x, y, r) = (m.x, m.y, 6.0);
        let _ = write!(
            s,
            r#"<g class="abort" data-txn="T{}"><title>{}</title><path d="M{},{} L{},{} M{},{} L{},{}"/></g>"#,
            m.txn + 1,
            Esc(&m.label),
            f(x - r),
            f(y - r),
            f(x + r),
            f(y + r),
            f(x - r),
            f(y + r),
            f(x + r),
            f(y - r),
        );
    }
    s.push_str("</svg>");
    s
}

fn render_bar(s: &mut String, bar: &Bar, id: &str) {
    let state = match bar.state {
        BarState::Ok => "ok",
        BarState::Error => "error",
        BarState::NoReply => "no-reply",
    };
    let _ = write!(
        s,
        r#"<g class="stmt {state}{blocked}" data-at="{}"><title>{}</title><rect class="bar" x="{}" y="{}" width="{}" height="{}" rx="3"/>"#,
        bar.at,
        esc(&bar.tip),
        f(bar.x0),
        f(bar.y),
        f(bar.x1 - bar.x0),
        f(BAR_HEIGHT),
        blocked = if bar.blocked_from.is_some() {
            " blocked"
        } else {
            ""
        },
    );
    if let Some(from) = bar.blocked_from {
        let _ = write!(
            s,
            r#"<rect class="wait" x="{}" y="{}" width="{}" height="{}" fill="url(#{id}-wait)"/>"#,
            f(from),
            f(bar.y),
            f((bar.x1 - from).max(0.0)),
            f(BAR_HEIGHT),
        );
    }
    // The label inside the bar as far as it fits: `T1.2 UPDATE`, `1.2`.
    let width = bar.x1 - bar.x0;
    let long = format!("{} {}", bar.at, bar.verb);
    let short = format!("{}.{}", bar.at.txn() + 1, bar.at.stmt() + 1);
    let fits = |text: &str| text.chars().count() as f64 * 6.6 + 8.0 <= width;
    let label = if fits(&long) {
        Some(long)
    } else if fits(&short) {
        Some(short)
    } else {
        None
    };
    if let Some(label) = label {
        let _ = write!(
            s,
            r#"<text class="bar-label" x="{}" y="{}">{}</text>"#,
            f(bar.x0 + 4.0),
            f(bar.y + BAR_HEIGHT / 2.0 + 4.0),
            Esc(&label)
        );
    }
    s.push_str("</g>");
}

#[cfg(test)]
mod tests;
