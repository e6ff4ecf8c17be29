#!/usr/bin/env bash
# HTTP load benchmark: portos against a bare axum server, on loopback, driven
# by two independent load generators in the same sitting.
#
#   bench/http-load.sh              # throughput tables, then RSS over 1,000,000 calls
#   MODE=throughput bench/http-load.sh
#   MODE=matrix bench/http-load.sh  # the throughput variants under each scenario
#   MODE=rss bench/http-load.sh
#   MODE=mcp bench/http-load.sh     # Agent Tools MCP tools/call vs bare and rmcp
#   MODE=jobs bench/http-load.sh    # a long-running tool's job vs a plain call (homelab)
#
# Prerequisites: the pinned Rust toolchain (rust-toolchain.toml), `wrk`
# (Debian: `apt-get install -y wrk`), `taskset` (util-linux), `curl`, and at
# least 2 cores. Nothing here is a test: it prints figures, it never fails on
# them (it exits non-zero only when something does not work: a build, a server
# that does not start, a wrong status code, socket errors).
#
# What it does, in one run:
#  1. builds `portos` (release, the root workspace), `bare` and `loadgen`
#     (release, the benchmark-only workspace in bench/, never built by CI);
#  2. throughput: starts both servers pinned to core SERVER_CPU and drives
#     them from core LOAD_CPU with each generator of GENERATORS in turn (wrk,
#     then loadgen: bench/loadgen, raw HTTP/1.1 on one tokio thread, no code
#     shared with wrk), one variant after the other, each a WARMUP-second
#     warm-up (discarded) then a DURATION-second measurement:
#       bare POST      POST /call: the call envelope parsed into a typed struct,
#                      a typed result envelope of portos's shape answered
#       portos fresh   POST /api/cos/tools/call, time.now, a new requestId each
#       portos replay  the same call with one constant requestId (idempotent replay)
#       bare GET       GET /tools with the matching If-None-Match: a 304
#       portos 304     GET /api/cos/tools with If-None-Match = its ETag
#     and prints requests/s, p50/p99 latency, the CPU used by the server (from
#     /proc/PID/stat, also per request) and by the generator, and the ratios
#     portos/bare by requests/s and by server CPU per request (targets: fresh
#     call >= 0.8, 304 >= 0.9);
#  3. RSS: a new portos, RSS_CALLS distinct fresh calls in chunks of about
#     RSS_STEP requests, VmRSS and VmHWM (/proc/PID/status) after each chunk.
#
# Knobs (environment): DURATION=10 WARMUP=2 CONNECTIONS=32 THREADS=1 (wrk's)
# GENERATORS="wrk loadgen" SERVER_CPU=0 LOAD_CPU=1 PORTOS_PORT=18080
# BARE_PORT=18081 RSS_CALLS=1000000 RSS_STEP=100000, PORTOS_BIN=/path/to/portos
# (use that binary instead of building the workspace's), NO_BUILD=1 (use the
# binaries already built), NICE=-10 (run the servers and the generators at
# that nice level, so that a compile running beside them takes less of their
# cores; negative values need root).
# The scenario, for both generators alike: KEEPALIVE=0 (Connection: close, a
# new TCP connection per request), PAD=N (N bytes of JSON whitespace in each
# POST body), AUTH=1 (an instance password, a login, and its session cookie
# on every request, to bare too), CONTENT_TYPE='application/json;
# charset=utf-8'. MODE=matrix runs every scenario of SCENARIOS (default: base
# c1 c8 c64 c256 close pad4096 charset auth real; cN is N connections, real
# is auth with the charset Content-Type) and prints one line of ratios per
# scenario and generator.
#
# MODE=mcp (not part of `all`): portos's POST /api/agent-context/mcp
# (tools/call of time_now and of the context tool context_profile, Agent
# Tools enabled with readPortos) side by side with bare POST /mcp (the same
# JSON-RPC request and result, typed, nothing else), bare POST /call and
# rmcp-time (the official Rust MCP SDK, rmcp 3.x, stateless Streamable HTTP
# with JSON responses, the same time_now; bench/rmcp-time) on port RMCP_PORT
# (default 18082), driven by wrk, at both revisions. Targets: portos MCP
# >= 0.7x bare MCP and >= 2x rmcp.
#
# MODE=jobs (not part of `all`): the homelab example server (release build
# of tests/homelab) on port HOMELAB_PORT (default 18083), no hosts, driven by
# wrk with a new requestId per request: POST /api/cos/tools/call of
# lab.hosts.list (a plain read: 200 with its result) against
# lab.hosts.probe (long-running: 202 with a durable job, whose record and
# first event are committed before the answer, then run, completed and
# committed again in the background). The server's CPU is read once the
# server is idle again after each run, so the jobs' background work is in
# the CPU per request.
#
# bench/instructions.sh gives the same variants as instructions per request
# (callgrind), which the machine's noise does not move.
#
# Every process it starts is stopped on exit (also on Ctrl-C); the temporary
# data directory is removed. Traffic goes to 127.0.0.1 only.
set -euo pipefail
# Every server here runs with an outbound policy that allows no destination
# (docs/security.md): a benchmark never makes one connect anywhere.
export PORTOS_OUTBOUND_ONLY=none HOMELAB_OUTBOUND_ONLY=none

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"

