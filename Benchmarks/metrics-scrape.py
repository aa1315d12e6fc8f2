#!/usr/bin/env python3
"""How long `GET /metrics` takes with many apps, and how many series it exports, after traffic.

Starts `herald serve` (SQLite or PostgreSQL), creates `--apps` apps (credentials pointing at an address where nothing
listens: their gauges, the queue's and the credential pauses' are read over every app), sends to each app's
registered devices through nothing, reads `/metrics` `--reads` times one after another, and prints the p50, p99 and
max answer time and the number of series. The goal (issue 67): under 50 ms with 100 apps.

Usage: HERALD_BIN=.build/release/herald python3 Benchmarks/metrics-scrape.py --apps 100 [--database postgres://...]
"""
import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid

HERALD = os.environ.get("HERALD_BIN", os.path.join(os.path.dirname(__file__), "..", ".build/release/herald"))


def call(port, method, path, token, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apps", type=int, default=100)
    parser.add_argument("--devices", type=int, default=20, help="devices registered per app")
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--database", default="sqlite")
    parser.add_argument("--notifications", type=int, default=0,
                        help="then N more distinct notifications (each to a new token) and reads of unknown ids and "
                             "paths: the series counted before and after (they must not grow)")
    options = parser.parse_args()
    work = tempfile.mkdtemp()
    database = options.database
    if database != "sqlite":
        database += ("&" if "?" in database else "?") + "schema=metrics_" + uuid.uuid4().hex[:8]
    key = os.path.join(work, "AuthKey.p8")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                   check=True, capture_output=True)
    log = open(os.path.join(work, "serve.out"), "w+")
    serve = subprocess.Popen([HERALD, "serve", "--port", "0", "--data", work, "--database", database],
                             stdout=log, stderr=subprocess.STDOUT)
    try:
        port = None
        for _ in range(600):
            log.seek(0)
            found = re.search(r"http://127.0.0.1:(\d+)/v1", log.read())
            if found:
                port = int(found.group(1))
                break
            time.sleep(0.1)
        assert port, "herald serve did not start"
        admin = open(os.path.join(work, "provider/admin-token")).read().strip()
        pem = open(key).read()
        for index in range(options.apps):
            status, data = call(port, "POST", "/v1/apps", admin, {
                "bundleID": f"com.example.app{index}", "environment": "development",
                "endpoint": "https://127.0.0.1:9", "caPEM": None,
                "authentication": {"kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG", "privateKey": pem}})
            assert status == 201, data
            app = json.loads(data)
            for device in range(options.devices):
                call(port, "POST", "/v1/devices", app["apiKey"], {"token": uuid.uuid4().hex * 2})
            call(port, "POST", "/v1/notifications", app["apiKey"], {"target": {"all": True}, "content": {"body": "x"}})
            call(port, "GET", f"/v1/notifications/{uuid.uuid4()}", app["apiKey"])
        times = []
        text = b""
        for _ in range(options.reads):
            began = time.monotonic()
            status, text = call(port, "GET", "/metrics", admin)
            times.append((time.monotonic() - began) * 1000)
            assert status == 200
        times.sort()
        series = [line for line in text.decode().splitlines() if line and not line.startswith("#")]
        grown = None
        if options.notifications:
            app_key = app["apiKey"]
            for index in range(options.notifications):
                call(port, "POST", "/v1/notifications", app_key,
                     {"target": {"tokens": [uuid.uuid4().hex * 2]}, "content": {"body": f"n{index}"}})
                call(port, "GET", f"/v1/notifications/{uuid.uuid4()}", app_key)
                call(port, "GET", f"/no/such/path/{index}", app_key)
            _, after = call(port, "GET", "/metrics", admin)
            names = lambda lines: {line.split(" ")[0] for line in lines}
            later = [line for line in after.decode().splitlines() if line and not line.startswith("#")]
            grown = sorted(names(later) - names(series))
            series = later
        print(json.dumps({"apps": options.apps, "database": options.database.split("://")[0], "reads": len(times),
                          "p50Milliseconds": round(times[len(times) // 2], 2),
                          "p99Milliseconds": round(times[int(len(times) * 0.99) - 1], 2),
                          "maxMilliseconds": round(times[-1], 2), "series": len(series),
                          **({"notificationsAfter": options.notifications, "newSeriesAfter": grown}
                             if grown is not None else {}),
                          "bytes": len(text)}))
    finally:
        serve.terminate()
        serve.wait(timeout=30)


if __name__ == "__main__":
    main()
