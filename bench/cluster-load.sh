#!/usr/bin/env bash
# The shared store under load: portos on SQLite against portos on PostgreSQL
# (one server each), then one, two and three replicas on one PostgreSQL
# database, in one sitting, driven by wrk on loopback.
#
#   bench/cluster-load.sh
#   DURATION=20 CONNECTIONS=64 bench/cluster-load.sh
#
# Prerequisites: the pinned Rust toolchain, wrk, taskset, curl, and Debian's
# PostgreSQL server (apt-get install -y wrk postgresql); at least 2 cores.
# Run as root, the PostgreSQL server runs as the `postgres` user (runuser).
# Nothing here is a test: it prints figures and fails only when something
# does not work (a build, a server that does not start, a refused request).
#
# What it measures, each variant a WARMUP-second warm-up (discarded) and a
# DURATION-second run:
#   read   POST /api/cos/tools/call of time.now with a new requestId each
#          time (on PostgreSQL: the claim commits, then the kept result);
#   write  POST /api/cos/tools/call of brain.capture with a new requestId
#          each time, with a session cookie (a UI write needs one): the
#          capture, its ledger row and on PostgreSQL the claim and the kept
#          result, one transaction.
# Then the same two calls on `pg-peer` (bench/pg-peer: axum, tokio-postgres
# with 8 pooled connections, one INSERT … ON CONFLICT DO NOTHING RETURNING
# per read, one transaction with the capture for a write, read back on a
# conflict), the simplest correct design doing the same work.
# The servers and the database share core SERVER_CPU (every replica and
# every PostgreSQL process is pinned there); wrk runs on LOAD_CPU, one wrk
# per replica at once, CONNECTIONS connections spread over them. Printed:
# requests/s (summed over replicas), p99 latency (the worst replica's), and
# CPU per request of the servers, of the database, and both together, from
# /proc/PID/stat of every server and PostgreSQL process.
#
# Knobs: DURATION=10 WARMUP=3 CONNECTIONS=32 SERVER_CPU=0 LOAD_CPU=1
# PG_CPU=SERVER_CPU (PG_CPU=0 SERVER_CPU=1 LOAD_CPU=1 gives the database a
# core of its own, the servers sharing the other with wrk)
# BASE_PORT=18180 (servers; PostgreSQL on BASE_PORT+50) REPLICAS="1 2 3"
# PORTOS_BIN=/path/to/portos (else the release build of the workspace),
# PEER_BIN=/path/to/pg-peer (else the release build of bench/),
# PG_SETTINGS="-c synchronous_commit=off" (more server settings, to see what
# a setting changes), KEEP_WORK=1 (keep the servers' and PostgreSQL's logs).
set -euo pipefail
# Every server here runs with an outbound policy that allows no destination
# (docs/security.md): a benchmark never makes one connect anywhere.
export PORTOS_OUTBOUND_ONLY=none HOMELAB_OUTBOUND_ONLY=none

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-3}"
CONNECTIONS="${CONNECTIONS:-32}"
SERVER_CPU="${SERVER_CPU:-0}"
PG_CPU="${PG_CPU:-$SERVER_CPU}"
LOAD_CPU="${LOAD_CPU:-1}"
BASE_PORT="${BASE_PORT:-18180}"
REPLICAS="${REPLICAS:-1 2 3}"
PG_PORT=$((BASE_PORT + 50))
PASSWORD=bench-password

for tool in wrk taskset curl; do
    command -v "$tool" >/dev/null || { echo "cluster-load: '$tool' is missing" >&2; exit 2; }
