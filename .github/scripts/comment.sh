#!/usr/bin/env bash
# Posts the markdown file given as this pull request's gqlbench comment: the one comment
# that holds the marker is updated (so a PR has one comment, not one per push), or it is
# posted when there is none yet. A token that may not comment (a PR from a fork) leaves a
# warning; the body is in the job summary all the same (ab.sh puts it there).
set -euo pipefail

body=${1:?usage: comment.sh BODY_FILE}
repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY: owner/name}
pr=${PR_NUMBER:?PR_NUMBER: the pull request number}
marker='<!-- gqlbench-benchmark -->'

grep -qF "$marker" "$body" || { echo "comment.sh: $body lacks the marker $marker" >&2; exit 2; }

existing=$(gh api --paginate "repos/$repo/issues/$pr/comments" \
  --jq ".[] | select(.body | contains(\"$marker\")) | .id" | head -n 1) || existing=""
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/$repo/issues/comments/$existing" -F "body=@$body" >/dev/null ||
    echo "::warning::could not update the PR comment $existing; the comparison is in the job summary"
else
  gh api --method POST "repos/$repo/issues/$pr/comments" -F "body=@$body" >/dev/null ||
    echo "::warning::could not comment on the PR (a fork's token?); the comparison is in the job summary"
fi
