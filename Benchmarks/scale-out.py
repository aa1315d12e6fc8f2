#!/usr/bin/env python3
"""Providers on separate hosts, simulated on one machine: each `herald serve` runs in a network namespace of its own
(`ip netns`, a veth pair on a bridge), reaches PostgreSQL DATABASE_RTT ms away and the local APNs (`herald gateway`)
APNS_RTT ms away through delaying proxies inside its namespace (Benchmarks/latency-proxy.py; the kernel here has no
netem), and all of them share one broadcast. For each count of providers given, in one run: the seconds until every
delivery has its APNs answer, sends per second, and the ratio to the first count's rate.

    swift build -c release --product herald
    sudo python3 Benchmarks/scale-out.py --database postgres://herald:herald@127.0.0.1:5432/herald \\
        --devices 1000000 --providers 1,3 [--apns-rtt-ms 50] [--database-rtt-ms 20]

With --kill, the first provider is killed with SIGKILL a third of the way through: the takeover time is from the kill
until the others have taken its leases back (its heartbeat row is gone from provider_heartbeats, which is when its
leases go back to the queue). With --restart-database COMMAND (pg_ctlcluster 15 main restart), the database is
restarted a third of the way through. With --check, every device's notifications are read from the gateway: exactly
one each, and how many were sent to APNs more than once (the gateway's delivery log keeps 100,000 notifications, so
--check takes at most 100,000 devices).

Needs root (namespaces), PostgreSQL reachable on the URL's host from this machine, psql, openssl and python3. Each run
uses a new schema, dropped at its end with the namespaces and the bridge.
"""
import argparse, importlib.util, json, os, re, shutil, signal, ssl, subprocess, sys, tempfile, threading, time, \
    urllib.parse, urllib.request, uuid

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("provider_broadcast", os.path.join(HERE, "provider-broadcast.py"))
broadcast_helpers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(broadcast_helpers)
Client, start, peak_rss_mb = broadcast_helpers.Client, broadcast_helpers.start, broadcast_helpers.peak_rss_mb
restart_peak_rss = broadcast_helpers.restart_peak_rss
HERALD = os.path.abspath(broadcast_helpers.HERALD)
PROXY = os.path.join(HERE, "latency-proxy.py")
BRIDGE, SUBNET = "herald-br", "10.77.0"
HOST = f"{SUBNET}.1"
# Inside every namespace: APNs and PostgreSQL on its own loopback (the gateway's certificate names 127.0.0.1), the
# provider's API on every address.
NS_APNS_PORT, NS_DATABASE_PORT, NS_API_PORT = 2197, 5432, 8080


def sh(*args):
    subprocess.run(args, check=True, capture_output=True)


class Network:
    """A bridge on this machine at 10.77.0.1 and one namespace per provider at 10.77.0.(10 + n)."""

    def __init__(self, count):
        self.names = [f"herald-p{n}" for n in range(1, count + 1)]
        self.remove()
        sh("ip", "link", "add", BRIDGE, "type", "bridge")
        sh("ip", "addr", "add", f"{HOST}/24", "dev", BRIDGE)
        sh("ip", "link", "set", BRIDGE, "up")
        for n, name in enumerate(self.names, start=1):
            sh("ip", "netns", "add", name)
            sh("ip", "link", "add", f"hv-p{n}", "type", "veth", "peer", "name", "eth0", "netns", name)
            sh("ip", "link", "set", f"hv-p{n}", "master", BRIDGE, "up")
            sh("ip", "-n", name, "addr", "add", f"{self.address(n)}/24", "dev", "eth0")
            sh("ip", "-n", name, "link", "set", "eth0", "up")
            sh("ip", "-n", name, "link", "set", "lo", "up")
            sh("ip", "-n", name, "route", "add", "default", "via", HOST)

    @staticmethod
    def address(n):
        return f"{SUBNET}.{10 + n}"

    def remove(self):
        for n, name in enumerate(self.names, start=1):
            subprocess.run(["ip", "link", "del", f"hv-p{n}"], capture_output=True)
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        subprocess.run(["ip", "link", "del", BRIDGE], capture_output=True)


def psql(url, sql):
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qs(parts.query)
    plain = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    schema = query.get("schema", ["public"])[0]
    result = subprocess.run(["psql", plain, "-Atc", f"SET search_path = {schema}; {sql}"], capture_output=True,
                            text=True)
    return result.stdout.strip().splitlines()[-1] if result.returncode == 0 and result.stdout.strip() else None


