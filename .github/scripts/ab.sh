#!/usr/bin/env bash
# A pull request's gate (docs/ci.md): builds the configured target in the base's checkout
# and in the head's (`gqlbench install --root`), measures both in one run of
# `gqlbench ab` (the load alternates between the two processes on this runner, so the gate
# always applies), writes the markdown into the folder given (comment.md beside ab's
# report), the job summary and the PR's one comment (comment.sh), and exits with ab's code:
#   0  head is not slower than base beyond the allowance
#   1  head is slower and a slowdown beyond the allowance is not ruled out (a regression),
#      or a side failed to build, start or answer (a failure), or the harness did not build
#   2  the configuration is wrong (scenario, target, allowance, budget): nothing measured
# The comment says which of these it was, so a red check never has to be guessed at.
#
# Configuration (the workflow's env; defaults in brackets):
#   GQLBENCH_AB_SCENARIO [servers/simple]  suite/name
#   GQLBENCH_AB_TARGET                     the target measured on both sides (required)
#   GQLBENCH_AB_ALLOWANCE [5%]             the slowdown the gate tolerates
#   GQLBENCH_AB_BUDGET [10m]               the most the decision may take
#   GQLBENCH_AB_ARGS                       more `gqlbench ab` flags, split on spaces
#   GQLBENCH_BASE_ROOT [base], GQLBENCH_HEAD_ROOT [.]   the two checkouts
#   GQLBENCH_BASE_SHA, GITHUB_SHA          named in the comment
#   GQLBENCH_HARNESS_BUILD [success]       the outcome of the step that built gqlbench
#   GQLBENCH [./target/release/gqlbench]   the harness, built once from the head
#   PR_NUMBER, GITHUB_REPOSITORY, GH_TOKEN the comment (none posted without PR_NUMBER)
set -euo pipefail

out=${1:?usage: ab.sh RESULTS_DIR}
gqlbench=${GQLBENCH:-./target/release/gqlbench}
scenario=${GQLBENCH_AB_SCENARIO:-servers/simple}
target=${GQLBENCH_AB_TARGET:?GQLBENCH_AB_TARGET: the target measured on both sides, e.g. graphql-yoga}
allowance=${GQLBENCH_AB_ALLOWANCE:-5%}
budget=${GQLBENCH_AB_BUDGET:-10m}
extra=${GQLBENCH_AB_ARGS:-}
base_root=${GQLBENCH_BASE_ROOT:-base}
head_root=${GQLBENCH_HEAD_ROOT:-.}
harness=${GQLBENCH_HARNESS_BUILD:-success}
base_sha=${GQLBENCH_BASE_SHA:-}
head_sha=${GITHUB_SHA:-}
marker='<!-- gqlbench-benchmark -->'
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
body="$work/comment.md"

say() { printf '%s\n' "$*" >>"$body"; }
# The last lines of a log, as a code block of the comment.
quote_log() {
  {
    echo
    echo '```'
    tail -n 20 "$1"
    echo '```'
  } >>"$body"
}
short() { printf '%.7s' "$1"; }

{
  echo "$marker"
  echo "## gqlbench: this pull request against its base"
  echo
} >"$body"

rc=0
if [ "$harness" != success ]; then
  say "**Not compared: the harness did not build.** Building gqlbench from the head (\`cargo build --release --locked\`, the step \"Build gqlbench\") ended with \`$harness\`, so neither side was measured. See that step's log."
  rc=1
else
  # Each side's build: the target's install in its own checkout, by the same harness.
  for side in base head; do
    if [ "$side" = base ]; then root=$base_root; else root=$head_root; fi
    log="$work/install-$side.log"
    set +e
    "$gqlbench" --root "$root" install "$target" 2>&1 | tee "$log"
    irc=${PIPESTATUS[0]}
    set -e
    if [ "$irc" -ne 0 ]; then
      say "**Not compared: the build of the $side failed.** \`gqlbench install $target --root $root\` exited with $irc, so \`gqlbench ab\` did not run."
      if [ "$side" = base ]; then
        say "A target the pull request adds has no base to compare with; a base that no longer builds (an expired dependency, say) has to be fixed on the base branch."
      else
        say "This pull request's code did not build or install; the last lines of its output:"
      fi
      quote_log "$log"
      rc=1
      break
    fi
  done
