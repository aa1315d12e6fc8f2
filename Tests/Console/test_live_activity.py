"""Live Activities end to end through `herald up`: the provider makes a channel at the local APNs' management port,
the simulated device's demo app starts an activity subscribed to it, one broadcast through the provider updates it;
a push-to-start through the provider starts another activity, whose own token the device reports back."""
import json
import pathlib
import time
import urllib.request


def call(method, url, token=None, body=None):
    request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def eventually(check, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    return check()


def test_channel_broadcast_and_push_to_start_through_herald_up(herald):
    data = pathlib.Path(herald["data"])
    admin = (data / "provider" / "admin-token").read_text().strip()
    device = eventually(lambda: json.loads((data / "running.json").read_text()).get("deviceAPI")
                        if (data / "running.json").exists() else None)
    base = herald["base"]
    status, apps = call("GET", f"{base}/v1/apps", admin)
    assert status == 200, apps
    app = apps[0]["id"]

    # The device reported its push-to-start token for the demo app's activity type.
    tokens = eventually(lambda: call("GET", f"{base}/v1/activities/tokens?app={app}&kind=pushToStart", admin)[1])
    assert tokens and tokens[0]["attributesType"] == "ScoreAttributes" and tokens[0]["userID"] == "demo", tokens

    status, channel = call("POST", f"{base}/v1/channels?app={app}", admin, {"name": "final", "storagePolicy": 1})
    assert status == 201, channel
    status, activity = call("POST", f"{device}/apps/com.yue.originPush/activities", body={
        "type": "ScoreAttributes", "channel": channel["id"]})
    assert status == 201 and activity["channel"] == channel["id"], activity

    status, sent = call("POST", f"{base}/v1/notifications?app={app}", admin, {
        "target": {"channel": channel["id"]}, "expiration": int(time.time()) + 3600,
        "payload": {"aps": {"event": "update", "timestamp": int(time.time()),
                            "content-state": {"score": "1-0"}}}})
    assert status == 202 and sent["target"] == "channel:" + channel["id"], sent

    def updated():
        found = [a for a in call("GET", f"{device}/activities")[1] if a["id"] == activity["id"]]
        return found and found[0]["contentState"] == {"score": "1-0"}
    assert eventually(updated), call("GET", f"{device}/activities")[1]
    report = eventually(lambda: (lambda r: r if r["state"] == "done" else None)(
        call("GET", f"{base}/v1/notifications/{sent['id']}?app={app}", admin)[1]))
    assert report["stats"]["accepted"] == 1, report

    # A push-to-start to the demo user's activities of the type starts one with its own token.
    status, started = call("POST", f"{base}/v1/notifications?app={app}", admin, {
        "target": {"activities": {"type": "ScoreAttributes", "user": "demo"}},
        "payload": {"aps": {"event": "start", "timestamp": int(time.time()), "attributes-type": "ScoreAttributes",
                            "attributes": {"home": "Lions", "away": "Bears"}, "content-state": {"score": "0-0"},
                            "alert": {"title": "Kick-off", "body": "Lions v Bears"}, "input-push-token": 1}}})
    assert status == 202 and started["stats"]["targeted"] == 1, started

    def by_push():
        return [a for a in call("GET", f"{device}/activities")[1] if a["attributes"].get("away") == "Bears"]
    pushed = eventually(by_push)
    assert pushed and pushed[0]["pushToken"], call("GET", f"{device}/activities")[1]
    update_tokens = eventually(lambda: call(
        "GET", f"{base}/v1/activities/tokens?app={app}&activity={pushed[0]['id']}", admin)[1])
    assert update_tokens and update_tokens[0]["token"] == pushed[0]["pushToken"], update_tokens

    # An update to that activity through the provider, by its id.
    status, sent = call("POST", f"{base}/v1/notifications?app={app}", admin, {
        "target": {"activity": pushed[0]["id"]},
        "payload": {"aps": {"event": "update", "timestamp": int(time.time()) + 1, "content-state": {"score": "0-1"}}}})
    assert status == 202 and sent["stats"]["targeted"] == 1, sent
    assert eventually(lambda: by_push()[0]["contentState"] == {"score": "0-1"}), by_push()

    # Its verdict: the activity took it. An update with an older timestamp is taken nothing from, and says so.
    def verdict(notification):
        def check():
            page = call("GET", f"{base}/v1/notifications/{notification}/verdicts?app={app}", admin)[1]
            kind = page["deliveries"][0]["verdict"]["verdict"] if page["deliveries"] else None
            return page["deliveries"][0]["verdict"] if kind not in (None, "awaitingDevice", "sending", "queued") else None
        return eventually(check)
    assert verdict(sent["id"])["verdict"] == "activityUpdated", verdict(sent["id"])
    status, older = call("POST", f"{base}/v1/notifications?app={app}", admin, {
        "target": {"activity": pushed[0]["id"]},
        "payload": {"aps": {"event": "update", "timestamp": 1000, "content-state": {"score": "9-9"}}}})
    assert status == 202, older
    ignored = verdict(older["id"])
    assert ignored["verdict"] == "activityIgnored" and "older or equal timestamp" in ignored["sentence"], ignored
    assert by_push()[0]["contentState"] == {"score": "0-1"}, by_push()

    # Priority 10 counts against the activity's hourly budget (the demo app's: Herald's 10): the 11th is dropped.
    last = None
    for index in range(10):
        status, last = call("POST", f"{base}/v1/notifications?app={app}", admin, {
            "target": {"activity": pushed[0]["id"]},
            "payload": {"aps": {"event": "update", "timestamp": int(time.time()) + 10 + index,
                                "content-state": {"score": f"{index}-1"}}}})
        assert status == 202, last
        if index < 9:  # one at a time, so each arrives after the one before
            assert verdict(last["id"])["verdict"] == "activityUpdated", verdict(last["id"])
    throttled = verdict(last["id"])
    assert throttled["verdict"] == "activityThrottled", throttled
    assert "apns-priority 5" in throttled["next"], throttled
    assert by_push()[0]["contentState"] == {"score": "8-1"}, by_push()