MODE="${MODE:-all}"
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-2}"
CONNECTIONS="${CONNECTIONS:-32}"
THREADS="${THREADS:-1}"
# Which load generators drive the throughput variants, one after the other
# against the same two servers: wrk (Debian) and loadgen (bench/loadgen).
GENERATORS="${GENERATORS:-wrk loadgen}"
# The scenario (MODE=throughput; MODE=matrix sets them per scenario):
# KEEPALIVE=0 sends Connection: close (a new TCP connection per request),
# PAD=N adds N bytes of JSON whitespace to each POST body, AUTH=1 sets an
# instance password, logs in and sends the session cookie on every request
# (to bare as well), CONTENT_TYPE is the POSTs' Content-Type.
KEEPALIVE="${KEEPALIVE:-1}"
PAD="${PAD:-0}"
AUTH="${AUTH:-0}"
CONTENT_TYPE="${CONTENT_TYPE:-application/json}"
BASE_CONNECTIONS="$CONNECTIONS"
SCENARIOS="${SCENARIOS:-base c1 c8 c64 c256 close pad4096 charset auth real}"
SERVER_CPU="${SERVER_CPU:-0}"
LOAD_CPU="${LOAD_CPU:-1}"
PORTOS_PORT="${PORTOS_PORT:-18080}"
BARE_PORT="${BARE_PORT:-18081}"
RMCP_PORT="${RMCP_PORT:-18082}"
HOMELAB_PORT="${HOMELAB_PORT:-18083}"
RSS_CALLS="${RSS_CALLS:-1000000}"
RSS_STEP="${RSS_STEP:-100000}"
PRIO=()
if [ -n "${NICE:-}" ]; then
    PRIO=(nice -n "$NICE")
fi
# Bounds for the RSS phase: no chunk longer than this, and give up past this.
RSS_CHUNK_MAX_SECONDS=60
RSS_MAX_SECONDS=1200

case "$MODE" in all | throughput | matrix | rss | mcp | jobs) ;; *)
    echo "MODE must be all, throughput, matrix, rss, mcp or jobs (got '$MODE')" >&2
    exit 2
    ;;
esac

for tool in wrk taskset curl; do
    if ! command -v "$tool" >/dev/null; then
        echo "http-load: '$tool' is missing (Debian: apt-get install -y wrk util-linux curl)" >&2
        exit 2
    fi
done
if [ "$(nproc --all)" -lt 2 ]; then
    echo "http-load: needs 2 cores (server and load generator on different ones)" >&2
    exit 2
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/portos-http-load.XXXXXX")"
SERVER_PIDS=()

# stop_server PID: SIGTERM (both servers stop gracefully on it), SIGKILL
# after 5 s.
stop_server() {
    local pid="$1"
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
}

stop_servers() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        stop_server "$pid"
    done
    SERVER_PIDS=()
}

cleanup() {
    stop_servers
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
    echo "http-load: $*" >&2
    exit 1
}

# ---------------------------------------------------------------- build ----

TARGET_DIR="${CARGO_TARGET_DIR:-}"
if [ -z "${PORTOS_BIN:-}" ]; then
    if [ -z "${NO_BUILD:-}" ]; then
        echo "== building portos (release)" >&2
        (cd "$ROOT" && cargo build --release --quiet -p portos) || die "portos build failed"
        if [ "$MODE" = jobs ]; then
            (cd "$ROOT" && cargo build --release --quiet -p homelab-server) || die "homelab build failed"
        fi
    fi
    PORTOS_BIN="${TARGET_DIR:-$ROOT/target}/release/portos"
    # The commit, and whether the sources (not docs/ or bench/) differ from it.
    PORTOS_SOURCE="$(cd "$ROOT" && {
        commit="$(git rev-parse --short HEAD 2>/dev/null)" || commit=unknown
        if git diff --quiet HEAD -- . ':(exclude)docs' ':(exclude)bench' 2>/dev/null; then
            echo "commit $commit"
        else
            echo "commit $commit with uncommitted changes"
        fi
    })"
else
    PORTOS_SOURCE="prebuilt ($PORTOS_BIN)"
fi
if [ -z "${NO_BUILD:-}" ]; then
    echo "== building bare, loadgen and rmcp-time (release, bench/ workspace)" >&2
    cargo build --release --quiet --manifest-path "$BENCH_DIR/Cargo.toml" || die "bench/ build (bare, loadgen, rmcp-time) failed"
fi
BARE_BIN="${TARGET_DIR:-$BENCH_DIR/target}/release/bare"
LOADGEN_BIN="${TARGET_DIR:-$BENCH_DIR/target}/release/loadgen"
RMCP_BIN="${TARGET_DIR:-$BENCH_DIR/target}/release/rmcp-time"
HOMELAB_BIN="${HOMELAB_BIN:-$(dirname "$PORTOS_BIN")/homelab}"
[ -x "$PORTOS_BIN" ] || die "no portos binary at $PORTOS_BIN"
[ -x "$BARE_BIN" ] || die "no bare binary at $BARE_BIN"
case " $GENERATORS " in *" loadgen "*) [ -x "$LOADGEN_BIN" ] || die "no loadgen binary at $LOADGEN_BIN" ;; esac

# -------------------------------------------------------------- helpers ----

# start_server NAME READY_URL COMMAND...: run COMMAND on SERVER_CPU, wait until
# READY_URL answers 2xx (10 s at most); its pid goes to PID_<NAME>.
start_server() {
    local name="$1" ready="$2"
    shift 2
    "${PRIO[@]}" taskset -c "$SERVER_CPU" "$@" >"$WORK/$name.log" 2>&1 &
    local pid=$!
    SERVER_PIDS+=("$pid")
    printf -v "PID_${name//-/_}" '%s' "$pid"
    for _ in $(seq 100); do
        if curl -fsS -o /dev/null "$ready" 2>/dev/null; then
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || {
            cat "$WORK/$name.log" >&2
            die "$name exited at start-up"
        }
        sleep 0.1
    done
    die "$name did not answer $ready within 10 s"
}

