#!/usr/bin/env bash
# The latency lab: `herald send` against h2load on ONE connection to `herald gateway` put a round trip away by
# Benchmarks/latency-proxy.py (0 ms: no proxy), side by side in one run. APNs allows 1,000 streams per connection, so
# one connection can carry at most 1,000 / RTT notifications a second; each rate is printed with its ratio to that
# limit and to h2load's (-m 1000, as many streams as the server allows) in the same round.
#   bash Benchmarks/latency-lab.sh [notifications] [rounds]        (RTTS="0 50 150" by default)
# With CAPPED=N, `herald send --concurrency N` runs too (N=100: the client's old cap), to compare in the same run.
# Needs h2load (Debian nghttp2-client), openssl and python3; builds the release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-50000}
rounds=${2:-3}
rtts=${RTTS:-"0 50 150"}
source Benchmarks/start-gateway.sh
# The proxies start in command substitutions, out of reach of `jobs`: their pids are kept to be stopped at exit.
trap 'kill $(cat "$work/proxies" 2>/dev/null) $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
herald=${HERALD_BIN:-.build/release/herald}
echo '{"aps":{"alert":"Hello"}}' >"$work/payload.json"
awk -v t="$token" -v n="$count" 'BEGIN {for (i = 0; i < n; i++) print t}' >"$work/tokens.txt"

# A proxy RTT ms away from the gateway; echoes its port (the gateway's own for 0 ms).
far_port() {
    if [ "$1" = 0 ]; then echo "$port"; return; fi
    python3 Benchmarks/latency-proxy.py --target "127.0.0.1:$port" --rtt-ms "$1" >"$work/proxy-$1.out" 2>&1 &
    echo $! >>"$work/proxies"
    for _ in $(seq 50); do grep -q "listening on" "$work/proxy-$1.out" 2>/dev/null && break; sleep 0.1; done
    sed -n 's/listening on //p' "$work/proxy-$1.out"
}

herald_rate() {
    local start end
    start=$(date +%s.%N)
    "$herald" send --url "https://127.0.0.1:$1" "${@:2}" --ca-file "$work/gateway/ca.pem" \
        --auth-key DEF123GHIJ:ABC123DEFG:"$work/AuthKey.p8" --topic com.example.app --payload "$work/payload.json" \
        --tokens "$work/tokens.txt" --json >"$work/summary.json"
    end=$(date +%s.%N)
    grep -q "\"accepted\":$count" "$work/summary.json" || { cat "$work/summary.json" >&2; exit 1; }
    awk -v n="$count" -v s="$start" -v e="$end" 'BEGIN {printf "%.0f", n / (e - s)}'
}
h2load_rate() {
    h2load -n "$count" -c 1 -m 1000 -H "authorization: $jwt" -H "apns-topic: com.example.app" \
        -d "$work/payload.json" "https://127.0.0.1:$1/3/device/$token" |
        sed -n 's/.*finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' | cut -d. -f1
}
median() { tr ' ' '\n' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

for rtt in $rtts; do
    far=$(far_port "$rtt")
    hs=() hl=() hc=()
    for round in $(seq "$rounds"); do
        h=$(h2load_rate "$far")
        s=$(herald_rate "$far")
        c=$([ -n "${CAPPED:-}" ] && herald_rate "$far" --concurrency "$CAPPED" || echo 0)
        echo "rtt ${rtt} ms round $round: h2load $h/s, herald send $s/s${CAPPED:+, herald send --concurrency $CAPPED $c/s}"
        hs+=("$s") hl+=("$h") hc+=("$c")
    done
    ms=$(echo "${hs[@]}" | median)
    ml=$(echo "${hl[@]}" | median)
    [ -n "${CAPPED:-}" ] && echo "RTT $rtt ms: herald send --concurrency $CAPPED $(echo "${hc[@]}" | median)/s (median)"
    limit=$([ "$rtt" = 0 ] && echo "-" || echo $((1000 * 1000 / rtt)))
    awk -v r="$rtt" -v s="$ms" -v l="$ml" -v lim="$limit" 'BEGIN {
        printf "RTT %s ms: herald send %d/s, h2load %d/s, herald/h2load %.2f", r, s, l, s / l
        if (lim != "-") printf ", of the limit (1000 streams / RTT = %d/s): herald %.2f, h2load %.2f", lim, s / lim, l / lim
        printf "\n" }'
done
