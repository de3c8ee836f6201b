#!/usr/bin/env bash
# fake-model.sh — starts the replay model server (tests/models/replay_server.mjs) on 127.0.0.1
# and prints its endpoint, the base URL to write as `inference.endpoint`
# (http://127.0.0.1:18080/v1 by default, the one examples/models names). It answers offline,
# picked by the request's `model`:
#   - scenario models (tests/models/fixtures/scenarios.json), made up from the conversation:
#     `lead` (calls the member call-member offers with the whole task, then answers with what
#     came back), `coder` (answers "coder did: <task>"), `refuser` (ends without an answer),
#     `two-requests`, `lead-confused` (bad tool calls beside a good one), and fault variants
#     (`lead-429`, `lead-faults`, `lead-keyed`);
#   - recorded responses (tests/models/fixtures/fixtures.json) of OpenAI, Ollama and llama.cpp:
#     `openai-answer`, `openai-stream`, `ollama-tools`, `llamacpp-tools`, and faults
#     (`rate-limited`, `always-500`, `hangs`, `dies-mid-stream`, `needs-key`, `vllm-no-parser`).
# It runs in the foreground until Ctrl-C (or SIGTERM).
# Usage: scripts/fake-model.sh [PORT]        (default 18080; 0: any free port)
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:-18080}
if ! [[ $port =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fake-model.sh [PORT]" >&2
  exit 2
fi
command -v node >/dev/null || { echo "fake-model.sh: node (>= 20) is needed" >&2; exit 1; }
exec node tests/models/replay_server.mjs --port "$port"
