//! The subscriptions scenario's report from a saved result: held connections, delivery,
//! latency and memory per 1,000 (table) and their charts.
use super::*;

/// Subscriptions: held connections, delivery, latency, memory per 1,000.
pub(super) fn table(s: &ScenarioResult) -> Option<Table> {
    let info = s.by_kind.get(&INFO)?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !crate::view::cells::not_installed(t))
        .map(
            |t| match t.summary.as_ref().and_then(|x| x.subscriptions.as_ref()) {
                None => vec![
                    t.name.clone(),
                    crate::view::cells::dash(),
                    crate::view::cells::dash(),
                    crate::view::cells::dash(),
                    crate::view::cells::dash(),
                    crate::view::cells::dash(),
                    crate::view::cells::dash(),
                    crate::view::cells::validity(t),
                ],
                Some(x) => vec![
                    t.name.clone(),
                    format!("{:.0} / {}", x.held.median, x.connections),
                    x.dropped.to_string(),
                    format!("{:.2}", x.msgs_per_conn_s.median),
                    format!(
                        "{} / {} / {}",
                        crate::units::fmt_ms(x.latency.p50_us as f64),
                        crate::units::fmt_ms(x.latency.p99_us as f64),
                        crate::units::fmt_ms(x.latency.max_us as f64)
                    ),
                    x.gaps.to_string(),
                    match &x.memory_per_1000_bytes {
                        Some(m) => crate::units::fmt_bytes(m.median as u64),
                        // Subscriptions were held but the server's memory was not read.
                        None if x.held.median > 0.0 => crate::units::UNMEASURED.into(),
                        None => crate::view::cells::dash(),
                    },
                    crate::view::cells::validity(t),
                ],
            },
        )
        .collect();
    Some(Table {
        title: format!(
            "subscriptions over {}: the server publishes {} msg/s to every subscriber",
            info.transport, info.publish_rate
        ),
        headers: [
            "target",
            "held / opened",
            "dropped",
            "msg/s per connection",
            "delivery p50 / p99 / max ms",
            "missed (seq gaps)",
            "memory per 1,000 subscriptions",
            "validity",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Subscriptions in report.html: the delivery latency distribution of each target's merged
/// histograms, and the messages received and subscriptions held second by second.
pub(super) fn html(s: &ScenarioResult) -> Vec<crate::view::Figure> {
    use crate::view::xy::{Marker, Series, XAxis, Xy, YAxis};
    use crate::view::{color_of, legend, scale, Figure};
    if !s.by_kind.has(&INFO) {
        return Vec::new();
    }
    let mut latency = Xy::new(
        "percentile",
        "delivery latency (ms, log scale)",
        XAxis::Percentile,
        YAxis::Log,
    );
    let mut messages = Xy::new(
        "seconds into the measured window",
        "messages received per second",
        XAxis::Linear { from_zero: true },
        YAxis::Linear { from_zero: true },
    );
    let mut held = Xy::new(
        "seconds into the measured window",
        "subscriptions held",
        XAxis::Linear { from_zero: true },
        YAxis::Linear { from_zero: true },
    );
    let mut drawn = Vec::new();
    for t in &s.targets {
        let c = color_of(s, t);
        let subs: Vec<&SubscriptionUsage> = crate::summary::counted_trials(t)
            .into_iter()
            .filter_map(|x| x.subscriptions.as_ref())
            .collect();
        if subs.is_empty() {
            continue;
        }
        drawn.push(t.name.clone());
        let mut merged = gqlbench_engine::new_latency();
        for u in &subs {
            if let Ok(h) = gqlbench_engine::decode_hist(&u.engine.latency_hist) {
                // Same bounds everywhere (new_latency), so adding cannot fail in practice.
                let _ = merged.add(&h);
            }
            let series = &u.engine.series;
            let marker = if series.len() < 3 {
                Marker::Dot
            } else {
                Marker::None
            };
            let per_s = |f: fn(&gqlbench_engine::SubscribeSecond) -> u64| {
                series.iter().map(|p| (p.t_s as f64, f(p) as f64)).collect()
            };
            messages
                .series
                .push(Series::line(c, per_s(|p| p.messages)).marked(marker));
            held.series
                .push(Series::line(c, per_s(|p| p.held)).marked(marker));
        }
        if !merged.is_empty() {
            let pts = scale::nines_points(scale::nines_extent(merged.len()))
                .into_iter()
                .map(|x| {
                    let us = merged.value_at_quantile(scale::quantile_at(x));
                    (x, us as f64 / 1000.0)
                })
                .collect();
            latency.series.push(Series::line(c, pts));
        }
    }
    let legend = legend(s, |t| drawn.contains(&t.name));
    vec![
        Figure::of(
            "subscription-latency",
            "Subscription delivery latency (merged histograms)",
            "Delivery latency (receive time minus the publishedAt the server put in each message, same clock) at each percentile, from the histograms of every counted trial merged: trials[].subscriptions.engine.latency_hist. 90%, 99% and 99.9% get equal room.",
            legend.clone(),
            latency,
        ),
        Figure::of(
            "subscription-messages",
            "Messages received second by second, each trial",
            "Messages (valid and invalid) the engine received over all held subscriptions in each second of the window, one line per counted trial: trials[].subscriptions.engine.series[].messages. Steady at publish rate × subscriptions when the server keeps up.",
            legend.clone(),
            messages,
        ),
        Figure::of(
            "subscription-held",
            "Subscriptions held second by second, each trial",
            "Subscribed connections still open at the end of each second of the window, one line per counted trial: trials[].subscriptions.engine.series[].held. A falling line is a server dropping subscribers.",
            legend,
            held,
        ),
    ]
}

/// The report's load line: the subscriptions held, not a request load.
pub fn load_line(s: &ScenarioResult) -> Option<String> {
    let l = &s.load;
    (s.kind == crate::results::ScenarioKind::Subscriptions).then(|| {
        format!(
            "{} subscriptions held, {} trials × ({} s warm-up + {} s measured)",
            l.connections, s.trials_planned, s.warmup_s, s.duration_s
        )
    })
}
