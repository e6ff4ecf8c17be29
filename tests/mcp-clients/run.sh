#!/usr/bin/env bash
# Agent Tools MCP through the official SDK clients (Python `mcp` 2.x at both
# protocol eras and 1.x at 2025, TypeScript `@modelcontextprotocol/sdk` 1.x for 2025 and
# `@modelcontextprotocol/client` 2.x for both eras, pinned; install.sh
# installs them),
# over Streamable HTTP against a real server (tests/support/with-servers.sh)
# and over stdio (`--mcp-stdio` on a data directory of its own): PortOS
# (client.py, client.mjs), then the homelab example server (homelab.py), a
# second server on the same runtime, whose long-running tools the clients
# follow as MCP tasks (homelab_jobs.py, homelab_jobs_v1.py, homelab_jobs.mjs)
# and whose resources, prompt, completions, progress and elicitation the
# clients use (homelab_offers.py, homelab_offers.mjs).
# Needs target/debug/portos and target/debug/homelab (`cargo test --workspace`
# builds both; $CARGO_TARGET_DIR is honoured).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/mcp-clients-venv
venv_v1=target/mcp-clients-v1-venv
for python in "$venv/bin/python" "$venv_v1/bin/python"; do
  [[ -x $python ]] || { echo "run.sh: the Python SDK is missing ($python): bash tests/mcp-clients/install.sh" >&2; exit 1; }
done
for package in sdk client; do
  [[ -d tests/mcp-clients/node_modules/@modelcontextprotocol/$package ]] || { echo "run.sh: the TypeScript SDK ($package) is missing: bash tests/mcp-clients/install.sh" >&2; exit 1; }
done
bin_dir=$(cd "${CARGO_TARGET_DIR:-target}/debug" && pwd)
for program in portos homelab; do
  [[ -x $bin_dir/$program ]] || { echo "run.sh: $bin_dir/$program is missing: run \`cargo test --workspace\` first" >&2; exit 1; }
done

# stdio_data_dir BINARY SETTINGS: a fresh data directory created and migrated
# by BINARY itself, with the Agent Tools settings row written with Python's
# sqlite3 into its store (`<command>.db`; the stdio server re-reads it on
# every message).
stdio_data_dir() {
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/portos-mcp-stdio.XXXXXX")
  "$1" --mcp-stdio --data-dir "$dir" </dev/null >/dev/null 2>&1
  python3 - "$dir/$(basename "$1").db" "$2" <<'PY'
import sqlite3, sys, datetime
db = sqlite3.connect(sys.argv[1])
db.execute(
    "INSERT INTO settings (key, value, updated_at) VALUES ('agentContext', ?, ?)",
    (sys.argv[2], datetime.datetime.now(datetime.timezone.utc).isoformat()),
)
db.commit()
PY
  echo "$dir"
}

case ${1:-} in
  --portos)
    settings='{"enabled":true,"scopes":["navigation","workspaces","brain","identity"],"actions":{"readPortos":true}}'
    # The HTTP server (no password) from with-servers.sh.
    curl -fsS -X PUT -H 'content-type: application/json' -d "$settings" \
      "$PORTOS_URL/api/settings/agent-context" >/dev/null
    stdio_dir=$(stdio_data_dir "$bin_dir/portos" "$settings")
    trap 'rm -rf "$stdio_dir"' EXIT
    export PORTOS_BIN=$bin_dir/portos PORTOS_STDIO_DATA_DIR=$stdio_dir
    "$venv/bin/python" tests/mcp-clients/client.py
    "$venv_v1/bin/python" tests/mcp-clients/client_v1.py
    node --test-reporter=spec tests/mcp-clients/client.mjs
    node --test-reporter=spec tests/mcp-clients/client2026.mjs
    ;;
  --homelab)
    grant='{"enabled":true,"actions":{"readLab":true,"writeLab":true}}'
    stdio_dir=$(stdio_data_dir "$bin_dir/homelab" "$grant")
    trap 'rm -rf "$stdio_dir"' EXIT
    export HOMELAB_BIN=$bin_dir/homelab HOMELAB_STDIO_DATA_DIR=$stdio_dir
    # homelab.py grants over HTTP itself (reads first, then writes too).
    HOMELAB_URL=$PORTOS_URL "$venv/bin/python" tests/mcp-clients/homelab.py
    # Resources, a prompt, completions, progress and an elicitation.
    HOMELAB_URL=$PORTOS_URL "$venv/bin/python" tests/mcp-clients/homelab_offers.py
    HOMELAB_URL=$PORTOS_URL node --test-reporter=spec tests/mcp-clients/homelab_offers.mjs
    # The job files confirm a retirement as a person would over HTTP, which
    # takes a session: they use the server with a password, granted here.
    token=$(curl -fsS -X POST -H 'content-type: application/json' \
      -d "{\"password\":\"$PORTOS_TEST_PASSWORD\"}" "$PORTOS_LOCKED_URL/api/auth/login" |
      python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
    curl -fsS -X PUT -H "authorization: Bearer $token" -H 'content-type: application/json' \
      -d "$grant" "$PORTOS_LOCKED_URL/api/settings/mcp" >/dev/null
    export HOMELAB_LOCKED_URL=$PORTOS_LOCKED_URL HOMELAB_TOKEN=$token
    "$venv/bin/python" tests/mcp-clients/homelab_jobs.py
    "$venv_v1/bin/python" tests/mcp-clients/homelab_jobs_v1.py
    node --test-reporter=spec tests/mcp-clients/homelab_jobs.mjs
    ;;
  "")
    bash tests/support/with-servers.sh bash "$0" --portos
    WITH_SERVERS_BIN=$bin_dir/homelab bash tests/support/with-servers.sh bash "$0" --homelab
    ;;
  *)
    echo "usage: run.sh" >&2
    exit 2
    ;;
esac
