#!/usr/bin/env python3
"""A real Prometheus (Debian's) scrapes a running Herald (provider and local APNs) and every dashboard query answers.

`herald up` on free ports, a broadcast to its demo devices and to one token the local APNs does not know (a
refusal), a receipt for an unknown apns-id and a request to a path no route takes; then `prometheus` with
deploy/prometheus/herald-alerts.yml loaded scrapes the provider every second. Passes when Prometheus reports the
target up, all alert rules loaded and healthy, and every expression of deploy/grafana/herald-dashboard.json returns
at least one series.

Usage: HERALD_BIN=.build/debug/herald python3 Tests/Ops/prometheus-scrape.py
"""
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

from herald_up import ROOT, HeraldUp, call, free_port, wait

DASHBOARD = os.path.join(ROOT, "deploy/grafana/herald-dashboard.json")
RULES = os.path.join(ROOT, "deploy/prometheus/herald-alerts.yml")


def main():
    work = tempfile.mkdtemp(prefix="herald-prometheus-")
    processes = []
    try:
        up = HeraldUp(work)
        processes.append(up.process)
        ports = dict(up.ports, prometheus=free_port())
        app, base, admin = up.app, up.base, up.admin

        # A token the local APNs never issued: APNs refuses it (a reason for the refusals panel).
        status, _ = call("POST", f"{base}/v1/devices?app={app}", admin, {"token": secrets.token_hex(32)})
        assert status in (200, 201), f"registering a device answered {status}"
        status, created = call("POST", f"{base}/v1/notifications?app={app}", admin,
                               {"target": {"all": True}, "content": {"title": "hello", "body": "metrics"}})
        assert status == 202, f"the broadcast answered {status}: {created}"
        notification = created["id"]
        wait("the broadcast finished",
             lambda: call("GET", f"{base}/v1/notifications/{notification}?app={app}", admin)[1].get("state") == "done")
        call("POST", f"{base}/v1/feedback?app={app}", admin,
             {"event": "displayed", "apnsID": "00000000-0000-4000-8000-000000000000"})
        call("GET", f"{base}/no/such/path")

        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as file:
            file.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - {RULES}
scrape_configs:
  - job_name: herald
    static_configs:
      - targets: ["127.0.0.1:{ports['provider']}"]
  - job_name: herald-gateway
    scheme: https
    metrics_path: /admin/metrics
    authorization:
      credentials_file: {work}/data/gateway/admin-token
    tls_config:
      ca_file: {work}/data/gateway/ca.pem
    static_configs:
      - targets: ["127.0.0.1:{ports['gateway']}"]
""")
        prometheus_log = open(os.path.join(work, "prometheus.log"), "w")
        prometheus = subprocess.Popen(
            ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={work}/tsdb",
             f"--web.listen-address=127.0.0.1:{ports['prometheus']}"],
            stdout=prometheus_log, stderr=subprocess.STDOUT, start_new_session=True)
        processes.append(prometheus)
        api = f"http://127.0.0.1:{ports['prometheus']}/api/v1"

        def query(expr):
            try:
                url = f"{api}/query?" + urllib.parse.urlencode({"query": expr})
                with urllib.request.urlopen(url, timeout=10) as response:
                    answer = json.load(response)
            except (urllib.error.URLError, ConnectionError):
                return None
            return answer["data"]["result"] if answer.get("status") == "success" else None

        wait("Prometheus scraped the provider", lambda: query('up{job="herald"} == 1'), 120)
        wait("Prometheus scraped the local APNs", lambda: query('up{job="herald-gateway"} == 1'), 60)
        # rate() needs two samples inside its window after the traffic.
        wait("two scrapes", lambda: query("count_over_time(herald_provider_build_info[1m]) >= 3"), 60)

        with urllib.request.urlopen(f"{api}/rules", timeout=10) as response:
            groups = json.load(response)["data"]["groups"]
        rules = [rule for group in groups for rule in group["rules"]]
        assert len(rules) == 8 and all(rule["health"] == "ok" for rule in rules), f"rules: {rules}"

        dashboard = json.load(open(DASHBOARD))
        empty = []
        count = 0
        for panel in dashboard["panels"]:
            for target in panel["targets"]:
                count += 1
                result = query(target["expr"])
                if not result:
                    empty.append(f"{panel['title']}: {target['expr']}")
        if empty:
            sys.exit("FAIL: dashboard queries without data:\n  " + "\n  ".join(empty))
        print(f"prometheus-scrape: Prometheus scraped herald up; {len(rules)} alert rules healthy; "
              f"all {count} dashboard queries of {len(dashboard['panels'])} panels returned data")
    finally:
        for process in processes:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