# server_ticks PID: CPU time (clock ticks, all threads) the process has used.
server_ticks() {
    # Fields after the command name (which ends with the last ')'): utime is
    # the 12th, stime the 13th.
    local stat
    stat="$(cat "/proc/$1/stat")"
    stat="${stat##*) }"
    # shellcheck disable=SC2086
    set -- $stat
    echo $((${12} + ${13}))
}

# rss_line PID: "VmRSS_MiB VmHWM_MiB threads".
rss_line() {
    awk '/^VmRSS:/ { rss = $2 } /^VmHWM:/ { hwm = $2 } /^Threads:/ { th = $2 }
         END { printf "%.1f %.1f %d", rss / 1024, hwm / 1024, th }' "/proc/$1/status"
}

# The value of KEY in a "LABEL key=value key=value" results line, for the
# awk programs that print the tables.
AWK_FIELD='
    function field(line, key,   re) {
        re = " " key "=[^ ]+"
        if (match(line, re)) return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
        return ""
    }'
CLK_TCK="$(getconf CLK_TCK)"
RESULTS="$WORK/results"
: >"$RESULTS"

# wrk_run SECONDS SCRIPT URL ARGS...: one wrk run on LOAD_CPU; prints its
# RESULT line followed by "load_cpu=<percent of one core>".
wrk_run() {
    local seconds="$1" script="$2" url="$3"
    shift 3
    local out="$WORK/wrk.out" times="$WORK/wrk.times"
    local TIMEFORMAT='%U %S %R'
    { time "${PRIO[@]}" taskset -c "$LOAD_CPU" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${seconds}s" \
        -s "$BENCH_DIR/wrk/$script" "$url" -- "$@" >"$out"; } 2>"$times"
    local line
    line="$(grep '^RESULT ' "$out")" || {
        cat "$out" >&2
        die "wrk printed no result"
    }
    printf '%s load_cpu=%s\n' "$line" \
        "$(tail -n 1 "$times" | awk '{ printf "%.0f", 100 * ($1 + $2) / $3 }')"
}

# measure_wrk LABEL PID SCRIPT URL ARGS...: warm-up, then the measured wrk
# run against the server PID (MODE=mcp); appends "LABEL requests=... rps=...
# ... load_cpu=... server_cpu=..." to RESULTS.
measure_wrk() {
    local label="$1" pid="$2" script="$3" url="$4"
    shift 4
    local args=("$@")
    if [ "$script" = call-fresh.lua ]; then
        args=("$1" "$2-warmup" "${@:3}")
    fi
    wrk_run "$WARMUP" "$script" "$url" "${args[@]}" >/dev/null
    [ -z "${SETTLE:-}" ] || settle "$pid"
    if [ "$script" = call-fresh.lua ]; then
        args=("$1" "$2-run" "${@:3}")
    fi
    local before after line
    before="$(server_ticks "$pid")"
    line="$(wrk_run "$DURATION" "$script" "$url" "${args[@]}")"
    [ -z "${SETTLE:-}" ] || settle "$pid"
    after="$(server_ticks "$pid")"
    local seconds
    seconds="$(sed -E 's/.* seconds=([0-9.]+).*/\1/' <<<"$line")"
    local cpu
    cpu="$(awk -v d=$((after - before)) -v t="$CLK_TCK" -v s="$seconds" 'BEGIN { printf "%.0f", 100 * d / t / s }')"
    grep -q ' errors=0 status_errors=0 ' <<<"$line " || die "$label: errors during the run: $line"
    local requests per_request
    requests="$(sed -E 's/.* requests=([0-9]+).*/\1/' <<<"$line")"
    per_request="$(awk -v d=$((after - before)) -v t="$CLK_TCK" -v n="$requests" 'BEGIN { printf "%.1f", 1e6 * d / t / n }')"
    echo "$label ${line#RESULT } server_cpu=$cpu server_us_per_request=$per_request" >>"$RESULTS"
    echo "   $label: ${line#RESULT } server_cpu=$cpu server_us_per_request=$per_request" >&2
}

# settle PID: wait until the server has used no CPU for half a second (the
# background work the measured requests left), 60 s at most.
settle() {
    local last now
    last="$(server_ticks "$1")"
    for _ in $(seq 120); do
        sleep 0.5
        now="$(server_ticks "$1")"
        [ "$now" != "$last" ] || return 0
        last="$now"
    done
    die "the server did not go idle within 60 s"
}

# expect_status WANT CURL_ARGS...: one request with curl, check its status.
expect_status() {
    local want="$1"
    shift
    local got
    got="$(curl -sS -o "$WORK/body" -w '%{http_code}' "$@")"
    [ "$got" = "$want" ] || {
        cat "$WORK/body" >&2
        die "expected $want, got $got: curl $*"
    }
}

etag_of() {
    curl -sS -D - -o /dev/null "$1" | awk 'tolower($1) == "etag:" { sub(/\r$/, ""); print $2 }'
}

machine_header() {
    echo "# portos HTTP load benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc --all) cores;" \
        "server on core $SERVER_CPU, wrk on core $LOAD_CPU"
    echo "# portos: $PORTOS_SOURCE; $(rustc --version 2>/dev/null || echo 'rustc ?'); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
    echo "# generators: $GENERATORS (wrk $THREADS thread(s), loadgen 1); $CONNECTIONS connections, ${WARMUP}s warm-up + ${DURATION}s per variant; nice ${NICE:-0}"
    echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# ----------------------------------------------------------- throughput ----

# gen_run GENERATOR SECONDS KIND URL PATH ARG: one run of wrk or loadgen on
# LOAD_CPU. KIND is fresh (POST, a new requestId each request, ARG the
# prefix), replay (POST, requestId ARG) or get (GET, If-None-Match: ARG).
# The scenario knobs (CONNECTIONS, KEEPALIVE, PAD, CONTENT_TYPE and the
# session cookie of AUTH=1) apply to both generators alike. Prints the
# RESULT line followed by "load_cpu=<percent of one core>".
gen_run() {
    local generator="$1" seconds="$2" kind="$3" url="$4" path="$5" arg="$6"
    local out="$WORK/gen.out" times="$WORK/gen.times"
    local TIMEFORMAT='%U %S %R'
    local command
    if [ "$generator" = wrk ]; then
        local script
        case "$kind" in
            fresh) script=call-fresh.lua ;;
            replay) script=call-replay.lua ;;
            get) script=get-304.lua ;;
        esac
        command=(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${seconds}s" -s "$BENCH_DIR/wrk/$script" "$url" -- "$path" "$arg")
    else
        command=("$LOADGEN_BIN" "$url" "$path" --mode "$kind" --connections "$CONNECTIONS" --seconds "$seconds"
            --content-type "$CONTENT_TYPE" --pad "$PAD")
        case "$kind" in
            fresh) command+=(--prefix "$arg") ;;
            replay) command+=(--request-id "$arg") ;;
            get) command+=(--header "If-None-Match: $arg") ;;
        esac
        [ -z "$EXTRA_HEADER" ] || command+=(--header "$EXTRA_HEADER")
        [ "$KEEPALIVE" = 1 ] || command+=(--close)
    fi
    { time WRK_CONTENT_TYPE="$CONTENT_TYPE" WRK_PAD="$PAD" WRK_HEADER="$EXTRA_HEADER" WRK_CLOSE=$((1 - KEEPALIVE)) \
        "${PRIO[@]}" taskset -c "$LOAD_CPU" "${command[@]}" >"$out" 2>"$WORK/gen.err"; } 2>"$times"
    local line
    line="$(grep '^RESULT ' "$out")" || {
        cat "$out" "$WORK/gen.err" >&2
        die "$generator printed no result"
    }
    printf '%s load_cpu=%s\n' "$line" \
        "$(tail -n 1 "$times" | awk '{ printf "%.0f", 100 * ($1 + $2) / $3 }')"
}

