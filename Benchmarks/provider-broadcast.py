#!/usr/bin/env python3
"""A broadcast through herald serve to the local gateway: time until every delivery has its APNs result, sends per
second, and the largest provider's peak resident memory (VmHWM) during the broadcast (importPeakRSSMegabytes: while
the devices were imported, 50,000 a call, before it), and the CPU each side spent per delivery (the provider, the
gateway, PostgreSQL's server processes; with --compare-send, herald send and the gateway beside it). With --kill,
the (first) provider is killed with SIGKILL part way, and the gateway's own records are checked: every device got
the notification, with one apns-id, and how many were resent to APNs (accepted before the kill but not yet
recorded). With one provider the killed one is restarted on the same data; with --providers 2 (PostgreSQL) it is
not: the other takes its work over when the killed one's heartbeat has been silent for 5 s.

    swift build -c release --product herald
    python3 Benchmarks/provider-broadcast.py --devices 100000 [--kill]
    python3 Benchmarks/provider-broadcast.py --devices 100000 --database postgres://herald:herald@127.0.0.1/herald \
        [--providers 2] [--kill]

With --watch R, the devices are registered once and R rounds follow, each with two broadcasts to all of them: one
while nobody watches and one while the console's History is open on a live stream (the Server-Sent Events the page
reads), in alternating order; it reports the median seconds of each and the slowdown.

    python3 Benchmarks/provider-broadcast.py --devices 1000000 --watch 3

HERALD_BIN names the herald build to run (default: this checkout's release build); HERALD_GATEWAY_BIN another one for
the gateway alone, to tell a provider's change from a gateway's.

Each broadcast adds its deliveries to the database, and the next one is slower for it; --watch-windows S compares
within one broadcast instead: History is watched live in every other window of S seconds, and the send rates of the
watched and unwatched windows are compared (medians).

    python3 Benchmarks/provider-broadcast.py --devices 1000000 --watch-windows 5 [--tabs 20]
"""
import argparse, http.client, json, os, re, shutil, signal, ssl, statistics, subprocess, sys, tempfile, threading, \
    time, urllib.parse, uuid

