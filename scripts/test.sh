#!/usr/bin/env bash
# Sets everything up, then runs the whole test suite: lint, types, and every test
# (the real-engine and real-data tests included; they skip only where an engine or the
# ../shared/data folder is missing), on two worker processes (IMAGO_TEST_WORKERS to change;
# 0 runs them in this process). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGO_SKIP_WARMUP=1 bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH:/usr/games"
imago warmup >/dev/null &  # the numba kernels compile on the other core meanwhile
warmup=$!
ruff check src tests
ruff format --check src tests
mypy
wait "$warmup"
pytest -n "${IMAGO_TEST_WORKERS:-2}" "$@"