# measure GENERATOR LABEL PID KIND URL PATH ARG: warm-up, then the measured
# run against the server PID; appends "GENERATOR LABEL requests=... rps=...
# ... load_cpu=... server_cpu=..." to RESULTS.
measure() {
    local generator="$1" label="$2" pid="$3" kind="$4" url="$5" path="$6" arg="$7"
    local warm_arg="$arg" run_arg="$arg"
    if [ "$kind" = fresh ]; then
        warm_arg="$arg-$generator-warmup"
        run_arg="$arg-$generator-run"
    fi
    gen_run "$generator" "$WARMUP" "$kind" "$url" "$path" "$warm_arg" >/dev/null
    local before after line
    before="$(server_ticks "$pid")"
    line="$(gen_run "$generator" "$DURATION" "$kind" "$url" "$path" "$run_arg")"
    after="$(server_ticks "$pid")"
    local seconds
    seconds="$(sed -E 's/.* seconds=([0-9.]+).*/\1/' <<<"$line")"
    local cpu
    cpu="$(awk -v d=$((after - before)) -v t="$CLK_TCK" -v s="$seconds" 'BEGIN { printf "%.1f", 100 * d / t / s }')"
    grep -q ' errors=0 status_errors=0 ' <<<"$line " || {
        cat "$WORK/gen.err" >&2
        die "$label ($generator): errors during the run: $line"
    }
    echo "$generator $label ${line#RESULT } server_cpu=$cpu" >>"$RESULTS"
    echo "   $generator $label: ${line#RESULT } server_cpu=$cpu" >&2
}

# The figures of RESULTS as tables: one per generator, then the ratios.
throughput_tables() {
    awk -v tck="$CLK_TCK" "$AWK_FIELD"'
        {
            g = $1; k = g SUBSEP $2
            if (!(g in seen)) { seen[g] = 1; gens[++ngen] = g }
            order[g, ++count[g]] = $2
            rps[k] = field($0, "rps"); p50[k] = field($0, "p50_us") / 1000; p99[k] = field($0, "p99_us") / 1000
            scpu[k] = field($0, "server_cpu"); lcpu[k] = field($0, "load_cpu")
            # CPU time the server spent per request, in microseconds: less
            # sensitive than requests/s to CPU taken by other processes.
            cost[k] = scpu[k] * 1e4 / rps[k]
        }
        END {
            names["portos_fresh"] = "portos POST call, fresh requestId"
            names["portos_replay"] = "portos POST call, replayed requestId"
            names["portos_304"] = "portos GET catalog, If-None-Match: 304"
            names["bare_post"] = "bare POST /call (typed envelope in, typed result out)"
            names["bare_get"] = "bare GET /tools, If-None-Match: 304"
            for (n = 1; n <= ngen; n++) {
                g = gens[n]
                printf "\n%s:\n\n| variant | requests/s | p50 ms | p99 ms | server CPU %% | server CPU µs/request | %s CPU %% |\n", g, g
                printf "|---|---:|---:|---:|---:|---:|---:|\n"
                for (i = 1; i <= count[g]; i++) {
                    k = g SUBSEP order[g, i]
                    printf "| %s | %.0f | %.2f | %.2f | %.0f | %.2f | %d |\n", names[order[g, i]], rps[k], p50[k], p99[k], scpu[k], cost[k], lcpu[k]
                }
            }
            printf "\n| portos / bare | generator | requests/s ratio | CPU-per-request ratio (bare/portos) | target | met (both) |\n|---|---|---:|---:|---:|---|\n"
            for (n = 1; n <= ngen; n++) {
                ratio(gens[n], "fresh call / bare POST", "portos_fresh", "bare_post", 0.8)
                ratio(gens[n], "replayed call / bare POST", "portos_replay", "bare_post", 0.8)
                ratio(gens[n], "304 / bare 304", "portos_304", "bare_get", 0.9)
            }
            if (note) print "\n* the generator used >= 95 % of its core on that bare variant: the bare figure is then a lower bound (the generator, not bare, was the limit) and the requests/s ratio an upper bound."
        }
        function ratio(g, name, a, b, target,   r, c, mark) {
            if (!((g SUBSEP a) in rps) || !((g SUBSEP b) in rps)) return
            r = rps[g SUBSEP a] / rps[g SUBSEP b]
            c = cost[g SUBSEP b] / cost[g SUBSEP a]
            mark = ""
            if (lcpu[g SUBSEP b] >= 95) { mark = " *"; note = 1 }
            printf "| %s | %s | %.2f%s | %.2f | %.1f | %s |\n", name, g, r, mark, c, target, ((r >= target && c >= target) ? "yes" : "no")
        }
    ' "$RESULTS"
}

