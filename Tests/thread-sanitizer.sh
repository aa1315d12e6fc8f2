#!/usr/bin/env bash
# Runs the test suite once under ThreadSanitizer and sums up its reports by the Herald files they point at.
#
#   bash Tests/thread-sanitizer.sh            # about 12 minutes to build, 10 to run, on 2 cores
#
# What to expect on Linux with Swift 6.3 (issue 21's run): tests with time limits fail (everything is ~6x slower and
# TLS set-up outlasts the gateway's set-up timeout), and TSan reports races on state guarded by
# `Synchronization.Mutex`, whose lock it cannot see (a 10-line program that uses Mutex correctly gets the same report),
# and on continuations inside the concurrency runtime. A report outside a `withLock` closure is worth reading.
set -uo pipefail
cd "$(dirname "$0")/.."
build=.build-tsan
swift build --build-tests --sanitize=thread --build-path "$build" || exit 1
log=$(mktemp)
TSAN_OPTIONS="halt_on_error=0" SWIFT_BACKTRACE=enable=no \
    swift test --skip-build --sanitize=thread --build-path "$build" >"$log" 2>&1
grep -E "Test run with" "$log" | tail -1
python3 - "$log" <<'PY'
import collections, re, sys
text = open(sys.argv[1], errors="replace").read()
reports = text.split("WARNING: ThreadSanitizer")[1:]
counts = collections.Counter()
for report in reports:
    kind = report.split("\n")[0].split(" (pid")[0].strip(": ")
    files = sorted({path for path in re.findall(r"/(?:Sources|Tests)/[^\s:]+", report)[:3]})
    counts[(kind, ", ".join(files) or "(runtime only)")] += 1
print(f"{len(reports)} ThreadSanitizer reports")
for (kind, files), count in counts.most_common():
    print(f"{count:4}  {kind}: {files}")
PY
echo "full log: $log"
