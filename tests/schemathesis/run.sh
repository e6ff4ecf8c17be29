#!/usr/bin/env bash
# The property-based API fuzz CI runs (issue 14): schemathesis (pinned in
# requirements.txt, installed by install.sh) over the internal and the public
# OpenAPI document of a real portos, with a password set and every request
# authenticated. It fails on any 5xx, any request the document forbids that
# the server accepts, any request the document allows that the server
# refuses, and any status, header or body the document does not describe.
# The few rules a JSON Schema cannot state are listed, with their reasons,
# in tests/schemathesis/schemathesis.toml.
#
# The server runs on an ephemeral loopback port with a throwaway data
# directory; the Persistent Mind's model is tests/schemathesis/model_stub.py
# (OpenAI's wire format), so a fuzzed turn runs to its end. Builds nothing:
# it expects target/debug/portos. Knobs: MAX_EXAMPLES (default 10 per
# operation and phase), SEED (default fixed, so a failure reproduces).
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=${PORTOS_BIN:-${CARGO_TARGET_DIR:-target}/debug/portos}
st=target/schemathesis-venv/bin/schemathesis
[[ -x $bin ]] || { echo "run.sh: $bin is missing: run \`cargo test --workspace\` first" >&2; exit 1; }
[[ -x $st ]] || { echo "run.sh: schemathesis is missing: run tests/schemathesis/install.sh" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/portos-schemathesis.XXXXXX")
pids=()
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ $status -ne 0 && -e $work/portos.log ]]; then
    echo "--- portos log (last lines)" >&2
    tail -n 30 "$work/portos.log" >&2
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for FILE PID: the address a process printed (`listening on http://…`).
wait_for() {
  local line=""
  for _ in $(seq 1 600); do
    line=$(grep -m1 -o 'listening on http://[0-9.:]*' "$1" || true)
    if [[ -n $line ]]; then
      echo "${line#listening on }"
      return 0
    fi
    kill -0 "$2" 2>/dev/null || { echo "run.sh: $1's process exited before listening" >&2; return 1; }
    sleep 0.1
  done
  echo "run.sh: no address in $1 within 60 s" >&2
  return 1
}

python3 tests/schemathesis/model_stub.py >"$work/stub.log" 2>&1 &
pids+=($!)
model_url=$(wait_for "$work/stub.log" $!)

password="fuzz-$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')"
# Outbound requests go nowhere: a fuzzed feed or peer URL is refused
# (DESTINATION_NOT_ALLOWED), never fetched, never even looked up.
env -u PORTOS_CONFIG RUST_LOG=info PORTOS_PASSWORD="$password" PORTOS_OUTBOUND_ONLY=none \
  "$bin" --bind 127.0.0.1:0 --data-dir "$work/data" \
  --mind-provider-url "$model_url/v1" --mind-model stub \
  >/dev/null 2>"$work/portos.log" &
pids+=($!)
url=$(wait_for "$work/portos.log" $!)
echo "run.sh: portos on $url, model stub on $model_url"

# Expose every API group (password required), so the public document
# describes routes and the second run has something to test.
python3 - "$url" "$password" <<'PY'
import base64, json, sys, urllib.request
url, password = sys.argv[1], sys.argv[2]
auth = "Basic " + base64.b64encode(f"portos:{password}".encode()).decode()
def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method)
    request.add_header("Authorization", auth)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request) as response:
        return json.load(response)
groups = call("GET", "/api/settings/api-access")["apis"]
call("PUT", "/api/settings/api-access",
     {group["id"]: {"exposed": True, "requireAuth": True} for group in groups})
print("run.sh: exposed", ", ".join(group["id"] for group in groups))
# Agent Tools on, with a read granted, so the MCP endpoint answers what its
# document says it answers (not only 403 AGENT_CONTEXT_DISABLED).
call("PUT", "/api/settings/agent-context",
     {"enabled": True, "scopes": ["navigation"], "actions": {"readPortos": True}})
print("run.sh: Agent Tools enabled")
PY

export SCHEMATHESIS_PASSWORD=$password
status=0
for doc in internal/openapi.json openapi.json; do
  echo "== schemathesis: $url/api/api-docs/$doc"
  "$st" --config-file tests/schemathesis/schemathesis.toml run \
    "$url/api/api-docs/$doc" --url "$url" \
    --checks all --phases examples,coverage,fuzzing \
    --max-examples "${MAX_EXAMPLES:-10}" --seed "${SEED:-20261204}" \
    ${ST_EXTRA:-} || status=1
done
exit $status
