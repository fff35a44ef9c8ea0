//! The k6-operator `TestRun` manifest of an export: the script from a ConfigMap, run by
//! `parallelism` pods, each taking its share of the VUs or of the arrival rate (the
//! operator gives every pod an execution segment, so the total load is the scenario's).
//! Each runner runs the tested k6 image with a CPU of its own, one runner per node, and
//! writes its samples (k6's JSON lines, gzipped) to the shared results volume under its
//! Job's name, where they outlive the pod (`collect.rs`: the volume and the pod that reads
//! it back). Checked against the operator's source (grafana/k6-operator
//! pkg/resources/jobs/runner.go, api/v1alpha1/testrun_types.go); not run on a cluster.
use super::plan::ExportPlan;

/// Kubernetes names: lower-case letters, digits and '-', at most 63 characters. The
/// runner Jobs are named `<name>-<i>` and the results claim `<name>-results`, so the name
/// leaves room for those suffixes.
pub fn k8s_name(p: &ExportPlan) -> String {
    let raw = format!("gqlbench-{}-{}", p.suite, p.scenario).to_lowercase();
    let mut name: String = raw
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    name.truncate(63 - "-results".len());
    name.trim_end_matches('-').to_string()
}

/// The runner image: grafana/k6 at the version the export is tested with (its tags have
/// no `v`). `grafana/k6:latest`, the operator's default, is another major version.
pub fn runner_image() -> String {
    format!("grafana/k6:{}", super::K6_VERSION.trim_start_matches('v'))
}

/// The user the grafana/k6 image runs as (its Dockerfile: `USER 12345`); the pods' fsGroup,
/// so that the runners may write to the results volume.
pub const K6_UID: u32 = 12345;

/// Where the results volume is mounted in every pod.
pub const RESULTS_DIR: &str = "/results";

/// The environment variable holding the runner's Job name (`<name>-<i>`), from the label
/// the Job controller puts on its pods; its output file is named after it.
pub const POD_VAR: &str = "GQLBENCH_POD";

/// A runner's output file on the results volume, as the pods write it and the README
/// collects it: `<name>-<i>.json.gz` (k6 gzips an output whose name ends in `.gz`); `i`
/// may be a shell word (`$i`, `*`).
pub fn output_file(name: &str, i: impl std::fmt::Display) -> String {
    format!("{name}-{i}.json.gz")
}

/// Memory each runner requests (and is limited to), MiB: a base for k6 itself, and per VU
/// its JavaScript runtime, which holds its own copy of the script (the plan with every
/// case). With the largest script shipped (servers/mix, 557 kB), k6 v1.8.1 used 106 MiB at
/// 10 VUs and 426 MiB at 100 (~3.5 MiB a VU, docs/k6.md): this gives 309 and 782 MiB, room
/// for the samples k6 keeps for its summary as a run goes on.
pub fn runner_memory_mib(vus_per_pod: u32, script_bytes: usize) -> u64 {
    let per_vu_kib = 1024 + 8 * script_bytes as u64 / 1024;
    256 + (vus_per_pod as u64 * per_vu_kib).div_ceil(1024)
}

/// The manifest. Strings are written as JSON strings, which YAML reads as the same
/// double-quoted scalars, so no value needs YAML escaping of its own.
pub fn manifest(p: &ExportPlan, script_bytes: usize) -> String {
    let name = k8s_name(p);
    let q = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    let vus_per_pod = p.max_vus().div_ceil(p.parallelism.max(1));
    let memory = format!("{}Mi", runner_memory_mib(vus_per_pod, script_bytes));
    format!(
        "# k6-operator TestRun for gqlbench's {suite}/{scenario} (see README.md).\n\
         # Before the first run: kubectl apply -f results.yaml (the results volume), and\n\
         #   kubectl create configmap {name} --from-file=script.js\n\
         apiVersion: k6.io/v1alpha1\n\
         kind: TestRun\n\
         metadata:\n  name: {qname}\n\
         spec:\n\
         \x20 parallelism: {par}\n\
         \x20 # One runner per node (the operator's required pod anti-affinity): runners that\n\
         \x20 # share a node share its CPU, and k6's figures become its own. Needs {par} node(s).\n\
         \x20 separate: true\n\
         \x20 script:\n\
         \x20   configMap:\n\
         \x20     name: {qname}\n\
         \x20     file: \"script.js\"\n\
         \x20 # Every runner writes its samples to the results volume, named after its Job\n\
         \x20 # ({first} ... {last}); the kubelet expands $({POD_VAR}).\n\
         \x20 arguments: {args}\n\
         \x20 runner:\n\
         \x20   # The k6 version this script is tested with.\n\
         \x20   image: {image}\n\
         \x20   # A CPU and the memory of {vus_per_pod} VU(s) of this script, requested and limited\n\
         \x20   # alike (Guaranteed QoS: the CPU is the runner's own).\n\
         \x20   resources:\n\
         \x20     requests:\n\
         \x20       cpu: \"1\"\n\
         \x20       memory: {memory}\n\
         \x20     limits:\n\
         \x20       cpu: \"1\"\n\
         \x20       memory: {memory}\n\
         \x20   securityContext:\n\
         \x20     fsGroup: {K6_UID}\n\
         \x20   env:\n\
         \x20     # The endpoint the load goes to (the script's default is the export's --url).\n\
         \x20     - name: GQLBENCH_URL\n\
         \x20       value: {url}\n\
         \x20     - name: {POD_VAR}\n\
         \x20       valueFrom:\n\
         \x20         fieldRef:\n\
         \x20           fieldPath: \"metadata.labels['job-name']\"\n\
         \x20   volumes:\n\
         \x20     - name: results\n\
         \x20       persistentVolumeClaim:\n\
         \x20         claimName: {claim}\n\
         \x20   volumeMounts:\n\
         \x20     - name: results\n\
         \x20       mountPath: {RESULTS_DIR}\n",
        suite = p.suite,
        scenario = p.scenario,
        qname = q(&name),
        par = p.parallelism,
        first = output_file(&name, 1),
        last = output_file(&name, p.parallelism),
        args = q(&format!(
            "--out json={RESULTS_DIR}/$({POD_VAR}).json.gz"
        )),
        image = q(&runner_image()),
        memory = q(&memory),
        url = q(&p.url),
        claim = q(&super::collect::claim_name(&name)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_grows_with_the_vus_and_the_script() {
        // The measured case: 100 VUs of a 557 kB script used 426 MiB.
        let m = runner_memory_mib(100, 557_594);
        assert!((600..=800).contains(&m), "{m} MiB");
        assert!(runner_memory_mib(10, 557_594) < m);
        assert!(runner_memory_mib(100, 10_000) < m);
    }

    #[test]
    fn the_image_is_the_tested_version() {
        assert_eq!(runner_image(), "grafana/k6:1.8.1");
    }
}
