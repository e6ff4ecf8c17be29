#!/usr/bin/env bash
# The API Explorer in a real headless Chromium (tests/browser/explorer.mjs),
# against two real servers (tests/support/with-servers.sh: one without and
# one with a password).
#
# Needs target/debug/portos (`cargo test --workspace` builds it), Debian's
# /usr/bin/chromium (`apt-get install -y chromium`) and playwright-core
# (`npm ci --prefix tests/browser`).
set -euo pipefail
cd "$(dirname "$0")/../.."

chromium=${CHROMIUM:-/usr/bin/chromium}
[[ -x $chromium ]] || { echo "run.sh: $chromium is missing: \`apt-get install -y chromium\`" >&2; exit 1; }
[[ -d tests/browser/node_modules/playwright-core ]] || { echo "run.sh: playwright-core is missing: \`npm ci --prefix tests/browser\`" >&2; exit 1; }

CHROMIUM=$chromium exec bash tests/support/with-servers.sh \
  node --test-reporter=spec tests/browser/explorer.mjs
