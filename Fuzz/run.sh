#!/usr/bin/env bash
# libFuzzer over the parsers an attacker reaches (Fuzz/HeraldFuzz): JSON, payload lint, provider tokens, device
# tokens, tag expressions, courier messages, the admin API. Herald's own modules are built again with libFuzzer's
# coverage (HERALD_FUZZ=1, see Package.swift) in .build, dependencies as they are (the next ordinary swift build
# rebuilds Herald's modules); each target runs for SECONDS from the seed corpus in Fuzz/corpus/<target> (new inputs
# go to a scratch folder, crashes to Fuzz/crashes/). Every target gets Fuzz/numbers.dict: the numbers at the edges
# of their types (0, -1, 2^31, 2^53, 2^63-1, 1e30, NaN, -0), which random mutation rarely writes. Exit status 1 on a
# crash, with libFuzzer's stack of it (Swift's own backtracer is turned off, so libFuzzer's crash handler runs: it
# writes the input and prints where it failed; the input alone reproduces it: `HERALD_FUZZ_TARGET=T
# .build/debug/HeraldFuzz FILE`).
#   bash Fuzz/run.sh [seconds per target] [target ...]
set -euo pipefail
export SWIFT_BACKTRACE=enable=no
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json lint jwt claims token tags courier admin)
HERALD_FUZZ=1 swift build --product HeraldFuzz >/dev/null
binary=.build/debug/HeraldFuzz
mkdir -p Fuzz/crashes
status=0
passed=0
failed=0
for target in "${targets[@]}"; do
    scratch=$(mktemp -d)
    if HERALD_FUZZ_TARGET=$target "$binary" "$scratch" "Fuzz/corpus/$target" -max_total_time="$seconds" \
        -max_len=8192 -timeout=10 -dict=Fuzz/numbers.dict -rss_limit_mb=2048 -artifact_prefix="Fuzz/crashes/$target-" -print_final_stats=1 \
        >"$scratch.log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch.log")
        echo "$target: ${runs:-?} runs, no crash"
        passed=$((passed + 1))
    else
        echo "$target: CRASH (input in Fuzz/crashes/); log:"
        grep -A 40 "ERROR: libFuzzer" "$scratch.log" || tail -n 60 "$scratch.log"
        status=1
        failed=$((failed + 1))
    fi
    rm -rf "$scratch" "$scratch.log"
done
echo "fuzz: $passed passed, $failed failed"
exit $status