fi

if [ "$rc" -eq 0 ]; then
  argv=(ab "$scenario" --target "$target" --a-root "$base_root" --b-root "$head_root"
    --a-label base --b-label head --allowance "$allowance" --budget "$budget"
    --out "$out" --force)
  if [ -n "$extra" ]; then
    read -r -a more <<<"$extra"
    argv+=("${more[@]}")
  fi
  echo "gqlbench ${argv[*]}"
  log="$work/ab.log"
  set +e
  "$gqlbench" "${argv[@]}" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e

  # Exit 1 is a regression or a failure to measure; the run's verdict (results.json, as
  # every gqlbench run records it) tells them apart when it is there.
  verdict=unknown
  failures=""
  if [ "$rc" -eq 1 ] && [ -f "$out/results.json" ] &&
    jq -e '.verdict | type == "object"' "$out/results.json" >/dev/null 2>&1; then
    failures=$(jq -r '(.verdict.failures // [])[] | "- \(.)"' "$out/results.json")
    if [ -n "$failures" ]; then verdict=failure; else verdict=regression; fi
  fi

  case "$rc" in
    0)
      say "**Passed**: head is not slower than base beyond the $allowance allowance (\`gqlbench ab\` exit 0)." ;;
    1)
      case "$verdict" in
        regression)
          say "**Regression**: head is slower than base, and a slowdown beyond the $allowance allowance is not ruled out (\`gqlbench ab\` exit 1). The check fails." ;;
        failure)
          say "**Failed to measure**: a side did not run to the end (\`gqlbench ab\` exit 1); this is a failure, not a measured regression. The check fails."
          say
          say "$failures" ;;
        *)
          say "**Failed** (\`gqlbench ab\` exit 1): head is slower than base with a slowdown beyond the $allowance allowance not ruled out (a regression), or a side failed to start or answer (a failure); the report below says which. The check fails." ;;
      esac ;;
    2)
      say "**Configuration error** (\`gqlbench ab\` exit 2): nothing was measured. Check the workflow's configuration: scenario \`$scenario\`, target \`$target\`, allowance \`$allowance\`, budget \`$budget\`${extra:+, more flags \`$extra\`}. gqlbench said:"
      quote_log "$log" ;;
    *)
      say "**Failed**: \`gqlbench ab\` ended with exit $rc (interrupted or crashed), so nothing was decided; see the job's log."
      quote_log "$log" ;;
  esac
  say
  if [ -f "$out/report.md" ]; then
    cat "$out/report.md" >>"$body"
  elif [ "$rc" -eq 1 ]; then
    say "\`gqlbench ab\` wrote no report; the last lines of its output:"
    quote_log "$log"
  fi
fi

say
say "---"
say "Base ${base_sha:+\`$(short "$base_sha")\` }(A) and head ${head_sha:+\`$(short "$head_sha")\` }(B, this pull request merged into its base) were built and measured on one runner in one job, by the gqlbench built from the head; scenario \`$scenario\`, target \`$target\`, allowance $allowance, budget $budget. How to read this: docs/ci.md."

mkdir -p "$out"
cp "$body" "$out/comment.md"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$body" >>"$GITHUB_STEP_SUMMARY"
fi
cat "$body"
if [ -n "${PR_NUMBER:-}" ]; then
  "$(dirname "$0")/comment.sh" "$body" ||
    echo "::warning::the PR comment could not be written; the comparison is in the job summary"
fi
exit "$rc"
