#!/usr/bin/env bash
# Instructions per request in the server (callgrind), for each variant of
# bench/http-load.sh: deterministic, so it does not depend on the machine's
# noise the way requests/s and CPU time do.
#
#   bench/instructions.sh                      # every variant, bare and portos
#   VARIANTS="portos_fresh bare_post" bench/instructions.sh
#   KEEP=1 bench/instructions.sh               # keep the callgrind files (printed)
#
# Each server runs under `valgrind --tool=callgrind --instr-atstart=no`;
# loadgen sends WARM requests (not counted), then collection is switched on
# for REQUESTS requests (8 connections), dumped, and the total divided by
# REQUESTS. Start-up (registry build, schema compilation) is never counted.
# Knobs: REQUESTS=5000 WARM=1000 CONNECTIONS=8 AUTH=0 PORTOS_BIN BARE_BIN
# LOADGEN_BIN (default: the release binaries of CARGO_TARGET_DIR or target/).
# Prerequisites: valgrind (Debian: apt-get install -y valgrind), the release
# builds of portos and of bench/ (bench/http-load.sh builds them).
set -euo pipefail
# Every server here runs with an outbound policy that allows no destination
# (docs/security.md): a benchmark never makes one connect anywhere.
export PORTOS_OUTBOUND_ONLY=none HOMELAB_OUTBOUND_ONLY=none

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-}"
PORTOS_BIN="${PORTOS_BIN:-${TARGET_DIR:-$ROOT/target}/release/portos}"
BARE_BIN="${BARE_BIN:-${TARGET_DIR:-$BENCH_DIR/target}/release/bare}"
LOADGEN_BIN="${LOADGEN_BIN:-${TARGET_DIR:-$BENCH_DIR/target}/release/loadgen}"
REQUESTS="${REQUESTS:-5000}"
WARM="${WARM:-1000}"
CONNECTIONS="${CONNECTIONS:-8}"
AUTH="${AUTH:-0}"
VARIANTS="${VARIANTS:-bare_post portos_fresh portos_replay bare_get portos_304}"
PORT="${PORT:-18090}"

for tool in valgrind callgrind_control curl; do
    command -v "$tool" >/dev/null || {
        echo "instructions: '$tool' is missing (Debian: apt-get install -y valgrind curl)" >&2
        exit 2
    }
done
for bin in "$PORTOS_BIN" "$BARE_BIN" "$LOADGEN_BIN"; do
    [ -x "$bin" ] || {
        echo "instructions: no binary at $bin" >&2
        exit 2
    }
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/portos-instructions.XXXXXX")"
PID=""
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -TERM "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
    echo "instructions: $*" >&2
    exit 1
}

# count VARIANT: prints "VARIANT instructions_per_request".
count() {
    local variant="$1" url="http://127.0.0.1:$PORT" server path kind arg ready
    local header=()
    case "$variant" in
        bare_*) server=bare ready="$url/tools" ;;
        portos_*) server=portos ready="$url/api/system/health" ;;
    esac
    local out="$WORK/$variant.callgrind"
    rm -rf "$WORK/data"
    if [ "$server" = bare ]; then
        valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
            "$BARE_BIN" "127.0.0.1:$PORT" >"$WORK/$variant.log" 2>&1 &
    else
        local env=()
        [ "$AUTH" = 1 ] && env=(PORTOS_PASSWORD=bench-password)
        env "${env[@]}" valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
            "$PORTOS_BIN" --bind "127.0.0.1:$PORT" --data-dir "$WORK/data" >"$WORK/$variant.log" 2>&1 &
    fi
    PID=$!
    for _ in $(seq 600); do
        curl -fsS -o /dev/null "$ready" 2>/dev/null && break
        kill -0 "$PID" 2>/dev/null || die "$variant: the server exited: $(tail -5 "$WORK/$variant.log")"
        sleep 0.2
    done
    if [ "$server" = bare ] && [ "$AUTH" = 1 ]; then
        # The same header as portos gets (a session token is 43 characters).
        header=(--header "Cookie: portos_session=$(printf 'x%.0s' $(seq 43))")
    fi
    if [ "$server" = portos ] && [ "$AUTH" = 1 ]; then
        local cookie
        cookie="$(curl -sS -D - -o /dev/null -X POST "$url/api/auth/login" -H 'content-type: application/json' \
            -d '{"password":"bench-password"}' | awk 'tolower($1) == "set-cookie:" { sub(/\r$/, ""); split($2, c, ";"); print c[1] }')"
        header=(--header "Cookie: $cookie")
    fi
    case "$variant" in
        bare_post) path=/call kind=fresh arg=(--prefix "bare-$$") ;;
        portos_fresh) path=/api/cos/tools/call kind=fresh arg=(--prefix "fresh-$$") ;;
        portos_replay) path=/api/cos/tools/call kind=replay arg=(--request-id "replay-$$") ;;
        bare_get) path=/tools kind=get ;;
        portos_304) path=/api/cos/tools kind=get ;;
        *) die "unknown variant $variant" ;;
    esac
    if [ "$kind" = get ]; then
        local etag
        etag="$(curl -sS -D - -o /dev/null "${header[@]/#--header/-H}" "$url$path" | awk 'tolower($1) == "etag:" { sub(/\r$/, ""); print $2 }')"
        arg=(--header "If-None-Match: $etag")
    fi
    local common=("$url" "$path" --mode "$kind" --connections "$CONNECTIONS" --seconds 600 "${arg[@]}" "${header[@]}")
    # The warm-up's requestIds must differ from the measured run's.
    "$LOADGEN_BIN" "${common[@]}" --requests "$WARM" --prefix "warm-$variant-$$" >/dev/null
    callgrind_control -i on "$PID" >/dev/null
    local result
    result="$("$LOADGEN_BIN" "${common[@]}" --requests "$REQUESTS")"
    callgrind_control -i off "$PID" >/dev/null
    grep -q ' errors=0 status_errors=0' <<<"$result" || die "$variant: $result"
    callgrind_control -d "$PID" >/dev/null
    kill -TERM "$PID"
    wait "$PID" 2>/dev/null || true
    PID=""
    local total
    total="$(cat "$out"* 2>/dev/null | awk '/^summary:/ { s += $2 } /^totals:/ { t += $2 } END { print (s > 0 ? s : t) }')"
    echo "$variant $((total / REQUESTS))"
}

echo "# instructions per request in the server (callgrind), $REQUESTS requests after $WARM, $CONNECTIONS connections, auth $AUTH"
for variant in $VARIANTS; do
    count "$variant"
done
if [ -n "${KEEP:-}" ]; then
    echo "# callgrind files kept in $WORK"
fi
