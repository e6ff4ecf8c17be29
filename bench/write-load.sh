#!/usr/bin/env bash
# Tool calls on the embedded SQLite store, two builds side by side: a write
# (`brain.capture`, signed in) and a read (`time.now`), each with a new
# requestId per request, POST /api/cos/tools/call.
#
#   BEFORE=/path/portos-a AFTER=/path/portos-b bench/write-load.sh
#
# Each build is a `cargo build --release -p portos --bin portos` of its
# commit, copied out. Rounds alternate the builds (before, after, before,
# after, …) so the machine's drift falls on both. Each run: a fresh data
# directory with a password, the server on core SERVER_CPU (default 0), wrk
# on core LOAD_CPU (default 1), CONNECTIONS (32) connections, WARMUP (2) s
# then DURATION (8) s measured; the server's CPU (utime + stime from
# /proc/PID/stat, read once it is idle again) divided by the requests gives
# the server CPU per request. Traffic goes to 127.0.0.1 only; every server
# runs with `--outbound-only none`.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${BEFORE:?set BEFORE to the first build}" "${AFTER:?set AFTER to the second build}"
SERVER_CPU="${SERVER_CPU:-0}"
LOAD_CPU="${LOAD_CPU:-1}"
CONNECTIONS="${CONNECTIONS:-32}"
WARMUP="${WARMUP:-2}"
DURATION="${DURATION:-8}"
ROUNDS="${ROUNDS:-2}"
PORT="${PORT:-18090}"
PASSWORD="bench password"
TICK_US=$((1000000 / $(getconf CLK_TCK)))

die() { echo "write-load: $*" >&2; exit 1; }
command -v wrk >/dev/null || die "wrk is missing: apt-get install -y wrk"

server_pid=""
data_dir=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    [ -n "$data_dir" ] && rm -rf "$data_dir"
    return 0
}
trap cleanup EXIT

# cpu_ticks PID: the process's user + system time so far, in clock ticks.
cpu_ticks() {
    local stat
    stat="$(cat "/proc/$1/stat")"
    stat="${stat##*) }"
    # shellcheck disable=SC2086
    set -- $stat
    echo $((${12} + ${13}))
}

# run BINARY LABEL: one server, the write then the read; one line each.
run() {
    local binary="$1" label="$2"
    data_dir="$(mktemp -d)"
    printf '%s\n' "$PASSWORD" | "$binary" --data-dir "$data_dir" --set-password >/dev/null 2>&1 ||
        die "$label: --set-password failed"
    taskset -c "$SERVER_CPU" "$binary" --data-dir "$data_dir" --bind "127.0.0.1:$PORT" \
        --outbound-only none 2>"$data_dir/server.log" &
    server_pid=$!
    for _ in $(seq 100); do
        curl -fsS "http://127.0.0.1:$PORT/api/auth/status" >/dev/null 2>&1 && break
        sleep 0.1
    done
    local token
    token="$(curl -fsS -X POST -H 'content-type: application/json' \
        -d "{\"password\":\"$PASSWORD\"}" "http://127.0.0.1:$PORT/api/auth/login" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"
    local tool arguments
    for tool in brain.capture time.now; do
        arguments='{}'
        [ "$tool" = brain.capture ] && arguments='{"text":"a thought to keep"}'
        local prefix="$label-$tool-$(date +%s%N)"
        WRK_HEADER="Authorization: Bearer $token" taskset -c "$LOAD_CPU" \
            wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" -s "$BENCH_DIR/wrk/call-fresh.lua" \
            "http://127.0.0.1:$PORT" -- /api/cos/tools/call "warm-$prefix" "$tool" "$arguments" >/dev/null
        sleep 0.5
        local before after line requests rps p99
        before="$(cpu_ticks "$server_pid")"
        line="$(WRK_HEADER="Authorization: Bearer $token" taskset -c "$LOAD_CPU" \
            wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$BENCH_DIR/wrk/call-fresh.lua" \
            "http://127.0.0.1:$PORT" -- /api/cos/tools/call "$prefix" "$tool" "$arguments" |
            grep '^RESULT')"
        sleep 0.5
        after="$(cpu_ticks "$server_pid")"
        grep -q ' errors=0 status_errors=0' <<<"$line" || die "$label $tool: errors: $line"
        requests="$(sed -E 's/.*requests=([0-9]+).*/\1/' <<<"$line")"
        rps="$(sed -E 's/.*rps=([0-9.]+).*/\1/' <<<"$line")"
        p99="$(sed -E 's/.*p99_us=([0-9]+).*/\1/' <<<"$line")"
        printf '%-7s %-14s %10.0f req/s  %7.1f µs server CPU/request  p99 %6d µs\n' \
            "$label" "$tool" "$rps" "$(echo "($after - $before) * $TICK_US / $requests" | bc -l)" "$p99"
    done
    kill "$server_pid" && wait "$server_pid" 2>/dev/null || true
    server_pid=""
    rm -rf "$data_dir"
    data_dir=""
}

echo "== server on core $SERVER_CPU, wrk on core $LOAD_CPU, $CONNECTIONS connections, ${DURATION}s per run"
for _ in $(seq "$ROUNDS"); do
    run "$BEFORE" before
    run "$AFTER" after
done
