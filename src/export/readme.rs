//! The README written beside an exported k6 script: what it reproduces, how to run it on
//! one machine and on Kubernetes (install the operator, run, read pass or fail, collect the
//! pods' files and import them, run again), and how to bring the results back to gqlbench.
use super::collect;
use super::plan::{Executor, ExportPlan};
use super::testrun::{k8s_name, output_file, runner_image};
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
         - endpoint: {url} (override with `-e GQLBENCH_URL=...`, or the runners' `GQLBENCH_URL` in `testrun.yaml`)\n\n",
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
         \x20   gqlbench import k6 points.json summary.json --target NAME\n\n\
         `gqlbench import k6` reads `{METADATA_FILE}` beside the files for the suite and scenario,\n\
         and writes a results folder that `gqlbench report` and `gqlbench compare` read.\n\
         One k6 process is limited by its own CPU: on gqlbench's 2-core development VM one k6\n\
         core sent about 13,500 requests/s with these checks (docs/k6.md), far below what the\n\
         fastest GraphQL servers answer; when k6's CPU is near 100%, the figures are k6's.\n\n",
    ));
    s.push_str(&kubernetes(p));
    s
}

/// The README's Kubernetes part: install, run, pass or fail, collect and import, run again.
fn kubernetes(p: &ExportPlan) -> String {
    let name = k8s_name(p);
    let par = p.parallelism;
    let collect = collect::commands(&name, par)
        .iter()
        .map(|c| format!("    {c}\n"))
        .collect::<String>();
    format!(
        "## On Kubernetes with the k6-operator\n\n\
         `testrun.yaml` runs the script on {par} pod(s) (`spec.parallelism`). The operator gives\n\
         each pod an execution segment: the VUs (closed model) or the arrival rate (open model)\n\
         are split between the pods, so the total load is the scenario's, and the script picks\n\
         the operations so that every pod sends the scenario's mix. Each runner runs\n\
         `{image}` (the tested k6), on a node of its own (`separate: true`: the cluster needs\n\
         {par} schedulable node(s)) with one CPU requested and limited, and writes its samples to\n\
         the volume of `results.yaml`, as `{first}` ... `{last}`.\n\n\
         Install the operator once per cluster (v1.6.0, the release its manifests were checked\n\
         against):\n\n\
         \x20   kubectl apply -f https://raw.githubusercontent.com/grafana/k6-operator/v1.6.0/bundle.yaml\n\n\
         (or with Helm: `helm repo add grafana https://grafana.github.io/helm-charts`, then\n\
         `helm install k6-operator grafana/k6-operator --version 4.6.0`).\n\n\
         ### Run\n\n\
         The results volume needs a storage class with ReadWriteMany (the runners write from\n\
         several nodes at once): set `storageClassName` in `results.yaml` if the cluster's default\n\
         is not one. The URL the load goes to is the runners' `GQLBENCH_URL` in `testrun.yaml`\n\
         (`spec.runner.env`; now {url}): change it there.\n\n\
         \x20   kubectl apply -f results.yaml\n\
         \x20   kubectl create configmap {name} --from-file=script.js\n\
         \x20   kubectl apply -f testrun.yaml\n\n\
         ### Pass or fail\n\n\
         \x20   kubectl get testrun {name}\n\
         \x20   kubectl get pods -l k6_cr={name},runner=true -o 'custom-columns=POD:.metadata.name,EXIT:.status.containerStatuses[0].state.terminated.exitCode'\n\n\
         The TestRun's STAGE is `finished` once every runner pod has ended, whether it passed\n\
         or not (`error` means the operator could not start the test, e.g. the script did not\n\
         load: `kubectl logs job/{name}-initializer`). Each runner judges the checks threshold on\n\
         its own samples and exits on its own: 0 passed, 99 a check failed in its share of the\n\
         measured window. One pod with 99 fails the run; `kubectl logs` of a pod shows its\n\
         summary. `gqlbench import k6` judges every pod's samples together (exit 1 on any failed\n\
         check).\n\n\
         ### Collect and import\n\n\
         In this folder (beside `{METADATA_FILE}`, which the import reads), once the stage is\n\
         `finished`:\n\n\
         {collect}\n\
         Every pod's file is needed: the import refuses a run with a pod's file missing (it\n\
         knows the {par} pods from `{METADATA_FILE}` and each sample's `instance_id` tag, which\n\
         the operator sets) or a file given twice, and merges the pods' latency histograms.\n\
         Per-pod summaries cannot be merged into percentiles, so the runners write JSON lines.\n\n\
         ### Run again\n\n\
         The ConfigMap and the TestRun exist from the last run: replace the script and start a\n\
         new TestRun (deleting the TestRun deletes its pods), and remove the last run's files\n\
         first, so that a pod that fails before writing cannot leave an old file in place:\n\n\
         \x20   kubectl create configmap {name} --from-file=script.js --dry-run=client -o yaml | kubectl apply -f -\n\
         \x20   kubectl delete testrun {name} --ignore-not-found\n\
         \x20   {clear}\n\
         \x20   kubectl apply -f testrun.yaml\n\n\
         When done: `kubectl delete testrun {name}` and `kubectl delete -f results.yaml` (the\n\
         volume and its files).\n",
        image = runner_image(),
        first = output_file(&name, 1),
        last = output_file(&name, par),
        url = p.url,
        clear = collect::clear_command(&name),
    )
}
