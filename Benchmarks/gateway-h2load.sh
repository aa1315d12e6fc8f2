#!/usr/bin/env bash
# Accepted notifications per second on ONE HTTP/2 connection with 100 concurrent streams, alternating rounds in one run:
# - gateway: `herald gateway` (valid JWT, registered offline token, so every push is checked, stored, logged and in
#   the journal before its 200);
# - floor: Benchmarks/HTTP2Floor, SwiftNIO's HTTP/2 and TLS alone answering 200 with an apns-id (what the gateway's
#   libraries allow on one event loop, with no work per push);
# - nghttpd: answering a static 200 to the same request (same path, headers and body: the JWT, which nghttp2 never
#   indexes, is Huffman-coded by h2load and decoded by the server on every request, as by any APNs server);
# - nghttpd (bare): the reference this script used at first, a static file with none of APNs' headers.
# Prints each round, the medians and the gateway's ratio to each.
# Needs h2load and nghttpd (Debian nghttp2-client, nghttp2-server) and openssl. Usage: Benchmarks/gateway-h2load.sh [requests per round] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-100000}
rounds=${2:-3}
source Benchmarks/start-gateway.sh
swift build -c release --product HTTP2Floor >/dev/null
mkdir -p "$work/docroot/3/device" && echo ok >"$work/docroot/index.html" && echo ok >"$work/docroot/3/device/$token"
nghttpd -d "$work/docroot" 3443 "$work/gateway/server-key.pem" "$work/gateway/server.pem" >/dev/null 2>&1 &
.build/release/HTTP2Floor 3444 "$work/gateway/server.pem" "$work/gateway/server-key.pem" >"$work/floor.out" 2>&1 &
for _ in $(seq 50); do grep -q "listening on" "$work/floor.out" 2>/dev/null && break; sleep 0.1; done
echo '{"aps":{"alert":"Hello"}}' >"$work/payload.json"

rate() { sed -n 's/.*finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p'; }
push() {
    h2load -n "$requests" -c 1 -m 100 -H "authorization: $jwt" -H "apns-topic: com.example.app" \
        -H "apns-push-type: alert" -d "$work/payload.json" "$1/3/device/$token" | rate
}
gateway_rates=() floor_rates=() nghttpd_rates=() bare_rates=()
for round in $(seq "$rounds"); do
    g=$(push "$gateway_url")
    f=$(push https://127.0.0.1:3444)
    n=$(push https://127.0.0.1:3443)
    b=$(h2load -n "$requests" -c 1 -m 100 -d "$work/payload.json" https://127.0.0.1:3443/index.html | rate)
    echo "round $round: gateway $g req/s, floor $f req/s, nghttpd $n req/s, nghttpd (bare) $b req/s"
    gateway_rates+=("$g") floor_rates+=("$f") nghttpd_rates+=("$n") bare_rates+=("$b")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a/b}'; }
g=$(median "${gateway_rates[@]}") f=$(median "${floor_rates[@]}") n=$(median "${nghttpd_rates[@]}")
b=$(median "${bare_rates[@]}")
echo "median: gateway $g req/s, floor $f req/s, nghttpd $n req/s, nghttpd (bare) $b req/s"
echo "gateway / nghttpd $(ratio "$g" "$n"), gateway / floor $(ratio "$g" "$f"), floor / nghttpd $(ratio "$f" "$n"), gateway / nghttpd (bare) $(ratio "$g" "$b")"
