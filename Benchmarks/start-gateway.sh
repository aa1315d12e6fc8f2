# Sourced by the gateway benchmarks: builds herald in release, starts `herald gateway` on a free port with a fresh
# data directory and a new .p8 key in a temporary folder, and sets work, gateway_pid, gateway_url, port, token (the
# example device token) and jwt (a valid provider token). Everything started is stopped and removed on exit.
# GATEWAY_FLAGS adds options to `herald gateway` (GATEWAY_FLAGS=--no-journal: the load-test mode).
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product herald >/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/AuthKey.p8" 2>/dev/null
.build/release/herald gateway --port 0 --manage-port 0 --data "$work/gateway" \
    --auth-key DEF123GHIJ:ABC123DEFG:"$work/AuthKey.p8" ${GATEWAY_FLAGS:-} >"$work/gateway.out" 2>&1 &
gateway_pid=$!
for _ in $(seq 50); do grep -q "listening on" "$work/gateway.out" 2>/dev/null && break; sleep 0.1; done
gateway_url=$(grep "listening on" "$work/gateway.out" | sed 's/.*listening on \(https:[^ ]*\).*/\1/')
port=${gateway_url##*:}
token=$(grep "example device token" "$work/gateway.out" | awk '{print $NF}')
jwt=$(grep "authorization: bearer" "$work/gateway.out" | sed "s/.*authorization: //; s/' .*//")
