//! The harness with a stand-in load: workers that count, in process, no sockets.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::live::{Board, RunStage};
use super::*;

/// A stand-in recorder: what the workers counted, when they started, whether they were
/// told to stop.
#[derive(Debug, Default)]
struct Tally {
    counted: u64,
    starts: Vec<Instant>,
    stopped: u64,
    cpu_s: f64,
}

impl Merge for Tally {
    fn merge(&mut self, o: Tally) {
        self.counted += o.counted;
        self.starts.extend(o.starts);
        self.stopped += o.stopped;
        self.cpu_s += o.cpu_s;
    }
}

impl Record<1> for Tally {
    fn progress(&self) -> [i64; 1] {
        [self.counted as i64]
    }
    fn set_cpu(&mut self, cpu_s: f64) {
        self.cpu_s = cpu_s;
    }
}

/// A worker whose one task counts `n`, or, with `forever`, never ends by itself.
struct Counter {
    rec: RefCell<Tally>,
    span: Span,
    task_done: Cell<bool>,
    forever: bool,
}

impl Driver<1> for Counter {
    type Rec = Tally;
    fn rec(&self) -> &RefCell<Tally> {
        &self.rec
    }
    fn window(&self) -> Option<Span> {
        Some(self.span)
    }
    fn done(&self, now: Instant) -> bool {
        !self.forever && self.task_done.get() && self.span.end.is_none_or(|e| now >= e)
    }
    fn stop(&self) {
        self.rec.borrow_mut().stopped += 1;
    }
    fn take_rec(&self) -> Tally {
        self.rec.take()
    }
}

fn counting_worker(
    seat: Seat<'_, 1>,
    window: Option<Duration>,
    forever: bool,
) -> Result<Outcome<Tally>, EngineError> {
    let n = seat.worker as u64 + 1;
    seat.run(
        |_, _| Ok(n),
        |n, run_start| {
            let d = Rc::new(Counter {
                rec: RefCell::new(Tally {
                    starts: vec![run_start],
                    ..Tally::default()
                }),
                span: Span {
                    start: run_start,
                    end: window.map(|w| run_start + w),
                },
                task_done: Cell::new(false),
                forever,
            });
            let task = d.clone();
            tokio::task::spawn_local(async move {
                task.rec.borrow_mut().counted += n;
                task.task_done.set(true);
            });
            d
        },
    )
}

fn harness<'a>(threads: usize, cancel: &'a AtomicBool, board: &'a Board<1>) -> Harness<'a, 1> {
    Harness {
        name: "gqlbench-test",
        threads,
        cpus: None,
        cancel,
        board,
        precise_timers: false,
        gate_limit: Duration::from_secs(30),
        start_at: None,
    }
}

#[test]
fn workers_start_at_one_instant_and_their_records_merge() {
    let (cancel, board) = (AtomicBool::new(false), Board::<1>::default());
    let h = harness(3, &cancel, &board);
    let (joined, start) = h
        .run(|seat| counting_worker(seat, None, false), |r| r.start)
        .expect("the run");
    assert_eq!(joined.rec.counted, 1 + 2 + 3);
    assert_eq!(joined.rec.starts, vec![start; 3], "one start line for all");
    assert_eq!(joined.rec.stopped, 0);
    assert_eq!(joined.interrupted_at, None);
    assert_eq!(joined.pinned_cpus, None);
    // Each worker published its count before it ended.
    assert_eq!(board.count(0), 6);
    assert_eq!(board.stage(), RunStage::Done);
}

#[test]
fn the_live_time_into_the_window_stops_at_its_end() {
    let (cancel, board) = (AtomicBool::new(false), Board::<1>::default());
    let window = Duration::from_millis(40);
    let (joined, ()) = harness(1, &cancel, &board)
        .run(|seat| counting_worker(seat, Some(window), false), |_| ())
        .expect("the run");
    assert_eq!(joined.rec.counted, 1);
    assert_eq!(board.elapsed_ms(), 40);
}

#[test]
fn a_cancel_stops_every_worker_and_is_reported() {
    let (cancel, board) = (AtomicBool::new(false), Board::<1>::default());
    let (joined, ()) = harness(2, &cancel, &board)
        .run(
            |seat| counting_worker(seat, None, true),
            |_| cancel.store(true, Ordering::Relaxed),
        )
        .expect("a cancelled run still has its records");
    assert_eq!(joined.rec.stopped, 2);
    assert!(joined.interrupted_at.is_some());
    assert_eq!(board.stage(), RunStage::Done);
}

#[test]
fn a_worker_that_cannot_start_fails_the_run() {
    let (cancel, board) = (AtomicBool::new(false), Board::<1>::default());
    let r = harness(3, &cancel, &board).run(
        |seat| {
            if seat.worker == 1 {
                return seat.run(
                    |_, _| -> Result<(), EngineError> {
                        Err(EngineError::InvalidPlan("no epoll for worker 1".into()))
                    },
                    |_, _| -> Rc<Counter> {
                        unreachable!("a worker that failed to prepare never starts")
                    },
                );
            }
            counting_worker(seat, None, false)
        },
        |_| (),
    );
    match r {
        Err(EngineError::InvalidPlan(m)) => assert_eq!(m, "no epoll for worker 1"),
        other => panic!("expected the worker's error, got {other:?}"),
    }
}

#[test]
fn a_panicking_worker_is_named() {
    let (cancel, board) = (AtomicBool::new(false), Board::<1>::default());
    let r = harness(2, &cancel, &board).run(
        |seat| {
            if seat.worker == 1 {
                panic!("a bug in a worker");
            }
            counting_worker(seat, None, false)
        },
        |_| (),
    );
    assert!(matches!(r, Err(EngineError::WorkerPanicked(1))), "{r:?}");
}

#[test]
fn pinned_workers_report_where_they_run() {
    let allowed = crate::affinity::current_affinity().expect("affinity");
    let cpus = [allowed[0]];
    let (cancel, board) = (AtomicBool::new(false), Board::<1>::default());
    let h = Harness {
        cpus: Some(&cpus),
        ..harness(2, &cancel, &board)
    };
    let (joined, ()) = h
        .run(|seat| counting_worker(seat, None, false), |_| ())
        .expect("the run");
    assert_eq!(joined.pinned_cpus, Some(vec![allowed[0]]));
}
