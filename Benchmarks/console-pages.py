#!/usr/bin/env python3
"""The console with a million notifications in History and a million devices: how long each page's HTML and each
query a page makes when it opens take, as p50 and p99 over many requests, against the target of 200 ms.

The data is written straight into the provider's database with SQL (generate_series / a recursive CTE), because
sending a million notifications through APNs first would take an hour and measure something else; the app itself
is created through the API. Each notification has one delivery (accepted, delivered, some displayed) and its
counters, as the delivery engine leaves them; devices have users (five devices each), a tag each ("news" or
"sports"), a rare tag ("beta", one in a thousand) and one in 500 is deactivated. SQLite is not ANALYZEd (the provider
never does); PostgreSQL is, as autovacuum would after such a load.

    swift build -c release --product herald
    python3 Benchmarks/console-pages.py [--rows 1000000] [--requests 200]
    python3 Benchmarks/console-pages.py --database postgres://herald:herald@127.0.0.1/herald
"""
import argparse, http.client, json, os, random, re, shutil, sqlite3, statistics, subprocess, sys, tempfile, time, \
    urllib.parse, uuid

HERALD = os.path.join(os.path.dirname(__file__), "..", ".build", "release", "herald")
PAGES = ["compose", "history", "delivery", "devices", "apps", "tools", "metrics"]


def start(args, out):
    process = subprocess.Popen(args, stdout=open(out, "w"), stderr=subprocess.STDOUT)
    for _ in range(600):
        found = re.search(r"http://127.0.0.1:(\d+)/v1", open(out).read())
        if found:
            return process, int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    sys.exit(f"herald serve did not start: {open(out).read()}")


SQLITE_SEED = """
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < :n)
INSERT INTO devices (app_id, token, user_id, tags, time_zone, active, deactivated_at, deactivation_reason,
    registered_at, updated_at)
SELECT :app, printf('%064x', i), 'user' || (i % (:n / 5)),
    CASE WHEN i % 1000 = 0 THEN '["news","beta"]' WHEN i % 2 = 0 THEN '["news"]' ELSE '["sports"]' END,
    'Asia/Shanghai', i % 500 != 7, CASE WHEN i % 500 = 7 THEN :now END,
    CASE WHEN i % 500 = 7 THEN 'Unregistered' END, :now - (:n - i) * 0.5, :now - (:n - i) * 0.5
FROM s;
INSERT INTO device_tags (app_id, token, tag) SELECT d.app_id, d.token, j.value FROM devices d, json_each(d.tags) j;
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < :n)
INSERT INTO notifications (id, app_id, target, payload, push_type, priority, send_at, targeted, created_at)
SELECT printf('%08X-0000-4000-8000-%012X', i, i), :app, '{"tokens":["' || printf('%064x', i) || '"]}',
    CAST('{"aps":{"alert":{"title":"Hello","body":"number ' || i || '"}}}' AS BLOB), 'alert', 10,
    :now - (:n - i) * 2.0, 1, :now - (:n - i) * 2.0
FROM s;
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < :n)
INSERT INTO deliveries (id, notification_id, app_id, token, state, attempts, not_before, status, result_at,
    delivered_at, displayed_at)
SELECT i + 1, printf('%08X-0000-4000-8000-%012X', i, i), :app, printf('%064x', i), 'accepted', 1,
    :now - (:n - i) * 2.0, 200, :now - (:n - i) * 2.0 + 0.05, :now - (:n - i) * 2.0 + 0.08,
    CASE WHEN i % 3 = 0 THEN :now - (:n - i) * 2.0 + 0.3 END
FROM s;
INSERT INTO notification_counters (notification_id, name, reason, n)
    SELECT notification_id, 'accepted', '', 1 FROM deliveries
    UNION ALL SELECT notification_id, 'delivered', '', 1 FROM deliveries
    UNION ALL SELECT notification_id, 'displayed', '', 1 FROM deliveries WHERE displayed_at IS NOT NULL;
"""

