#!/usr/bin/env bash
# docs/production.md's backup and restore of a PostgreSQL provider, run as the document writes it: a provider with an
# app and a device, `pg_dump`, the schema dropped, `pg_restore`, and a provider started on the restored database (with
# the same DATA/provider/master.key) that reads the app and the device back.
# Usage: Tests/Ops/postgres-backup-restore.sh 'postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=disable'
set -euo pipefail
cd "$(dirname "$0")/../.."
herald=${HERALD_BIN:-.build/debug/herald}
url=$1
schema="backup_restore_$$"
work=$(mktemp -d)
serve_pid=
cleanup() {
    [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null || true
    psql -q "$url" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# Starts `herald serve` on the schema and sets `base` to its API once it listens.
start() {
    "$herald" serve --data "$work/data" --port 0 --database "$url&schema=$schema" > "$work/serve.log" 2>&1 &
    serve_pid=$!
    for _ in $(seq 1 600); do
        base=$(grep -o 'provider API on http://[0-9.:]*' "$work/serve.log" | head -n 1 | sed 's/provider API on //') || true
        [ -n "$base" ] && return 0
        kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log"; echo "herald serve did not start"; exit 1; }
        sleep 0.1
    done
    echo "herald serve did not listen within 60 s"; exit 1
}
stop() { kill -TERM "$serve_pid"; wait "$serve_pid" || true; serve_pid=; }

start
token_file="$work/data/provider/admin-token"
"$herald" keys generate --out "$work/keys" --key-id ABC123DEFG > /dev/null
app=$("$herald" apps create --bundle-id com.example.backup \
    --auth-key "HERALDTEAM:ABC123DEFG:$work/keys/AuthKey_ABC123DEFG.p8" --endpoint https://127.0.0.1:2197 --no-check \
    --provider "$base" --provider-token-file "$token_file" --json)
app_id=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["app"]["id"])' <<< "$app")
key=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["app"]["publishableKey"])' <<< "$app")
device=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
curl -sf -X POST "$base/v1/devices?key=$key" -H 'Content-Type: application/json' -d "{\"token\": \"$device\"}" > /dev/null
stop

# The backup, as docs/production.md writes it (the provider's own URL parameters left out: pg_dump does not know them).
pg_dump --format=custom --no-owner --schema "$schema" --file "$work/herald.dump" "$url"
psql -q "$url" -c "SET client_min_messages = warning; DROP SCHEMA $schema CASCADE" > /dev/null
# The restore, as docs/production.md writes it.
pg_restore --no-owner --dbname "$url" "$work/herald.dump"

start
apps=$(curl -sf "$base/v1/apps" -H "Authorization: Bearer $(cat "$token_file")")
devices=$(curl -sf "$base/v1/devices?app=$app_id" -H "Authorization: Bearer $(cat "$token_file")")
python3 - "$app_id" "$device" <<PY
import json, sys
apps = json.loads('''$apps''')
devices = json.loads('''$devices''')
app_id, device = sys.argv[1], sys.argv[2]
assert any(a["id"] == app_id and a["bundleID"] == "com.example.backup" for a in apps), apps
assert [d["token"] for d in devices] == [device], devices
print(f"restored: app {app_id} and its device read back")
PY
stop
