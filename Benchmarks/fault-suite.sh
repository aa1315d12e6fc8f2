#!/usr/bin/env bash
# The fault suite: what a crash or an abusive client costs, measured from the gateway's own records.
#   1. provider on SQLite killed with SIGKILL part way through a broadcast, restarted: lost, repeated, time;
#   2. two providers on PostgreSQL, one killed: the other takes its leases over (heartbeat, seconds);
#   3. the gateway killed with SIGKILL while pushes pour in: accepted pushes missing from its journal;
#   4. 15,000 idle sockets against a gateway limited to 10,000 connections: the legitimate sender's rate and memory;
#   5. the gateway on a full disk (a 768 KB tmpfs; needs root), then SIGKILL and a restart with room: lost, tokens kept;
#   6. PostgreSQL restarted (and stopped for 10 s) in the middle of a broadcast: the stall, the API reads, lost, resent.
# Needs the release build, h2load, openssl and (for 2 and 6) a PostgreSQL URL in HERALD_FAULT_POSTGRES, and for 6 the
# command that restarts it in HERALD_FAULT_PG_CLUSTER (a pg_ctlcluster cluster such as "15 main").
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
if [ "$(id -u)" = 0 ]; then
    echo "== 5. gateway on a full disk, SIGKILL, restart with room"
    python3 Benchmarks/gateway-kill.py --devices 2000 --disk-kilobytes 768 --kill-after 3 --rounds 3
else
    echo "== 5. skipped: mounting a tmpfs needs root"
fi
if [ -n "${HERALD_FAULT_POSTGRES:-}" ] && [ -n "${HERALD_FAULT_PG_CLUSTER:-}" ]; then
    echo "== 6. PostgreSQL restarted, then stopped for 10 s, in the middle of a broadcast"
    python3 Benchmarks/provider-broadcast.py --devices "$devices" --database "$HERALD_FAULT_POSTGRES" --check \
        --restart-database "pg_ctlcluster $HERALD_FAULT_PG_CLUSTER restart"
    python3 Benchmarks/provider-broadcast.py --devices "$devices" --database "$HERALD_FAULT_POSTGRES" --check \
        --restart-database "pg_ctlcluster $HERALD_FAULT_PG_CLUSTER stop && sleep 10 && pg_ctlcluster $HERALD_FAULT_PG_CLUSTER start"
else
    echo "== 6. skipped: set HERALD_FAULT_POSTGRES and HERALD_FAULT_PG_CLUSTER (such as \"15 main\")"
fi
echo "== 7. APNs unreachable for 90 s while a notification waits, then during a broadcast"
python3 Benchmarks/apns-outage.py --devices 1000 --outage 90
python3 Benchmarks/apns-outage.py --devices "$devices" --outage 120 --down-at $((devices / 3))
