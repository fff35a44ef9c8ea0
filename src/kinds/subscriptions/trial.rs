//! One subscriptions trial: the engine holds the subscriptions while the publisher ticks,
//! with the target's memory sampled before and while they are held.
use super::*;
use crate::kind::RunPlan;
use crate::measure::session::Session;

pub(super) fn run_trial(cx: &mut TrialCx<'_>, sub: &Subscriptions) -> TrialResult {
    let (sp, plan, ctx, trial, position, label) =
        (cx.sp, cx.plan, cx.ctx, cx.trial, cx.position, cx.label);
    let (sess, progress) = (&mut *cx.sess, &mut *cx.progress);
    let started_at = now_rfc3339();
    let rss_before = vitals::read(sess.process.pid, sess.cgroup.as_deref()).rss;
    let (p, cores) = subscribe_plan(sp, plan, sess, sub);
    let control = SubscribeControl::with_cancel(ctx.cancel.clone());
    let live = control.live.clone();
    let (l1, l2) = (live.clone(), live.clone());
    // Vitals cover the measured window only: every subscription is open by then.
    let sampler = Sampler::start(
        sess.process.pid,
        sess.cgroup.clone(),
        sess.gc_file.clone(),
        Duration::from_millis(200),
        Box::new(move || matches!(l1.phase(), SubscribePhase::Measure | SubscribePhase::Done)),
        Box::new(move || l2.phase() == SubscribePhase::Done),
    );
    let secs =
        (sp.warmup + sp.duration).as_secs_f64() + p.connections as f64 / p.connect_rate.max(1.0);
    let l3 = live.clone();
    let outcome = progress.follow_with(
        label,
        secs,
        move || match l3.phase() {
            SubscribePhase::Connecting => format!("subscribing ({})", l3.subscribed()),
            SubscribePhase::Warmup => format!("warm-up, {} held", l3.held()),
            SubscribePhase::Measure => {
                format!("{} held, {} messages", l3.held(), l3.messages())
            }
            _ => String::new(),
        },
        || run_subscriptions(&p, &control),
    );
    let mut vitals = sampler.finish();
    vitals.verified_cpus = sess.verified_cpus.clone();
    let mut problems = Vec::new();
    let engine = match outcome {
        Ok(r) => r,
        Err(e) => {
            problems.push(format!("engine: {e}"));
            SubscribeResult::default()
        }
    };
    let problems = problems_of(&engine, sess, problems);
    let generator = GeneratorUsage::measure(
        engine.generator_cpu_s,
        engine.elapsed_s,
        crate::sys::cpus::generator_cores(plan.isolation.generator.as_ref(), cores),
    );
    let mut saturation = Vec::new();
    if generator.utilization > GENERATOR_CPU_LIMIT {
        saturation.push(SaturationFlag {
            kind: crate::results::FlagKind::GeneratorCpu,
            detail: format!(
                "the generator used {:.0}% of its {} core(s): delivery figures may be the generator's",
                generator.utilization * 100.0,
                cores
            ),
        });
    }
    let held = engine.connections.held_at_end;
    let rss_held = vitals.rss_avg_bytes;
    let memory_per_1000_bytes = memory_per_1000(rss_before, rss_held, held);
    let load = gqlbench_engine::LoadResult {
        elapsed_s: engine.elapsed_s,
        ..Default::default()
    };
    TrialResult {
        trial,
        position,
        started_at,
        valid: problems.is_empty(),
        problems,
        load,
        vitals,
        generator,
        saturation,
        upstream: None,
        tracing: None,
        sweep: None,
        database: None,
        warmup: None,
        noise: None,
        excluded: None,
        subscriptions: Some(SubscriptionUsage {
            engine,
            rss_before_bytes: rss_before,
            rss_held_bytes: rss_held,
            memory_per_1000_bytes,
        }),
        alternated: None,
        by_kind: Default::default(),
    }
}

/// The engine's plan: the scenario's subscriptions over the target's endpoint, on the
/// generator's cores (and how many).
fn subscribe_plan(
    sp: &ScenarioPlan,
    plan: &RunPlan,
    sess: &Session,
    sub: &Subscriptions,
) -> (SubscribePlan, usize) {
    let mut p = SubscribePlan::new(
        sess.endpoint.clone(),
        match sub.transport {
            Transport::Ws => SubscribeTransport::WebSocket,
            Transport::Sse => SubscribeTransport::Sse,
        },
        &sub.document,
    );
    p.connections = sp.load.connections();
    p.connect_rate = sub.connect_rate;
    p.warmup = sp.warmup;
    p.hold = sp.duration;
    p.published_at_pointer = Some(PUBLISHED_AT.into());
    p.seq_pointer = Some(SEQ.into());
    p.ack_timeout = sp.load.timeout.max(Duration::from_secs(1));
    let cores = plan
        .isolation
        .generator
        .as_ref()
        .map(|c| c.0.len())
        .unwrap_or(1)
        .max(1);
    p.threads = cores;
    p.cpus = plan.isolation.generator.as_ref().map(|c| c.0.clone());
    (p, cores)
}

/// What makes the trial invalid, added to `problems` (the engine's failure, if any):
/// subscriptions that failed or dropped, bad messages, none at all, the target gone, an
/// interruption.
fn problems_of(
    engine: &SubscribeResult,
    sess: &mut Session,
    mut problems: Vec<String>,
) -> Vec<String> {
    let c = &engine.connections;
    if c.setup_failed > 0 {
        problems.push(format!(
            "{} of {} connections could not subscribe",
            c.setup_failed, c.attempted
        ));
    }
    if c.dropped > 0 {
        problems.push(format!(
            "{} subscriptions were dropped ({})",
            c.dropped,
            engine
                .drops
                .iter()
                .map(|(k, n)| format!("{} {n}", crate::units::snake_name(k)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if engine.invalid_messages > 0 {
        problems.push(format!("{} invalid messages", engine.invalid_messages));
    }
    if engine.messages == 0 && problems.is_empty() {
        problems.push("no message arrived in the measured window".into());
    }
    if let Some(st) = sess.process.exited() {
        problems.push(format!("target exited ({st})"));
    }
    if engine.interrupted {
        problems.push("interrupted".into());
    }
    problems
}

/// Memory per 1,000 held subscriptions: (held − before) scaled; None unless both figures
/// were read (an unread "before" taken as 0 would count the whole server as subscriptions).
pub(super) fn memory_per_1000(
    before: Option<u64>,
    held_rss: Option<u64>,
    held: u64,
) -> Option<u64> {
    let (before, held_rss) = (before?, held_rss?);
    (held > 0).then(|| (held_rss.saturating_sub(before) as f64 / held as f64 * 1000.0) as u64)
}
