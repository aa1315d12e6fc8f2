#!/usr/bin/env python3
"""Retention under load. A simulated day passes by aging what is stored by a day: every notification's
`created_at` and every report's time move 24 hours back (one small UPDATE, in the database the provider runs on), which
is what the pruner reads against the provider's clock. (Moving the processes' clocks with libfaketime instead was
tried: from an offset of a day on, its timerfd wrappers make libdispatch reprogram timers in a loop and both
processes spend most of their time in epoll_ctl and timerfd_settime, which measures libfaketime, not Herald.)

days: a broadcast to every device each simulated day, with the app's retention (30 days by default); after each
day's broadcast and the pruner's pass, the database's size, the day's send rate, and the API's p99 (the progress
reads and History's list during the broadcast). The size should stop growing once days fall out of retention.

    swift build -c release --product herald
    python3 Benchmarks/retention.py days --days 40 --devices 100000 [--database postgres://...]

prune: the broadcast's rate while the pruner deletes the rows of an expired broadcast of as many devices, beside the
same broadcast with nothing to prune, in pairs (the app keeps deliveries 1 day; what is stored ages 25 hours):

    python3 Benchmarks/retention.py prune --devices 1000000 --pairs 3 [--database postgres://...]
"""
import argparse, json, os, re, shutil, ssl, statistics, subprocess, sys, tempfile, time, uuid

sys.path.insert(0, os.path.dirname(__file__))
from importlib import import_module

broadcast = import_module("provider-broadcast")
HERALD, start = broadcast.HERALD, broadcast.start


def Client(host, port, token=None, context=None):
    """An API client whose calls may take minutes (a prune of millions of rows answers when it is done)."""
    return broadcast.Client(host, port, token, context, timeout=600)


