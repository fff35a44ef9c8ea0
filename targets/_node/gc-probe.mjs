// GC probe, preloaded into a Node target by gqlbench with NODE_OPTIONS=--import=<this file>.
// It counts garbage collections and sums their pause time (PerformanceObserver `gc`
// entries), and if GQLBENCH_GC_FILE is set, writes the running totals there as one JSON
// object: {"count":N,"total_ms":X,"max_ms":Y,"recent":[[n,ms],...],"pid":P}, every
// WRITE_EVERY_MS and at exit. `recent` holds the last RECENT pauses, numbered from 1 in
// the order they happened, so a reader can take the longest pause of its own window.
//
// Rules it keeps, because it runs inside the process being measured:
// - tiny: one observer callback per GC batch, one small file write per interval (skipped
//   when nothing changed);
// - readers never see half a file: write to a temp file in the same directory, then rename
//   (atomic on POSIX);
// - never keeps the process alive (timer unref'd) and never throws into the target.
// Figures are cumulative since process start; gqlbench takes differences between reads
// (e.g. at the end of warm-up and at the end of measurement), and reads often enough
// (every 200 ms) that RECENT pauses cover the time between two reads.

import { PerformanceObserver } from 'node:perf_hooks';
import { writeFileSync, renameSync } from 'node:fs';

const WRITE_EVERY_MS = 200;
const RECENT = 256;
const file = process.env.GQLBENCH_GC_FILE;

let count = 0;
let totalMs = 0;
let maxMs = 0;
// Ring of the last RECENT pauses: [number, ms].
const recent = [];

function record(list) {
  for (const e of list.getEntries()) {
    count++;
    totalMs += e.duration;
    if (e.duration > maxMs) maxMs = e.duration;
    recent.push([count, round(e.duration)]);
    if (recent.length > RECENT) recent.shift();
  }
}

const observer = new PerformanceObserver(record);
observer.observe({ entryTypes: ['gc'] });

if (file) {
  const tmp = `${file}.${process.pid}.tmp`;
  let written = -1;
  const write = (force) => {
    if (!force && written === count) return;
    try {
      const body = JSON.stringify({
        count,
        total_ms: round(totalMs),
        max_ms: round(maxMs),
        recent,
        pid: process.pid,
      });
      writeFileSync(tmp, body);
      renameSync(tmp, file);
      written = count;
    } catch {
      // The probe must never break the target (e.g. the results directory was removed).
    }
  };
  write(true);
  setInterval(() => write(false), WRITE_EVERY_MS).unref();
  process.on('exit', () => {
    // Entries still queued for the observer's (async) callback would be lost otherwise.
    try {
      const pending = observer.takeRecords?.();
      if (pending) record({ getEntries: () => pending });
    } catch {}
    write(true);
  });
}

function round(ms) {
  return Math.round(ms * 1000) / 1000;
}
