#!/usr/bin/env python3
"""The gateway's crash window: pushes it answered 200 that a SIGKILL then lost.

Starts `herald gateway` (release build), makes N offline tokens through the admin API, and sends one push to each
with `herald send --tokens` (one connection, full speed). Part way it kills the gateway with SIGKILL. Every push the
client saw accepted (the summary's `accepted`) should be in the gateway's journal, since each token is offline and
so stores its one push; the journal is read as the gateway reads it at start (last record per token wins, a record
cut short ends it). Lost = accepted - stored; the window is lost / sending rate.

    swift build -c release --product herald
    python3 Benchmarks/gateway-kill.py [--devices 50000] [--kill-after 1.5] [--rounds 3]

With --disk-kilobytes K (root: it mounts a tmpfs) the gateway's data folder is on a disk of K KB that fills while it
runs: every push answered 200 must still be in the journal, the others answered 503, and after the kill the gateway
restarts (on a copy, with room again) knowing every token, and still accepts a push to them.

    python3 Benchmarks/gateway-kill.py --devices 2000 --disk-kilobytes 5120 --kill-after 3 --rounds 3
"""
import argparse, json, os, re, signal, ssl, subprocess, sys, tempfile, time, http.client, statistics

HERALD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "release", "herald")


def start_gateway(work):
    out = open(f"{work}/gateway.out", "w")
    process = subprocess.Popen([HERALD, "gateway", "--port", "0", "--data", f"{work}/gateway",
                                "--auth-key", f"DEF123GHIJ:ABC123DEFG:{work}/AuthKey.p8"],
                               stdout=out, stderr=subprocess.STDOUT)
    for _ in range(100):
        found = re.search(r"listening on https://127.0.0.1:(\d+)", open(f"{work}/gateway.out").read())
        if found:
            return process, int(found.group(1))
        time.sleep(0.1)
    sys.exit("the gateway did not start: " + open(f"{work}/gateway.out").read())


def make_tokens(work, port, count):
    context = ssl.create_default_context(cafile=f"{work}/gateway/ca.pem")
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context)
    admin = open(f"{work}/gateway/admin-token").read().strip()
    tokens = []
    while len(tokens) < count:
        body = json.dumps({"topic": "com.example.app", "count": min(100000, count - len(tokens))})
        connection.request("POST", "/admin/devices", body, {"authorization": "Bearer " + admin})
        answer = json.loads(connection.getresponse().read())
        tokens += answer["tokens"]
    return tokens


def read_journal(path):
    """Tokens with a stored notification and tokens known, as the gateway's recovery reads DATA/journal."""
    data = open(path, "rb").read()
    slots, devices, offset = {}, set(), 0
    while True:
        newline = data.find(b"\n", offset)
        if newline < 0:
            break
        count = int(data[offset:newline])
        if newline + 1 + count >= len(data) or data[newline + 1 + count:newline + 2 + count] != b"\n":
            break
        record = json.loads(data[newline + 1:newline + 1 + count])
        offset = newline + 2 + count
        if "slot" in record:
            slots[record["slot"]] = record["notification"] is not None
        if "device" in record:
            devices.add(record["device"]["token"])
    return sum(1 for stored in slots.values() if stored), devices


def stored_in_journal(path):
    return read_journal(path)[0]


def round_once(devices, kill_after, disk_kilobytes=0):
    work = tempfile.mkdtemp(prefix="gateway-kill-")
    if disk_kilobytes:
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={disk_kilobytes}k", "tmpfs", work], check=True)
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-out", f"{work}/AuthKey.p8"], check=True, capture_output=True)
    gateway, port = start_gateway(work)
    tokens = make_tokens(work, port, devices)
    with open(f"{work}/tokens.txt", "w") as file:
        file.write("\n".join(tokens) + "\n")
    began = time.monotonic()
    sender = subprocess.Popen([HERALD, "send", "--url", f"https://127.0.0.1:{port}", "--ca-file",
                               f"{work}/gateway/ca.pem", "--auth-key", f"DEF123GHIJ:ABC123DEFG:{work}/AuthKey.p8",
                               "--topic", "com.example.app", "--tokens", f"{work}/tokens.txt", "--body", "x",
                               "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(kill_after)
    gateway.send_signal(signal.SIGKILL)
    killed_at = time.monotonic() - began
    gateway.wait()
    summary = json.loads(sender.communicate()[0])
    stored, known = read_journal(f"{work}/gateway/journal")
    accepted = summary["accepted"]
    rate = accepted / killed_at
    lost = accepted - stored
    result = {"accepted": accepted, "stored": stored, "lost": lost, "ratePerSecond": round(rate),
              "windowMilliseconds": round(1000 * max(lost, 0) / rate, 1) if rate else None}
    if disk_kilobytes:
        # The restart, with room again: on a copy of what the killed gateway left.
        copy = tempfile.mkdtemp(prefix="gateway-restart-")
        subprocess.run(["cp", "-a", f"{work}/gateway", f"{work}/AuthKey.p8", copy], check=True)
        subprocess.run(["umount", "-l", work])
        restarted, port = start_gateway(copy)
        check = subprocess.run([HERALD, "send", "--url", f"https://127.0.0.1:{port}", "--ca-file",
                                f"{copy}/gateway/ca.pem", "--auth-key", f"DEF123GHIJ:ABC123DEFG:{copy}/AuthKey.p8",
                                "--topic", "com.example.app", "--token", tokens[-1], "--body", "again", "--json"],
                               capture_output=True, text=True)
        restarted.kill()
        result.update({"rejected": summary.get("rejected"), "tokensKnownAfterRestart": len(known),
                       "tokensMade": len(tokens), "pushAfterRestart": json.loads(check.stdout).get("accepted")})
        subprocess.run(["rm", "-rf", copy])
    subprocess.run(["rm", "-rf", work])
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=50000)
    parser.add_argument("--kill-after", type=float, default=1.5, help="seconds of sending before SIGKILL")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--disk-kilobytes", type=int, default=0, help="put the data folder on a tmpfs this small")
    options = parser.parse_args()
    rounds = [round_once(options.devices, options.kill_after, options.disk_kilobytes) for _ in range(options.rounds)]
    print(json.dumps({"rounds": rounds,
                      "medianLost": statistics.median(r["lost"] for r in rounds),
                      "medianWindowMilliseconds": statistics.median(r["windowMilliseconds"] or 0 for r in rounds)},
                     indent=1))


if __name__ == "__main__":
    main()