POSTGRES_SEED = """
INSERT INTO devices (app_id, token, user_id, tags, time_zone, active, deactivated_at, deactivation_reason,
    registered_at, updated_at)
SELECT :'app', lpad(to_hex(i), 64, '0'), 'user' || (i % (:n / 5)),
    CASE WHEN i % 1000 = 0 THEN '["news","beta"]' WHEN i % 2 = 0 THEN '["news"]' ELSE '["sports"]' END,
    'Asia/Shanghai', i % 500 <> 7, CASE WHEN i % 500 = 7 THEN to_timestamp(:now) END,
    CASE WHEN i % 500 = 7 THEN 'Unregistered' END, to_timestamp(:now - (:n - i) * 0.5),
    to_timestamp(:now - (:n - i) * 0.5)
FROM generate_series(0, :n - 1) AS i;
INSERT INTO device_tags (app_id, token, tag)
    SELECT d.app_id, d.token, t FROM devices d, jsonb_array_elements_text(d.tags::jsonb) AS t;
INSERT INTO notifications (id, app_id, target, payload, push_type, priority, send_at, targeted, created_at)
SELECT upper(format('%s-0000-4000-8000-%s', lpad(to_hex(i), 8, '0'), lpad(to_hex(i), 12, '0'))), :'app',
    '{"tokens":["' || lpad(to_hex(i), 64, '0') || '"]}',
    convert_to('{"aps":{"alert":{"title":"Hello","body":"number ' || i || '"}}}', 'UTF8'), 'alert', 10,
    to_timestamp(:now - (:n - i) * 2.0), 1, to_timestamp(:now - (:n - i) * 2.0)
FROM generate_series(0, :n - 1) AS i;
INSERT INTO deliveries (id, notification_id, app_id, token, state, attempts, not_before, status, result_at,
    delivered_at, displayed_at)
SELECT i + 1, upper(format('%s-0000-4000-8000-%s', lpad(to_hex(i), 8, '0'), lpad(to_hex(i), 12, '0'))), :'app',
    lpad(to_hex(i), 64, '0'), 'accepted', 1, to_timestamp(:now - (:n - i) * 2.0), 200,
    to_timestamp(:now - (:n - i) * 2.0 + 0.05), to_timestamp(:now - (:n - i) * 2.0 + 0.08),
    CASE WHEN i % 3 = 0 THEN to_timestamp(:now - (:n - i) * 2.0 + 0.3) END
FROM generate_series(0, :n - 1) AS i;
SELECT setval(pg_get_serial_sequence('deliveries', 'id'), :n);
INSERT INTO notification_counters (notification_id, name, reason, n)
    SELECT notification_id, 'accepted', '', 1 FROM deliveries
    UNION ALL SELECT notification_id, 'delivered', '', 1 FROM deliveries
    UNION ALL SELECT notification_id, 'displayed', '', 1 FROM deliveries WHERE displayed_at IS NOT NULL;
ANALYZE;
"""


def notification_id(i):
    return f"{i:08X}-0000-4000-8000-{i:012X}"


