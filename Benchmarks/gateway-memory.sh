#!/usr/bin/env bash
# Memory per stored notification: 2N offline devices are registered; N of them get one push each (h2load, one
# connection, 100 streams), then the other N. The growth of the gateway's resident memory over the second N, divided
# by N, is what one more stored notification costs (store entry, payload, delivery-log entry), with the connection's
# buffers and the allocator's free lists already grown in the first round. The growth from idle over the first N is
# printed too. Prints the overhead beside the payload size.
# Needs h2load (Debian nghttp2-client), python3 and openssl. Usage: Benchmarks/gateway-memory.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
half=${1:-50000}
devices=$((2 * half))
source Benchmarks/start-gateway.sh

# Register the devices with known tokens over HTTP/1.1 keep-alive, and write one push URI per device.
python3 - "$port" "$devices" "$work" <<'PY'
import http.client, json, ssl, sys
port, devices, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
context = ssl.create_default_context(cafile=f"{work}/gateway/ca.pem")
connection = http.client.HTTPSConnection("127.0.0.1", port, context=context)
admin = "Bearer " + open(f"{work}/gateway/admin-token").read().strip()
with open(f"{work}/uris.txt", "w") as uris:
    for index in range(devices):
        token = f"{index:064x}"
        body = json.dumps({"topic": "com.example.app", "token": token})
        connection.request("POST", "/admin/devices", body, {"content-type": "application/json", "authorization": admin})
        response = connection.getresponse()
        response.read()
        assert response.status == 201, response.status
        uris.write(f"https://127.0.0.1:{port}/3/device/{token}\n")
PY
split -n l/2 -d "$work/uris.txt" "$work/uris-"
python3 -c 'import json; print(json.dumps({"aps": {"alert": {"title": "Game Request", "body": "Bob wants to play poker"}, "badge": 3, "sound": "default"}, "gameID": "12345678"}))' >"$work/payload.json"
payload=$(stat -c %s "$work/payload.json")
rss() { ps -o rss= -p "$gateway_pid" | tr -d ' '; }
push() { h2load -n "$half" -c 1 -m 100 -H "authorization: $jwt" -H "apns-topic: com.example.app" \
    -d "$work/payload.json" -i "$1" | grep -E "finished|status codes"; }
idle=$(rss)
push "$work/uris-00"
sleep 1
first=$(rss)
push "$work/uris-01"
sleep 1
second=$(rss)

stored=$(curl -s --cacert "$work/gateway/ca.pem" -H "authorization: Bearer $(cat "$work/gateway/admin-token")" "https://127.0.0.1:$port/admin/devices/$(printf '%064x' 0)/notifications" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["stored"]))')
echo "devices $devices, payload $payload bytes, first device stores $stored notification(s)"
awk -v i="$idle" -v f="$first" -v s="$second" -v n="$half" -v p="$payload" 'BEGIN {
    printf "resident memory: idle %d KiB, after %d stored %d KiB, after %d stored %d KiB\n", i, n, f, 2 * n, s
    printf "from idle over the first %d: %.0f bytes per stored notification (payload %d + %.0f)\n", n, (f - i) * 1024 / n, p, (f - i) * 1024 / n - p
    per = (s - f) * 1024 / n
    printf "over the second %d: %.0f bytes per stored notification = payload %d + %.0f\n", n, per, p, per - p
}'
