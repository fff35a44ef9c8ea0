//! The README written beside an exported k6 script: what it reproduces, how to run it on
//! one machine and on Kubernetes, and how to bring the results back to gqlbench.
use super::plan::{Executor, ExportPlan};
use super::testrun::k8s_name;
use super::{CHECKS, K6_VERSION, MEASURED_SCENARIO, METADATA_FILE, WARMUP_SCENARIO};

fn load_line(p: &ExportPlan) -> String {
    match &p.executor {
        Executor::ConstantVus { vus } => format!("closed model: `constant-vus`, {vus} VUs"),
        Executor::RampingVus { start_vus, stages } => format!(
            "closed model: `ramping-vus` from {start_vus} VUs through {} stage(s) to {} VUs",
            stages.len(),
            stages.last().map_or(*start_vus, |s| s.1)
        ),
        Executor::ConstantArrivalRate { rate, max_vus } => format!(
            "open model: `constant-arrival-rate`, {rate} requests/s on at most {max_vus} VUs"
        ),
        Executor::RampingArrivalRate {
            start_rate,
            stages,
            max_vus,
        } => format!(
            "open model: `ramping-arrival-rate` from {start_rate} requests/s through {} stage(s), at most {max_vus} VUs",
            stages.len()
        ),
    }
}

pub fn readme(p: &ExportPlan) -> String {
    let name = k8s_name(p);
    let mut caveats = p.caveats.clone();
    if !crate::urls::is_loopback(&p.url) {
        caveats.push(format!(
            "the URL {} is not on loopback: the load goes over the network to it; make sure it is yours to load",
            p.url
        ));
    }
    let ops: Vec<String> = p
        .operations
        .iter()
        .map(|o| {
            format!(
                "`{}` (weight {}, {} case(s))",
                o.name,
                o.weight,
                o.cases.len()
            )
        })
        .collect();
    let mut s = format!(
        "# k6 export of gqlbench's `{suite}/{scenario}`\n\n\
         {description}\n\n\
         Written by `gqlbench export k6` (profile `{profile}`), tested with k6 {K6_VERSION}.\n\n\
         - load: {load}; think time {think} s\n\
         - warm-up: {warmup} s (k6 scenario `{WARMUP_SCENARIO}`, left out by `gqlbench import k6`), then {duration} s measured (k6 scenario `{MEASURED_SCENARIO}`)\n\
         - operations: {ops}\n\
         - every response is checked: {checks}; any failed check in the measured window fails the run (threshold `checks{{scenario:{MEASURED_SCENARIO}}}` rate==1, k6 exits 99)\n\
         - endpoint: {url} (override with `-e GQLBENCH_URL=...`)\n\n",
        suite = p.suite,
        scenario = p.scenario,
        description = p.description,
        profile = p.profile,
        load = load_line(p),
        think = p.think_time.as_secs_f64(),
        warmup = p.warmup.as_secs_f64(),
        duration = p.duration.as_secs_f64(),
        ops = ops.join(", "),
        checks = CHECKS.map(|c| format!("`{c}`")).join(", "),
        url = p.url,
    );
    if !caveats.is_empty() {
        s.push_str("What differs from a gqlbench run:\n\n");
        for c in &caveats {
            s.push_str(&format!("- {c}\n"));
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "## On one machine\n\n\
         \x20   k6 run --out json=points.json --summary-export=summary.json script.js\n\
         \x20   gqlbench import k6 summary.json points.json --target NAME\n\n\
         `gqlbench import k6` reads `{METADATA_FILE}` beside the files for the suite and scenario,\n\
         and writes a results folder that `gqlbench report` and `gqlbench compare` read.\n\
         One k6 process is limited by its own CPU: on gqlbench's 2-core development VM one k6\n\
         core sent about 13,500 requests/s with these checks (docs/k6.md), far below what the\n\
         fastest GraphQL servers answer; when k6's CPU is near 100%, the figures are k6's.\n\n\
         ## On Kubernetes with the k6-operator\n\n\
         \x20   kubectl create configmap {name} --from-file=script.js\n\
         \x20   kubectl apply -f testrun.yaml\n\n\
         `testrun.yaml` runs the script on {par} pod(s) (`spec.parallelism`). The operator gives\n\
         each pod an execution segment: the VUs (closed model) or the arrival rate (open model)\n\
         are split between the pods, so the total load is the scenario's. Each pod writes its\n\
         own JSON lines (`/tmp/k6-points.json`); copy them out and import them together\n\
         (`gqlbench import k6 points-*.json`): their latency histograms are merged. Per-pod\n\
         summaries cannot be merged into percentiles, so import the JSON lines.\n",
        par = p.parallelism,
    ));
    s
}
