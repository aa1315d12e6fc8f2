#!/usr/bin/env python3
"""One broadcast to a channel with N subscribed devices.

Starts a release `herald gateway`, makes a channel (`herald channels create`), connects `herald device --fleet N
--subscribe CHANNEL`, then sends broadcasts one at a time with curl and reads the gateway's report of each
(GET /admin/broadcasts): how long the request took on the server side (curl's time to first byte after the request
was sent), and each device's acknowledgement delay from the moment the gateway accepted it (p50, p99, the last).

    python3 Benchmarks/broadcast-fanout.py [--devices 10000] [--broadcasts 15]

Prints one line per broadcast and the medians over them.
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, time

HERALD = ".build/release/herald"


def wait_for(path, pattern, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if os.path.exists(path):
            text = open(path).read()
            match = re.search(pattern, text)
            if match:
                return match
        time.sleep(0.2)
    sys.exit(f"timed out waiting for {pattern!r} in {path}:\n{open(path).read() if os.path.exists(path) else ''}")


def cpu_ms(pid):
    """The process's user and system CPU time so far, in milliseconds."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=10000)
    parser.add_argument("--broadcasts", type=int, default=15)
    args = parser.parse_args()
    subprocess.run(["swift", "build", "-c", "release", "--product", "herald"], check=True, stdout=subprocess.DEVNULL)
    work = tempfile.mkdtemp()
    key = os.path.join(work, "AuthKey.p8")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                   check=True, stderr=subprocess.DEVNULL)
    processes = []
    try:
        log = os.path.join(work, "gateway.out")
        processes.append(subprocess.Popen(
            [HERALD, "gateway", "--port", "0", "--manage-port", "0", "--data", f"{work}/gateway",
             "--max-connections", str(args.devices + 100), "--auth-key", f"DEF123GHIJ:ABC123DEFG:{key}"],
            stdout=open(log, "w"), stderr=subprocess.STDOUT))
        url = wait_for(log, r"listening on (https://\S+)", 30).group(1)
        manage = wait_for(log, r"broadcast channels: (https://[^/]+)", 5).group(1)
        ca = f"{work}/gateway/ca.pem"
        admin = open(f"{work}/gateway/admin-token").read().strip()
        auth = ["--auth-key", f"DEF123GHIJ:ABC123DEFG:{key}", "--ca-file", ca, "--topic", "com.example.app"]
        channel = subprocess.run([HERALD, "channels", "create", "--url", manage, *auth], check=True,
                                 capture_output=True, text=True).stdout.split()[0]
        manifest = os.path.join(work, "app.json")
        json.dump({"bundleID": "com.example.app"}, open(manifest, "w"))
        fleet_log = os.path.join(work, "fleet.out")
        started = time.time()
        processes.append(subprocess.Popen(
            [HERALD, "device", "--fleet", str(args.devices), "--subscribe", channel, "--app", manifest,
             "--gateway", url, "--ca-file", ca, "--data", f"{work}/fleet"],
            stdout=open(fleet_log, "w"), stderr=subprocess.STDOUT))
        wait_for(fleet_log, r"devices connected", 900)
        print(f"{args.devices} devices connected and subscribed in {time.time() - started:.1f} s", flush=True)
        jwt = subprocess.run([HERALD, "send", "--url", url, *auth, "--channel", channel, "--event", "update",
                              "--content-state", "{}", "--print-curl"], check=True, capture_output=True,
                             text=True).stdout
        bearer = re.search(r"authorization: (bearer [^']+)", jwt).group(1)
        answers, p50s, p99s, lasts, gateway_cpu, fleet_cpu = [], [], [], [], [], []
        gateway_pid, fleet_pid = processes[0].pid, processes[1].pid
        for index in range(args.broadcasts):
            cpu_before = (cpu_ms(gateway_pid), cpu_ms(fleet_pid))
            body = json.dumps({"aps": {"event": "update", "timestamp": int(time.time()) + index,
                                       "content-state": {"score": f"{index}-0"}}})
            out = subprocess.run(
                ["curl", "-s", "--http2", "--cacert", ca, "-o", "/dev/null", "-D", "-",
                 "-w", "time %{time_pretransfer} %{time_starttransfer}\n",
                 "-H", f"authorization: {bearer}", "-H", "apns-push-type: liveactivity",
                 "-H", f"apns-channel-id: {channel}", "-H", "apns-expiration: 0", "-H", "apns-priority: 10",
                 "--data", body, f"{url}/4/broadcasts/apps/com.example.app"],
                check=True, capture_output=True, text=True).stdout
            unique = re.search(r"apns-unique-id: (\S+)", out).group(1)
            pre, first = map(float, re.search(r"time (\S+) (\S+)", out).groups())
            answered_ms = (first - pre) * 1000
            report = None
            for _ in range(600):
                reports = json.loads(subprocess.run(
                    ["curl", "-s", "--cacert", ca, "-H", f"authorization: Bearer {admin}",
                     f"{url}/admin/broadcasts"], check=True, capture_output=True, text=True).stdout)["broadcasts"]
                report = next((r for r in reports if r["apns-unique-id"] == unique), None)
                if report and report["acknowledged"] >= report["reached"]:
                    break
                time.sleep(0.05)
            gateway_cpu.append(cpu_ms(gateway_pid) - cpu_before[0])
            fleet_cpu.append(cpu_ms(fleet_pid) - cpu_before[1])
            answers.append(answered_ms)
            p50s.append(report["ack-ms-p50"]); p99s.append(report["ack-ms-p99"]); lasts.append(report["ack-ms-max"])
            print(f"broadcast {index}: answered in {answered_ms:.2f} ms; reached {report['reached']}, "
                  f"acknowledged {report['acknowledged']}; ack p50 {report['ack-ms-p50']} ms, "
                  f"p99 {report['ack-ms-p99']} ms, last {report['ack-ms-max']} ms; CPU gateway {gateway_cpu[-1]:.0f} ms, "
                  f"fleet {fleet_cpu[-1]:.0f} ms", flush=True)
        print(f"medians over {args.broadcasts} broadcasts to {args.devices} devices: answered in "
              f"{statistics.median(answers):.2f} ms; ack p50 {statistics.median(p50s):.1f} ms, "
              f"p99 {statistics.median(p99s):.1f} ms, last device {statistics.median(lasts):.1f} ms; CPU per broadcast "
              f"(with the admin polls) gateway {statistics.median(gateway_cpu):.0f} ms, fleet "
              f"{statistics.median(fleet_cpu):.0f} ms")
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait()


if __name__ == "__main__":
    main()