def run(options, providers, work, key, devices_tokens):
    """One broadcast shared by `providers` providers, each in its namespace; returns the result's fields."""
    processes = []
    network = Network(providers)
    schema = "scale_" + uuid.uuid4().hex[:12]
    try:
        base = options.database + ("&" if "?" in options.database else "?") + f"schema={schema}"
        parts = urllib.parse.urlsplit(options.database)
        # What the providers' URL names: their own loopback, where the namespace's proxy listens.
        inside = base.replace(f"@{parts.hostname}:{parts.port or 5432}", f"@127.0.0.1:{NS_DATABASE_PORT}")
        gateway, found = start([HERALD, "gateway", "--host", "0.0.0.0", "--port", "0", "--data", f"{work}/gateway",
                                "--auth-key", f"DEF123GHIJ:ABC123DEFG:{key}", "--token-creation-limit", "1000000000"],
                               r"listening on https://[^:]+:(\d+)", f"{work}/gateway.out")
        processes.append(gateway)
        gateway_port = int(found.group(1))
        # The database's side: a plain forwarder on the bridge to PostgreSQL on this machine's loopback.
        forwarder, found = start([sys.executable, PROXY, "--host", HOST, "--listen", "0", "--target",
                                  f"{parts.hostname}:{parts.port or 5432}", "--rtt-ms", "0"],
                                 r"listening on (\d+)", f"{work}/database-forwarder.out")
        processes.append(forwarder)
        database_port = int(found.group(1))
        apis = []
        for n, name in enumerate(network.names, start=1):
            inns = ["ip", "netns", "exec", name]
            processes.append(start(inns + [sys.executable, PROXY, "--listen", str(NS_APNS_PORT), "--target",
                                           f"{HOST}:{gateway_port}", "--rtt-ms", str(options.apns_rtt_ms)],
                                   r"listening on (\d+)", f"{work}/apns-proxy-{n}.out")[0])
            processes.append(start(inns + [sys.executable, PROXY, "--listen", str(NS_DATABASE_PORT), "--target",
                                           f"{HOST}:{database_port}", "--rtt-ms", str(options.database_rtt_ms)],
                                   r"listening on (\d+)", f"{work}/database-proxy-{n}.out")[0])
            provider, _ = start(inns + [HERALD, "serve", "--host", "0.0.0.0", "--port", str(NS_API_PORT),
                                        "--data", work, "--database", inside, "--workers", str(options.workers),
                                        "--batch-size", str(options.batch_size), "--connections",
                                        str(options.connections), "--public-metrics"],
                                r"http://[^ ]+:(\d+)/v1", f"{work}/serve-{n}.out")
            processes.append(provider)
            apis.append((provider, Network.address(n)))
        admin = open(f"{work}/provider/admin-token").read().strip()
        context = ssl.create_default_context(cafile=f"{work}/gateway/ca.pem")
        gw = Client("127.0.0.1", gateway_port, open(f"{work}/gateway/admin-token").read().strip(), context=context)
        first = apis[0][1]
        status, created = Client(first, NS_API_PORT, admin).call("POST", "/v1/apps", {
            "bundleID": "com.example.bench", "environment": "development",
            "endpoint": f"https://127.0.0.1:{NS_APNS_PORT}", "caPEM": open(f"{work}/gateway/ca.pem").read(),
            "authentication": {"kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                               "privateKey": open(key).read()}})
        assert status == 201, created
        api = Client(first, NS_API_PORT, created["apiKey"])
        tokens = broadcast_helpers.register_devices(gw, api, options.devices)
        devices_tokens[:] = tokens
        import_rss = restart_peak_rss([p for p, _ in apis])
        print(f"{providers} provider(s): {len(tokens)} devices registered; broadcasting", flush=True)
        began = time.monotonic()
        status, notification = api.call("POST", "/v1/notifications", {
            "target": {"all": True}, "content": {"title": "Broadcast", "body": "to everyone"}})
        assert status == 202, notification
        killed_at = takeover = restart = stall = None
        alive = list(apis)
        while True:
            try:
                status, report = api.call("GET", f"/v1/notifications/{notification['id']}")
            except (ConnectionError, OSError):
                time.sleep(options.poll)
                continue
            if status == 503:
                time.sleep(options.poll)
                continue
            assert status == 200, report
            accepted = report["stats"]["accepted"]
            if options.kill and killed_at is None and accepted >= options.devices // 3 and len(alive) > 1:
                owners = int(psql(base, "SELECT count(*) FROM provider_heartbeats") or 0)
                victim = alive.pop(0)[0]
                victim.send_signal(signal.SIGKILL)
                victim.wait()
                killed_at = time.monotonic()
                print(f"killed a provider with SIGKILL at {accepted} accepted", flush=True)
                api = Client(alive[0][1], NS_API_PORT, created["apiKey"])
                result = {}
                threading.Thread(target=watch_takeover, args=(base, owners, killed_at, result), daemon=True).start()
                continue
            if options.restart_database and restart is None and accepted >= options.devices // 3:
                restart = {"accepted": accepted, "began": time.monotonic()}
                command = subprocess.Popen(options.restart_database, shell=True)
                threading.Thread(target=lambda: restart.update(code=command.wait(), back=time.monotonic()),
                                 daemon=True).start()
            if restart and "back" in restart and stall is None:
                restart.setdefault("acceptedWhenBack", accepted)
                if accepted > restart["acceptedWhenBack"] or report["state"] == "done":
                    stall = time.monotonic() - restart["back"]
            if report["state"] == "done":
                break
            time.sleep(options.poll)
        seconds = time.monotonic() - began
        if killed_at is not None:
            deadline = time.monotonic() + 30
            while "seconds" not in result and time.monotonic() < deadline:
                time.sleep(0.1)
            takeover = result.get("seconds")
        fields = {"providers": providers, "devices": options.devices, "apnsRttMilliseconds": options.apns_rtt_ms,
                  "acceptedByProvider": [accepted_by(address) for _, address in alive],
                  "databaseRttMilliseconds": options.database_rtt_ms, "seconds": round(seconds, 2),
                  "sendsPerSecond": round(options.devices / seconds), "accepted": report["stats"]["accepted"],
                  "rejected": report["stats"]["rejected"],
                  "peakRSSMegabytes": round(max(peak_rss_mb(p.pid) for p, _ in alive), 1),
                  "importPeakRSSMegabytes": round(import_rss, 1)}
        if options.kill:
            fields["takeoverSeconds"] = round(takeover, 2) if takeover is not None else None
        if options.restart_database:
            fields["stallSecondsAfterDatabaseCameBack"] = round(stall, 2) if stall is not None else None
        if options.check:
            fields.update(broadcast_helpers.check_devices(gw, tokens))
        return fields
    finally:
        for process in processes:
            process.kill()
        network.remove()
        plain = urllib.parse.urlunsplit(urllib.parse.urlsplit(options.database)._replace(query=""))
        subprocess.run(["psql", "-q", "-c", f"DROP SCHEMA IF EXISTS {schema} CASCADE", plain], capture_output=True)
        shutil.rmtree(f"{work}/gateway", ignore_errors=True)
        shutil.rmtree(f"{work}/provider", ignore_errors=True)


def accepted_by(address):
    """What one provider sent that APNs accepted, from its own /metrics: its share of the broadcast."""
    try:
        with urllib.request.urlopen(f"http://{address}:{NS_API_PORT}/metrics", timeout=5) as response:
            text = response.read().decode()
    except OSError:
        return None
    found = re.search(r'herald_provider_sends_total\{result="accepted",reason=""\} (\d+)', text)
    return int(found.group(1)) if found else 0


def watch_takeover(url, owners, killed_at, result):
    """The seconds from the kill until the killed provider's heartbeat row is gone: the statement that deletes it
    puts its leases back in the queue."""
    while time.monotonic() - killed_at < 120:
        count = psql(url, "SELECT count(*) FROM provider_heartbeats")
        if count is not None and int(count) < owners:
            result["seconds"] = time.monotonic() - killed_at
            return
        time.sleep(0.1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", required=True, help="a postgres:// URL this machine reaches")
    parser.add_argument("--devices", type=int, default=100000)
    parser.add_argument("--providers", default="1,3", help="provider counts to run, in order (the first is the "
                                                           "reference of the ratios)")
    parser.add_argument("--apns-rtt-ms", type=float, default=50)
    parser.add_argument("--database-rtt-ms", type=float, default=20)
    parser.add_argument("--kill", action="store_true", help="kill the first provider a third of the way through")
    parser.add_argument("--restart-database", metavar="COMMAND")
    parser.add_argument("--check", action="store_true", help="every device got exactly one notification")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=5000)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--poll", type=float, default=0.2)
    options = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("network namespaces need root")
    if options.check and options.devices > 100000:
        sys.exit("--check reads the gateway's delivery log, which keeps 100,000 notifications: at most 100000 devices")
    counts = [int(n) for n in options.providers.split(",")]
    work = tempfile.mkdtemp()
    os.chmod(work, 0o755)
    key = os.path.join(work, "AuthKey.p8")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                   check=True, capture_output=True)
    results = []
    try:
        for count in counts:
            fields = run(options, count, work, key, [])
            if results:
                fields["ofFirst"] = round(fields["sendsPerSecond"] / results[0]["sendsPerSecond"], 2)
            results.append(fields)
            print(json.dumps(fields), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if options.check and any(r.get("devicesWithExactlyOneNotification") != options.devices for r in results):
        sys.exit("a device did not get exactly one notification")


if __name__ == "__main__":
    main()
