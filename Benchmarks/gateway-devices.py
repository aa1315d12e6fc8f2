#!/usr/bin/env python3
"""Resident memory and disk per device in the local APNs: registers N devices through the admin API (100,000 a call,
tokens made by the gateway), reads the gateway's resident memory and its journal's size before and after, restarts it
on the same data (the journal is read back and rewritten) and reads both again. Optionally stores one push for each of
the first S devices (h2load, one connection) and reports memory and disk per stored push.

Usage: python3 Benchmarks/gateway-devices.py [--devices N] [--stored S] [--herald .build/release/herald]
Needs openssl; --stored needs h2load (Debian nghttp2-client)."""
import argparse, http.client, json, os, re, shutil, ssl, subprocess, sys, tempfile, time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))


def start(herald, work, key):
    out = open(f"{work}/gateway.out", "w")
    process = subprocess.Popen([herald, "gateway", "--port", "0", "--manage-port", "0", "--data", f"{work}/gateway",
                                "--auth-key", f"DEF123GHIJ:ABC123DEFG:{key}", "--token-creation-limit", "1000000000"],
                               stdout=out, stderr=subprocess.STDOUT)
    began = time.monotonic()
    while time.monotonic() - began < 600:
        text = open(f"{work}/gateway.out").read()
        found = re.search(r"listening on https://[^:]+:(\d+)", text)
        if found:
            return process, int(found.group(1)), text, time.monotonic() - began
        if process.poll() is not None:
            sys.exit(f"the gateway ended: {text}")
        time.sleep(0.05)
    sys.exit("the gateway did not start in 600 s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--stored", type=int, default=0)
    parser.add_argument("--herald", default=".build/release/herald")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="herald-gateway-devices-")
    key = f"{work}/AuthKey.p8"
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                   check=True, capture_output=True)
    gateway, port, output, _ = start(options.herald, work, key)
    try:
        context = ssl.create_default_context(cafile=f"{work}/gateway/ca.pem")
        admin = "Bearer " + open(f"{work}/gateway/admin-token").read().strip()
        connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=600)
        journal = f"{work}/gateway/journal"
        idle_rss, idle_disk = rss_kib(gateway.pid), os.path.getsize(journal)
        tokens = []
        began = time.monotonic()
        while len(tokens) < options.devices:
            count = min(100_000, options.devices - len(tokens))
            body = json.dumps({"topic": "com.example.app", "count": count})
            connection.request("POST", "/admin/devices", body,
                               {"content-type": "application/json", "authorization": admin})
            response = connection.getresponse()
            answer = response.read()
            assert response.status == 201, answer[:300]
            if len(tokens) < options.stored:
                tokens += json.loads(answer)["tokens"]
            else:
                tokens += [None] * count
        elapsed = time.monotonic() - began
        n = options.devices
        rss, disk = rss_kib(gateway.pid), os.path.getsize(journal)
        print(f"{n:,} devices registered in {elapsed:.1f} s ({n / elapsed:,.0f}/s)")
        print(f"  resident memory: idle {idle_rss / 1024:.1f} MiB, now {rss / 1024:.1f} MiB: "
              f"{(rss - idle_rss) * 1024 / n:.0f} bytes per device")
        print(f"  journal: {disk / 1e6:.1f} MB: {(disk - idle_disk) / n:.0f} bytes per device")
        if options.stored:
            jwt = re.search(r"authorization: (bearer [^' ]+)", output).group(1)
            with open(f"{work}/uris.txt", "w") as uris:
                for token in tokens[:options.stored]:
                    uris.write(f"https://127.0.0.1:{port}/3/device/{token}\n")
            payload = json.dumps({"aps": {"alert": {"title": "Game Request", "body": "Bob wants to play poker"},
                                          "badge": 3, "sound": "default"}, "gameID": "12345678"})
            open(f"{work}/payload.json", "w").write(payload)
            before_rss, before_disk = rss_kib(gateway.pid), os.path.getsize(journal)
            result = subprocess.run(["h2load", "-n", str(options.stored), "-c", "1", "-m", "100", "-H",
                                     f"authorization: {jwt}", "-H", "apns-topic: com.example.app",
                                     "-d", f"{work}/payload.json", "-i", f"{work}/uris.txt"],
                                    capture_output=True, text=True)
            print("  " + "; ".join(line.strip() for line in result.stdout.splitlines()
                                   if "finished in" in line or "status codes" in line))
            time.sleep(1)
            s = options.stored
            rss, disk = rss_kib(gateway.pid), os.path.getsize(journal)
            print(f"{s:,} pushes stored (payload {len(payload)} bytes)")
            print(f"  resident memory: {(rss - before_rss) * 1024 / s:.0f} bytes per stored push")
            print(f"  journal: {(disk - before_disk) / s:.0f} bytes per stored push")
        gateway.terminate()
        gateway.wait()
        gateway, port, _, took = start(options.herald, work, key)
        rss, disk = rss_kib(gateway.pid), os.path.getsize(journal)
        print(f"restarted on the same data in {took:.1f} s: resident memory {rss / 1024:.1f} MiB "
              f"({(rss - idle_rss) * 1024 / n:.0f} bytes per device), journal {disk / 1e6:.1f} MB")
    finally:
        gateway.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
