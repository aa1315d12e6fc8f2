#!/usr/bin/env python3
"""HeraldKit's cost and the provider under its receipts.

1. What a receipt adds to a Notification Service Extension: `.build/release/HeraldKitBench` times `didReceive` and
   `willHand` (the receipt files written; the network not waited for) beside the extension's own work without them,
   against a running provider; ROUNDS runs, medians.
2. A fleet reporting through HeraldKit: `herald device --fleet N` registered with the provider (each device's app runs
   HeraldKit: registration, receipts on disk, sent in order), one broadcast to all of them, and the time until the
   provider has every `delivered` and `displayed` receipt (receipts per second), while a prober reads
   `GET /v1/notifications/{id}` every 20 ms: its p50/p99 before the broadcast (idle) and while receipts arrive.
   Then the reference in the same run: another fleet whose devices are imported with the API key and report with the
   simulated device's own poster (one POST per event, nothing on disk), the path before HeraldKit.

    swift build -c release --product herald --product HeraldKitBench
    python3 Benchmarks/heraldkit-receipts.py [--devices 10000] [--rounds 3]
"""
import argparse, http.client, json, os, re, shutil, ssl, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
HERALD = os.path.join(ROOT, ".build", "release", "herald")
BENCH = os.path.join(ROOT, ".build", "release", "HeraldKitBench")


