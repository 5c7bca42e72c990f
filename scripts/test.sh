#!/usr/bin/env bash
# Sets everything up, then runs the whole test suite: lint, types, and every test
# (the real-engine and real-data tests included; they skip only where an engine or the
# ../shared/data folder is missing). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH:/usr/games"
ruff check src tests
ruff format --check src tests
mypy
pytest "$@"