# One line per generator for MODE=matrix: the scenario, then each ratio as
# requests/s and CPU per request, and the generator's CPU on bare POST.
throughput_summary() {
    local scenario="$1"
    awk -v scenario="$scenario" "$AWK_FIELD"'
        {
            g = $1; k = g SUBSEP $2
            if (!(g in seen)) { seen[g] = 1; gens[++ngen] = g }
            rps[k] = field($0, "rps"); lcpu[k] = field($0, "load_cpu")
            cost[k] = field($0, "server_cpu") * 1e4 / rps[k]
        }
        END {
            for (n = 1; n <= ngen; n++) {
                g = gens[n]
                printf "| %s | %s | %.0f | %.2f | %.2f / %.2f | %.2f / %.2f | %.2f | %.2f | %.2f / %.2f | %d / %d |\n", scenario, g,
                    rps[g SUBSEP "bare_post"], cost[g SUBSEP "bare_post"],
                    rps[g SUBSEP "portos_fresh"] / rps[g SUBSEP "bare_post"], cost[g SUBSEP "bare_post"] / cost[g SUBSEP "portos_fresh"],
                    rps[g SUBSEP "portos_replay"] / rps[g SUBSEP "bare_post"], cost[g SUBSEP "bare_post"] / cost[g SUBSEP "portos_replay"],
                    cost[g SUBSEP "portos_fresh"], cost[g SUBSEP "bare_get"],
                    rps[g SUBSEP "portos_304"] / rps[g SUBSEP "bare_get"], cost[g SUBSEP "bare_get"] / cost[g SUBSEP "portos_304"],
                    lcpu[g SUBSEP "bare_post"], lcpu[g SUBSEP "bare_get"]
            }
        }
    ' "$RESULTS"
}

# Both servers run at once on SERVER_CPU (the idle one sleeps in epoll), so
# each portos variant is measured right after the bare variant it is compared
# with, and slow drift in the machine's load hits both alike.
throughput() {
    local stamp
    stamp="$$-$(date +%s)-$RANDOM"
    local portos="http://127.0.0.1:$PORTOS_PORT"
    local bare="http://127.0.0.1:$BARE_PORT"
    : >"$RESULTS"
    EXTRA_HEADER=""

    echo "== portos and bare on core $SERVER_CPU, load on core $LOAD_CPU; $CONNECTIONS connections, keep-alive $KEEPALIVE, pad $PAD, auth $AUTH, content-type '$CONTENT_TYPE'" >&2
    rm -rf "$WORK/portos-data"
    if [ "$AUTH" = 1 ]; then
        PORTOS_PASSWORD=bench-password start_server portos "$portos/api/system/health" \
            "$PORTOS_BIN" --bind "127.0.0.1:$PORTOS_PORT" --data-dir "$WORK/portos-data"
        local cookie
        cookie="$(curl -sS -D - -o /dev/null -X POST "$portos/api/auth/login" -H 'content-type: application/json' \
            -d '{"password":"bench-password"}' | awk 'tolower($1) == "set-cookie:" { sub(/\r$/, ""); split($2, c, ";"); print c[1] }')"
        [ -n "$cookie" ] || die "login gave no session cookie"
        EXTRA_HEADER="Cookie: $cookie"
    else
        start_server portos "$portos/api/system/health" \
            "$PORTOS_BIN" --bind "127.0.0.1:$PORTOS_PORT" --data-dir "$WORK/portos-data"
    fi
    start_server bare "$bare/tools" "$BARE_BIN" "127.0.0.1:$BARE_PORT"
    local auth_args=()
    [ -z "$EXTRA_HEADER" ] || auth_args=(-H "$EXTRA_HEADER")

    # Each endpoint answers what the run expects before it is loaded.
    expect_status 200 -X POST "$portos/api/cos/tools/call" -H "content-type: $CONTENT_TYPE" "${auth_args[@]}" \
        -d "{\"requestId\":\"check-$stamp\",\"name\":\"time.now\"}"
    grep -q '"completed"' "$WORK/body" || die "time.now did not complete: $(cat "$WORK/body")"
    if [ "$AUTH" = 1 ]; then
        expect_status 200 "${auth_args[@]}" "$portos/api/auth/whoami"
        grep -q '"authenticated":true' "$WORK/body" || die "the session cookie does not authenticate: $(cat "$WORK/body")"
    fi
    local replay_id="replay-$stamp"
    expect_status 200 -X POST "$portos/api/cos/tools/call" -H "content-type: $CONTENT_TYPE" "${auth_args[@]}" \
        -d "{\"requestId\":\"$replay_id\",\"name\":\"time.now\"}"
    local etag bare_etag
    etag="$(curl -sS -D - -o /dev/null "${auth_args[@]}" "$portos/api/cos/tools" | awk 'tolower($1) == "etag:" { sub(/\r$/, ""); print $2 }')"
    [ -n "$etag" ] || die "portos sent no ETag"
    expect_status 304 -H "If-None-Match: $etag" "${auth_args[@]}" "$portos/api/cos/tools"
    expect_status 200 -X POST "$bare/call" -H "content-type: $CONTENT_TYPE" \
        -d "{\"requestId\":\"check-$stamp\",\"name\":\"time.now\"}"
    bare_etag="$(etag_of "$bare/tools")"
    expect_status 304 -H "If-None-Match: $bare_etag" "$bare/tools"

    local generator
    # shellcheck disable=SC2154 # PID_portos and PID_bare are set by start_server
    for generator in $GENERATORS; do
        measure "$generator" bare_post "$PID_bare" fresh "$bare" /call "bare-$stamp"
        measure "$generator" portos_fresh "$PID_portos" fresh "$portos" /api/cos/tools/call "fresh-$stamp"
        measure "$generator" portos_replay "$PID_portos" replay "$portos" /api/cos/tools/call "$replay_id"
        measure "$generator" bare_get "$PID_bare" get "$bare" /tools "$bare_etag"
        measure "$generator" portos_304 "$PID_portos" get "$portos" /api/cos/tools "$etag"
    done
    stop_servers
}

