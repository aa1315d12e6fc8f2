#!/usr/bin/env python3
"""The public edge under a flood, on the release build (herald gateway + herald serve --trusted-proxy 127.0.0.1, so
X-Forwarded-For names the client address):

1. a registration flood with the publishable key: FLOOD registrations from one address, then FLOOD from 1,000
   addresses, while a real client registers from another address every 20 ms; counts by status, the database's growth,
   the provider's CPU seconds, and the real client's p50/p99;
2. a webhook storm: DEVICES deliveries each answered with an action through the publishable key while the app's
   webhook receiver hangs (accepts, never answers) for DOWN seconds, then answers 204: every event delivered once per
   webhook-id (repeats only as retries of the same id), the most connections open at once as the sender holds them
   (/proc/net/tcp every 10 ms; the bound is 4 per endpoint) and as the receiver counted them (it notices a closed one
   up to 0.2 s late), the provider's open files and RSS before, at peak and after.

    swift build -c release --product herald
    python3 Benchmarks/public-edge.py [--flood 100000] [--devices 2000] [--down 60]
"""
import argparse, http.client, http.server, importlib.util, json, os, select, socket, ssl, statistics, subprocess, \
    sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("broadcast", os.path.join(HERE, "provider-broadcast.py"))
broadcast = importlib.util.module_from_spec(spec)
spec.loader.exec_module(broadcast)
HERALD, start, Client = broadcast.HERALD, broadcast.start, broadcast.Client


def register(connection, pk, address, token):
    connection.request("POST", "/v1/devices", body=json.dumps({"token": token}),
                       headers={"Authorization": f"Bearer {pk}", "Content-Type": "application/json",
                                "X-Forwarded-For": address})
    response = connection.getresponse()
    response.read()
    return response.status


