//! The efficiency chart of a throughput scenario (closed model): req/s per CPU core per
//! target, the center of its trials with the 95% interval and each trial, drawn with the
//! interval chart. Only targets the cost section sizes (`cost::efficiency`) are drawn.
use super::{color_of, Figure};
use crate::results::ScenarioResult;
use crate::view::intervals::{Intervals, Row};

pub fn figure(s: &ScenarioResult) -> Option<Figure> {
    let effs = crate::cost::efficiencies(s);
    let rows: Vec<Row> = effs
        .iter()
        .filter_map(|e| {
            let pc = e.per_core.as_ref().filter(|x| x.n > 0)?;
            let t = s.targets.iter().find(|t| t.name == e.target)?;
            Some(Row {
                label: e.target.clone(),
                color: color_of(s, t),
                center: pc.center_or_median(),
                interval: (pc.n > 1).then_some((pc.ci_low, pc.ci_high)),
                samples: pc.samples.clone(),
            })
        })
        .collect();
    let legend = rows.iter().map(|r| (r.label.clone(), r.color)).collect();
    let chart = Intervals {
        x_desc: "requests per second per CPU core".into(),
        from_zero: true,
        zero_line: false,
        rows,
    };
    Figure::drawn(crate::view::Figure::of(
        "efficiency",
        "Efficiency: req/s per CPU core",
        "Each row is a target sized in the efficiency and cost section: each valid trial's req/s over its measured CPU (trials[].load.throughput_rps ÷ trials[].vitals.cpu_avg_pct × 100); the dot is their geometric mean, the whisker its 95% t interval, the rings the trials. Invalid or saturated rows, and rows without measured CPU, are not drawn.",
        legend,
        chart,
    ))
}
