//! Reading process facts from /proc: which processes belong to a target's session, their
//! CPU time and resident memory. Deltas of these are what vitals report (never `ps %cpu`,
//! which is a lifetime average).
use std::fs;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProcStat {
    pub pid: i32,
    pub session: i32,
    /// Ended, waiting to be reaped (a zombie): it holds no memory and runs no more.
    pub dead: bool,
    /// utime + stime + cutime + cstime, in clock ticks (children once reaped are included
    /// through cutime/cstime, so short-lived helpers are not lost).
    pub cpu_ticks: u64,
    pub rss_pages: u64,
    /// Threads of the process (field 20): what a runtime started, whether they run or wait.
    pub threads: u64,
}

/// Parse /proc/<pid>/stat. The command name may contain spaces and parentheses, so fields
/// are counted from the last ')'.
pub fn parse_stat(pid: i32, text: &str) -> Option<ProcStat> {
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state): index = field number - 3.
    let field = |n: usize| -> Option<u64> { f.get(n - 3)?.parse().ok() };
    let session: i64 = f.get(6 - 3)?.parse().ok()?;
    let state = f.first()?.chars().next()?;
    Some(ProcStat {
        pid,
        session: session as i32,
        dead: matches!(state, 'Z' | 'X'),
        cpu_ticks: field(14)? + field(15)? + field(16)? + field(17)?,
        rss_pages: field(24)?,
        threads: field(20)?,
    })
}

/// The parent pid in the text of /proc/<pid>/stat (field 4).
pub fn parent_pid(text: &str) -> Option<i32> {
    text[text.rfind(')')? + 1..]
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

pub fn stat(pid: i32) -> Option<ProcStat> {
    parse_stat(pid, &fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every live process whose session id is `sid` (a target is started with setsid, so its
/// session holds its whole tree unless a child leaves it on purpose). A process that has
/// ended but is not reaped yet (a crashed target, until the runner notices) is left out:
/// counting it would add a zero-memory sample.
pub fn session_members(sid: i32) -> Vec<ProcStat> {
    let Ok(rd) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .filter(|s| s.session == sid && !s.dead)
        .collect()
}

pub fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

pub fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_with_spaces_and_parens() {
        let line = "4242 (node (worker) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 50 7 3 20 0 11 0 1000 123456789 2500 18446744073709551615";
        let s = parse_stat(4242, line).unwrap();
        assert_eq!(s.session, 4242);
        assert_eq!(s.cpu_ticks, 150 + 50 + 7 + 3);
        assert_eq!(s.rss_pages, 2500);
        assert!(!s.dead);
        let zombie = line.replace(") S 1", ") Z 1");
        assert!(parse_stat(4242, &zombie).unwrap().dead);
    }

    #[test]
    fn own_process_is_readable() {
        let me = std::process::id() as i32;
        let s = stat(me).unwrap();
        assert_eq!(s.pid, me);
        assert!(s.rss_pages > 0);
    }
}
