#!/usr/bin/env python3
"""`herald devices import FILE` on the release build: devices a second and the provider's peak resident memory, for
each --batch given, each on a fresh provider (SQLite, or --database postgres://...), medians of --rounds.

    swift build -c release --product herald
    python3 Benchmarks/devices-import.py --devices 1000000 --batch 10000 --batch 50000 --rounds 3

The file (random 32-byte tokens, one per line) is written once to --work; the goal is 50,000 devices a second.
"""
import argparse, http.client, json, os, re, shutil, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def peak_rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def one_run(binary, tokens, batch, database, work):
    data = tempfile.mkdtemp(dir=work)
    port = free_port()
    args = [binary, "serve", "--data", data, "--port", str(port)] + (["--database", database] if database else [])
    serve = subprocess.Popen(args, stdout=open(f"{data}/serve.out", "w"), stderr=subprocess.STDOUT,
                             start_new_session=True)
    try:
        admin_file = f"{data}/provider/admin-token"
        deadline = time.monotonic() + 60
        while True:
            try:
                admin = open(admin_file).read().strip()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                key = subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt",
                                      "ec_paramgen_curve:P-256"], capture_output=True, text=True, check=True).stdout
                connection.request("POST", "/v1/apps", json.dumps({
                    "bundleID": f"com.example.import{port}", "environment": "development",
                    "authentication": {"kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                                       "privateKey": key}}), {"Authorization": f"Bearer {admin}"})
                answer = connection.getresponse()
                body = json.loads(answer.read())
                assert answer.status == 201, body
                app = body["app"]["id"]
                break
            except (OSError, FileNotFoundError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        began = time.monotonic()
        result = subprocess.run([binary, "devices", "import", tokens, "--app", app, "--batch", str(batch),
                                 "--provider", f"http://127.0.0.1:{port}", "--provider-token-file", admin_file],
                                capture_output=True, text=True)
        seconds = time.monotonic() - began
        assert result.returncode == 0, result.stdout + result.stderr
        imported = int(re.search(r"imported ([\d,]+) devices", result.stdout).group(1).replace(",", ""))
        return imported / seconds, peak_rss_kb(serve.pid), result.stdout.strip().splitlines()[-1]
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait()
        shutil.rmtree(data, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, action="append", help="repeatable; default 100000 (the CLI's default)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database", help="a PostgreSQL URL (default: SQLite); each run uses a fresh schema")
    parser.add_argument("--work", default=tempfile.gettempdir())
    options = parser.parse_args()
    binary = os.environ.get("HERALD_BIN", os.path.join(ROOT, ".build/release/herald"))
    tokens = os.path.join(options.work, f"herald-import-{options.devices}.txt")
    if not os.path.exists(tokens):
        with open(tokens + ".part", "w") as file:
            for _ in range(options.devices):
                file.write(os.urandom(32).hex() + "\n")
        os.rename(tokens + ".part", tokens)
    for batch in options.batch or [100_000]:
        rates, peaks = [], []
        for round_ in range(options.rounds):
            database = None
            if options.database:
                separator = "&" if "?" in options.database else "?"
                database = f"{options.database}{separator}schema=import_{os.getpid()}_{batch}_{round_}"
            try:
                rate, peak, line = one_run(binary, tokens, batch, database, options.work)
            finally:
                if database:
                    schema = f"import_{os.getpid()}_{batch}_{round_}"
                    subprocess.run(["psql", options.database.split("?")[0], "-qc", f"DROP SCHEMA {schema} CASCADE"],
                                   capture_output=True)
            rates.append(rate)
            peaks.append(peak)
            print(f"batch {batch} round {round_ + 1}: {rate:,.0f} devices/s, provider peak RSS {peak / 1024:.0f} MB"
                  f" ({line})", flush=True)
        print(f"batch {batch}: median {statistics.median(rates):,.0f} devices/s over {options.devices:,} devices; "
              f"median peak RSS {statistics.median(peaks) / 1024:.0f} MB", flush=True)


if __name__ == "__main__":
    sys.exit(main())
