#!/usr/bin/env bash
# The fault suite: what a crash or an abusive client costs, measured from the gateway's own records.
#   1. provider on SQLite killed with SIGKILL part way through a broadcast, restarted: lost, repeated, time;
#   2. two providers on PostgreSQL, one killed: the other takes its leases over (heartbeat, seconds);
#   3. the gateway killed with SIGKILL while pushes pour in: accepted pushes missing from its journal;
#   4. 15,000 idle sockets against a gateway limited to 10,000 connections: the legitimate sender's rate and memory.
# Needs the release build, h2load, openssl and (for 2) a PostgreSQL URL in HERALD_FAULT_POSTGRES.
#   bash Benchmarks/fault-suite.sh [devices]
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-100000}
swift build -c release --product herald >/dev/null

echo "== 1. provider on SQLite, SIGKILL part way, restarted"
python3 Benchmarks/provider-broadcast.py --devices "$devices" --kill
if [ -n "${HERALD_FAULT_POSTGRES:-}" ]; then
    echo "== 2. two providers on PostgreSQL, one killed"
    python3 Benchmarks/provider-broadcast.py --devices "$devices" --database "$HERALD_FAULT_POSTGRES" --providers 2 --kill
else
    echo "== 2. skipped: set HERALD_FAULT_POSTGRES=postgres://USER:PASSWORD@HOST/DB"
fi
echo "== 3. gateway SIGKILL while pushes arrive"
python3 Benchmarks/gateway-kill.py --devices 50000 --rounds 3
echo "== 4. idle-socket flood"
python3 Benchmarks/gateway-idle-flood.py --flood 15000 --limit 10000