# MODE=matrix: the throughput variants under each scenario of SCENARIOS, with
# every generator of GENERATORS, one line each.
matrix() {
    local summary="$WORK/summary" scenario
    : >"$summary"
    for scenario in $SCENARIOS; do
        CONNECTIONS="$BASE_CONNECTIONS" KEEPALIVE=1 PAD=0 AUTH=0 CONTENT_TYPE=application/json
        case "$scenario" in
            c[0-9]*) CONNECTIONS="${scenario#c}" ;;
            close) KEEPALIVE=0 ;;
            pad[0-9]*) PAD="${scenario#pad}" ;;
            auth) AUTH=1 ;;
            charset) CONTENT_TYPE='application/json; charset=utf-8' ;;
            real) AUTH=1 CONTENT_TYPE='application/json; charset=utf-8' ;;
            base) ;;
            *) die "unknown scenario $scenario (base, cN, close, padN, auth, charset, real)" ;;
        esac
        throughput
        throughput_summary "$scenario" | tee -a "$summary" >&2
    done
    echo
    echo "| scenario | generator | bare POST req/s | bare POST µs/req | fresh / bare (req/s / CPU) | replay / bare (req/s / CPU) | portos fresh µs/req | bare 304 µs/req | 304 / bare (req/s / CPU) | generator CPU % on bare POST / GET |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    cat "$summary"
}

# ------------------------------------------------------------------ mcp ----

