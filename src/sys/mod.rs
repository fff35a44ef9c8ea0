//! The platform: what gqlbench asks of the operating system. CPU sets and limits, cgroups,
//! processes (started in their own session, stopped by group), /proc readings, machine-wide
//! locks, what the machine is and the language runtimes it runs programs on (their names and
//! toolchains). Nothing here knows of targets, scenarios or reports.
pub mod cgroup;
pub mod cpus;
pub mod lock;
pub mod machine;
pub mod process;
pub mod procfs;
pub mod runtime;