HERALD = os.environ.get("HERALD_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "release", "herald"))


def start(args, pattern, out, seconds=30):
    """Starts `args` with its output in `out`; the process and the match of `pattern` once its output shows it."""
    process = subprocess.Popen(args, stdout=open(out, "w"), stderr=subprocess.STDOUT)
    for _ in range(seconds * 10):
        text = open(out).read()
        found = re.search(pattern, text)
        if found:
            return process, found
        time.sleep(0.1)
    sys.exit(f"{args[1]} did not start: {open(out).read()}")


class Client:
    """One keep-alive connection to a Herald API; `call` answers the status and the body (JSON decoded, else text)."""

    def __init__(self, host, port, token=None, context=None, timeout=None):
        self.connection = (http.client.HTTPSConnection(host, port, context=context, timeout=timeout) if context
                           else http.client.HTTPConnection(host, port, timeout=timeout))
        self.token = token

    def call(self, method, path, body=None, again=True, extra=None):
        headers = {"Content-Type": "application/json", **(extra or {})}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        try:
            self.connection.request(method, path, body=json.dumps(body) if body is not None else None,
                                    headers=headers)
            response = self.connection.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The server closed an idle keep-alive connection (the gateway does after 60 s): a new one, once.
            if not again:
                raise
            self.connection.close()
            return self.call(method, path, body, again=False, extra=extra)
        data = response.read()
        if not data:
            return response.status, None
        return response.status, (json.loads(data) if data[:1] in b"{[" else data.decode())


def console_cookie(port, admin):
    """Signs in to the console with the admin token; the session cookie."""
    connection = http.client.HTTPConnection("127.0.0.1", port)
    connection.request("POST", "/console/login", body=urllib.parse.urlencode({"key": admin}),
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    response.read()
    connection.close()
    assert response.status == 303, response.status
    return response.getheader("Set-Cookie").split(";")[0]


def otlp_receiver():
    """An OTLP/HTTP endpoint that takes every export and counts its bytes: what `--traced` exports to."""
    import http.server
    received = {"exports": 0, "bytes": 0}

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            received["bytes"] += len(self.rfile.read(int(self.headers.get("content-length", 0))))
            received["exports"] += 1
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return received, server.server_address[1]


LANGUAGES = [("de", "de_DE"), ("fr", "fr_FR"), ("ja", "ja_JP"), ("zh-Hans", "zh-Hans-CN"), ("pt-BR", "pt_BR")]


def register_devices(gw, api, count, languages=0, quiet_third=False, variable=False):
    """`count` tokens issued by the gateway (100,000 a call) and imported into the provider (50,000 a call); with
    `languages`, each device has a locale: those of the first `languages` of LANGUAGES and en_US, in turn; with
    `quiet_third`, every third device is in UTC (inside quiet_window()) and the others twelve hours ahead; with
    `variable`, each device has the attribute firstName."""
    locales = [locale for _, locale in LANGUAGES[:languages]] + ["en_US"] if languages else None
    tokens = []
    while len(tokens) < count:
        status, answer = gw.call("POST", "/admin/devices", {"topic": "com.example.bench", "environment": "development",
                                                            "count": min(100000, count - len(tokens))})
        assert status == 201, answer
        tokens += answer["tokens"]
    for start_index in range(0, len(tokens), 50000):
        chunk = tokens[start_index:start_index + 50000]
        devices = [{"token": t, **({"locale": locales[(start_index + i) % len(locales)]} if locales else {}),
                    **({"timeZone": "UTC" if (start_index + i) % 3 == 0 else "Etc/GMT-12"} if quiet_third else {}),
                    **({"attributes": {"firstName": f"User {start_index + i}"}} if variable else {})}
                   for i, t in enumerate(chunk)]
        status, answer = api.call("POST", "/v1/devices/import", {"devices": devices})
        assert status == 200, answer
    return tokens


def quiet_window():
    """Quiet hours from an hour before now to an hour after, UTC: a device in UTC is inside, one in Etc/GMT-12 not."""
    now = time.gmtime()
    minutes = now.tm_hour * 60 + now.tm_min
    text = lambda m: f"{m % 1440 // 60:02d}:{m % 60:02d}"
    return {"start": text(minutes - 60), "end": text(minutes + 60), "action": "wait"}


class HistoryWatcher:
    """The console's History page, live: signs in with the admin token and reads the page's event stream until
    stopped, as a browser's EventSource would."""

    def __init__(self, port, admin, app):
        cookie = console_cookie(port, admin)
        self.connection = http.client.HTTPConnection("127.0.0.1", port)
        self.connection.request("GET", f"/console/api/history/stream?app={app}&limit=25", headers={"Cookie": cookie})
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.status
        self.events = 0
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        try:
            while True:
                line = self.response.fp.readline()
                if not line:
                    return
                if line.startswith(b"data:"):
                    self.events += 1
        except (OSError, ValueError, AttributeError):
            return

    def stop(self):
        self.connection.sock.shutdown(2)
        self.connection.close()
        self.thread.join()
        return self.events


class Probe:
    """During the broadcast, a signed-in console session reads what a user watching it would, one read after another
    (a pause of `pause` seconds between): the History and Devices pages, the notification's report and its first
    deliveries, the app's latest notifications and devices. Each read's time is kept; `stop` prints p50 and p99 for
    each and for all, against the console's target of 200 ms."""

    def __init__(self, port, admin, app, notification, pause=0.05):
        self.cookie = console_cookie(port, admin)
        self.connection = http.client.HTTPConnection("127.0.0.1", port)
        self.reads = {"GET /console/history": "/console/history", "GET /console/devices": "/console/devices",
                      "the notification's report": f"/v1/notifications/{notification}?app={app}",
                      "its deliveries (50)": f"/v1/notifications/{notification}/deliveries?app={app}&limit=50",
                      "latest notifications (25)": f"/v1/notifications?app={app}&limit=25",
                      "devices (100)": f"/v1/devices?app={app}&limit=100"}
        self.times = {name: [] for name in self.reads}
        self.pause = pause
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopped.is_set():
            for name, path in self.reads.items():
                began = time.monotonic()
                self.connection.request("GET", path, headers={"Cookie": self.cookie})
                response = self.connection.getresponse()
                response.read()
                assert response.status == 200, (path, response.status)
                self.times[name].append((time.monotonic() - began) * 1000)
                self.stopped.wait(self.pause)

    def stop(self):
        self.stopped.set()
        self.thread.join()

        def percentiles(values):
            values = sorted(values)
            return {"reads": len(values), "p50ms": round(values[len(values) // 2], 1),
                    "p99ms": round(values[min(len(values) - 1, int(len(values) * 0.99))], 1),
                    "maxms": round(values[-1], 1)}

        every = [value for values in self.times.values() for value in values]
        print(json.dumps({"readsDuringTheBroadcast": {**{name: percentiles(values)
                                                         for name, values in self.times.items() if values},
                                                      "all": percentiles(every)}}), flush=True)


def broadcast(api, poll):
    """One notification to every device; the seconds until every delivery has APNs' answer."""
    began = time.monotonic()
    status, notification = api.call("POST", "/v1/notifications", {
        "target": {"all": True}, "content": {"title": "Broadcast", "body": "to everyone"}})
    assert status == 202, notification
    while True:
        status, report = api.call("GET", f"/v1/notifications/{notification['id']}")
        if report["state"] == "done":
            return time.monotonic() - began, report["stats"]
        time.sleep(poll)


def watched_windows(window, api, port, admin, app, devices, tabs=1):
    """One broadcast in windows of `window` seconds, History watched live (in `tabs` tabs, each signed in on its own)
    in every other one; the send rate (APNs answers per second) of each window, and the medians of the watched and
    unwatched ones. Windows in one broadcast share the database's size, which grows with every broadcast and slows
    the next."""
    status, notification = api.call("POST", "/v1/notifications", {
        "target": {"all": True}, "content": {"title": "Broadcast", "body": "to everyone"}})
    assert status == 202, notification
    rates = {False: [], True: []}
    watched, index = False, 0

    def answered():
        status, report = api.call("GET", f"/v1/notifications/{notification['id']}")
        stats = report["stats"]
        return report["state"], stats["accepted"] + sum(stats["rejected"].values())

    state, before = answered()
    while state != "done":
        watchers = [HistoryWatcher(port, admin, app) for _ in range(tabs)] if watched else []
        began = time.monotonic()
        time.sleep(window)
        state, after = answered()
        seconds = time.monotonic() - began
        for watcher in watchers:
            watcher.stop()
        # A window in which the broadcast ended is partial: left out.
        if state != "done" and index > 0:
            rates[watched].append((after - before) / seconds)
            print(json.dumps({"window": index, "watched": watched, "answersPerSecond": round((after - before) / seconds)}),
                  flush=True)
        before, watched, index = after, not watched, index + 1
    unwatched, watched = statistics.median(rates[False]), statistics.median(rates[True])
    print(json.dumps({"devices": devices, "tabs": tabs, "windowSeconds": window,
                      "windows": len(rates[False]) + len(rates[True]),
                      "unwatchedMedianPerSecond": round(unwatched), "watchedMedianPerSecond": round(watched),
                      "slowdownPercent": round((1 - watched / unwatched) * 100, 1)}), flush=True)


def watched_rounds(rounds, api, port, admin, app, devices, poll):
    """Alternates unwatched and watched broadcasts; prints each and the medians."""
    times = {False: [], True: []}
    for round_index in range(rounds):
        for watched in ([False, True] if round_index % 2 == 0 else [True, False]):
            watcher = HistoryWatcher(port, admin, app) if watched else None
            seconds, stats = broadcast(api, poll)
            events = watcher.stop() if watcher else 0
            assert stats["accepted"] == devices, stats
            times[watched].append(seconds)
            print(json.dumps({"round": round_index + 1, "watched": watched, "seconds": round(seconds, 2),
                              "historyEvents": events}), flush=True)
    unwatched, watched = statistics.median(times[False]), statistics.median(times[True])
    print(json.dumps({"devices": devices, "rounds": rounds, "unwatchedMedianSeconds": round(unwatched, 2),
                      "watchedMedianSeconds": round(watched, 2),
                      "slowdownPercent": round((watched / unwatched - 1) * 100, 1)}), flush=True)


def compare_send(options, work, key, endpoint_port, tokens, provider_rate, gateway):
    """herald send, as many connections as the provider has, the broadcast's payload to the same tokens through the same
    endpoint: the rate a client alone reaches there, beside the provider's from the same run."""
    with open(f"{work}/tokens.txt", "w") as file:
        file.write("\n".join(tokens) + "\n")
    with open(f"{work}/payload.json", "w") as file:
        json.dump({"aps": {"alert": {"title": "Broadcast", "body": "to everyone"}}}, file)
    gateway_before, children_before = cpu_seconds([gateway.pid]), os.times()
    began = time.monotonic()
    sent = subprocess.run(options.sender_cpus + [HERALD, "send", "--url", f"https://127.0.0.1:{endpoint_port}", "--ca-file",
                           f"{work}/gateway/ca.pem", "--auth-key", f"DEF123GHIJ:ABC123DEFG:{key}",
                           "--topic", "com.example.bench", "--payload", f"{work}/payload.json",
                           "--tokens", f"{work}/tokens.txt", "--connections", str(options.connections), "--json"],
                          capture_output=True, text=True)
    seconds = time.monotonic() - began
    summary = json.loads(sent.stdout)
    assert summary["accepted"] == len(tokens), sent.stdout + sent.stderr
    send_rate = len(tokens) / seconds
    children = os.times()
    send_cpu = (children.children_user + children.children_system - children_before.children_user
                - children_before.children_system)
    print(json.dumps({"providerPerSecond": round(provider_rate), "heraldSendPerSecond": round(send_rate),
                      "connections": options.connections, "providerOfHeraldSend": round(provider_rate / send_rate, 2),
                      "sendCPUMicrosecondsPerDelivery": {
                          "send": round(send_cpu / len(tokens) * 1e6, 1),
                          "gateway": round((cpu_seconds([gateway.pid])[gateway.pid] - gateway_before[gateway.pid])
                                           / len(tokens) * 1e6, 1)}}),
          flush=True)


def check_devices(gw, tokens):
    """Each device's notifications at the gateway: how many devices have exactly one, how many distinct apns-ids those
    are, and how many notifications were sent to APNs more than once (the gateway's delivery log, which keeps the
    latest 100,000: older ones are counted apart)."""
    missing = resent = forgotten = 0
    ids = set()
    for token in tokens:
        status, answer = gw.call("GET", f"/admin/devices/{token}/notifications")
        items = answer["stored"] + answer["delivered"]
        if len(items) != 1:
            missing += 1
            continue
        ids.add(items[0]["apns-id"])
        status, log = gw.call("GET", f"/admin/deliveries?apns-id={items[0]['apns-id']}")
        if status != 200 or "events" not in log:
            forgotten += 1  # older than the log's latest 100,000
            continue
        resent += sum(1 for event in log["events"] if event["event"] == "received") - 1
    return {"devicesWithExactlyOneNotification": len(tokens) - missing, "distinctApnsIDs": len(ids),
            "resentToAPNs": resent, "notInTheGatewaysLog": forgotten}


def cpu_seconds(pids):
    """Each process's CPU time (user and system) so far, in seconds, by pid (those still running)."""
    ticks = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        seconds[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return seconds


def database_pids():
    """PostgreSQL's server processes (every backend of every client, and its background workers)."""
    pids = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and open(f"/proc/{name}/comm").read().strip() == "postgres":
                pids.append(int(name))
        except (FileNotFoundError, ProcessLookupError):
            continue
    return pids


def cpu_per_delivery(listers, before, count):
    """Microseconds of CPU per delivery each named set of processes spent since `before` (``cpu_seconds`` of each
    then); a process started since counts whole."""
    used = {}
    for name, pids in listers.items():
        now = cpu_seconds(pids())
        used[name] = round(sum(seconds - before[name].get(pid, 0) for pid, seconds in now.items()) / count * 1e6, 1)
    return used


def peak_rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return 0


def restart_peak_rss(processes):
    """The peak resident memory of each process so far (MB, the largest), after which each one's peak starts again
    from its current size (`clear_refs` 5): the registration's imports (50,000 devices a call) are not the broadcast's
    peak."""
    peak = max(peak_rss_mb(process.pid) for process in processes)
    for process in processes:
        with open(f"/proc/{process.pid}/clear_refs", "w") as file:
            file.write("5")
    return peak


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=100000)
    parser.add_argument("--kill", action="store_true")
    parser.add_argument("--variable", action="store_true",
                        help="each device has the attribute firstName, and the title names it ({{firstName|there}})")
    parser.add_argument("--quiet-third", action="store_true",
                        help="the app has quiet hours around now (UTC) and every third device is inside them: those "
                             "wait (the run ends when the others are accepted)")
    parser.add_argument("--capped", action="store_true",
                        help="the app caps the category marketing at 3 a day per user and the broadcast is one of it "
                             "(none of the devices has had one: every device is checked and logged, none held back)")
    parser.add_argument("--languages", type=int, default=0, metavar="N",
                        help="the content in N languages besides the default (at most 5), and devices whose locales "
                             "read each of them or none (in turn)")
    parser.add_argument("--rtt-ms", type=float, default=0,
                        help="put the gateway this round trip away (Benchmarks/latency-proxy.py), as APNs is")
    parser.add_argument("--restart-database", metavar="COMMAND",
                        help="a shell command that restarts the database (pg_ctlcluster 15 main restart), run a third "
                             "of the way through; reports the stall after it and checks nothing was lost")
    parser.add_argument("--max-stall", type=float, default=0, metavar="SECONDS",
                        help="with --check and --restart-database: exit 1 when sending stalled longer than this after "
                             "the database came back")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a device did not get exactly one notification (with --kill or "
                             "--restart-database)")
    parser.add_argument("--workers", type=int, default=4, help="herald serve --workers (its default)")
    parser.add_argument("--batch-size", type=int, default=5000, help="herald serve --batch-size")
    parser.add_argument("--connections", type=int, default=4, help="herald serve --connections (its default)")
    parser.add_argument("--poll", type=float, default=0.2, help="seconds between progress reads")
    parser.add_argument("--database", default="sqlite", help="sqlite or a postgres:// URL (a new schema per run)")
    parser.add_argument("--providers", type=int, default=1, help="herald serve processes (more than 1: PostgreSQL)")
    parser.add_argument("--compare-send", action="store_true",
                        help="after the broadcast, herald send with as many connections sends the same notification "
                             "to the same tokens through the same endpoint (far too, with --rtt-ms): both rates and "
                             "their ratio, from one run")
    parser.add_argument("--pin", action="store_true",
                        help="the gateway and the latency proxy (APNs and the network) on CPU 0, the provider and herald "
                             "send on CPU 1 (taskset), so the sender's own cost decides its rate instead of what it "
                             "leaves the gateway on a shared machine")
    parser.add_argument("--watch", type=int, default=0, metavar="ROUNDS",
                        help="rounds of one unwatched and one watched broadcast (History open live)")
    parser.add_argument("--watch-windows", type=float, default=0, metavar="SECONDS",
                        help="one broadcast, History watched live in every other window of SECONDS")
    parser.add_argument("--tabs", type=int, default=1, metavar="N",
                        help="with --watch-windows: History open in N tabs at once (each its own session)")
    parser.add_argument("--rate-limit", type=int, default=0, metavar="PER_SECOND",
                        help="the app's rate limit (0: none); with --restart-database it makes the broadcast last long "
                             "enough for the restart to land in its middle")
    parser.add_argument("--probe", action="store_true",
                        help="while the broadcast runs, read console pages and API lists one after another and print "
                             "their p50/p99")
    parser.add_argument("--keep", action="store_true", help="keep the work directory with the processes' logs")
    parser.add_argument("--traced", action="store_true",
                        help="herald serve --otlp-endpoint to a receiver here, and the broadcast's request carries a "
                             "sampled traceparent: every chunk of it is traced (tracing's worst case)")
    parser.add_argument("--trace-ratio", type=float, default=None, metavar="R",
                        help="herald serve --otlp-endpoint with --trace-sample-ratio R, the broadcast's request without "
                             "a traceparent: traced as a new trace is, with probability R")
    parser.add_argument("--breakdown", type=int, default=0, metavar="READS",
                        help="after the broadcast, read its breakdown by verdict READS times and print p50/p99")
    options = parser.parse_args()
    options.apns_cpus, options.sender_cpus = (["taskset", "-c", "0"], ["taskset", "-c", "1"]) if options.pin else ([], [])
    database, schema = options.database, None
    if database != "sqlite":
        schema = "bench_" + uuid.uuid4().hex[:12]
        database += ("&" if "?" in database else "?") + "schema=" + schema
    elif options.providers > 1:
        sys.exit("--providers above 1 needs --database postgres://...")
    work = tempfile.mkdtemp()
    key = os.path.join(work, "AuthKey.p8")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                   check=True, capture_output=True)
    # HERALD_GATEWAY_BIN: another build for the gateway (the provider's and the gateway's changes told apart).
    gateway, found = start(options.apns_cpus + [os.environ.get("HERALD_GATEWAY_BIN", HERALD), "gateway", "--port", "0", "--data", f"{work}/gateway",
                            "--auth-key", f"DEF123GHIJ:ABC123DEFG:{key}", "--token-creation-limit", "1000000000"],
                           r"listening on https://127.0.0.1:(\d+)",
                           f"{work}/gateway.out")
    gateway_port = int(found.group(1))
    endpoint_port = gateway_port
    proxy = None
    if options.rtt_ms:
        proxy, found = start(options.apns_cpus + [sys.executable, os.path.join(os.path.dirname(__file__), "latency-proxy.py"), "--target",
                              f"127.0.0.1:{gateway_port}", "--rtt-ms", str(options.rtt_ms)], r"listening on (\d+)",
                             f"{work}/proxy.out")
        endpoint_port = int(found.group(1))
    serve_args = options.sender_cpus + [HERALD, "serve", "--port", "0", "--data", work, "--database", database,
                  "--workers", str(options.workers), "--batch-size", str(options.batch_size),
                  "--connections", str(options.connections)]
    spans = None
    if options.traced or options.trace_ratio is not None:
        spans, receiver_port = otlp_receiver()
        serve_args += ["--otlp-endpoint", f"http://127.0.0.1:{receiver_port}"]
        if options.trace_ratio is not None:
            serve_args += ["--trace-sample-ratio", str(options.trace_ratio)]
    provider, found = start(serve_args, r"http://127.0.0.1:(\d+)/v1", f"{work}/serve.out")
    port = int(found.group(1))
    others = [start(serve_args, r"http://127.0.0.1:(\d+)/v1", f"{work}/serve-{index}.out")[0]
              for index in range(1, options.providers)]
    admin = open(f"{work}/provider/admin-token").read().strip()
    try:
        ca = open(f"{work}/gateway/ca.pem").read()
        context = ssl.create_default_context(cafile=f"{work}/gateway/ca.pem")
        gw = Client("127.0.0.1", gateway_port, open(f"{work}/gateway/admin-token").read().strip(), context=context)
        status, created = Client("127.0.0.1", port, admin).call("POST", "/v1/apps", {
            "bundleID": "com.example.bench", "environment": "development",
            "endpoint": f"https://127.0.0.1:{endpoint_port}", "caPEM": ca,
            **({"rateLimit": options.rate_limit} if options.rate_limit else {}),
            "authentication": {"kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                               "privateKey": open(key).read()}})
        assert status == 201, created
        api = Client("127.0.0.1", port, created["apiKey"])
        tokens = register_devices(gw, api, options.devices, options.languages, options.quiet_third, options.variable)
        held = len(range(0, options.devices, 3)) if options.quiet_third else 0
        if options.quiet_third:
            status, answer = api.call("PATCH", f"/v1/apps/{created['app']['id']}", {"quietHours": quiet_window()})
            assert status == 200, answer
        if options.capped:
            caps = [{"category": "marketing", "limit": 3, "window": "1d", "per": "user"}]
            status, answer = api.call("PATCH", f"/v1/apps/{created['app']['id']}", {"frequencyCaps": caps})
            assert status == 200, answer
        import_rss = restart_peak_rss([provider] + others)
        print(f"{len(tokens)} devices registered; broadcasting", flush=True)
        if options.watch:
            watched_rounds(options.watch, api, port, admin, created["app"]["id"], options.devices, options.poll)
            return
        if options.watch_windows:
            watched_windows(options.watch_windows, api, port, admin, created["app"]["id"], options.devices, options.tabs)
            return
        # CPU per delivery, each side's (a provider killed with --kill is missing from it).
        measured = {"provider": lambda: [process.pid for process in [provider] + others],
                    "gateway": lambda: [gateway.pid], **({"database": database_pids} if schema else {})}
        cpu_before = {name: cpu_seconds(pids()) for name, pids in measured.items()}
        began = time.monotonic()
        trace = {"traceparent": f"00-{uuid.uuid4().hex}-{uuid.uuid4().hex[:16]}-01"} if options.traced else None
        content = {"title": "Hi {{firstName|there}}" if options.variable else "Broadcast", "body": "to everyone"}
        if options.languages:
            content["languages"] = {tag: {"title": f"Broadcast ({tag})", "body": f"to everyone, in {tag}"}
                                    for tag, _ in LANGUAGES[:options.languages]}
        status, notification = api.call("POST", "/v1/notifications",
                                        {"target": {"all": True}, "content": content,
                                         **({"capCategory": "marketing"} if options.capped else {})},
                                        extra=trace)
        assert status == 202, notification
        created_at = time.monotonic()
        probe = Probe(port, admin, created["app"]["id"], notification["id"]) if options.probe else None
        killed = False
        restarting = None  # (the restart command, accepted before, when it began)
        back = {}  # when the restart command ended, set by a thread that waits for it (the reads may be blocked)
        restarted = None  # (accepted by the last read begun before the database was back, when it was back)
        before_back = None  # (accepted, state) of the last read begun before the restart ended
        stall = None
        slowest_read = 0.0
        unavailable_reads = 0
        while True:
            asked = time.monotonic()
            try:
                status, report = api.call("GET", f"/v1/notifications/{notification['id']}")
            except (ConnectionError, http.client.HTTPException):
                api = Client("127.0.0.1", port, created["apiKey"])
                continue
            slowest_read = max(slowest_read, time.monotonic() - asked)
            if status == 503:
                unavailable_reads += 1
                time.sleep(options.poll)
                continue
            assert status == 200, report
            stats = report["stats"]
            if options.restart_database and restarting is None and stats["accepted"] >= options.devices // 3:
                # In the background: the API is read on, as users would, while the database is down.
                command = subprocess.Popen(options.restart_database, shell=True)
                restarting = (command, stats["accepted"], time.monotonic())
                threading.Thread(target=lambda: back.update(code=command.wait(), at=time.monotonic()),
                                 daemon=True).start()
                continue
            if restarting and "at" not in back:
                before_back = (stats["accepted"], report["state"])
            if restarting and restarted is None and "at" in back:
                assert back["code"] == 0, "the database restart command failed"
                restarted = (before_back[0] if before_back else restarting[1], back["at"])
                print(f"restarted the database in {back['at'] - restarting[2]:.1f} s at "
                      f"{restarting[1]} accepted", flush=True)
                if before_back and before_back[1] == "done":
                    restarted = None
                    back["late"] = True
            if restarted and stall is None and (stats["accepted"] > restarted[0] or report["state"] == "done"):
                # The first progress seen after the database came back (accepted counts are written to it, so they
                # cannot grow while it is down).
                stall = time.monotonic() - restarted[1]
            if options.kill and not killed and stats["accepted"] >= options.devices // 3:
                os.kill(provider.pid, signal.SIGKILL)
                provider.wait()
                print(f"killed a provider with SIGKILL at {stats['accepted']} accepted", flush=True)
                killed = True
                if others:
                    provider = others.pop(0)
                    port = int(re.search(r"http://127.0.0.1:(\d+)/v1", open(f"{work}/serve-1.out").read()).group(1))
                else:
                    provider, found = start(serve_args + ["--port", str(port)], r"http://127.0.0.1:(\d+)/v1",
                                            f"{work}/serve2.out")
                api = Client("127.0.0.1", port, created["apiKey"])
                continue
            if report["state"] == "done" or (held and stats["accepted"] >= options.devices - held):
                break
            time.sleep(options.poll)
        seconds = time.monotonic() - began
        if probe:
            probe.stop()
        rss = max(peak_rss_mb(process.pid) for process in [provider] + others)
        print(json.dumps({"devices": options.devices, "database": options.database.split("://")[0],
                          "rttMilliseconds": options.rtt_ms,
                          "providers": options.providers, "fanOutSeconds": round(created_at - began, 2),
                          "seconds": round(seconds, 2), "sendsPerSecond": round(options.devices / seconds),
                          "accepted": stats["accepted"], "rejected": stats["rejected"],
                          "peakRSSMegabytes": round(rss, 1), "importPeakRSSMegabytes": round(import_rss, 1),
                          "killed": killed, "traced": options.traced, "traceRatio": options.trace_ratio,
                          **({"languages": report.get("languages")} if options.languages else {}),
                          **({"heldByQuietHours": stats["queued"]} if held else {}),
                          **({"otlpExportsSoFar": spans["exports"], "otlpBytesSoFar": spans["bytes"]} if spans else {}),
                          "cpuMicrosecondsPerDelivery": cpu_per_delivery(measured, cpu_before, options.devices)}),
              flush=True)
        print(json.dumps(storage(options, work, schema)), flush=True)
        if options.breakdown:
            latencies = []
            for _ in range(options.breakdown):
                asked = time.monotonic()
                status, breakdown = api.call("GET", f"/v1/notifications/{notification['id']}/breakdown")
                latencies.append((time.monotonic() - asked) * 1000)
                assert status == 200, breakdown
            latencies.sort()
            print(json.dumps({"breakdownReads": len(latencies),
                              "breakdownMillisecondsP50": round(latencies[len(latencies) // 2], 2),
                              "breakdownMillisecondsP99": round(latencies[min(len(latencies) - 1,
                                                                              int(len(latencies) * 0.99))], 2),
                              "verdicts": {entry["verdict"]: entry["count"] for entry in breakdown["verdicts"]}}),
                  flush=True)
        if options.compare_send:
            compare_send(options, work, key, endpoint_port, tokens, options.devices / seconds, gateway)
        if options.restart_database:
            print(json.dumps({"stallSecondsAfterDatabaseCameBack": round(stall or 0, 2),
                              "slowestAPIReadSeconds": round(slowest_read, 2),
                              "readsAnswered503": unavailable_reads}), flush=True)
            if options.check and options.max_stall and not restarted:
                sys.exit("the restart ended after the broadcast, so no stall was measured: use more devices or a "
                         "lower --rate-limit")
            if options.check and options.max_stall and (stall or 0) > options.max_stall:
                sys.exit(f"sending stalled {stall:.1f} s after the database came back (at most {options.max_stall})")
        if options.kill or options.restart_database:
            counts = check_devices(gw, tokens)
            print(json.dumps(counts), flush=True)
            missing = options.devices - counts["devicesWithExactlyOneNotification"]
            if options.check and missing:
                sys.exit(f"{missing} devices did not get exactly one notification")
    finally:
        for process in [provider] + others:
            process.kill()
        gateway.kill()
        if proxy:
            proxy.kill()
        if options.keep:
            print(f"kept {work} (serve.out, gateway.out: the processes' logs)"
                  + (f" and schema {schema}" if schema else ""), flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
            if schema:
                url = urllib.parse.urlunsplit(urllib.parse.urlsplit(options.database)._replace(query=""))
                subprocess.run(["psql", "-q", "-c", f"DROP SCHEMA {schema} CASCADE", url], capture_output=True)


def storage(options, work, schema):
    """Bytes per delivery and per device right after the broadcast: the deliveries table with its indexes (on
    PostgreSQL also the queue's and the results' tables, which hold a delivery since v17, with the dead row versions
    that vacuum has not yet reclaimed), and the devices."""
    if schema:
        url = urllib.parse.urlunsplit(urllib.parse.urlsplit(options.database)._replace(query=""))
        # to_regclass: a build before v17 has no queue or results table (counted 0).
        tables = [f"to_regclass('{schema}.{name}')" for name in ("deliveries", "delivery_queue", "delivery_results")]
        query = (f"SELECT {' + '.join(f'coalesce(pg_table_size({t}), 0)' for t in tables)}, "
                 f"{' + '.join(f'coalesce(pg_indexes_size({t}), 0)' for t in tables)}, "
                 f"pg_total_relation_size('{schema}.devices')")
        out = subprocess.run(["psql", "-qtA", "-F", " ", "-c", query, url], capture_output=True, text=True, check=True)
        table, indexes, devices = (int(value) for value in out.stdout.split())
    else:
        import sqlite3
        db = sqlite3.connect(f"file:{work}/provider/provider.sqlite?mode=ro", uri=True)
        sizes = dict(db.execute(
            "SELECT s.name, sum(s.pgsize) FROM dbstat s JOIN sqlite_master m ON m.name = s.name "
            "WHERE m.tbl_name IN ('deliveries', 'devices', 'device_tags') GROUP BY s.name").fetchall())
        owners = dict(db.execute("SELECT name, tbl_name FROM sqlite_master").fetchall())
        db.close()
        table = sizes.get("deliveries", 0)
        indexes = sum(size for name, size in sizes.items() if owners[name] == "deliveries" and name != "deliveries")
        devices = sum(size for name, size in sizes.items() if owners[name] in ("devices", "device_tags"))
    return {"deliveryBytes": round((table + indexes) / options.devices),
            "deliveryTableBytes": round(table / options.devices), "deliveryIndexBytes": round(indexes / options.devices),
            "deviceBytes": round(devices / options.devices)}


if __name__ == "__main__":
    main()
