#!/usr/bin/env bash
# Agent Tools MCP through the official SDK clients (Python `mcp` and
# TypeScript `@modelcontextprotocol/sdk`, pinned; install.sh installs them),
# over Streamable HTTP against a real server (tests/support/with-servers.sh)
# and over stdio (`portos --mcp-stdio` on a data directory of its own).
# Needs target/debug/portos.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/mcp-clients-venv
[[ -x $venv/bin/python ]] || { echo "run.sh: the Python SDK is missing: bash tests/mcp-clients/install.sh" >&2; exit 1; }
[[ -d tests/mcp-clients/node_modules/@modelcontextprotocol/sdk ]] || { echo "run.sh: the TypeScript SDK is missing: bash tests/mcp-clients/install.sh" >&2; exit 1; }

if [[ ${1:-} != --inner ]]; then
  exec bash tests/support/with-servers.sh bash "$0" --inner
fi

settings='{"enabled":true,"scopes":["navigation","workspaces","brain","identity"],"actions":{"readPortos":true}}'
# The HTTP server (no password) from with-servers.sh.
curl -fsS -X PUT -H 'content-type: application/json' -d "$settings" \
  "$PORTOS_URL/api/settings/agent-context" >/dev/null

# The stdio server's own data directory, with the same settings: created and
# migrated by portos itself, the settings row written with Python's sqlite3.
stdio_dir=$(mktemp -d "${TMPDIR:-/tmp}/portos-mcp-stdio.XXXXXX")
trap 'rm -rf "$stdio_dir"' EXIT
target/debug/portos --mcp-stdio --data-dir "$stdio_dir" </dev/null 2>/dev/null
python3 - "$stdio_dir/portos.db" "$settings" <<'PY'
import sqlite3, sys, datetime
db = sqlite3.connect(sys.argv[1])
db.execute(
    "INSERT INTO settings (key, value, updated_at) VALUES ('agentContext', ?, ?)",
    (sys.argv[2], datetime.datetime.now(datetime.timezone.utc).isoformat()),
)
db.commit()
PY

export PORTOS_BIN=$PWD/target/debug/portos PORTOS_STDIO_DATA_DIR=$stdio_dir
"$venv/bin/python" tests/mcp-clients/client.py
node --test-reporter=spec tests/mcp-clients/client.mjs