done
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -x "$PG_BIN/initdb" ] || { echo "cluster-load: PostgreSQL is missing (apt-get install -y postgresql)" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/portos-cluster-load.XXXXXX")"
chmod 755 "$WORK"
SERVERS=()
AS_PG=()
if [ "$(id -u)" = 0 ]; then
    AS_PG=(runuser -u postgres --)
fi

die() {
    echo "cluster-load: $*" >&2
    exit 1
}

stop_servers() {
    local pid
    for pid in "${SERVERS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${SERVERS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    SERVERS=()
}

cleanup() {
    stop_servers
    "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$WORK/pg" -m immediate stop >/dev/null 2>&1 || true
    if [ -n "${KEEP_WORK:-}" ]; then
        echo "cluster-load: logs kept in $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT INT TERM

if [ -z "${PORTOS_BIN:-}" ]; then
    (cd "$ROOT" && cargo build --release --locked -p portos >&2)
    PORTOS_BIN="$ROOT/target/release/portos"
fi

if [ -z "${PEER_BIN:-}" ]; then
    (cd "$BENCH_DIR" && cargo build --release -p pg-peer >&2)
    PEER_BIN="${CARGO_TARGET_DIR:-$BENCH_DIR/target}/release/pg-peer"
fi

# PostgreSQL on PG_CPU (by default SERVER_CPU, with the servers).
mkdir -p "$WORK/pg"
[ "$(id -u)" != 0 ] || chown postgres "$WORK/pg"
"${AS_PG[@]}" "$PG_BIN/initdb" -D "$WORK/pg" -U postgres --auth=trust >/dev/null
taskset -c "$PG_CPU" "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$WORK/pg" -w -l "$WORK/pg/log" \
    -o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1 -c max_connections=200 ${PG_SETTINGS:-}" start >/dev/null
POSTMASTER="$(head -n 1 "$WORK/pg/postmaster.pid")"
PSQL=("$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres)

# ticks PID...: CPU time (clock ticks) the processes have used.
ticks() {
    local total=0 pid stat
    for pid in "$@"; do
        stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || continue
        stat="${stat##*) }"
        # shellcheck disable=SC2086
        set -- $stat
        total=$((total + ${12} + ${13}))
    done
    echo "$total"
}

# PostgreSQL's CPU so far: the postmaster and every process it started
# (finished backends' time is in the postmaster's children totals, fields
# 16 and 17 of its stat).
pg_ticks() {
    local own children stat
    own="$(ticks "$POSTMASTER" $(ps -o pid= --ppid "$POSTMASTER"))"
    stat="$(cat "/proc/$POSTMASTER/stat")"
    stat="${stat##*) }"
    # shellcheck disable=SC2086
    set -- $stat
    children=$((${14} + ${15}))
    echo $((own + children))
}

# launch NAME PORT COMMAND...: COMMAND (a server listening on PORT) pinned
# to SERVER_CPU; its URL is added to URLS once it answers.
launch() {
    local name="$1" port="$2"
    shift 2
    taskset -c "$SERVER_CPU" "$@" >"$WORK/$name.log" 2>&1 &
    SERVERS+=("$!")
    for _ in $(seq 100); do
        curl -fsS -o /dev/null "http://127.0.0.1:$port/api/system/health" 2>/dev/null && {
            URLS+=("http://127.0.0.1:$port")
            return 0
        }
        sleep 0.1
    done
    cat "$WORK/$name.log" >&2
    die "$name did not start"
}

# start_replica NAME ARGS...: a portos on the next port.
NEXT_PORT="$BASE_PORT"
URLS=()
start_replica() {
    local name="$1"
    shift
    local port="$NEXT_PORT"
    NEXT_PORT=$((NEXT_PORT + 1))
    launch "$name" "$port" env PORTOS_PASSWORD="$PASSWORD" "$PORTOS_BIN" --bind "127.0.0.1:$port" "$@"
}

# start_peer URL: the peer on the next port.
start_peer() {
    local port="$NEXT_PORT"
    NEXT_PORT=$((NEXT_PORT + 1))
    launch peer "$port" "$PEER_BIN" "127.0.0.1:$port" "$1"
}

cookie_of() {
    curl -sS -D - -o /dev/null -X POST "$1/api/auth/login" -H 'content-type: application/json' \
        -d "{\"password\":\"$PASSWORD\"}" |
        awk 'tolower($1) == "set-cookie:" { sub(/\r$/, ""); split($2, c, ";"); print c[1] }'
}

# load LABEL TOOL ARGUMENTS: warm-up, then the measured run, one wrk per
# replica in URLS at once; prints the variant's line.
load() {
    local label="$1" tool="$2" arguments="$3"
    local n=${#URLS[@]} per=$((CONNECTIONS / ${#URLS[@]}))
    [ "$per" -ge 1 ] || per=1
    local phase seconds i
    for phase in warmup run; do
        seconds="$WARMUP"
        [ "$phase" = warmup ] || seconds="$DURATION"
        local before_server before_pg
        before_server="$(ticks "${SERVERS[@]}")"
        before_pg="$(pg_ticks)"
        for i in $(seq 0 $((n - 1))); do
            WRK_HEADER="Cookie: ${COOKIES[$i]}" taskset -c "$LOAD_CPU" wrk -t1 -c"$per" -d"${seconds}s" \
                -s "$BENCH_DIR/wrk/call-fresh.lua" "${URLS[$i]}" -- /api/cos/tools/call \
                "$label-$phase-$i-$$-$RANDOM" "$tool" "$arguments" >"$WORK/wrk-$i.out" &
        done
        wait $(jobs -p | tail -n "$n")
        [ "$phase" = run ] || continue
        local server_used pg_used
        server_used=$(($(ticks "${SERVERS[@]}") - before_server))
        pg_used=$(($(pg_ticks) - before_pg))
        cat "$WORK"/wrk-*.out | grep '^RESULT' | awk -v label="$label" -v replicas="$n" \
            -v s="$server_used" -v p="$pg_used" -v tck="$(getconf CLK_TCK)" '
            function field(line, key,   re) {
                re = " " key "=[^ ]+"
                if (match(line, re)) return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
                return ""
            }
            { requests += field($0, "requests"); rps += field($0, "rps")
              if (field($0, "p99_us") + 0 > p99) p99 = field($0, "p99_us") + 0
              errors += field($0, "errors") + field($0, "status_errors") }
            END {
              us_s = 1e6 * s / tck / requests; us_p = 1e6 * p / tck / requests
              printf "%-14s %8d %10.0f %9.1f %10.1f %9.1f %9.1f %7d\n", label, replicas, rps, p99 / 1000, us_s, us_p, us_s + us_p, errors
            }'
        rm -f "$WORK"/wrk-*.out
    done
}

# run_set LABEL ARGS...: the read and write variants on the servers started.
run_set() {
    local label="$1"
    COOKIES=()
    local url
    for url in "${URLS[@]}"; do
        local cookie
        cookie="$(cookie_of "$url")"
        [ -n "$cookie" ] || die "no session cookie from $url"
        COOKIES+=("$cookie")
    done
    load "$label-read" time.now '{}'
    load "$label-write" brain.capture '{"text":"a thought to keep"}'
}

echo "# $(nproc) cores, servers on core $SERVER_CPU, PostgreSQL on core $PG_CPU, wrk on core $LOAD_CPU; $CONNECTIONS connections; ${DURATION}s runs"
echo "# $("$PG_BIN/postgres" --version) ${PG_SETTINGS:-}; portos: $PORTOS_BIN"
printf "%-14s %8s %10s %9s %10s %9s %9s %7s\n" variant replicas "req/s" "p99 ms" "server us" "db us" "total us" errors

start_replica sqlite --data-dir "$WORK/sqlite"
run_set sqlite
stop_servers
URLS=()

for count in $REPLICAS; do
    database="bench_$count"
    "${PSQL[@]}" -c "CREATE DATABASE $database" >/dev/null
    url="postgres://postgres@127.0.0.1:$PG_PORT/$database"
    for i in $(seq 1 "$count"); do
        start_replica "pg-$count-$i" --database-url "$url" --data-dir "$WORK/pg-data-$count-$i"
    done
    run_set postgres
    stop_servers
    URLS=()
done

"${PSQL[@]}" -c "CREATE DATABASE bench_peer" >/dev/null
start_peer "postgres://postgres@127.0.0.1:$PG_PORT/bench_peer"
COOKIES=("peer=none")
load peer-read time.now '{}'
load peer-write brain.capture '{"text":"a thought to keep"}'
stop_servers
URLS=()
