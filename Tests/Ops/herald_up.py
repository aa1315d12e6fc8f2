"""What the operations tests share: `herald up` on free ports, the provider's JSON API, and waiting on a condition.

Used by Tests/Ops/prometheus-scrape.py and Tests/Ops/otlp-trace.py (run by .ci/run).
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERALD = os.environ.get("HERALD_BIN", os.path.join(ROOT, ".build/debug/herald"))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def call(method, url, token=None, body=None, headers=None):
    """A JSON request: its status and its JSON answer (the text of an error's)."""
    request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def wait(what, condition, seconds=180, detail=None):
    """`condition()`'s first true value, checked every 0.2 s; the test fails naming `what` (and `detail()`, what
    was still missing) past `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    sys.exit(f"FAIL: {what} within {seconds} s" + (f" ({detail()})" if detail else ""))


class HeraldUp:
    """`herald up` in `work` on free ports (with `extra` arguments and environment), its demo app and admin token."""

    def __init__(self, work, extra=(), environment=None):
        self.ports = {name: free_port() for name in ["gateway", "manage", "provider", "devices"]}
        self.data = os.path.join(work, "data")
        self.log = open(os.path.join(work, "up.log"), "w+")
        self.process = subprocess.Popen(
            [HERALD, "up", "--data", self.data, "--gateway-port", str(self.ports["gateway"]),
             "--manage-port", str(self.ports["manage"]), "--provider-port", str(self.ports["provider"]),
             "--device-api-port", str(self.ports["devices"]), *extra],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, env=environment)
        text = wait("herald up printed its demo app", self._banner)
        self.app = re.search(r"\?app=(app_[0-9a-f]+)", text).group(1)
        self.base = f"http://127.0.0.1:{self.ports['provider']}"
        self.admin = open(os.path.join(self.data, "provider/admin-token")).read().strip()

    def _banner(self):
        text = self.output()
        if self.process.poll() is not None:
            sys.exit(f"FAIL: herald up exited:\n{text}")
        return re.search(r"\?app=(app_[0-9a-f]+)", text) and text

    def output(self):
        """What it printed and logged so far."""
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
