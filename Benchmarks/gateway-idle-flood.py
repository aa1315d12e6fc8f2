#!/usr/bin/env python3
"""Idle-socket exhaustion against the gateway, and what a legitimate sender sees.

Starts `herald gateway` (release build) with --max-connections LIMIT, then:
1. a legitimate sender (h2load, one connection, 100 streams, valid JWT, an offline token) measures its rate alone;
2. FLOOD idle TCP sockets are opened and held (they never start TLS); the gateway closes those over the limit at once
   and the rest after its 10-second setup deadline;
3. during the flood the legitimate sender's already-open connection keeps sending (h2load on a connection made
   before the flood is not possible, so it runs a second h2load whose connection is made while the flood holds every
   slot, and reports whether it got in), and the gateway's resident memory is read before, during and after.

    swift build -c release --product herald
    python3 Benchmarks/gateway-idle-flood.py [--flood 15000] [--limit 10000] [--requests 100000]
"""
import argparse, json, os, re, resource, signal, socket, subprocess, sys, tempfile, time

HERALD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "release", "herald")


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0


def h2load(work, port, token, jwt, requests):
    result = subprocess.run(["h2load", "-n", str(requests), "-c", "1", "-m", "100", "-H", f"authorization: {jwt}",
                             "-H", "apns-topic: com.example.app", "-d", f"{work}/payload.json",
                             f"https://127.0.0.1:{port}/3/device/{token}"], capture_output=True, text=True)
    rate = re.search(r"finished in [\d.]+m?s, ([\d.]+) req/s", result.stdout)
    succeeded = re.search(r"(\d+) succeeded", result.stdout)
    return (float(rate.group(1)) if rate else 0.0), (int(succeeded.group(1)) if succeeded else 0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flood", type=int, default=15000)
    parser.add_argument("--limit", type=int, default=10000)
    parser.add_argument("--requests", type=int, default=100000)
    options = parser.parse_args()
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and options.flood + 256 > hard:
        sys.exit(f"--flood {options.flood} needs {options.flood + 256} open files; this machine allows {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    work = tempfile.mkdtemp(prefix="idle-flood-")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-out", f"{work}/AuthKey.p8"], check=True, capture_output=True)
    out = f"{work}/gateway.out"
    gateway = subprocess.Popen(["sh", "-c", f"exec {HERALD} gateway --port 0 --manage-port 0 "
                                f"--data {work}/gateway --max-connections {options.limit} "
                                f"--auth-key DEF123GHIJ:ABC123DEFG:{work}/AuthKey.p8"],
                               stdout=open(out, "w"), stderr=subprocess.STDOUT)
    for _ in range(100):
        text = open(out).read()
        if "authorization: bearer" in text:
            break
        time.sleep(0.1)
    port = int(re.search(r"listening on https://127.0.0.1:(\d+)", text).group(1))
    token = re.search(r"example device token for \S+: (\w+)", text).group(1)
    jwt = re.search(r"authorization: (bearer [^']+)'", text).group(1)
    with open(f"{work}/payload.json", "w") as payload:
        payload.write('{"aps":{"alert":"legitimate"}}')
    try:
        alone, _ = h2load(work, port, token, jwt, options.requests)
        idle_rss = rss_mb(gateway.pid)
        sockets, refused = [], 0
        began = time.monotonic()
        for _ in range(options.flood):
            try:
                sockets.append(socket.create_connection(("127.0.0.1", port)))
            except OSError:
                refused += 1
        opened = time.monotonic() - began
        time.sleep(0.5)
        during_rss = rss_mb(gateway.pid)
        during, during_ok = h2load(work, port, token, jwt, options.requests // 10)
        time.sleep(11)
        closed = 0
        for s in sockets:
            s.setblocking(False)
            try:
                closed += s.recv(1) == b""
            except BlockingIOError:
                pass
            except ConnectionResetError:
                closed += 1
        for s in sockets:
            s.close()
        time.sleep(1)
        after, _ = h2load(work, port, token, jwt, options.requests)
        time.sleep(11)  # herald gives free memory back every 10 s
        settled_rss = rss_mb(gateway.pid)
        print(json.dumps({
            "flood": options.flood, "limit": options.limit, "openSeconds": round(opened, 2),
            "connectRefusedByKernel": refused, "closedByGatewayAfter11s": closed,
            "legitRateAlone": alone, "newLegitConnectionDuringFlood": {"rate": during, "succeeded": during_ok},
            "legitRateAfter": after, "ratioAfterToAlone": round(after / alone, 3) if alone else None,
            "gatewayRSSMegabytes": {"idle": idle_rss, "duringFlood": during_rss, "after": settled_rss},
        }, indent=1))
    finally:
        gateway.send_signal(signal.SIGTERM)
        gateway.wait()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
