//! A/B results (`gqlbench ab`): what the run records under the scenario's `ab` field (the
//! sides, each process pair's estimate, the sequential decision, the latency change at a
//! fixed rate) and the report's tables of it. An A/B scenario is not written in a scenario
//! file: its `[ab]` section is refused there, naming the command that makes one.
use std::sync::Arc;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::kind::{Kind, KindDef, ResolveCx};
use crate::plan::ab::{Arm, Form};
use crate::results::{Key, ScenarioResult};
use crate::stats::Change;
use crate::summary::ab::AbDecision;
use crate::units::{fmt_change, pct};
use crate::view::Table;

pub const DEF: KindDef = KindDef {
    tables,
    load_line,
    list: |_, _, _| "A/B (gqlbench ab)".into(),
    not_in_k6: Some("an A/B alternates two targets; export the scenario it ran instead"),
    ..KindDef::base("ab", resolve)
};

/// The scenario's A/B record.
pub const AB: Key<AbRecord> = Key::new("ab");

/// Everything an A/B run decided with, and what it decided.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct AbRecord {
    pub form: Form,
    /// Side A (the base) and side B (the head).
    pub arms: Vec<Arm>,
    /// As a fraction (0.02 = ±2%).
    pub allowance: f64,
    /// Two-sided error rate of the repeated confidence intervals.
    pub alpha: f64,
    pub slice_ms: f64,
    pub pair_time_s: f64,
    pub warmup_s: f64,
    pub latency_time_s: f64,
    pub budget_s: f64,
    /// The looks the sequential rule was planned for.
    pub max_pairs: u32,
    pub pairs: Vec<PairRecord>,
    /// The last look's decision (None before the first pair ended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<AbDecision>,
    /// p50 and p99 of B vs A at one fixed rate (open model), over the pairs: + is slower.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50: Option<Change>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99: Option<Change>,
    /// Seconds from the first start to the decision.
    pub elapsed_s: f64,
    /// Why the run stopped adding pairs.
    pub stopped: AbStop,
    /// A side that failed (did not start, answered wrong, crashed), said which.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// Why an A/B stopped adding pairs (results.json writes the words shown).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AbStop {
    /// Still adding pairs (a results.json saved mid-run).
    #[default]
    #[serde(rename = "running")]
    Running,
    /// The rule decided before the last look.
    #[serde(rename = "decided")]
    Decided,
    /// No time left in the budget for another pair: this look was the last.
    #[serde(rename = "budget spent")]
    BudgetSpent,
    /// The planned looks were all made.
    #[serde(rename = "planned pairs done")]
    PlannedPairsDone,
    #[serde(rename = "interrupted")]
    Interrupted,
    #[serde(rename = "a side failed")]
    SideFailed,
}

impl std::fmt::Display for AbStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::units::snake_name(self))
    }
}

/// One process pair: both sides started fresh, measured together, stopped.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct PairRecord {
    pub pair: u32,
    /// Which side was started first (0 = A): alternated from pair to pair.
    pub first: usize,
    /// The part of each slice not counted, and the switch transient the pair's own slices
    /// showed (alternation only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transient_ms: Option<f64>,
    /// ln(B/A) of throughput (alternation: the mean of its ABBA blocks; duet: of CPU cost
    /// per request, A's over B's); None when the pair measured nothing usable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<f64>,
    pub blocks: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_se: Option<f64>,
    /// Each side's req/s during its own slices (duet: while both ran); None when it
    /// measured nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a_rps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b_rps: Option<f64>,
    /// Why the pair's estimate is not part of the decision (None: it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncounted: Option<String>,
    /// Duet: each side's CPU seconds per 1,000 requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a_cpu_ms_per_req: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b_cpu_ms_per_req: Option<f64>,
    /// The fixed rate of the latency phase, and each side's p50/p99 at it (µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<PairLatency>,
    /// Seconds since the A/B run began, when this pair ended.
    pub end_s: f64,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct PairLatency {
    pub rate: f64,
    pub a_p50_us: u64,
    pub b_p50_us: u64,
    pub a_p99_us: u64,
    pub b_p99_us: u64,
}

