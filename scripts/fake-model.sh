#!/usr/bin/env bash
# fake-model.sh — starts the replay model server (tests/models/replay_server.mjs) on 127.0.0.1
# and prints its endpoint, the base URL to write as `inference.endpoint`
# (e.g. http://127.0.0.1:18080/v1). It serves the fixtures in tests/models/fixtures, picked by
# the request's model (openai-answer, openai-stream, ollama-tools, llamacpp-tools, …), and runs
# in the foreground until Ctrl-C.
# Usage: scripts/fake-model.sh [PORT]        (PORT 0 or none: any free port)
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:-0}
if ! [[ $port =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fake-model.sh [PORT]" >&2
  exit 2
fi
command -v node >/dev/null || { echo "fake-model.sh: node (>= 20) is needed" >&2; exit 1; }
exec node tests/models/replay_server.mjs --port "$port"
