#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each (default 600),
# starting from the committed seeds in corpus/<target>; what libFuzzer
# finds on the way goes to work/<target>, crashes to artifacts/<target>.
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
#
#   SECONDS_EACH=600 fuzz/run.sh                 # all targets, ten minutes each
#   SECONDS_EACH=60 fuzz/run.sh jsonrpc feed     # two targets, a minute each
set -euo pipefail
cd "$(dirname "$0")"
seconds="${SECONDS_EACH:-600}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
# Built once, then each binary run directly: `cargo fuzz run` would check
# (and, after any edit to the sources, rebuild) before every target.
cargo +nightly fuzz build
bin_dir="target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"
for target in "${targets[@]}"; do
    mkdir -p "work/$target" "artifacts/$target"
    echo "== $target: ${seconds}s"
    "$bin_dir/$target" -artifact_prefix="artifacts/$target/" \
        -max_total_time="$seconds" -print_final_stats=1 "work/$target" "corpus/$target" 2>&1 |
        grep -E '^(stat::|#[0-9]+ *DONE|==[0-9]+==|SUMMARY|Done)' || true
done
