//! What the command line asks that cannot work: a flag or option (which one, why, the fix),
//! or CPUs this command needs that another benchmark holds.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// `message` says why `flag` cannot work and what to pass instead.
    #[error("{flag}: {message}")]
    Flag { flag: &'static str, message: String },
    /// CPUs this command needs exclusively are held by another process: `holders` names
    /// each (its CPUs, PID and command line), `locks` is the folder of the lock files.
    #[error("another benchmark is using CPUs this command needs: {holders}. Two runs on the same CPUs would each measure about half the throughput. Wait for it, pick other CPUs with --generator-cpus/--target-cpus, or pass --force-concurrent (the report then says so). Locks: {locks}")]
    Busy { holders: String, locks: PathBuf },
}

impl PlanError {
    /// Bad input: 2, whichever the variant (CPUs held by another run included: the command
    /// line must change, or wait).
    pub fn exit_code(&self) -> u8 {
        match self {
            PlanError::Flag { .. } | PlanError::Busy { .. } => super::BAD_INPUT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_error_names_the_flag_and_busy_names_the_holders_and_the_ways_out() {
        let e = PlanError::Flag {
            flag: "--max-time",
            message: "1s is shorter than one round; give at least 3s".into(),
        };
        assert_eq!(
            e.to_string(),
            "--max-time: 1s is shorter than one round; give at least 3s"
        );
        let e = PlanError::Busy {
            holders: "CPU 2 held by PID 7, `gqlbench run`".into(),
            locks: "/run/gqlbench".into(),
        };
        let m = e.to_string();
        assert!(m.contains("CPU 2 held by PID 7"), "{m}");
        assert!(
            m.contains("--force-concurrent") && m.ends_with("Locks: /run/gqlbench"),
            "{m}"
        );
        assert_eq!(e.exit_code(), 2);
    }
}
