#!/usr/bin/env bash
# /metrics as Prometheus reads it (docs/observability.md): Debian's
# `prometheus` scrapes a real portos on loopback, signing in with HTTP Basic
# as docs/observability.md tells (the password gate is on); after known tool
# calls the counter is read back through Prometheus's HTTP query API, and
# `promtool check metrics` lints the exposition against Prometheus's naming
# rules. Needs target/debug/portos (built by .ci/run) and the `prometheus`
# package.
#
#   SCREENSHOT=docs/prometheus-graph.png tests/prometheus/run.sh
#
# then goes on for a minute of calls (most complete, some refused) and has
# Debian's Chromium draw their rate in Prometheus's own graph page.
set -euo pipefail
cd "$(dirname "$0")/../.."

PORTOS=target/debug/portos
CALLS=5
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The server, its password set, on a port of its choosing.
printf 'scrape me gently\n' > "$work/password"
"$PORTOS" --set-password --data-dir "$work/data" < "$work/password" > /dev/null
"$PORTOS" --bind 127.0.0.1:0 --data-dir "$work/data" --outbound-only loopback \
  2> "$work/portos.log" &
pids+=($!)
for _ in $(seq 1 200); do
  address=$(sed -n 's/.*listening on http:\/\/\([0-9.:]*\).*/\1/p' "$work/portos.log" | head -n 1)
  [[ -n "$address" ]] && break
  sleep 0.1
done
[[ -n "${address:-}" ]] || { cat "$work/portos.log"; echo "portos did not start" >&2; exit 1; }

# The exposition itself, linted by Prometheus's own tool.
curl -sf -u "prometheus:$(cat "$work/password")" "http://$address/metrics" > "$work/metrics.txt"
promtool check metrics < "$work/metrics.txt"

for index in $(seq 1 "$CALLS"); do
  curl -sf -u "owner:$(cat "$work/password")" -H 'content-type: application/json' \
    -d "{\"type\":\"portos_tool_call\",\"requestId\":\"prom-$index\",\"name\":\"time.now\",\"arguments\":{}}" \
    "http://$address/api/cos/tools/call" > /dev/null
done

# Prometheus on loopback, scraping every second with the password.
prometheus_port=$(free_port)
cat > "$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: portos
    basic_auth:
      username: prometheus
      password_file: $work/password
    static_configs:
      - targets: ["$address"]
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prometheus_port" > "$work/prometheus.log" 2>&1 &
pids+=($!)

query() {
  curl -sf "http://127.0.0.1:$prometheus_port/api/v1/query" --data-urlencode "query=$1" \
    | python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}

counted=""
for _ in $(seq 1 60); do
  counted=$(query 'tool_calls_total{job="portos",gen_ai_tool_name="time.now",tool_scope="ui",tool_state="completed"}' 2>/dev/null || true)
  [[ "$counted" == "$CALLS" ]] && break
  sleep 0.5
done
if [[ "$counted" != "$CALLS" ]]; then
  echo "prometheus read tool_calls_total as '$counted', not $CALLS" >&2
  tail -n 20 "$work/prometheus.log" >&2
  exit 1
fi
# The scrape itself was healthy: the target is up and nothing was dropped.
[[ "$(query 'up{job="portos"}')" == "1" ]] || { echo "the target is not up" >&2; exit 1; }
health=$(curl -sf "http://127.0.0.1:$prometheus_port/api/v1/targets" \
  | python3 -c 'import json, sys; t = json.load(sys.stdin)["data"]["activeTargets"][0]; print(t["health"], repr(t["lastError"]))')
[[ "$health" == "up ''" ]] || { echo "target: $health" >&2; exit 1; }
# A histogram Prometheus can compute with: the calls' median duration.
median=$(query 'histogram_quantile(0.5, sum by (le) (tool_call_duration_seconds_bucket{gen_ai_tool_name="time.now"}))')
[[ -n "$median" && "$median" != "NaN" ]] || { echo "no median duration: '$median'" >&2; exit 1; }

echo "prometheus: scraped portos at $address, tool_calls_total{time.now} = $counted, median call $median s"

[[ -n "${SCREENSHOT:-}" ]] || exit 0
call() {
  curl -s -u "owner:$(cat "$work/password")" -H 'content-type: application/json' \
    -d "{\"type\":\"portos_tool_call\",\"requestId\":\"$1\",\"name\":\"time.now\",\"arguments\":$2}" \
    "http://$address/api/cos/tools/call" > /dev/null
}
# Five calls a second, growing to ten; every fourth one is refused (an
# argument time.now does not take).
for step in $(seq 1 300); do
  if (( step % 4 == 0 )); then call "shot-$step" '{"zone":"Mars"}'; else call "shot-$step" '{}'; fi
  sleep "$( (( step < 150 )) && echo 0.2 || echo 0.1)"
done
expression='sum by (tool_state, error_type) (rate(tool_calls_total{gen_ai_tool_name="time.now"}[10s]))'
encoded=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$expression")
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1000 \
  --virtual-time-budget=5000 --screenshot="$work/graph.png" \
  "http://127.0.0.1:$prometheus_port/graph?g0.expr=$encoded&g0.tab=0&g0.range_input=2m" 2> /dev/null
mv "$work/graph.png" "$SCREENSHOT"
echo "prometheus: graph drawn in $SCREENSHOT"
