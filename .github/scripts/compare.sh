#!/usr/bin/env bash
# Compares this pull request's run (the folder given) with the latest successful run of
# the benchmark workflow on main that made a baseline (a push, or a manual run by
# workflow_dispatch: both upload the artifact gqlbench-main), posts the markdown as one PR
# comment (found again by its marker and updated on every push) and in the job summary, and
# exits as `gqlbench compare --fail-if-slower` does: 1 on a significant regression.
#
# No baseline (no such run on main yet, or its artifact expired) or runs measured on
# different CPUs: the comment says so and the step passes, since there is nothing fair to
# gate on. GitHub that cannot be asked (network, auth, a failed download) is not "no
# baseline": the comment quotes gh's error and the step fails (exit 1), since a PR that
# was not compared must not pass as if it had been.
set -euo pipefail

candidate=${1:?usage: compare.sh RESULTS_DIR}
gqlbench=${GQLBENCH:-./target/release/gqlbench}
allowance=${GQLBENCH_ALLOWANCE:-10%}
repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY: owner/name}
pr=${PR_NUMBER:?PR_NUMBER: the pull request number}
workflow=${GQLBENCH_WORKFLOW:-benchmark.yml}
marker='<!-- gqlbench-benchmark -->'
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
body="$work/body.md"
gh_err="$work/gh.err"
artifact_name='gqlbench-main'

# GitHub could not be asked: the comment says what failed, quoting gh, and the step fails.
github_failed() {
  {
    echo "**Not compared**: $1:"
    echo
    echo '```'
    cat "$gh_err"
    echo '```'
    echo
    echo "This is a failure to reach GitHub (network, token, permissions), not a missing baseline: re-run the job."
  } >>"$body"
  echo "compare.sh: $1: $(cat "$gh_err")" >&2
  rc=1
}

rc=0
{
  echo "$marker"
  echo "## gqlbench: this pull request against main"
  echo
} >"$body"

if [ ! -f "$candidate/results.json" ]; then
  echo "The benchmark wrote no results (\`$candidate/results.json\` is missing): see the job's log." >>"$body"
  rc=1
else
  # Newest first; a pull request from a fork's branch named main is not a baseline, so the
  # events are checked (gh run list filters on one event only).
  if ! run_id=$(gh run list --repo "$repo" --workflow "$workflow" --branch main \
    --status success --limit 100 --json databaseId,event \
    --jq '[.[] | select(.event == "push" or .event == "workflow_dispatch")][0].databaseId // empty' \
    2>"$gh_err"); then
    github_failed "the runs of \`$workflow\` on main could not be listed"
  elif [ -z "$run_id" ]; then
    echo "No baseline: no successful run of \`$workflow\` on main yet (a push or a manual run). Nothing was compared and the step passes; merge to main, or run the workflow on main by hand (workflow_dispatch), to make one." >>"$body"
  elif ! artifact=$(gh api "repos/$repo/actions/runs/$run_id/artifacts?name=$artifact_name" \
    --jq "[.artifacts[] | select(.name == \"$artifact_name\")] | if length == 0 then \"missing\" elif .[0].expired then \"expired\" else \"present\" end" \
    2>"$gh_err"); then
    github_failed "the artifacts of main's run $run_id could not be listed"
  elif [ "$artifact" = expired ]; then
    echo "No baseline: the artifact \`$artifact_name\` of main's run $run_id has expired. Nothing was compared and the step passes; run the workflow on main by hand (workflow_dispatch) to make a new one." >>"$body"
  elif [ "$artifact" != present ]; then
    echo "No baseline: main's run $run_id has no artifact \`$artifact_name\` (expired and since removed, or deleted). Nothing was compared and the step passes; run the workflow on main by hand (workflow_dispatch) to make one." >>"$body"
  elif ! gh run download "$run_id" --repo "$repo" --name "$artifact_name" --dir "$work/baseline" 2>"$gh_err"; then
    github_failed "the artifact \`$artifact_name\` of main's run $run_id is there but could not be downloaded"
  else
    machine() { jq -r '"\(.machine.cpu_model) × \(.machine.cores)"' "$1/results.json"; }
    base_machine=$(machine "$work/baseline")
    cand_machine=$(machine "$candidate")
    gate=(--fail-if-slower "$allowance")
    if [ "$base_machine" != "$cand_machine" ]; then
      {
        echo "**Not gated**: main was measured on \`$base_machine\`, this PR on \`$cand_machine\`; a different CPU is not a change of the code. The comparison is shown for information."
        echo
      } >>"$body"
      gate=()
    fi
    crc=0
    "$gqlbench" compare "$work/baseline" "$candidate" "${gate[@]}" --format md >"$work/compare.md" || crc=$?
    if [ "$crc" -gt 1 ]; then
      echo "gqlbench compare failed (exit $crc): see the job's log." >>"$body"
      rc=$crc
    else
      cat "$work/compare.md" >>"$body"
      rc=$crc
    fi
    echo >>"$body"
    echo "Baseline: main's run [$run_id](${GITHUB_SERVER_URL:-https://github.com}/$repo/actions/runs/$run_id). How to read this: docs/ci.md." >>"$body"
  fi
fi

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$body" >>"$GITHUB_STEP_SUMMARY"
fi
cat "$body"

# One comment per PR: update the one with the marker, or post it. A token that may not
# comment (a PR from a fork) leaves the comparison in the job summary only.
existing=$(gh api --paginate "repos/$repo/issues/$pr/comments" \
  --jq ".[] | select(.body | contains(\"$marker\")) | .id" | head -n 1) || existing=""
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/$repo/issues/comments/$existing" -F "body=@$body" >/dev/null ||
    echo "::warning::could not update the PR comment $existing; the comparison is in the job summary"
else
  gh api --method POST "repos/$repo/issues/$pr/comments" -F "body=@$body" >/dev/null ||
    echo "::warning::could not comment on the PR (a fork's token?); the comparison is in the job summary"
fi
exit "$rc"