class Console:
    """One signed-in console session over one keep-alive connection."""

    def __init__(self, port, admin):
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port)
        self.connection.request("POST", "/console/login", body=urllib.parse.urlencode({"key": admin}),
                                headers={"Content-Type": "application/x-www-form-urlencoded"})
        response = self.connection.getresponse()
        response.read()
        assert response.status == 303, response.status
        self.cookie = response.getheader("Set-Cookie").split(";")[0]
        status, html = self.get("/console/compose")
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', html.decode()).group(1)

    def get(self, path):
        return self.call("GET", path)

    def call(self, method, path, body=None):
        headers = {"Cookie": self.cookie}
        if body is not None:
            headers.update({"Content-Type": "application/json", "X-CSRF-Token": self.csrf})
        self.connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = self.connection.getresponse()
        return response.status, response.read()

    def first_event(self, path):
        """Opens a Server-Sent Events stream and reads until its first event; the stream is then closed."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port)
        connection.request("GET", path, headers={"Cookie": self.cookie})
        response = connection.getresponse()
        assert response.status == 200, response.status
        while not response.fp.readline().startswith(b"data:"):
            pass
        connection.close()
        return 200, b""


def measure(name, requests, call):
    for index in range(10):
        call(index)
    times = []
    for index in range(requests):
        began = time.perf_counter()
        status, body = call(index)
        times.append((time.perf_counter() - began) * 1000)
        assert status == 200, f"{name}: {status} {body[:300]}"
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return {"what": name, "p50ms": round(statistics.median(times), 2), "p99ms": round(p99, 2),
            "underTarget": p99 < 200}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1000000, help="notifications, and devices")
    parser.add_argument("--requests", type=int, default=200, help="timed requests per measurement")
    parser.add_argument("--database", default="sqlite", help="sqlite or a postgres:// URL (a new schema per run)")
    parser.add_argument("--keep", action="store_true", help="keep the data directory (and schema) to explore")
    options = parser.parse_args()
    n = options.rows
    work = tempfile.mkdtemp()
    database, schema = options.database, None
    if database != "sqlite":
        schema = "bench_" + uuid.uuid4().hex[:12]
        database += ("&" if "?" in database else "?") + "schema=" + schema
    key = os.path.join(work, "AuthKey.p8")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                   check=True, capture_output=True)
    serve = [HERALD, "serve", "--port", "0", "--data", work, "--database", database]
    provider, port = start(serve, f"{work}/serve.out")
    try:
        admin = open(f"{work}/provider/admin-token").read().strip()
        connection = http.client.HTTPConnection("127.0.0.1", port)
        connection.request("POST", "/v1/apps", body=json.dumps({
            "bundleID": "com.example.bench", "environment": "development", "endpoint": "https://127.0.0.1:9",
            "authentication": {"kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                               "privateKey": open(key).read()}}),
            headers={"Authorization": "Bearer " + admin, "Content-Type": "application/json"})
        response = connection.getresponse()
        created = json.loads(response.read())
        assert response.status == 201, created
        app = created["app"]["id"]
    finally:
        provider.terminate()
        provider.wait()
    began = time.monotonic()
    now = time.time()
    if schema is None:
        db = sqlite3.connect(f"{work}/provider/provider.sqlite")
        for statement in SQLITE_SEED.split(";\n"):
            if statement.strip():
                db.execute(statement, {"n": n, "app": app, "now": now})
        db.commit()
        db.close()
    else:
        url = urllib.parse.urlsplit(options.database)
        plain = urllib.parse.urlunsplit(url._replace(query=""))
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-v", f"n={n}", "-v", f"app={app}", "-v",
                        f"now={now}", plain], input=POSTGRES_SEED, text=True, check=True,
                       env={**os.environ, "PGOPTIONS": f"-csearch_path={schema}"}, capture_output=True)
    print(f"{n} notifications and {n} devices written in {time.monotonic() - began:.0f} s", flush=True)
    provider, port = start(serve, f"{work}/serve2.out")
    try:
        console = Console(port, admin)
        rng = random.Random(1)
        middle = notification_id(n // 2)
        middle_time = console.get(f"/v1/notifications/{middle}?app={app}")
        created_at = json.loads(middle_time[1])["createdAt"]
        q = urllib.parse.quote
        results = [measure(f"GET /console/{page} (HTML)", options.requests,
                           lambda _, page=page: console.get(f"/console/{page}")) for page in PAGES]
        # A closed stream is counted against its session until the server next writes to it (up to a second);
        # streams opened back to back take turns among sessions, as many browsers' would.
        watchers = [Console(port, admin) for _ in range(20)]
        results += [
            measure("History: first page (first SSE event)", options.requests,
                    lambda index: watchers[index % len(watchers)].first_event(
                        f"/console/api/history/stream?app={app}&limit=25")),
            measure("History: a page half way back (before=)", options.requests,
                    lambda _: console.get(f"/v1/notifications?app={app}&limit=25&before={q(created_at)}")),
            measure("History: one notification's deliveries", options.requests,
                    lambda _: console.get(
                        f"/v1/notifications/{notification_id(rng.randrange(n))}/deliveries?app={app}&limit=50")),
            measure("Delivery log: look up an apns-id", options.requests,
                    lambda _: console.get("/console/api/trace?apns-id=" + (
                        lambda i: notification_id(i)[:23] + f"-{i + 1:012X}")(rng.randrange(n)))),
            measure("Devices: first page", options.requests,
                    lambda _: console.get(f"/v1/devices?app={app}&limit=100")),
            measure("Devices: a page half way (after=)", options.requests,
                    lambda _: console.get(f"/v1/devices?app={app}&limit=100&after={rng.randrange(n):064x}")),
            measure("Devices: by user", options.requests,
                    lambda _: console.get(f"/v1/devices?app={app}&limit=100&user=user{rng.randrange(n // 5)}")),
            measure("Devices: by a rare tag", options.requests,
                    lambda _: console.get(f"/v1/devices?app={app}&limit=100&tag=beta")),
            measure("Devices: deactivated only", options.requests,
                    lambda _: console.get(f"/v1/devices?app={app}&limit=100&active=false")),
            measure("Apps: list", options.requests, lambda _: console.get("/v1/apps")),
            measure("Tools: check a device token", options.requests,
                    lambda _: console.call("POST", "/console/api/tools/token",
                                           {"app": app, "token": f"{rng.randrange(n):064x}"})),
            measure("Metrics: the last hour", options.requests, lambda _: console.get("/console/api/metrics")),
        ]
        for result in results:
            print(json.dumps(result), flush=True)
        worst = max(result["p99ms"] for result in results)
        print(json.dumps({"database": options.database.split("://")[0], "rows": n, "requests": options.requests,
                          "worstP99ms": worst, "allUnder200ms": worst < 200}), flush=True)
    finally:
        provider.terminate()
        provider.wait()
        if options.keep:
            print(f"kept {work}" + (f" and schema {schema}" if schema else ""), flush=True)
            return
        shutil.rmtree(work, ignore_errors=True)
        if schema:
            url = urllib.parse.urlunsplit(urllib.parse.urlsplit(options.database)._replace(query=""))
            subprocess.run(["psql", "-q", "-c", f"DROP SCHEMA {schema} CASCADE", url], capture_output=True)


if __name__ == "__main__":
    main()