def start(args, pattern, out, seconds=60):
    process = subprocess.Popen(args, stdout=open(out, "w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = re.search(pattern, open(out).read())
        if found:
            return process, found
        if process.poll() is not None:
            break
        time.sleep(0.1)
    sys.exit(f"{args[1]} did not start: {open(out).read()[-2000:]}")


def call(port, method, path, token, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer " + token}
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, (json.loads(data) if data else None)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0


class Prober(threading.Thread):
    """Reads one path every 20 ms on its own connection; keeps each read's milliseconds."""

    def __init__(self, port, path, token):
        super().__init__(daemon=True)
        self.port, self.path, self.token = port, path, token
        self.samples, self.running = [], True

    def run(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while self.running:
            began = time.monotonic()
            connection.request("GET", self.path, headers={"Authorization": "Bearer " + self.token})
            connection.getresponse().read()
            self.samples.append((time.monotonic() - began) * 1000)
            time.sleep(0.02)

    def stop(self):
        self.running = False
        self.join()
        return self.samples


def fleet_round(mode, options, work, manifest, gateway_port, port, api, pk):
    """One fleet of `options.devices` devices and one broadcast to them. `heraldkit`: each device's app registers and
    reports through HeraldKit. `reference`: the devices are imported with the API key and report with the device's
    own JSON poster (one POST per event, nothing queued), the path before HeraldKit."""
    data = f"{work}/fleet-{mode}"
    urls = ["--report-url", f"http://127.0.0.1:{port}/v1/feedback?key={pk}"] if mode == "reference" else [
        "--register-url", f"http://127.0.0.1:{port}/v1/devices?key={pk}",
        "--report-url", f"http://127.0.0.1:{port}/v1/feedback?key={pk}"]
    fleet, _ = start([HERALD, "device", "--fleet", str(options.devices), "--app", manifest,
                      "--gateway", f"https://127.0.0.1:{gateway_port}", "--ca-file", f"{work}/gateway/ca.pem",
                      "--data", data, *urls], r"devices connected", f"{work}/fleet-{mode}.out", seconds=600)
    try:
        tokens = [line.strip() for line in open(f"{data}/tokens.txt") if line.strip()]
        if mode == "reference":
            for first in range(0, len(tokens), 10000):
                status, answer = call(port, "POST", "/v1/devices/import", api, {"devices": [
                    {"token": token, "tags": ["reference"]} for token in tokens[first:first + 10000]]})
                assert status == 200, answer
        else:
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                registered = 0
                for token in tokens[-50:]:
                    status, _ = call(port, "GET", f"/v1/devices/{token}", api)
                    registered += status == 200
                if registered == 50:
                    break
                time.sleep(1)
        target = {"tags": "reference"} if mode == "reference" else {"all": True}
        idle = Prober(port, "/healthz", api)
        idle.start()
        time.sleep(3)
        idle_samples = idle.stop()
        status, notification = call(port, "POST", "/v1/notifications", api, {
            "target": target, "content": {"title": "Order", "body": "on its way", "mutableContent": True}})
        assert status == 202, notification
        began = time.monotonic()
        probe = Prober(port, f"/v1/notifications/{notification['id']}", api)
        probe.start()
        first, last, stats, seen = None, None, {}, -1
        while time.monotonic() - began < 600:
            _, report = call(port, "GET", f"/v1/notifications/{notification['id']}", api)
            stats = report["stats"]
            receipts = stats["delivered"] + stats["displayed"]
            if receipts and first is None:
                first = time.monotonic()
            if receipts != seen:
                seen, last = receipts, time.monotonic()
            if stats["accepted"] and receipts >= 2 * stats["accepted"] and report["state"] == "done":
                break
            # Reports that have not come in 20 s are lost (the reference path does not retry).
            if report["state"] == "done" and last and time.monotonic() - last > 20:
                break
            time.sleep(0.1)
        busy = probe.stop()
        receipts = stats["delivered"] + stats["displayed"]
        return {
            "mode": mode, "devices": options.devices, "targeted": stats["targeted"], "accepted": stats["accepted"],
            "delivered": stats["delivered"], "displayed": stats["displayed"],
            "lostReceipts": 2 * stats["accepted"] - receipts,
            "secondsToLastReceipt": round((last or time.monotonic()) - began, 2),
            "receiptsPerSecond": round(receipts / max(0.001, (last or time.monotonic()) - (first or began))),
            "idleProbeP50Ms": round(percentile(idle_samples, 0.5), 1),
            "idleProbeP99Ms": round(percentile(idle_samples, 0.99), 1),
            "busyProbeP50Ms": round(percentile(busy, 0.5), 1), "busyProbeP99Ms": round(percentile(busy, 0.99), 1),
            "busyProbes": len(busy)}
    finally:
        fleet.terminate()
        try:
            fleet.wait(timeout=60)
        except subprocess.TimeoutExpired:
            fleet.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--receipts", type=int, default=2000)
    parser.add_argument("--keep", action="store_true")
    options = parser.parse_args()
    work = tempfile.mkdtemp()
    key = os.path.join(work, "AuthKey.p8")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                   check=True, capture_output=True)
    processes = []
    try:
        gateway, found = start([HERALD, "gateway", "--port", "0", "--data", f"{work}/gateway", "--max-connections",
                                str(options.devices + 100), "--auth-key", f"DEF123GHIJ:ABC123DEFG:{key}"],
                               r"listening on https://127.0.0.1:(\d+)", f"{work}/gateway.out")
        processes.append(gateway)
        gateway_port = int(found.group(1))
        provider, found = start([HERALD, "serve", "--port", "0", "--data", work], r"http://127.0.0.1:(\d+)/v1",
                                f"{work}/serve.out")
        processes.append(provider)
        port = int(found.group(1))
        admin = open(f"{work}/provider/admin-token").read().strip()
        status, app = call(port, "POST", "/v1/apps", admin, {
            "bundleID": "com.example.bench", "environment": "development",
            "endpoint": f"https://127.0.0.1:{gateway_port}", "caPEM": open(f"{work}/gateway/ca.pem").read(),
            "authentication": {"kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                               "privateKey": open(key).read()}})
        assert status == 201, app
        api, pk = app["apiKey"], app["app"]["publishableKey"]

        extension = []
        for _ in range(options.rounds):
            line = subprocess.run([BENCH, "--provider", f"http://127.0.0.1:{port}", "--key", pk, "--receipts",
                                   str(options.receipts)], check=True, capture_output=True, text=True).stdout
            extension.append(json.loads(line.strip().splitlines()[-1]))
            print(json.dumps({"extensionRound": extension[-1]}), flush=True)
        print(json.dumps({
            "extension": {
                "receiptsPerRound": extension[0]["receipts"], "rounds": options.rounds,
                "withReceiptsMedianMicroseconds": round(statistics.median(r["withReceipts_us"]["median"] for r in extension), 1),
                "withReceiptsP99Microseconds": round(statistics.median(r["withReceipts_us"]["p99"] for r in extension), 1),
                "withReceiptsMaxMicroseconds": round(max(r["withReceipts_us"]["max"] for r in extension), 1),
                "referenceMedianMicroseconds": round(statistics.median(r["reference_us"]["median"] for r in extension), 1),
                "bytesPerQueuedReceipt": statistics.median(r["bytesPerQueuedReceipt"] for r in extension)}}), flush=True)

        manifest = os.path.join(work, "app.json")
        json.dump({"bundleID": "com.example.bench", "authorization": {"granted": True, "options": ["alert"]}},
                  open(manifest, "w"))
        for mode in ["heraldkit", "reference"]:
            print(json.dumps({"fleet": fleet_round(mode, options, work, manifest, gateway_port, port, api, pk)}),
                  flush=True)
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        if options.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
