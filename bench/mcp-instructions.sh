#!/usr/bin/env bash
# Instructions per request in the server (callgrind) for the same tool,
# `time.now`, called over HTTP (POST /api/cos/tools/call, a new requestId
# each time) and over Agent Tools MCP (tools/call of time_now, at the 2025
# revision and at 2026-07-28, with its `_meta` and mirrored headers):
# what the MCP path adds, independent of the machine's noise.
#
#   bench/mcp-instructions.sh [PORTOS_BIN]     # default: target/release/portos
#   KEEP=1 bench/mcp-instructions.sh           # keep the callgrind files
#   OTLP=1 bench/mcp-instructions.sh           # with trace export on (every
#                                              # span sent to a local sink)
#
# One server under `valgrind --tool=callgrind --instr-atstart=no`, Agent
# Tools enabled with readPortos; wrk (8 connections) warms each path for
# 3 s each, then collection is switched on for 8 s of each path in turn,
# dumped separately, and each total divided by the requests wrk counted.
# Prerequisites: valgrind and wrk (Debian packages). 127.0.0.1 only.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-$BENCH_DIR/../target/release/portos}"
PORT="${PORT:-18095}"
SECONDS_MEASURED="${SECONDS_MEASURED:-8}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/portos-mcp-instructions.XXXXXX")"
PID=""
SINK=""
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    [ -n "$SINK" ] && kill "$SINK" 2>/dev/null
    [ -n "${KEEP:-}" ] && echo "# callgrind files kept in $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT
for tool in valgrind callgrind_control wrk curl; do
    command -v "$tool" >/dev/null || { echo "mcp-instructions: $tool is missing" >&2; exit 2; }
done
[ -x "$BIN" ] || { echo "mcp-instructions: no binary at $BIN" >&2; exit 2; }

url="http://127.0.0.1:$PORT"
export_args=()
if [ -n "${OTLP:-}" ]; then
    # A collector that takes every export and answers 200 (outside the
    # measured process: what is counted is the server's side of exporting).
    SINK_PORT=$((PORT + 1))
    python3 -c '
import http.server, sys
class Sink(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()
' "$SINK_PORT" &
    SINK=$!
    export_args=(--otlp-endpoint "http://127.0.0.1:$SINK_PORT" --outbound-only loopback)
else
    export_args=(--outbound-only none)
fi
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/cg.out" \
    "$BIN" --bind "127.0.0.1:$PORT" --data-dir "$WORK/data" "${export_args[@]}" >"$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 300); do
    curl -fsS -o /dev/null "$url/api/auth/status" 2>/dev/null && break
    sleep 0.2
done
curl -fsS -o /dev/null -X PUT "$url/api/settings/agent-context" -H 'content-type: application/json' \
    -d '{"enabled":true,"actions":{"readPortos":true}}'

http=(-s "$BENCH_DIR/wrk/call-fresh.lua" "$url" -- /api/cos/tools/call)
mcp=(-s "$BENCH_DIR/wrk/mcp-call.lua" "$url" -- /api/agent-context/mcp time_now)
mcp_2026=("${mcp[@]}" 2026-07-28)
wrk -t1 -c8 -d3s "${http[@]}" "warm-http-$$" >/dev/null
wrk -t1 -c8 -d3s "${mcp[@]}" >/dev/null
wrk -t1 -c8 -d3s "${mcp_2026[@]}" >/dev/null

# measure NAME WRK_ARGS...: one dump of NAME's requests; prints the count.
measure() {
    local name="$1"
    shift
    callgrind_control -i on "$PID" >/dev/null
    local line
    line="$(wrk -t1 -c8 -d"${SECONDS_MEASURED}s" "$@" | grep '^RESULT')"
    callgrind_control -i off "$PID" >/dev/null
    callgrind_control -d "$name" "$PID" >/dev/null
    grep -q ' errors=0 status_errors=0' <<<"$line" || { echo "mcp-instructions: $name: $line" >&2; exit 1; }
    sed -E 's/.*requests=([0-9]+).*/\1/' <<<"$line"
}
http_requests="$(measure http "${http[@]}" "http-$$")"
mcp_requests="$(measure mcp "${mcp[@]}")"
mcp_2026_requests="$(measure mcp-2026 "${mcp_2026[@]}")"
total() { awk '/^totals:/ { print $2 }' "$1"; }
http_total="$(total "$WORK/cg.out.1")"
mcp_total="$(total "$WORK/cg.out.2")"
mcp_2026_total="$(total "$WORK/cg.out.3")"
echo "# instructions per request in the server (callgrind), time.now"
echo "http $((http_total / http_requests))"
echo "mcp $((mcp_total / mcp_requests))"
echo "mcp-2026-07-28 $((mcp_2026_total / mcp_2026_requests))"