mcp() {
    local stamp
    stamp="$$-$(date +%s)"
    local portos="http://127.0.0.1:$PORTOS_PORT"
    local bare="http://127.0.0.1:$BARE_PORT"
    local rmcp="http://127.0.0.1:$RMCP_PORT"
    [ -x "$RMCP_BIN" ] || die "no rmcp-time binary at $RMCP_BIN"
    echo "== portos, bare and rmcp-time on core $SERVER_CPU, wrk on core $LOAD_CPU" >&2
    start_server portos "$portos/api/system/health" \
        "$PORTOS_BIN" --bind "127.0.0.1:$PORTOS_PORT" --data-dir "$WORK/portos-mcp-data"
    start_server bare "$bare/tools" "$BARE_BIN" "127.0.0.1:$BARE_PORT"
    start_server rmcp "$rmcp/health" "$RMCP_BIN" "127.0.0.1:$RMCP_PORT"

    expect_status 200 -X PUT "$portos/api/settings/agent-context" -H 'content-type: application/json' \
        -d '{"enabled":true,"actions":{"readPortos":true}}'
    local call accept='accept: application/json, text/event-stream'
    for tool in time_now context_profile; do
        call="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"$tool\",\"arguments\":{}}}"
        expect_status 200 -X POST "$portos/api/agent-context/mcp" -H 'content-type: application/json' -H "$accept" -d "$call"
        grep -q '"structuredContent"' "$WORK/body" || die "portos $tool: $(cat "$WORK/body")"
    done
    call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"time_now","arguments":{}}}'
    expect_status 200 -X POST "$rmcp/mcp" -H 'content-type: application/json' -H "$accept" \
        -H 'mcp-protocol-version: 2025-11-25' -d "$call"
    grep -q '"structuredContent"' "$WORK/body" || die "rmcp-time: $(cat "$WORK/body")"
    expect_status 200 -X POST "$bare/mcp" -H 'content-type: application/json' -H "$accept" -d "$call"
    grep -q '"structuredContent"' "$WORK/body" || die "bare /mcp: $(cat "$WORK/body")"
    # The 2026-07-28 era: per-request `_meta` and the mirrored headers.
    local modern='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
    call="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"time_now\",\"arguments\":{},$modern}}"
    local url
    for url in "$portos/api/agent-context/mcp" "$rmcp/mcp" "$bare/mcp"; do
        expect_status 200 -X POST "$url" -H 'content-type: application/json' -H "$accept" \
            -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: time_now' -d "$call"
        grep -q '"resultType":"complete"' "$WORK/body" || die "2026-07-28 at $url: $(cat "$WORK/body")"
    done

    # shellcheck disable=SC2154 # set by start_server
    {
        measure_wrk bare_post "$PID_bare" call-fresh.lua "$bare" /call "bare-$stamp"
        measure_wrk bare_mcp "$PID_bare" mcp-call.lua "$bare" /mcp time_now
        measure_wrk bare_mcp_2026 "$PID_bare" mcp-call.lua "$bare" /mcp time_now 2026-07-28
        measure_wrk portos_http_time "$PID_portos" call-fresh.lua "$portos" /api/cos/tools/call "mcp-$stamp"
        measure_wrk portos_mcp_time "$PID_portos" mcp-call.lua "$portos" /api/agent-context/mcp time_now
        measure_wrk portos_mcp_context "$PID_portos" mcp-call.lua "$portos" /api/agent-context/mcp context_profile
        measure_wrk rmcp_time "$PID_rmcp" mcp-call.lua "$rmcp" /mcp time_now
        measure_wrk portos_mcp_time_2026 "$PID_portos" mcp-call.lua "$portos" /api/agent-context/mcp time_now 2026-07-28
        measure_wrk rmcp_time_2026 "$PID_rmcp" mcp-call.lua "$rmcp" /mcp time_now 2026-07-28
    }
    stop_servers

    echo
    awk "$AWK_FIELD"'
        {
            label[NR] = $1; rps[$1] = field($0, "rps"); p50[NR] = field($0, "p50_us") / 1000
            p99[NR] = field($0, "p99_us") / 1000; scpu[$1] = field($0, "server_cpu"); lcpu[$1] = field($0, "load_cpu")
            us[$1] = field($0, "server_us_per_request")
        }
        END {
            names["bare_post"] = "bare POST /call (JSON in, JSON out)"
            names["bare_mcp"] = "bare POST /mcp tools/call (the same JSON-RPC)"
            names["bare_mcp_2026"] = "bare POST /mcp 2026-07-28 tools/call"
            names["portos_http_time"] = "portos POST /api/cos/tools/call time.now"
            names["portos_mcp_time"] = "portos MCP tools/call time_now"
            names["portos_mcp_context"] = "portos MCP tools/call context_profile"
            names["rmcp_time"] = "rmcp 3.x stateless tools/call time_now"
            names["portos_mcp_time_2026"] = "portos MCP 2026-07-28 tools/call time_now"
            names["rmcp_time_2026"] = "rmcp 3.x 2026-07-28 tools/call time_now"
            printf "| variant | requests/s | server µs/request | p50 ms | p99 ms | server CPU %% | wrk CPU %% |\n|---|---:|---:|---:|---:|---:|---:|\n"
            for (i = 1; i <= NR; i++)
                printf "| %s | %.0f | %.1f | %.2f | %.2f | %d | %d |\n", names[label[i]], rps[label[i]], us[label[i]], p50[i], p99[i], scpu[label[i]], lcpu[label[i]]
            printf "\n| ratio | value | target | met |\n|---|---:|---:|---|\n"
            ratio("portos MCP time_now / bare MCP", "portos_mcp_time", "bare_mcp", 0.7)
            ratio("portos MCP context_profile / bare MCP", "portos_mcp_context", "bare_mcp", 0.7)
            ratio("portos MCP time_now / rmcp", "portos_mcp_time", "rmcp_time", 2.0)
            ratio("portos MCP context_profile / rmcp", "portos_mcp_context", "rmcp_time", 2.0)
            ratio("portos MCP 2026-07-28 time_now / bare MCP 2026-07-28", "portos_mcp_time_2026", "bare_mcp_2026", 0.7)
            ratio("portos MCP time_now / bare POST /call (no JSON-RPC)", "portos_mcp_time", "bare_post", 0.7)
            ratio("portos MCP 2026-07-28 time_now / rmcp 2026-07-28", "portos_mcp_time_2026", "rmcp_time_2026", 2.0)
            r = us["portos_mcp_time"] / us["portos_http_time"]
            printf "| server CPU per call, portos MCP time_now / HTTP time.now | %.2f | ≤ 1.25 | %s |\n", r, (r <= 1.25 ? "yes" : "no")
            r = us["portos_mcp_time_2026"] / us["portos_http_time"]
            printf "| server CPU per call, portos MCP 2026-07-28 time_now / HTTP time.now | %.2f | ≤ 1.25 | %s |\n", r, (r <= 1.25 ? "yes" : "no")
        }
        function ratio(name, a, b, target,   r) {
            r = rps[a] / rps[b]
            printf "| %s | %.2f | %.1f | %s |\n", name, r, target, (r >= target ? "yes" : "no")
        }
    ' "$RESULTS"
}

# ----------------------------------------------------------------- jobs ----