fn resolve(cx: &ResolveCx<'_>, _: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    match cx.section("ab") {
        None => Ok(None),
        Some(_) => Err(cx
            .bad("[ab] is not a scenario section: an A/B run is made by `gqlbench ab SCENARIO --target NAME` from a plain-load scenario".into())
            .into()),
    }
}

/// An A/B run's load: its pairs, not the single trial of each process its scenario records.
fn load_line(s: &ScenarioResult) -> Option<String> {
    let r = s.by_kind.get(&AB)?;
    let how = match r.form {
        Form::Alternate => format!("alternating in {} ms slices", pct(r.slice_ms)),
        Form::Duet => "both at once (duet)".into(),
    };
    Some(format!(
        "{} model, {} connections, {} pairs × ({} s warm-up + {} s measured), each pair a fresh process of each side, {how}",
        s.load.model,
        s.load.connections,
        r.pairs.len(),
        pct(r.warmup_s),
        pct(r.pair_time_s)
    ))
}

fn tables(s: &ScenarioResult) -> Vec<Table> {
    let Some(r) = s.by_kind.get(&AB) else {
        return Vec::new();
    };
    let label = |i: usize| r.arms.get(i).map_or("?", |a| a.label.as_str()).to_string();
    let (a, b) = (label(0), label(1));
    let mut rows = Vec::new();
    if let Some(d) = &r.decision {
        rows.push(vec![
            format!("req/s ({})", crate::units::snake_name(&r.form)),
            fmt_change(d.pct, d.low_pct, d.high_pct),
            d.verdict.to_string(),
        ]);
    }
    for (name, c) in [
        ("p50 at a fixed rate", &r.p50),
        ("p99 at a fixed rate", &r.p99),
    ] {
        if let Some(c) = c {
            let verdict = match (c.significant, c.pct > 0.0) {
                (false, _) => "no significant change",
                (true, true) => "slower",
                (true, false) => "faster",
            };
            rows.push(vec![
                name.to_string(),
                fmt_change(c.pct, c.ci_low_pct, c.ci_high_pct),
                verdict.to_string(),
            ]);
        }
    }
    let mut out = vec![Table {
        title: format!(
            "A/B: {b} vs {a} — {} pairs in {:.0} s, allowance ±{}% ({})",
            r.pairs.len(),
            r.elapsed_s,
            pct(r.allowance * 100.0),
            r.stopped
        ),
        headers: vec![
            "measure".into(),
            format!("{b} vs {a} (95% interval)"),
            "verdict".into(),
        ],
        rows,
    }];
    // The change is what the decision uses, not the ratio of the req/s columns.
    let basis = match r.form {
        Form::Alternate => "the mean of the pair's whole ABBA blocks, paired: the req/s columns are each side's whole window, edges included",
        Form::Duet => "of CPU per request, A's over B's: the req/s columns are each side's rate while both ran",
    };
    out.push(Table {
        title: format!("A/B pairs (each a fresh process of each side; the change is {basis})"),
        headers: vec![
            "pair".into(),
            format!("{a} req/s"),
            format!("{b} req/s"),
            match r.form {
                Form::Alternate => "change (blocks)".into(),
                Form::Duet => "change (CPU per request)".into(),
            },
            "blocks".into(),
            "guard".into(),
        ],
        rows: r
            .pairs
            .iter()
            .map(|p| {
                vec![
                    p.pair.to_string(),
                    p.a_rps.map_or("—".into(), |r| format!("{r:.0}")),
                    p.b_rps.map_or("—".into(), |r| format!("{r:.0}")),
                    p.d.map_or("—".into(), |d| {
                        let v = (d.exp() - 1.0) * 100.0;
                        format!(
                            "{}{}%{}",
                            if v >= 0.0 { "+" } else { "" },
                            pct(v),
                            if p.uncounted.is_some() {
                                " (not counted)"
                            } else {
                                ""
                            }
                        )
                    }),
                    p.blocks.to_string(),
                    p.guard_ms.map_or("—".into(), |g| format!("{g:.0} ms")),
                ]
            })
            .collect(),
    });
    out
}
