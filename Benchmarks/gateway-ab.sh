#!/usr/bin/env bash
# Two builds of `herald gateway` side by side on one HTTP/2 connection (h2load, 100 concurrent streams, a valid JWT,
# a registered offline device), in alternating rounds: each round's accepted pushes/s, the gateway's CPU per push, and
# each of its busiest threads' (the connection's event loop, the worker's), read from /proc before and after. CPU per
# push moves less than the rate on a noisy machine. Needs h2load and openssl.
# Usage: Benchmarks/gateway-ab.sh BEFORE_BIN AFTER_BIN [rounds] [requests]
set -euo pipefail
before=$1 after=$2 rounds=${3:-3} requests=${4:-200000}

measure() {
    local bin=$1 work pid url token jwt
    work=$(mktemp -d)
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/AuthKey.p8" 2>/dev/null
    "$bin" gateway --port 0 --manage-port 0 --data "$work/gateway" \
        --auth-key DEF123GHIJ:ABC123DEFG:"$work/AuthKey.p8" >"$work/gateway.out" 2>&1 &
    pid=$!
    for _ in $(seq 50); do grep -q "listening on" "$work/gateway.out" 2>/dev/null && break; sleep 0.1; done
    url=$(grep "listening on" "$work/gateway.out" | sed 's/.*listening on \(https:[^ ]*\).*/\1/')
    token=$(grep "example device token" "$work/gateway.out" | awk '{print $NF}')
    jwt=$(grep "authorization: bearer" "$work/gateway.out" | sed "s/.*authorization: //; s/' .*//")
    echo '{"aps":{"alert":"Hello"}}' >"$work/payload.json"
    push() {
        h2load -n "$1" -c 1 -m 100 -H "authorization: $jwt" -H "apns-topic: com.example.app" \
            -H "apns-push-type: alert" -d "$work/payload.json" "$url/3/device/$token"
    }
    push 20000 >/dev/null
    ticks() { for task in /proc/"$pid"/task/*; do echo "$(basename "$task") $(awk '{print $14 + $15}' "$task/stat")"; done; }
    ticks >"$work/before"
    rate=$(push "$requests" | sed -n 's/.*finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p')
    ticks >"$work/after"
    python3 - "$work/before" "$work/after" "$rate" "$requests" "$(getconf CLK_TCK)" <<'PY'
import sys
before = dict(line.split() for line in open(sys.argv[1]))
after = dict(line.split() for line in open(sys.argv[2]))
requests, hertz = int(sys.argv[4]), int(sys.argv[5])
per_push = sorted(((int(after[t]) - int(before.get(t, 0))) * 1e6 / hertz / requests for t in after), reverse=True)
print(f"{float(sys.argv[3]):.0f} pushes/s, {sum(per_push):.1f} us of CPU a push "
      f"(threads {' '.join(f'{x:.1f}' for x in per_push[:2])})")
PY
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    rm -rf "$work"
}

for round in $(seq "$rounds"); do
    echo "round $round before: $(measure "$before")"
    echo "round $round after:  $(measure "$after")"
done