job_bench() {
    local stamp
    stamp="$$-$(date +%s)"
    local lab="http://127.0.0.1:$HOMELAB_PORT"
    [ -x "$HOMELAB_BIN" ] || die "no homelab binary at $HOMELAB_BIN"
    echo "== homelab on core $SERVER_CPU, wrk on core $LOAD_CPU" >&2
    start_server homelab "$lab/api/system/health" \
        "$HOMELAB_BIN" --bind "127.0.0.1:$HOMELAB_PORT" --data-dir "$WORK/homelab-data"
    local call="$lab/api/cos/tools/call"
    expect_status 200 -X POST "$call" -H 'content-type: application/json' \
        -d "{\"requestId\":\"check-list-$stamp\",\"name\":\"lab.hosts.list\"}"
    expect_status 202 -X POST "$call" -H 'content-type: application/json' \
        -d "{\"requestId\":\"check-probe-$stamp\",\"name\":\"lab.hosts.probe\",\"arguments\":{\"port\":9}}"
    # shellcheck disable=SC2154 # set by start_server
    {
        SETTLE=1 measure_wrk lab_list "$PID_homelab" call-fresh.lua "$lab" /api/cos/tools/call "list-$stamp" lab.hosts.list
        SETTLE=1 measure_wrk lab_probe_job "$PID_homelab" call-fresh.lua "$lab" /api/cos/tools/call "probe-$stamp" lab.hosts.probe '{"port":9}'
        SETTLE=1 measure_wrk lab_list_after "$PID_homelab" call-fresh.lua "$lab" /api/cos/tools/call "list2-$stamp" lab.hosts.list
    }
    # A job of the measured run ended, and completed: its requestId answers
    # the same job. (wrk builds one request before it starts sending, so
    # the first one sent is the second the script numbered.)
    expect_status 202 -X POST "$call" -H 'content-type: application/json' \
        -d "{\"requestId\":\"probe-$stamp-run-1-2\",\"name\":\"lab.hosts.probe\",\"arguments\":{\"port\":9}}"
    grep -q '"duplicate":true' "$WORK/body" && grep -q '"state":"completed"' "$WORK/body" ||
        die "a measured job did not complete: $(cat "$WORK/body")"
    stop_servers

    echo
    awk "$AWK_FIELD"'
        {
            label[NR] = $1; rps[$1] = field($0, "rps"); p50[NR] = field($0, "p50_us") / 1000
            p99[NR] = field($0, "p99_us") / 1000; per[$1] = field($0, "server_us_per_request")
            lcpu[$1] = field($0, "load_cpu")
        }
        END {
            names["lab_list"] = "homelab lab.hosts.list (plain call, 200)"
            names["lab_probe_job"] = "homelab lab.hosts.probe (a job, 202, runs after)"
            names["lab_list_after"] = "homelab lab.hosts.list again (after the jobs)"
            printf "| variant | requests/s | p50 ms | p99 ms | server CPU µs/request | wrk CPU %% |\n|---|---:|---:|---:|---:|---:|\n"
            for (i = 1; i <= NR; i++)
                printf "| %s | %.0f | %.2f | %.2f | %.1f | %d |\n", names[label[i]], rps[label[i]], p50[i], p99[i], per[label[i]], lcpu[label[i]]
            printf "\n| ratio (job / plain call) | value |\n|---|---:|\n"
            printf "| requests/s | %.2f |\n", rps["lab_probe_job"] / rps["lab_list"]
            printf "| server CPU per request | %.2f |\n", per["lab_probe_job"] / per["lab_list"]
        }
    ' "$RESULTS"
}

# ------------------------------------------------------------------ rss ----

rss() {
    local stamp
    stamp="$$-$(date +%s)"
    local portos="http://127.0.0.1:$PORTOS_PORT"
    echo "== portos on core $SERVER_CPU: RSS over $RSS_CALLS distinct calls" >&2
    start_server portos_rss "$portos/api/system/health" \
        "$PORTOS_BIN" --bind "127.0.0.1:$PORTOS_PORT" --data-dir "$WORK/portos-rss-data"
    # shellcheck disable=SC2154 # set by start_server
    local pid="$PID_portos_rss"
    expect_status 200 -X POST "$portos/api/cos/tools/call" -H 'content-type: application/json' \
        -d "{\"requestId\":\"rss-check-$stamp\",\"name\":\"time.now\"}"

    echo
    echo "| calls | VmRSS MiB | VmHWM MiB | threads | chunk requests/s |"
    echo "|---:|---:|---:|---:|---:|"
    echo "| 1 | $(rss_line "$pid" | awk '{ printf "%s | %s | %s", $1, $2, $3 }') | |"
    local total=1 chunk=0 seconds=5 started=$SECONDS
    while [ "$total" -lt "$RSS_CALLS" ]; do
        [ $((SECONDS - started)) -lt "$RSS_MAX_SECONDS" ] ||
            die "RSS phase took over $RSS_MAX_SECONDS s; stopped at $total calls"
        chunk=$((chunk + 1))
        local line count rate
        line="$(wrk_run "$seconds" call-fresh.lua "$portos" /api/cos/tools/call "rss-$stamp-$chunk")"
        grep -q ' errors=0 status_errors=0 ' <<<"$line " || die "RSS chunk $chunk: errors: $line"
        count="$(sed -E 's/.* requests=([0-9]+).*/\1/' <<<"$line")"
        rate="$(sed -E 's/.* rps=([0-9.]+).*/\1/' <<<"$line")"
        total=$((total + count))
        echo "| $total | $(rss_line "$pid" | awk '{ printf "%s | %s | %s", $1, $2, $3 }') | ${rate%.*} |"
        # Size the next chunk for about RSS_STEP requests, never far past RSS_CALLS.
        local want=$((RSS_CALLS - total < RSS_STEP ? RSS_CALLS - total : RSS_STEP))
        seconds="$(awk -v n="$want" -v r="$rate" -v m="$RSS_CHUNK_MAX_SECONDS" \
            'BEGIN { s = int(n / r + 0.999); if (s < 1) s = 1; if (s > m) s = m; print s }')"
    done
    stop_servers
}

# ----------------------------------------------------------------- main ----

machine_header
case "$MODE" in
    all)
        throughput
        throughput_tables
        rss
        ;;
    throughput)
        throughput
        throughput_tables
        ;;
    matrix) matrix ;;
    rss) rss ;;
    mcp) mcp ;;
    jobs) job_bench ;;
esac
echo
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
