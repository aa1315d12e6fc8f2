#!/usr/bin/env bash
# Accepted notifications per second on ONE HTTP/2 connection with 100 concurrent streams: herald gateway (valid JWT,
# registered offline token, so every push is stored and logged) side by side with nghttpd answering a static 200
# with the same certificate, alternating rounds in one run. Prints each round and the medians with their ratio.
# Needs h2load and nghttpd (Debian nghttp2-client, nghttp2-server) and openssl. Usage: Benchmarks/gateway-h2load.sh [requests per round] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-100000}
rounds=${2:-3}
source Benchmarks/start-gateway.sh
mkdir -p "$work/docroot" && echo ok >"$work/docroot/index.html"
nghttpd -d "$work/docroot" 3443 "$work/gateway/server-key.pem" "$work/gateway/server.pem" >/dev/null 2>&1 &
sleep 1
echo '{"aps":{"alert":"Hello"}}' >"$work/payload.json"

rate() { sed -n 's/.*finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p'; }
gateway_rates=() nghttpd_rates=()
for round in $(seq "$rounds"); do
    g=$(h2load -n "$requests" -c 1 -m 100 -H "authorization: $jwt" -H "apns-topic: com.example.app" \
        -H "apns-push-type: alert" -d "$work/payload.json" "$gateway_url/3/device/$token" | rate)
    n=$(h2load -n "$requests" -c 1 -m 100 -d "$work/payload.json" https://127.0.0.1:3443/index.html | rate)
    echo "round $round: gateway $g req/s, nghttpd $n req/s"
    gateway_rates+=("$g") nghttpd_rates+=("$n")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
g=$(median "${gateway_rates[@]}") n=$(median "${nghttpd_rates[@]}")
echo "median: gateway $g req/s, nghttpd $n req/s, ratio $(awk -v g="$g" -v n="$n" 'BEGIN {printf "%.3f", g/n}')"
