#!/usr/bin/env bash
# Runs the workflow's benchmark (GQLBENCH_ARGS) into the folder given, and exits with the
# run's exit code: 0 every row valid, 1 a row failed (reported in the folder), 2 bad input.
# On a pull request the compare step runs after a failure too, so the comment says which
# row broke.
set -euo pipefail

out=${1:?usage: benchmark.sh RESULTS_DIR}
gqlbench=${GQLBENCH:-./target/release/gqlbench}
args=${GQLBENCH_ARGS:?GQLBENCH_ARGS: the gqlbench command line to run, e.g. run servers --scenarios simple}

# The arguments are one line in the workflow's env; split them on spaces as written.
read -r -a argv <<<"$args"
rc=0
"$gqlbench" "${argv[@]}" --out "$out" --force || rc=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/report.md" ]; then
  {
    echo "<details><summary>gqlbench report of this run (exit $rc)</summary>"
    echo
    cat "$out/report.md"
    echo
    echo "</details>"
  } >>"$GITHUB_STEP_SUMMARY"
fi
exit "$rc"
