#!/usr/bin/env bash
# Memory per stored notification: N offline devices each get one push (h2load, one connection, 100 streams); the
# gateway's resident memory grows by (payload + overhead) per push. Prints the overhead beside the payload size.
# Needs h2load (Debian nghttp2-client), python3 and openssl. Usage: Benchmarks/gateway-memory.sh [devices]
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-50000}
source Benchmarks/start-gateway.sh

# Register the devices with known tokens over HTTP/1.1 keep-alive, and write one push URI per device.
python3 - "$port" "$devices" "$work" <<'PY'
import http.client, json, ssl, sys
port, devices, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
context = ssl.create_default_context(cafile=f"{work}/gateway/ca.pem")
connection = http.client.HTTPSConnection("127.0.0.1", port, context=context)
with open(f"{work}/uris.txt", "w") as uris:
    for index in range(devices):
        token = f"{index:064x}"
        body = json.dumps({"topic": "com.example.app", "token": token})
        connection.request("POST", "/admin/devices", body, {"content-type": "application/json"})
        response = connection.getresponse()
        response.read()
        assert response.status == 201, response.status
        uris.write(f"https://127.0.0.1:{port}/3/device/{token}\n")
PY
python3 -c 'import json; print(json.dumps({"aps": {"alert": {"title": "Game Request", "body": "Bob wants to play poker"}, "badge": 3, "sound": "default"}, "gameID": "12345678"}))' >"$work/payload.json"
payload=$(stat -c %s "$work/payload.json")
rss() { ps -o rss= -p "$gateway_pid" | tr -d ' '; }
before=$(rss)
h2load -n "$devices" -c 1 -m 100 -H "authorization: $jwt" -H "apns-topic: com.example.app" \
    -d "$work/payload.json" -i "$work/uris.txt" | grep -E "finished|status codes"
sleep 1
after=$(rss)
h2load -n "$devices" -c 1 -m 100 -H "authorization: $jwt" -H "apns-topic: com.example.app" \
    -d "$work/payload.json" -i "$work/uris.txt" | grep -E "finished"
sleep 1
echo "after a second round that replaces every stored notification (same count stored): $(rss) KiB"

stored=$(curl -s --cacert "$work/gateway/ca.pem" "https://127.0.0.1:$port/admin/devices/$(printf '%064x' 0)/notifications" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["stored"]))')
echo "devices $devices, payload $payload bytes, first device stores $stored notification(s)"
awk -v b="$before" -v a="$after" -v n="$devices" -v p="$payload" 'BEGIN {
    per = (a - b) * 1024 / n
    printf "resident memory %d KiB -> %d KiB: %.0f bytes per stored notification = payload %d + %.0f\n", b, a, per, p, per - p
}'
