//! The k6-operator `TestRun` manifest of an export: the script from a ConfigMap, run by
//! `parallelism` pods, each taking its share of the VUs or of the arrival rate (the
//! operator gives every pod an execution segment, so the total load is the scenario's).
use super::plan::ExportPlan;

/// Kubernetes names: lower-case letters, digits and '-', at most 63 characters.
pub fn k8s_name(p: &ExportPlan) -> String {
    let raw = format!("gqlbench-{}-{}", p.suite, p.scenario).to_lowercase();
    let mut name: String = raw
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    name.truncate(63);
    name.trim_end_matches('-').to_string()
}

/// The manifest. Strings are written as JSON strings, which YAML reads as the same
/// double-quoted scalars, so no value needs YAML escaping of its own.
pub fn manifest(p: &ExportPlan) -> String {
    let name = k8s_name(p);
    let q = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    format!(
        "# k6-operator TestRun for gqlbench's {suite}/{scenario} (see README.md).\n\
         # Create the ConfigMap first:\n\
         #   kubectl create configmap {name} --from-file=script.js\n\
         apiVersion: k6.io/v1alpha1\n\
         kind: TestRun\n\
         metadata:\n  name: {qname}\n\
         spec:\n\
         \x20 parallelism: {par}\n\
         \x20 script:\n\
         \x20   configMap:\n\
         \x20     name: {qname}\n\
         \x20     file: \"script.js\"\n\
         \x20 # JSON lines of every sample, for `gqlbench import k6` (copy it out of the runner pods).\n\
         \x20 arguments: {args}\n",
        suite = p.suite,
        scenario = p.scenario,
        qname = q(&name),
        par = p.parallelism,
        args = q("--out json=/tmp/k6-points.json --summary-export=/tmp/k6-summary.json"),
    )
}