class Lab:
    """A gateway and a provider, an app, and `devices` registered devices."""

    def __init__(self, options):
        self.options = options
        self.work = tempfile.mkdtemp(prefix="herald-retention-")
        self.database, self.schema = options.database, None
        if self.database != "sqlite":
            self.schema = "bench_" + uuid.uuid4().hex[:12]
            self.database += ("&" if "?" in self.database else "?") + "schema=" + self.schema
        key = os.path.join(self.work, "AuthKey.p8")
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                       check=True, capture_output=True)
        self.gateway, found = start([HERALD, "gateway", "--port", "0", "--data", f"{self.work}/gateway",
                                     "--auth-key", f"DEF123GHIJ:ABC123DEFG:{key}"],
                                    r"listening on https://127.0.0.1:(\d+)", f"{self.work}/gateway.out", seconds=60)
        gateway_port = int(found.group(1))
        self.provider, found = start([HERALD, "serve", "--port", "0", "--data", self.work, "--database", self.database,
                                      "--prune-interval", str(options.prune_interval)],
                                     r"http://127.0.0.1:(\d+)/v1", f"{self.work}/serve.out", seconds=60)
        self.port = int(found.group(1))
        self.admin = open(f"{self.work}/provider/admin-token").read().strip()
        context = ssl.create_default_context(cafile=f"{self.work}/gateway/ca.pem")
        gw = Client("127.0.0.1", gateway_port, open(f"{self.work}/gateway/admin-token").read().strip(), context)
        status, created = Client("127.0.0.1", self.port, self.admin).call("POST", "/v1/apps", {
            "bundleID": "com.example.bench", "environment": "development",
            "endpoint": f"https://127.0.0.1:{gateway_port}", "caPEM": open(f"{self.work}/gateway/ca.pem").read(),
            "retention": {"deliveries": options.retention},
            "authentication": {"kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                               "privateKey": open(key).read()}})
        assert status == 201, created
        self.api = Client("127.0.0.1", self.port, created["apiKey"])
        tokens = []
        while len(tokens) < options.devices:
            status, answer = gw.call("POST", "/admin/devices", {
                "topic": "com.example.bench", "environment": "development",
                "count": min(100000, options.devices - len(tokens))})
            assert status == 201, answer
            tokens += answer["tokens"]
        for index in range(0, len(tokens), 10000):
            status, answer = self.api.call("POST", "/v1/devices/import",
                                           {"devices": [{"token": t} for t in tokens[index:index + 10000]]})
            assert status == 200, answer
        print(json.dumps({"devices": len(tokens), "database": "sqlite" if self.schema is None else "postgres",
                          "retentionDays": options.retention}), flush=True)

    def age(self, hours):
        """Makes everything stored `hours` older, as if the provider's clock had moved on."""
        seconds = hours * 3600
        if self.schema is None:
            statements = (f"UPDATE notifications SET created_at = created_at - {seconds}; "
                          f"UPDATE feedback SET at = at - {seconds};")
            subprocess.run(["sqlite3", "-cmd", ".timeout 60000", f"{self.work}/provider/provider.sqlite", statements],
                           check=True, capture_output=True)
        else:
            statements = (f"SET search_path TO {self.schema}; "
                          f"UPDATE notifications SET created_at = created_at - interval '{hours} hours'; "
                          f"UPDATE feedback SET at = at - interval '{hours} hours';")
            # A simulated day lasts seconds here, where autovacuum (a visit a minute per database, its work
            # throttled) would have had a whole day: what it does in a day is done now, as VACUUM.
            vacuum = [argument for table in ["deliveries", "feedback", "notifications", "notification_counters"]
                      for argument in ["-c", f"VACUUM {self.schema}.{table}"]]
            subprocess.run(["psql", self.options.database.split("?")[0], "-q", "-c", statements] + vacuum,
                           check=True, capture_output=True)

    def broadcast(self):
        """One notification to every device: its seconds, sends per second, and the p99 of the API's reads while it
        ran (its progress and History's list); `self.created_ms` is how long the POST took (it writes every
        delivery row)."""
        latencies = []
        began = time.monotonic()
        status, notification = self.api.call("POST", "/v1/notifications", {
            "target": {"all": True}, "content": {"title": "Daily", "body": "to everyone"}})
        assert status == 202, notification
        self.created_ms = (time.monotonic() - began) * 1000
        while True:
            for path in [f"/v1/notifications/{notification['id']}", "/v1/notifications?limit=25"]:
                asked = time.monotonic()
                status, report = self.api.call("GET", path)
                latencies.append(time.monotonic() - asked)
                assert status == 200, report
            status, report = self.api.call("GET", f"/v1/notifications/{notification['id']}")
            if report["state"] == "done":
                seconds = time.monotonic() - began
                assert report["stats"]["accepted"] == self.options.devices, report["stats"]
                latencies.sort()
                p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
                return seconds, self.options.devices / seconds, p99 * 1000
            time.sleep(0.2)

    def pruned(self):
        """Rows the pruner deleted so far, by kind (from /metrics)."""
        status, text = Client("127.0.0.1", self.port, self.admin).call("GET", "/metrics")
        counts = {}
        for line in text.splitlines():
            found = re.match(r'herald_provider_pruned_rows_total\{kind="(\w+)"\} (\d+)', line)
            if found:
                counts[found.group(1)] = int(found.group(2))
        return counts

    def wait_pruned(self, deliveries, limit=900):
        """Waits until the pruner has deleted `deliveries` delivery rows in all; the seconds it took."""
        began = time.monotonic()
        while self.pruned().get("deliveries", 0) < deliveries:
            if time.monotonic() - began > limit:
                sys.exit(f"the pruner deleted {self.pruned()} of {deliveries} deliveries in {limit} s")
            time.sleep(0.5)
        return time.monotonic() - began

    def size(self):
        """The database's bytes (SQLite: the file and its WAL; PostgreSQL: the schema's tables and indexes), and on
        PostgreSQL the deliveries table's dead tuples."""
        if self.schema is None:
            base = f"{self.work}/provider/provider.sqlite"
            return sum(os.path.getsize(path) for path in [base, base + "-wal"] if os.path.exists(path)), None
        url = self.options.database.split("?")[0]
        query = (f"SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n "
                 f"ON n.oid = c.relnamespace WHERE n.nspname = '{self.schema}' AND c.relkind = 'r'; "
                 f"SELECT coalesce(n_dead_tup, 0) FROM pg_stat_user_tables WHERE schemaname = '{self.schema}' "
                 f"AND relname = 'deliveries'")
        out = subprocess.run(["psql", url, "-At", "-c", query], capture_output=True, text=True, check=True).stdout
        values = [int(line) for line in out.split() if line.strip()]
        return values[0], (values[1] if len(values) > 1 else None)

    def close(self):
        self.provider.kill()
        self.gateway.kill()
        if self.options.keep:
            print(f"kept {self.work}", flush=True)
        else:
            shutil.rmtree(self.work, ignore_errors=True)
            if self.schema:
                subprocess.run(["psql", self.options.database.split("?")[0], "-qc",
                                f"DROP SCHEMA {self.schema} CASCADE"], capture_output=True)


def days(lab, options):
    rates = []
    for day in range(options.days):
        if day:
            lab.age(24)
        seconds, rate, p99 = lab.broadcast()
        expected = max(0, day + 1 - options.retention) * options.devices
        waited = lab.wait_pruned(expected) if expected else 0
        size, dead = lab.size()
        rates.append(rate)
        print(json.dumps({"day": day + 1, "seconds": round(seconds, 2), "sendsPerSecond": round(rate),
                          "apiReadP99Ms": round(p99, 1), "createMs": round(lab.created_ms), "prunedDeliveries": lab.pruned().get("deliveries", 0),
                          "pruneWaitSeconds": round(waited, 1), "databaseMB": round(size / 1e6, 1),
                          **({"deadTuples": dead} if dead is not None else {})}), flush=True)
    print(json.dumps({"day1PerSecond": round(rates[0]), "lastDayPerSecond": round(rates[-1]),
                      "lastOfFirst": round(rates[-1] / rates[0], 2)}), flush=True)


def size(lab, options):
    """Bytes per device (the devices registered, nothing sent) and per delivery (after one broadcast to all)."""
    empty = options.empty_size
    devices, _ = lab.size()
    lab.broadcast()
    time.sleep(2)
    after, _ = lab.size()
    per_device = (devices - empty) / options.devices
    per_delivery = (after - devices) / options.devices
    print(json.dumps({"devices": options.devices, "databaseMBWithDevices": round(devices / 1e6, 1),
                      "databaseMBAfterOneBroadcast": round(after / 1e6, 1), "bytesPerDevice": round(per_device),
                      "bytesPerDelivery": round(per_delivery),
                      "mbPerDayOfA1MBroadcast": round(per_delivery * 1_000_000 / 1e6)}), flush=True)


def prune(lab, options):
    """Pairs of one broadcast while an expired one's rows are pruned and one with nothing to prune."""
    with_pruning, without = [], []
    lab.broadcast()
    expected = 0
    for pair in range(options.pairs):
        lab.age(25)
        expected += options.devices * (1 if pair == 0 else 2)
        before = lab.pruned().get("deliveries", 0)
        seconds, rate, p99 = lab.broadcast()
        during = lab.pruned().get("deliveries", 0) - before
        waited = lab.wait_pruned(expected)
        with_pruning.append(rate)
        print(json.dumps({"pair": pair + 1, "pruning": True, "sendsPerSecond": round(rate), "apiP99Ms": round(p99, 1),
                          "prunedDuringBroadcast": during, "pruneWaitAfterSeconds": round(waited, 1)}), flush=True)
        seconds, rate, p99 = lab.broadcast()
        without.append(rate)
        print(json.dumps({"pair": pair + 1, "pruning": False, "sendsPerSecond": round(rate),
                          "apiP99Ms": round(p99, 1)}), flush=True)
    print(json.dumps({"withPruningMedian": round(statistics.median(with_pruning)),
                      "withoutMedian": round(statistics.median(without)),
                      "ratio": round(statistics.median(with_pruning) / statistics.median(without), 2)}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["days", "prune", "size"])
    parser.add_argument("--devices", type=int, default=100000)
    parser.add_argument("--days", type=int, default=40)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--retention", type=int, default=None, help="the app's retention of deliveries, in days")
    parser.add_argument("--prune-interval", type=int, default=2, help="herald serve --prune-interval")
    parser.add_argument("--database", default="sqlite", help="sqlite or a postgres:// URL (a new schema per run)")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--empty-size", type=int, default=0,
                        help="size: the bytes of a database with one app and no device, taken off the per-device figure")
    options = parser.parse_args()
    if options.retention is None:
        options.retention = 30 if options.mode == "days" else 1
    lab = Lab(options)
    try:
        {"days": days, "prune": prune, "size": size}[options.mode](lab, options)
    finally:
        lab.close()


if __name__ == "__main__":
    main()
