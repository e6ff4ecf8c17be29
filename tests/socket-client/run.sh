#!/usr/bin/env bash
# The Socket.IO events through the official socket.io-client (pinned in
# package-lock.json) against two real servers (tests/support/with-servers.sh).
# Needs target/debug/portos and `npm ci --prefix tests/socket-client`.
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ -d tests/socket-client/node_modules/socket.io-client ]] || { echo "run.sh: socket.io-client is missing: \`npm ci --prefix tests/socket-client\`" >&2; exit 1; }
exec bash tests/support/with-servers.sh node --test-reporter=spec tests/socket-client/events.mjs
