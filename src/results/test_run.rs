//! A run's results as the unit tests of its readers build them: one skeleton (tool,
//! machine, isolation) with the fields a test cares about laid over it, so every test that
//! needs a whole `RunResults` starts from the same valid file.
use super::RunResults;

/// The skeleton with `over`'s top-level fields in place of its own (e.g. `{"suite":
/// "federation", "scenarios": [...]}`).
pub fn test_run(over: serde_json::Value) -> RunResults {
    let mut v = serde_json::json!({
        "schema_version": super::SCHEMA_VERSION,
        "tool": {"name": "gqlbench", "version": "0.0.0", "git_commit": "abc123"},
        "suite": "servers", "profile": "quick",
        "command": ["gqlbench", "run", "servers"],
        "started_at": "2026-01-01T00:00:00Z", "finished_at": null, "status": "complete",
        "machine": {"cpu_model": "Test CPU", "cores": 4, "memory_bytes": 8u64 << 30,
                    "kernel": "6.1", "os": "Linux", "hostname": "h"},
        "isolation": {"generator_cpus": [0], "target_cpus": [1], "cgroups": "none",
                      "notes": [], "nofile_limit": 1024},
        "runtimes": {}, "scenarios": []
    });
    if let (Some(m), Some(o)) = (v.as_object_mut(), over.as_object()) {
        for (k, x) in o {
            m.insert(k.clone(), x.clone());
        }
    }
    serde_json::from_value(v).expect("the test run matches the model")
}