def flood(port, pk, count, addresses, threads=4):
    """`count` registrations of random tokens, spread over `addresses`; statuses counted."""
    counts, lock = {}, threading.Lock()

    def worker(index):
        connection = http.client.HTTPConnection("127.0.0.1", port)
        for number in range(index, count, threads):
            status = register(connection, pk, addresses[number % len(addresses)], os.urandom(32).hex())
            with lock:
                counts[status] = counts.get(status, 0) + 1

    workers = [threading.Thread(target=worker, args=(index,)) for index in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return counts


class Prober(threading.Thread):
    """Real users registering, one every 20 ms, each from an address of its own (a phone registers a few times a
    day): their statuses and latencies."""

    def __init__(self, port, pk):
        super().__init__(daemon=True)
        self.port, self.pk, self.stop, self.samples, self.statuses = port, pk, threading.Event(), [], {}

    def run(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port)
        while not self.stop.is_set():
            began = time.perf_counter()
            address = f"192.0.{len(self.samples) // 250 % 250}.{len(self.samples) % 250}"
            status = register(connection, self.pk, address, os.urandom(32).hex())
            self.samples.append((time.perf_counter() - began) * 1000)
            self.statuses[status] = self.statuses.get(status, 0) + 1
            time.sleep(0.02)


def storm_process(port, pk, deliveries, connections, first, ready, go, results):
    """One load process: `connections` keep-alive HTTP/1.1 connections, each posting its share of the deliveries'
    receipts (delivered, then displayed) one after the other; statuses counted into `results`. Every request is
    written out before `go` (the load generator shares the provider's two cores: what it spends is not the storm)."""
    import asyncio

    def request(number, delivery, event):
        body = json.dumps({"event": event, "apnsID": delivery["apnsID"], "token": delivery["token"]}).encode()
        return (f"POST /v1/feedback HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {pk}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                f"X-Forwarded-For: 100.64.{number // 250 % 250}.{number % 250}\r\n\r\n").encode() + body

    async def connection(requests):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        counts = {}
        for message in requests:
            writer.write(message)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            start = head.lower().find(b"content-length:")
            length = int(head[start + 15:head.index(b"\r\n", start)]) if start >= 0 else 0
            await reader.readexactly(length)
            counts[status] = counts.get(status, 0) + 1
        writer.close()
        return counts

    async def run(shares):
        totals = {}
        for counts in await asyncio.gather(*(connection(share) for share in shares)):
            for status, count in counts.items():
                totals[status] = totals.get(status, 0) + count
        results.put(totals)

    numbered = list(enumerate(deliveries, start=first))
    shares = [[request(number, delivery, event) for number, delivery in numbered[index::connections]
               for event in ("delivered", "displayed")] for index in range(connections)]
    ready.release()
    go.wait()
    asyncio.run(run(shares))


def receipt_storm(port, api, pk, deliveries, processes=2, connections=32, on_start=None):
    """Every delivery reported delivered then displayed, by `processes` load processes of `connections` connections
    each (a storm is many phones at once), each delivery from an address of its own, while another connection reads
    the notification's report: receipts/s, statuses, the reads' p50/p99."""
    import multiprocessing
    reads, done = [], threading.Event()

    def reader():
        while not done.is_set():
            began = time.perf_counter()
            api.call("GET", f"/v1/notifications/{deliveries[0]['notificationID']}")
            reads.append((time.perf_counter() - began) * 1000)
            time.sleep(0.05)

    results, ready, go = multiprocessing.Queue(), multiprocessing.Semaphore(0), multiprocessing.Event()
    size = -(-len(deliveries) // processes)
    workers = [multiprocessing.Process(target=storm_process, args=(
        port, pk, deliveries[index * size:(index + 1) * size], connections, index * size, ready, go, results))
        for index in range(processes)]
    for worker in workers:
        worker.start()
    for _ in workers:
        ready.acquire()
    watcher = threading.Thread(target=reader, daemon=True)
    watcher.start()
    began = time.time()
    go.set()
    if on_start:
        on_start()
    counts = {}
    for _ in workers:
        for status, count in results.get().items():
            counts[status] = counts.get(status, 0) + count
    seconds = time.time() - began
    for worker in workers:
        worker.join()
    done.set()
    watcher.join()
    reads.sort()
    return {"receipts": 2 * len(deliveries), "connections": processes * connections, "seconds": round(seconds, 1),
            "receiptsPerSecond": round(2 * len(deliveries) / seconds), "statuses": counts,
            "readP50Ms": round(statistics.median(reads), 1), "readP99Ms": round(reads[int(len(reads) * 0.99) - 1], 1)}


class Rebroadcaster(threading.Thread):
    """Broadcasts to every device `count` times, each as the one before is done, until stopped; counts the deliveries
    APNs accepted (the last broadcast's up to when it was stopped) and how long the broadcasts ran."""

    def __init__(self, port, api_key, count):
        super().__init__(daemon=True)
        self.api, self.stop, self.count = Client("127.0.0.1", port, api_key), threading.Event(), count
        self.started, self.accepted, self.seconds = 0, 0, 0.0

    def run(self):
        began = time.time()
        while not self.stop.is_set() and self.started < self.count:
            status, sent = self.api.call("POST", "/v1/notifications",
                                         {"target": {"all": True}, "content": {"body": "again"}})
            assert status == 202, sent
            self.started += 1
            while True:
                report = self.api.call("GET", f"/v1/notifications/{sent['id']}")[1]
                if report["state"] == "done" or self.stop.is_set():
                    self.accepted += report["stats"]["accepted"]
                    break
                time.sleep(0.2)
            self.seconds = time.time() - began


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0


def established_to(port):
    """Open (ESTABLISHED) IPv4 connections to 127.0.0.1:`port` on this machine, from /proc/net/tcp: the sender's own
    count of connections to the receiver, which sees a closed one only when it next looks."""
    count = 0
    with open("/proc/net/tcp") as table:
        next(table)
        for line in table:
            fields = line.split()
            if fields[3] == "01" and int(fields[2].split(":")[1], 16) == port:
                count += 1
    return count


class ConnectionSampler(threading.Thread):
    """The most connections to `port` open at once, sampled every 10 ms."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.most, self.stop = port, 0, threading.Event()

    def run(self):
        while not self.stop.is_set():
            self.most = max(self.most, established_to(self.port))
            time.sleep(0.01)


def open_files(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def database_bytes(work):
    folder = os.path.join(work, "provider")
    return sum(os.path.getsize(os.path.join(folder, name)) for name in os.listdir(folder)
               if name.startswith("provider.sqlite"))


class Receiver(http.server.ThreadingHTTPServer):
    """The app's webhook receiver: hangs while `down` is set (accepts, never answers), then answers 204."""
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.down = threading.Event()
        self.lock = threading.Lock()
        self.open = 0
        self.most_open = 0
        self.delivered = []
        self.attempts = 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        with self.server.lock:
            self.server.open += 1
            self.server.most_open = max(self.server.most_open, self.server.open)

    def finish(self):
        with self.server.lock:
            self.server.open -= 1
        super().finish()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with self.server.lock:
            self.server.attempts += 1
        while self.server.down.is_set():
            # Hanging: until the receiver is back, or the sender gives up and closes the connection.
            readable, _, _ = select.select([self.connection], [], [], 0.2)
            if readable and self.connection.recv(1, socket.MSG_PEEK) == b"":
                self.close_connection = True
                return
        with self.server.lock:
            self.server.delivered.append(self.headers.get("webhook-id"))
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flood", type=int, default=100000)
    parser.add_argument("--devices", type=int, default=2000)
    parser.add_argument("--down", type=float, default=60)
    parser.add_argument("--receipts", type=int, default=0, metavar="DEVICES",
                        help="also a receipt storm: DEVICES deliveries each reported delivered and displayed by "
                             "--storm-connections connections at once, while the API is read: receipts/s and the "
                             "reads' p99")
    parser.add_argument("--storm-connections", type=int, default=64,
                        help="connections of the receipt storm, over two load processes (64)")
    parser.add_argument("--receipts-only", action="store_true", help="stop after the receipt storm")
    parser.add_argument("--broadcasts-during", type=int, default=0, metavar="COUNT",
                        help="as the receipt storm begins, broadcast to every device COUNT times, each as the one "
                             "before is done (stopping with the storm): its receipts compete with a running "
                             "broadcast's writes")
    parser.add_argument("--database", default="sqlite", help="sqlite or a postgres:// URL (a new schema per run)")
    options = parser.parse_args()
    work = tempfile.mkdtemp()
    key = os.path.join(work, "AuthKey.p8")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                   check=True, capture_output=True)
    gateway, found = start([HERALD, "gateway", "--port", "0", "--data", f"{work}/gateway", "--auth-key",
                            f"DEF123GHIJ:ABC123DEFG:{key}", "--token-creation-limit", "1000000000"],
                           r"listening on https://127.0.0.1:(\d+)", f"{work}/gateway.out")
    gateway_port = int(found.group(1))
    database = options.database
    if database != "sqlite":
        database += ("&" if "?" in database else "?") + "schema=edge_" + os.urandom(6).hex()
    provider, found = start([HERALD, "serve", "--port", "0", "--data", work, "--trusted-proxy", "127.0.0.1",
                             "--allow-webhook-host", "127.0.0.1", "--database", database],
                            r"http://127.0.0.1:(\d+)/v1", f"{work}/serve.out")
    port = int(found.group(1))
    admin = open(f"{work}/provider/admin-token").read().strip()
    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        context = ssl.create_default_context(cafile=f"{work}/gateway/ca.pem")
        gw = Client("127.0.0.1", gateway_port, open(f"{work}/gateway/admin-token").read().strip(), context=context)
        status, created = Client("127.0.0.1", port, admin).call("POST", "/v1/apps", {
            "bundleID": "com.example.bench", "environment": "development",
            "endpoint": f"https://127.0.0.1:{gateway_port}", "caPEM": open(f"{work}/gateway/ca.pem").read(),
            "authentication": {"kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                               "privateKey": open(key).read()}})
        assert status == 201, created
        api, pk = Client("127.0.0.1", port, created["apiKey"]), created["app"]["publishableKey"]

        # 1. The registration flood.
        if options.flood:
            results = {}
            prober = Prober(port, pk)
            prober.start()
            for name, addresses in [("one address", ["203.0.113.1"]),
                                    ("1,000 addresses", [f"10.{n // 250}.{n % 250}.1" for n in range(1000)])]:
                size, cpu, began = database_bytes(work), cpu_seconds(provider.pid), time.time()
                counts = flood(port, pk, options.flood, addresses)
                results[name] = {"statuses": counts, "seconds": round(time.time() - began, 1),
                                 "databaseGrowthMB": round((database_bytes(work) - size) / 1e6, 1),
                                 "providerCPUSeconds": round(cpu_seconds(provider.pid) - cpu, 1)}
            prober.stop.set()
            prober.join()
            samples = sorted(prober.samples)
            results["realClient"] = {"statuses": prober.statuses, "p50Ms": round(statistics.median(samples), 2),
                                     "p99Ms": round(samples[int(len(samples) * 0.99) - 1], 2)}
            print(json.dumps({"registrationFlood": results}), flush=True)

        # 2. The webhook storm with the receiver hanging, then back, on an app of its own (the flood's devices are
        # the first app's).
        status, created = Client("127.0.0.1", port, admin).call("POST", "/v1/apps", {
            "bundleID": "com.example.bench", "environment": "development",
            "endpoint": f"https://127.0.0.1:{gateway_port}", "caPEM": open(f"{work}/gateway/ca.pem").read(),
            "webhookURL": f"http://127.0.0.1:{receiver.server_address[1]}/hook",
            "authentication": {"kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                               "privateKey": open(key).read()}})
        assert status == 201, created
        api, pk = Client("127.0.0.1", port, created["apiKey"]), created["app"]["publishableKey"]
        broadcast.register_devices(gw, api, options.devices)
        status, sent = api.call("POST", "/v1/notifications", {"target": {"all": True}, "content": {"body": "hi"}})
        assert status == 202, sent
        while api.call("GET", f"/v1/notifications/{sent['id']}")[1]["state"] != "done":
            time.sleep(0.2)
        deliveries, after = [], None
        while True:
            path = f"/v1/notifications/{sent['id']}/deliveries?limit=1000" + (f"&after={after}" if after else "")
            page = api.call("GET", path)[1]
            if not page:
                break
            deliveries += page
            after = page[-1]["apnsID"]
            if len(page) < 1000:
                break
        if options.receipts:
            storm = deliveries[:options.receipts]
            print(f"receipt storm begins (provider pid {provider.pid})", file=sys.stderr, flush=True)
            sender = Rebroadcaster(port, created["apiKey"], options.broadcasts_during) \
                if options.broadcasts_during else None
            cpu = cpu_seconds(provider.pid)
            result = receipt_storm(port, api, pk, storm, connections=max(1, options.storm_connections // 2),
                                   on_start=sender.start if sender else None)
            result["providerCPUMicrosecondsPerReceipt"] = round(
                (cpu_seconds(provider.pid) - cpu) * 1e6 / result["receipts"], 1)
            if sender:
                sender.stop.set()
                sender.join()
                result["duringBroadcast"] = {"broadcasts": sender.started, "deliveriesAccepted": sender.accepted,
                                             "broadcastSeconds": round(sender.seconds, 1)}
            print(json.dumps({"receiptStorm": {"database": options.database.split(":")[0], **result}}), flush=True)
        if options.receipts_only:
            return
        fds, rss = [open_files(provider.pid)], [rss_mb(provider.pid)]
        sampler = ConnectionSampler(receiver.server_address[1])
        sampler.start()
        receiver.down.set()
        down_began = time.time()
        connection = http.client.HTTPConnection("127.0.0.1", port)
        for index, delivery in enumerate(deliveries):
            connection.request("POST", "/v1/feedback", body=json.dumps(
                {"event": "action", "action": "like", "apnsID": delivery["apnsID"], "token": delivery["token"]}),
                headers={"Authorization": f"Bearer {pk}", "Content-Type": "application/json",
                         "X-Forwarded-For": f"172.16.{index // 250 % 250}.{index % 250}"})
            response = connection.getresponse()
            response.read()
            assert response.status == 202, response.status
        while time.time() - down_began < options.down:
            fds.append(open_files(provider.pid))
            rss.append(rss_mb(provider.pid))
            time.sleep(1)
        receiver.down.clear()
        back = time.time()
        while len(set(receiver.delivered)) < len(deliveries) and time.time() - back < 900:
            fds.append(open_files(provider.pid))
            rss.append(rss_mb(provider.pid))
            time.sleep(1)
        ids = [i for i in receiver.delivered if i]
        print(json.dumps({"webhookStorm": {
            "events": len(deliveries), "deliveredIDs": len(set(ids)), "deliveredPOSTs": len(ids),
            "attempts": receiver.attempts, "mostOpenAtReceiver": receiver.most_open,
            "mostOpenBySender": sampler.most,
            "secondsAfterBackUntilAll": round(time.time() - back, 1),
            "providerOpenFiles": {"before": fds[0], "peak": max(fds), "after": fds[-1]},
            "providerRSSMB": {"before": round(rss[0]), "peak": round(max(rss)), "after": round(rss[-1])}}}),
            flush=True)
    finally:
        receiver.shutdown()
        for process in (provider, gateway):
            process.terminate()
            process.wait(timeout=30)
        if database != "sqlite":
            # The run's schema goes with it: a hundred thousand devices a run would pile up in the database.
            schema = database.rsplit("schema=", 1)[1]
            subprocess.run(["psql", options.database, "-qc", f"DROP SCHEMA {schema} CASCADE"], capture_output=True)


if __name__ == "__main__":
    main()
