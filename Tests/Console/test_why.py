"""`herald why` through `herald up`: each verdict produced for real (the device's settings, a service extension that
cannot download, a background push, a token of nothing, a storm of 500s at the local APNs, a reply on the device)
and read back as a user reads it: the command's words and next step, its JSON, and the provider's API."""
import json
import os
import pathlib
import re
import subprocess

from playwright.sync_api import expect

from test_live_activity import call, eventually

ROOT = pathlib.Path(__file__).resolve().parents[2]


def setup(herald):
    data = pathlib.Path(herald["data"])
    running = eventually(lambda: json.loads((data / "running.json").read_text())
                         if (data / "running.json").exists() else None)
    admin = (data / "provider" / "admin-token").read_text().strip()
    app = call("GET", f"{herald['base']}/v1/apps", admin)[1][0]["id"]
    return data, running, admin, app


def why(herald, *arguments):
    data, running, _, _ = setup(herald)
    binary = os.environ.get("HERALD_BIN", str(ROOT / ".build" / "debug" / "herald"))
    gateway = running["gateway"]
    return subprocess.run(
        [binary, "why", *arguments, "--provider", herald["base"],
         "--provider-token-file", str(data / "provider" / "admin-token"), "--gateway", gateway["url"],
         "--gateway-token-file", gateway["adminTokenFile"], "--ca-file", gateway["caFile"]],
        capture_output=True, text=True, timeout=60)


def send(herald, body):
    _, _, admin, app = setup(herald)
    status, created = call("POST", f"{herald['base']}/v1/notifications?app={app}", admin, body)
    assert status == 202, created
    return created["id"]


def settled(herald, notification, verdict):
    """Waits until the notification's breakdown shows `verdict` (the device reports after it shows)."""
    _, _, admin, app = setup(herald)
    def check():
        breakdown = call("GET", f"{herald['base']}/v1/notifications/{notification}/breakdown?app={app}", admin)[1]
        return breakdown if any(entry["verdict"] == verdict for entry in breakdown["verdicts"]) else None
    found = eventually(check, seconds=30)
    assert found, call("GET", f"{herald['base']}/v1/notifications/{notification}/breakdown?app={app}", admin)[1]
    return found


def settings(herald, change):
    _, running, _, _ = setup(herald)
    status, answer = call("POST", f"{running['deviceAPI']}/apps/com.yue.originPush/settings", body=change)
    assert status == 200, answer
    return answer


