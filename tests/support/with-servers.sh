#!/usr/bin/env bash
# with-servers.sh COMMAND…: runs COMMAND against two real portos servers on
# ephemeral loopback ports, each with its own temporary data directory — one
# without a password (PORTOS_URL) and one with (PORTOS_LOCKED_URL, password
# in PORTOS_TEST_PASSWORD) — and stops them whatever happens. On failure the
# servers' last log lines are printed.
#
# Builds nothing: it expects target/debug/portos (`cargo test --workspace` or
# `cargo build -p portos` builds it; $CARGO_TARGET_DIR is honoured). Another
# server built on the runtime is started instead with WITH_SERVERS_BIN (e.g.
# the homelab: WITH_SERVERS_BIN=target/debug/homelab). Shared by the Node.js
# suites (tests/browser, tests/socket-client, …) and tests/mcp-clients.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=${WITH_SERVERS_BIN:-${CARGO_TARGET_DIR:-target}/debug/portos}
program=$(basename "$bin")
# The runtime reads its variables under the application's prefix: the
# command's name in capitals (PORTOS_PASSWORD, HOMELAB_PASSWORD).
prefix=$(echo "$program" | tr 'a-z-' 'A-Z_')
[[ -x $bin ]] || { echo "with-servers.sh: $bin is missing: run \`cargo test --workspace\` (or \`cargo build -p portos\`) first" >&2; exit 1; }
[[ $# -gt 0 ]] || { echo "usage: with-servers.sh COMMAND…" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/portos-servers.XXXXXX")
pids=()
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ $status -ne 0 ]]; then
    for log in "$work"/*.log; do
      [[ -e $log ]] || continue
      echo "--- $(basename "$log") (last lines)" >&2
      tail -n 30 "$log" >&2
    done
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME [VAR=value…]: starts $bin, sets $server_url from the line
# it prints on stderr (`PortOS listening on http://127.0.0.1:PORT`).
start() {
  local name=$1
  shift
  # Outbound requests reach loopback and nothing else: no suite can make
  # a server connect to (or look up) anything outside this machine.
  env -u "${prefix}_PASSWORD" -u "${prefix}_CONFIG" RUST_LOG=info \
    "${prefix}_OUTBOUND_ONLY=loopback" "$@" \
    "$bin" --bind 127.0.0.1:0 --data-dir "$work/$name-data" \
    >/dev/null 2>"$work/$name.log" &
  local pid=$!
  pids+=("$pid")
  local line=""
  for _ in $(seq 1 600); do
    line=$(grep -m1 -o 'listening on http://[0-9.:]*' "$work/$name.log" || true)
    if [[ -n $line ]]; then
      server_url=${line#listening on }
      echo "with-servers.sh: $program ($name) on $server_url"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "with-servers.sh: $program ($name) exited before listening" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "with-servers.sh: $program ($name) did not report its address within 60 s" >&2
  return 1
}

password="test-$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')"
server_url=""
start open
open_url=$server_url
start locked "${prefix}_PASSWORD=$password"
locked_url=$server_url

PORTOS_URL=$open_url PORTOS_LOCKED_URL=$locked_url PORTOS_TEST_PASSWORD=$password "$@"
