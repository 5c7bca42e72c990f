#!/usr/bin/env bash
# Sets up everything imago needs on a fresh Debian machine, idempotently:
# the engines the tests play against (GNU Go, GRhino), Chromium for the browser tests, a virtualenv
# in .venv with imago and its test, training, web, RL-environment and Ray extras, the numba kernels
# compiled once, and the node packages of the tests that use Sabaki's libraries.
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  missing=()
  for package in gnugo grhino chromium; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check torch==2.13.0
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,nn,bench,web,envs,ray]'
# compile the numba kernels once, now, so that the first game's first move does not wait
# (scripts/test.sh sets IMAGO_SKIP_WARMUP=1 and compiles them while lint and types run)
[ "${IMAGO_SKIP_WARMUP:-0}" = 1 ] || .venv/bin/imago warmup

if [ -f tests/js/package.json ] && command -v npm >/dev/null 2>&1; then
  (cd tests/js && npm install --silent --no-audit --no-fund >/dev/null)
fi