def sign_in(page, herald):
    binary = os.environ.get("HERALD_BIN", str(ROOT / ".build" / "debug" / "herald"))
    made = subprocess.run([binary, "console-link", "--provider", herald["base"], "--provider-token-file",
                           f"{herald['data']}/provider/admin-token"], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stdout + made.stderr
    page.goto(re.search(r"(http://\S+/console/login\?code=\S+)", made.stdout).group(1))


def delivery_log_verdict(page, herald, notification):
    _, _, admin, app = setup(herald)
    apns_id = call("GET", f"{herald['base']}/v1/notifications/{notification}/deliveries?app={app}", admin)[1][0]["apnsID"]
    page.goto(f"{herald['base']}/console/delivery?apns-id={apns_id}")
    return page.get_by_role("region", name="Verdict")


def test_each_verdict_through_herald_up_in_words_json_and_api(herald, page):
    # Not authorized: the person turned the app's notifications off.
    settings(herald, {"notifications": False})
    off = send(herald, {"target": {"user": "demo"}, "content": {"title": "Hi", "body": "off"}})
    settled(herald, off, "notShown")
    settings(herald, {"notifications": True})
    result = why(herald, off)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "notShown: not shown: the person has not allowed the app's notifications" in result.stdout, result.stdout
    assert "next: the app asks again only through Settings" in result.stdout, result.stdout

    # Alerts off: badges and sounds only.
    settings(herald, {"alerts": False})
    quiet = send(herald, {"target": {"user": "demo"}, "content": {"title": "Hi", "body": "quiet"}})
    settled(herald, quiet, "notShown")
    settings(herald, {"alerts": True})
    assert "may not show alerts" in why(herald, quiet).stdout

    # Shown without its attachment: the service extension may not download from a private address.
    image = send(herald, {"target": {"user": "demo"},
                          "content": {"title": "Photo", "body": "x", "mediaURL": "http://10.0.0.1/x.png"}})
    settled(herald, image, "shownWithoutAttachment")
    text = why(herald, image).stdout
    assert "shownWithoutAttachment: shown without its attachment" in text and "not a public address" in text, text

    # A background push wakes the app and shows nothing.
    background = send(herald, {"target": {"user": "demo"}, "content": {"contentAvailable": True}})
    settled(herald, background, "background")

    # Rejected by APNs: a token of nothing.
    rejected = send(herald, {"target": {"token": "00ff"}, "content": {"title": "x"}})
    settled(herald, rejected, "rejected")
    text = why(herald, rejected).stdout
    assert "BadDeviceToken" in text and "herald doctor --token T" in text, text

    # Retrying: the local APNs answers 500 for a while.
    data, running, _, _ = setup(herald)
    gateway_admin = pathlib.Path(running["gateway"]["adminTokenFile"]).read_text().strip()
    subprocess.run(["curl", "-sk", "-X", "POST", running["gateway"]["url"] + "/admin/faults",
                    "-H", f"Authorization: Bearer {gateway_admin}",
                    "-d", '{"status": 500, "reason": "InternalServerError", "count": 3}'], check=True,
                   capture_output=True)
    retried = send(herald, {"target": {"user": "demo"}, "content": {"title": "storm"}})
    # Three 500s: the retries wait 2, 4 and 8 s, so the notification reads "retrying" for about 14 s (one 500 left a
    # 2 s window, which a slow `herald why` could miss), and the fourth and last send is accepted.
    text = eventually(lambda: (lambda out: out if "retrying:" in out else None)(why(herald, retried).stdout), 20)
    assert text, "the notification never read as retrying while the local APNs answered 500"
    assert re.search(r"retrying: APNs answered InternalServerError to attempt [123]; the next attempt is at", text), text
    assert "waiting for: the next attempt" in text, text
    settled(herald, retried, "shown")

    # A reply on the device, and the JSON of one apns-id.
    replied = send(herald, {"target": {"user": "demo"},
                            "content": {"title": "Tea?", "body": "Reply",
                                        "category": "com.yue.originPush.myNotificationCategory"}})
    settled(herald, replied, "shown")
    _, _, admin, app = setup(herald)
    apns_id = call("GET", f"{herald['base']}/v1/notifications/{replied}/deliveries?app={app}", admin)[1][0]["apnsID"]
    status, answer = call("POST", f"{running['deviceAPI']}/notifications/{apns_id.lower()}/respond",
                          body={"action": "destructiveTextAction", "text": "at five"})
    assert status == 200, answer
    settled(herald, replied, "replied")
    one = json.loads(why(herald, apns_id, "--json").stdout)
    assert one["verdict"]["verdict"] == "replied" and "at five" in one["verdict"]["sentence"], one

    # A filter: the devices of one verdict; an id of nothing exits 1 and says what ids are taken.
    # The console's Delivery log opens with the same verdicts.
    sign_in(page, herald)
    verdict = delivery_log_verdict(page, herald, off)
    expect(verdict).to_contain_text("notShown")
    expect(verdict).to_contain_text("the person has not allowed the app's notifications")
    verdict = delivery_log_verdict(page, herald, rejected)
    expect(verdict).to_contain_text("BadDeviceToken")
    expect(verdict).to_contain_text("Next: send it to the environment the token is from")
    verdict = delivery_log_verdict(page, herald, image)
    expect(verdict).to_contain_text("shown without its attachment")

    listed = why(herald, off, "--verdict", "notShown")
    assert "devices with verdict notShown" in listed.stdout, listed.stdout
    missing = why(herald, "00000000-0000-4000-8000-00000000dead")
    assert missing.returncode == 1 and "give an apns-id" in missing.stderr + missing.stdout, missing
