#!/usr/bin/env python3
"""APNs unreachable for a while, then back: is every notification still sent, once, and soon after?

`herald serve` sends to the local gateway through a counting TCP relay (it counts every connection the provider
opens, so the probes while APNs is down are visible). The gateway is stopped (SIGTERM: every connection is then
refused at the relay's far side, as when APNs or the route to it is down), the outage lasts --outage seconds, and the
gateway is started again on the same folder and port. Two shapes:

- default: the notification to --devices devices is created while APNs is down (it waits in the queue);
- --down-at N: a broadcast starts with APNs up and APNs goes down once N deliveries were accepted.

It prints, for the outage: connections the provider tried (and per second), deliveries given up (must be 0), each
delivery's attempts after it ended (1 each: waiting spends none), and the seconds from APNs' return until every
delivery was accepted.

    swift build -c release --product herald
    python3 Benchmarks/apns-outage.py --devices 1000 --outage 90
    python3 Benchmarks/apns-outage.py --devices 100000 --outage 600 --down-at 30000
"""
import argparse, os, signal, socket, ssl, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(__file__))
from importlib import import_module

broadcast = import_module("provider-broadcast")
HERALD = broadcast.HERALD


class CountingRelay:
    """Forwards each connection to 127.0.0.1:target; counts the connections it accepted."""

    def __init__(self, target):
        self.target = target
        self.connections = 0
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(512)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.listener.accept()
            self.connections += 1
            try:
                server = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                client.close()  # APNs is down: the provider's connection ends at once
                continue
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self.pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def pipe(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--outage", type=float, default=90, help="seconds APNs is down")
    parser.add_argument("--down-at", type=int, default=0, metavar="ACCEPTED",
                        help="take APNs down during the broadcast, once this many deliveries were accepted")
    options = parser.parse_args()
    work = tempfile.mkdtemp()
    key = os.path.join(work, "AuthKey.p8")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                   check=True, capture_output=True)
    gateway_args = [HERALD, "gateway", "--data", f"{work}/gateway", "--auth-key", f"DEF123GHIJ:ABC123DEFG:{key}"]
    gateway, found = broadcast.start(gateway_args + ["--port", "0"], r"listening on https://127.0.0.1:(\d+)",
                                     f"{work}/gateway.out")
    gateway_port = int(found.group(1))
    relay = CountingRelay(gateway_port)
    provider, found = broadcast.start([HERALD, "serve", "--port", "0", "--data", work],
                                      r"http://127.0.0.1:(\d+)/v1", f"{work}/serve.out")
    port = int(found.group(1))
    admin = open(f"{work}/provider/admin-token").read().strip()
    try:
        context = ssl.create_default_context(cafile=f"{work}/gateway/ca.pem")
        gw = broadcast.Client("127.0.0.1", gateway_port, open(f"{work}/gateway/admin-token").read().strip(),
                              context=context)
        status, created = broadcast.Client("127.0.0.1", port, admin).call("POST", "/v1/apps", {
            "bundleID": "com.example.outage", "environment": "development",
            "endpoint": f"https://127.0.0.1:{relay.port}", "caPEM": open(f"{work}/gateway/ca.pem").read(),
            "authentication": {"kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                               "privateKey": open(key).read()}})
        assert status == 201, created
        api = broadcast.Client("127.0.0.1", port, created["apiKey"])
        tokens = []
        while len(tokens) < options.devices:
            status, answer = gw.call("POST", "/admin/devices", {
                "topic": "com.example.outage", "environment": "development",
                "count": min(100000, options.devices - len(tokens))})
            assert status == 201, answer
            tokens += answer["tokens"]
        for index in range(0, len(tokens), 10000):
            status, answer = api.call("POST", "/v1/devices/import",
                                      {"devices": [{"token": t} for t in tokens[index:index + 10000]]})
            assert status == 200, answer

        def report(notification):
            status, answer = api.call("GET", f"/v1/notifications/{notification}")
            assert status == 200, answer
            return answer["stats"]

        def take_down():
            gateway.send_signal(signal.SIGTERM)
            gateway.wait(timeout=60)
            return relay.connections, time.monotonic()

        body = {"target": {"all": True}, "content": {"title": "Outage", "body": "sent when APNs is back"}}
        rate_before = None
        if options.down_at:
            status, notification = api.call("POST", "/v1/notifications", body)
            assert status == 202, notification
            began = time.monotonic()
            while report(notification["id"])["accepted"] < options.down_at:
                time.sleep(0.02)
            rate_before = report(notification["id"])["accepted"] / (time.monotonic() - began)
            before, down_at = take_down()
            accepted_before = report(notification["id"])["accepted"]
        else:
            before, down_at = take_down()
            status, notification = api.call("POST", "/v1/notifications", body)
            assert status == 202, notification
            accepted_before = 0
        print(f"APNs down with {accepted_before} of {options.devices} accepted; waiting {options.outage:.0f} s",
              flush=True)
        time.sleep(max(0, options.outage - (time.monotonic() - down_at)))
        during = relay.connections - before
        stats = report(notification["id"])
        given_up = sum(stats["rejected"].values())
        _, health = api.call("GET", "/healthz")
        restarted, _ = broadcast.start(gateway_args + ["--port", str(gateway_port)],
                                       r"listening on https://127.0.0.1:(\d+)", f"{work}/gateway-2.out")
        back = time.monotonic()
        left = options.devices - stats["accepted"]
        while True:
            stats = report(notification["id"])
            if stats["accepted"] + sum(stats["rejected"].values()) >= options.devices:
                break
            time.sleep(0.05)
        all_sent = time.monotonic() - back
        attempts = {}
        after = ""
        while True:
            status, page = api.call("GET", f"/v1/notifications/{notification['id']}/deliveries?limit=1000"
                                    + (f"&after={after}" if after else ""))
            for delivery in page:
                attempts[delivery["attempts"]] = attempts.get(delivery["attempts"], 0) + 1
            if len(page) < 1000:
                break
            after = page[-1]["apnsID"]
        print(f"outage {options.outage:.0f} s: provider connections tried {during} "
              f"({during / options.outage:.2f}/s), /healthz apns={health['apns']}, given up during it {given_up}")
        if rate_before:
            print(f"send rate: {rate_before:.0f}/s before the outage, {left / all_sent:.0f}/s for the {left} left after "
                  f"it (from APNs' return, probe wait included)")
        print(f"after APNs' return: all {options.devices} answered in {all_sent:.2f} s; accepted {stats['accepted']}, "
              f"given up {sum(stats['rejected'].values())} {stats['rejected'] or ''}; attempts per delivery "
              f"{dict(sorted(attempts.items()))}")
        restarted.terminate()
        restarted.wait(timeout=60)
    finally:
        provider.terminate()
        if gateway.poll() is None:
            gateway.terminate()


if __name__ == "__main__":
    main()
