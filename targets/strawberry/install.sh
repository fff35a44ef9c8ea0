#!/bin/sh
# Installs this target's Python packages into .venv beside it: requirements.txt pins every
# package (transitive ones too) with its hashes, generated from requirements.in by
# pip-compile --generate-hashes (see its header). Needs Python 3.11+ (Strawberry
# 0.341 needs 3.10; 3.11 is what the suite is tested with).
set -eu
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
  echo "strawberry needs Python 3.11+ ($PY is $("$PY" --version 2>&1 || echo missing)): install it, e.g. apt-get install python3 python3-venv, or set PYTHON" >&2
  exit 1
fi
rm -rf .venv
"$PY" -m venv .venv || { echo "python venv failed: apt-get install python3-venv" >&2; exit 1; }
.venv/bin/pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r requirements.txt
.venv/bin/python -c 'import strawberry, uvicorn, uvloop, httptools, asyncpg, websockets'
