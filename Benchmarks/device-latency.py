#!/usr/bin/env python3
"""Push latency to connected devices, and connected devices per GiB of gateway memory.

Starts `herald gateway` and `herald device --fleet N` (N simulated devices in one process, each on its own courier
connection, each running seed 000's demo app with its service extension), then sends RATE notifications per second
for SECONDS seconds with h2load (one HTTP/2 connection, spread over every device's token, mutable-content set so the
service extension runs). The latency of each notification is the gateway's own record: from accepting the push
(`received`) to the device's acknowledgement after its UserNotifications pipeline ran (`delivered`), read from
`GET /admin/devices/<token>/notifications` (millisecond resolution). Memory is the gateway's resident set (VmRSS)
before and after the devices connected.

    swift build -c release --product herald
    python3 Benchmarks/device-latency.py [--devices 1000] [--rate 1000] [--seconds 10]
"""
import argparse, http.client, json, os, re, shutil, ssl, subprocess, sys, tempfile, time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
HERALD = os.path.join(ROOT, ".build", "release", "herald")


def wait_for(path, pattern, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = re.search(pattern, open(path).read()) if os.path.exists(path) else None
        if found:
            return found
        time.sleep(0.1)
    sys.exit(f"timed out waiting for {pattern!r} in {path}: {open(path).read() if os.path.exists(path) else ''}")


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--rate", type=int, default=1000, help="notifications per second")
    parser.add_argument("--seconds", type=int, default=10)
    options = parser.parse_args()
    work = tempfile.mkdtemp()
    processes = []
    try:
        key = os.path.join(work, "AuthKey.p8")
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                       check=True, capture_output=True)
        gateway_out = os.path.join(work, "gateway.out")
        gateway = subprocess.Popen([HERALD, "gateway", "--port", "0", "--data", f"{work}/gateway",
                                    "--auth-key", f"DEF123GHIJ:ABC123DEFG:{key}"],
                                   stdout=open(gateway_out, "w"), stderr=subprocess.STDOUT)
        processes.append(gateway)
        port = int(wait_for(gateway_out, r"listening on https://127.0.0.1:(\d+)").group(1))
        jwt = wait_for(gateway_out, r"authorization: (bearer [A-Za-z0-9_.\-]+)").group(1)
        time.sleep(0.5)
        before = rss_mb(gateway.pid)

        fleet_out = os.path.join(work, "fleet.out")
        fleet = subprocess.Popen([HERALD, "device", "--fleet", str(options.devices), "--no-terminal",
                                  "--gateway", f"https://127.0.0.1:{port}", "--ca-file", f"{work}/gateway/ca.pem",
                                  "--app", os.path.join(ROOT, "examples", "000-ritl-demo", "app.json"),
                                  "--data", f"{work}/fleet"],
                                 stdout=open(fleet_out, "w"), stderr=subprocess.STDOUT)
        processes.append(fleet)
        connect = wait_for(fleet_out, r"(\d+) devices connected .* in (\d+) s", seconds=600)
        time.sleep(1)
        after = rss_mb(gateway.pid)
        tokens = open(f"{work}/fleet/tokens.txt").read().split()
        assert len(tokens) == options.devices, f"{len(tokens)} tokens for {options.devices} devices"
        per_device_kb = (after - before) * 1024 / options.devices

        total = options.rate * options.seconds
        with open(f"{work}/uris.txt", "w") as uris:
            for index in range(total):
                uris.write(f"https://127.0.0.1:{port}/3/device/{tokens[index % len(tokens)]}\n")
        with open(f"{work}/payload.json", "w") as payload:
            payload.write('{"aps":{"alert":{"title":"Latency","body":"probe"},"mutable-content":1}}')
        began = time.monotonic()
        h2load = subprocess.run(["h2load", "-i", f"{work}/uris.txt", "-n", str(total), "-c", "1", "-m", "100",
                                 "--rps", str(options.rate), "-d", f"{work}/payload.json",
                                 "-H", f"authorization: {jwt}", "-H", "apns-topic: com.yue.originPush",
                                 "-H", "apns-push-type: alert"], capture_output=True, text=True)
        sending = time.monotonic() - began
        succeeded = re.search(r"(\d+) succeeded", h2load.stdout)
        time.sleep(2)

        context = ssl.create_default_context(cafile=f"{work}/gateway/ca.pem")
        admin = http.client.HTTPSConnection("127.0.0.1", port, context=context)
        latencies, stored = [], 0
        for token in tokens:
            admin.request("GET", f"/admin/devices/{token}/notifications", headers={
                "Authorization": "Bearer " + open(f"{work}/gateway/admin-token").read().strip()})
            answer = json.loads(admin.getresponse().read())
            stored += len(answer["stored"])
            latencies += [item["delivered"] - item["received"] for item in answer["delivered"]]
        print(json.dumps({
            "devices": options.devices, "connectSeconds": int(connect.group(2)),
            "gatewayRSSMegabytesBefore": round(before, 1), "gatewayRSSMegabytesAfter": round(after, 1),
            "gatewayKilobytesPerConnectedDevice": round(per_device_kb, 1),
            "connectedDevicesPerGiB": int(1024 * 1024 / per_device_kb) if per_device_kb > 0 else None,
            "deviceProcessRSSMegabytes": round(rss_mb(fleet.pid), 1),
            "sent": total, "accepted": int(succeeded.group(1)) if succeeded else None,
            "sendingSeconds": round(sending, 2), "delivered": len(latencies), "storedNotDelivered": stored,
            "latencyMilliseconds": {"p50": percentile(latencies, 0.50), "p90": percentile(latencies, 0.90),
                                    "p99": percentile(latencies, 0.99), "max": max(latencies)} if latencies else None,
        }), flush=True)
    finally:
        for process in processes:
            process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
