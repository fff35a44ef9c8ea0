//! How a k6-operator run's samples come back (`results.yaml` and the README's commands).
//! Each runner pod ends when its k6 ends (the operator passes no `--linger`, and with it
//! k6 v1.8.1 would not close its outputs until stopped), and a file in an ended pod's
//! container cannot be copied out. So the runners write to a PersistentVolumeClaim that
//! outlives them, each to its own file, and a small pod that mounts the same claim is
//! what `kubectl cp` copies the files from.
use super::testrun::{output_file, K6_UID, RESULTS_DIR};

/// The claim every runner writes to, and the collector reads.
pub fn claim_name(name: &str) -> String {
    format!("{name}-results")
}

/// The collector pod's name (the claim's: one per export).
pub fn collector_name(name: &str) -> String {
    claim_name(name)
}

/// The image of the collector pod: a shell and `tar`, which `kubectl cp` needs.
pub const COLLECTOR_IMAGE: &str = "busybox:1.36";

/// What a claim requests by default; each request takes a few hundred bytes of gzipped
/// JSON lines (docs/k6.md says how that was measured).
pub const CLAIM_SIZE: &str = "10Gi";

/// `results.yaml`: the claim (ReadWriteMany, as runners on several nodes write to it at
/// once) and the collector pod.
pub fn manifest(name: &str) -> String {
    let q = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    let claim = q(&claim_name(name));
    format!(
        "# The volume the runner pods of testrun.yaml write their samples to, and a pod that\n\
         # mounts it to copy them out (README.md). Apply once: kubectl apply -f results.yaml\n\
         apiVersion: v1\n\
         kind: PersistentVolumeClaim\n\
         metadata:\n  name: {claim}\n\
         spec:\n\
         \x20 # Several nodes write at once: a storage class with ReadWriteMany (NFS, CephFS,\n\
         \x20 # EFS, Azure Files, Filestore...). Set storageClassName to one if it is not the\n\
         \x20 # cluster's default.\n\
         \x20 accessModes: [\"ReadWriteMany\"]\n\
         \x20 resources:\n\
         \x20   requests:\n\
         \x20     storage: {size}\n\
         ---\n\
         apiVersion: v1\n\
         kind: Pod\n\
         metadata:\n  name: {collector}\n\
         spec:\n\
         \x20 securityContext:\n\
         \x20   fsGroup: {K6_UID}\n\
         \x20 containers:\n\
         \x20   - name: results\n\
         \x20     image: {image}\n\
         \x20     command: [\"sleep\", \"2592000\"]\n\
         \x20     volumeMounts:\n\
         \x20       - name: results\n\
         \x20         mountPath: {RESULTS_DIR}\n\
         \x20 volumes:\n\
         \x20   - name: results\n\
         \x20     persistentVolumeClaim:\n\
         \x20       claimName: {claim}\n",
        size = q(CLAIM_SIZE),
        collector = q(&collector_name(name)),
        image = q(COLLECTOR_IMAGE),
    )
}

/// The shell commands that copy every runner's file into the current folder (beside
/// gqlbench-export.json, which `gqlbench import k6` reads) and import them.
pub fn commands(name: &str, parallelism: u32) -> Vec<String> {
    let collector = collector_name(name);
    let file = output_file(name, "$i");
    vec![
        format!("kubectl wait --for=condition=Ready pod/{collector}"),
        format!(
            "for i in $(seq 1 {parallelism}); do kubectl cp {collector}:{RESULTS_DIR}/{file} {file}; done"
        ),
        format!(
            "gqlbench import k6 {} --target NAME",
            output_file(name, "*")
        ),
    ]
}

/// The command that removes the files of an earlier run before the next (a runner that
/// fails before writing would otherwise leave its earlier file in place).
pub fn clear_command(name: &str) -> String {
    format!(
        "kubectl exec {} -- sh -c 'rm -f {RESULTS_DIR}/{name}-*.json.gz'",
        collector_name(name)
    )
}
