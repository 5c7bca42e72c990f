#!/usr/bin/env bash
# Sets everything up, then starts the main job: a game of Go against imago in the terminal.
# Extra arguments go to `imago play` (for example: --game othello).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH:/usr/games"
exec imago play "$@"
