#!/usr/bin/env bash
# Notifications per second from `herald send --tokens FILE` over ONE connection, as a whole process (start-up, TLS,
# token file and summary included), with its defaults (as many streams as the server allows, at most 100) and with
# `--concurrency 50`, side by side in one run with:
#   - h2load (-c 1 -m 100, the same payload) against the same nghttpd (TLS on loopback, answering 200): the most this
#     machine can do on one connection;
#   - herald send and h2load against `herald gateway` (a valid JWT, a registered offline device);
#   - aioapns, the Python APNs client, against the gateway (fewer notifications: it is much slower).
# Rounds alternate; prints each round, then the medians and the ratios.
# Needs h2load and nghttpd (Debian nghttp2-client, nghttp2-server), openssl, python3 with venv (aioapns is installed
# into a temporary venv from PyPI). Usage: Benchmarks/send-throughput.sh [notifications] [rounds] [aioapns notifications]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000000}
rounds=${2:-3}
aio_count=${3:-20000}
source Benchmarks/start-gateway.sh
herald=${HERALD_BIN:-.build/release/herald}
python3 -m venv "$work/venv" && "$work/venv/bin/pip" install -q aioapns
mkdir -p "$work/docroot/3/device" && : >"$work/docroot/3/device/$token"
nghttpd -d "$work/docroot" 3443 "$work/gateway/server-key.pem" "$work/gateway/server.pem" >/dev/null 2>&1 &
sleep 1
echo '{"aps":{"alert":"Hello"}}' >"$work/payload.json"
awk -v t="$token" -v n="$count" 'BEGIN {for (i = 0; i < n; i++) print t}' >"$work/tokens.txt"
send=(--ca-file "$work/gateway/ca.pem" --auth-key DEF123GHIJ:ABC123DEFG:"$work/AuthKey.p8" --topic com.example.app
    --payload "$work/payload.json" --tokens "$work/tokens.txt")

# Rate of a whole `herald send` process: notifications over wall-clock seconds from exec to exit.
herald_rate() {
    local start end
    start=$(date +%s.%N)
    "$herald" send --url "$@" "${send[@]}" --json >"$work/summary.json"
    end=$(date +%s.%N)
    grep -q "\"accepted\":$count" "$work/summary.json" || { cat "$work/summary.json" >&2; exit 1; }
    awk -v n="$count" -v s="$start" -v e="$end" 'BEGIN {printf "%.0f", n / (e - s)}'
}
h2load_rate() { h2load -n "$count" -c 1 -m 100 "$@" | sed -n 's/.*finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p'; }

hn=() h5=() nn=() hg=() ng=() ag=()
for round in $(seq "$rounds"); do
    a=$(herald_rate https://127.0.0.1:3443)
    a5=$(herald_rate https://127.0.0.1:3443 --concurrency 50)
    b=$(h2load_rate -d "$work/payload.json" "https://127.0.0.1:3443/3/device/$token")
    c=$(herald_rate "$gateway_url")
    d=$(h2load_rate -H "authorization: $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: alert" \
        -d "$work/payload.json" "$gateway_url/3/device/$token")
    e=$("$work/venv/bin/python" Benchmarks/aioapns-send.py 127.0.0.1 "$port" "$work/gateway/ca.pem" \
        "$work/AuthKey.p8" ABC123DEFG DEF123GHIJ com.example.app "$token" "$aio_count" 2>/dev/null | awk '{print $2}')
    echo "round $round: nghttpd: herald $a/s, herald --concurrency 50 $a5/s, h2load $b/s |" \
        "gateway: herald $c/s, h2load $d/s, aioapns $e/s"
    hn+=("$a") h5+=("$a5") nn+=("$b") hg+=("$c") ng+=("$d") ag+=("$e")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
a=$(median "${hn[@]}") a5=$(median "${h5[@]}") b=$(median "${nn[@]}") c=$(median "${hg[@]}") d=$(median "${ng[@]}") e=$(median "${ag[@]}")
echo "median against nghttpd: herald $a/s, herald --concurrency 50 $a5/s, h2load $b/s," \
    "herald/h2load $(ratio "$a" "$b"), with --concurrency 50 $(ratio "$a5" "$b")"
echo "median against the gateway: herald $c/s, h2load $d/s, aioapns $e/s, herald/h2load $(ratio "$c" "$d"), herald/aioapns $(ratio "$c" "$e")"
