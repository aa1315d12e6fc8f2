"""iOS 26 devices end to end through `herald up`: the demo app's widget and control tokens reach the provider, a
notification to `{"widgets": {}}` reloads the widget's timeline until WidgetKit's budget is spent, one to a control
reloads it; a Live Activity scheduled through the device's API is pending until its start and then active with its
alert, and an update with an alert shows it."""
import json
import pathlib
import time

from test_live_activity import call, eventually


def setup(herald):
    data = pathlib.Path(herald["data"])
    admin = (data / "provider" / "admin-token").read_text().strip()
    device = eventually(lambda: json.loads((data / "running.json").read_text()).get("deviceAPI")
                        if (data / "running.json").exists() else None)
    status, apps = call("GET", f"{herald['base']}/v1/apps", admin)
    assert status == 200, apps
    return admin, device, apps[0]["id"]


def test_widget_and_control_pushes_through_the_provider(herald):
    admin, device, app = setup(herald)
    base = herald["base"]
    tokens = eventually(lambda: (lambda t: t if len(t) == 2 else None)(
        call("GET", f"{base}/v1/widgets/tokens?app={app}", admin)[1]))
    assert tokens, call("GET", f"{base}/v1/widgets/tokens?app={app}", admin)
    kinds = {token["kind"]: token for token in tokens}
    assert kinds["widgets"]["userID"] == "demo" and kinds["control"]["control"] == "MuteControl", tokens
    # Widget tokens are not activity tokens, and the other way round.
    activity_tokens = call("GET", f"{base}/v1/activities/tokens?app={app}", admin)[1]
    assert not {t["token"] for t in activity_tokens} & {t["token"] for t in tokens}, activity_tokens
    summary = call("GET", f"{device}/widgets")[1][0]
    assert summary["widgetPushToken"] == kinds["widgets"]["token"], summary

    def reloads():
        return call("GET", f"{device}/widgets")[1][0]["widgets"][0]["reloadsToday"]

    before = reloads()
    status, sent = call("POST", f"{base}/v1/notifications?app={app}", admin, {"target": {"widgets": {"user": "demo"}}})
    assert status == 202 and sent["stats"]["targeted"] == 1 and sent["target"] == "widgets of user demo", sent
    assert eventually(lambda: reloads() == before + 1), call("GET", f"{device}/widgets")
    report = eventually(lambda: (lambda r: r if r["state"] == "done" else None)(
        call("GET", f"{base}/v1/notifications/{sent['id']}?app={app}", admin)[1]))
    assert report["stats"]["accepted"] == 1 and report["pushType"] == "widgets", report

    status, sent = call("POST", f"{base}/v1/notifications?app={app}", admin,
                        {"target": {"widgets": {"control": "MuteControl"}}})
    assert status == 202 and sent["stats"]["targeted"] == 1 and sent["pushType"] == "controls", sent
    assert eventually(lambda: call("GET", f"{device}/widgets")[1][0]["controls"][0]["reloadsToday"] == 1)

    # Bad input: a payload that would show something, another push type, a control nobody registered.
    status, refused = call("POST", f"{base}/v1/notifications?app={app}", admin, {
        "target": {"widgets": {}}, "payload": {"aps": {"content-changed": True, "alert": "hi"}}})
    assert status == 400 and "alert" in refused["error"]["message"], refused
    status, refused = call("POST", f"{base}/v1/notifications?app={app}", admin,
                           {"target": {"widgets": {}}, "pushType": "alert"})
    assert status == 400 and refused["error"]["field"] == "pushType", refused
    status, nobody = call("POST", f"{base}/v1/notifications?app={app}", admin,
                          {"target": {"widgets": {"control": "NoSuchControl"}}})
    assert status == 202 and nobody["stats"]["targeted"] == 0 and "no widget token" in nobody["warning"], nobody
    status, refused = call("POST", f"{base}/v1/widgets/tokens?app={app}", admin, {"token": "ab" * 32, "kind": "control"})
    assert status == 400 and refused["error"]["field"] == "control", refused


def test_a_scheduled_activity_starts_with_its_alert_and_an_update_alerts(herald):
    _, device, _ = setup(herald)
    start = time.time() + 2
    status, activity = call("POST", f"{device}/apps/com.yue.originPush/activities", body={
        "type": "ScoreAttributes", "attributes": {"home": "Lions", "away": "Wolves"}, "contentState": {"score": "0-0"},
        "start": start, "alert": {"title": "Kick-off", "body": "Lions v Wolves"}})
    assert status == 201 and activity["state"] == "pending" and activity.get("alert") is None, activity

    def current():
        return [a for a in call("GET", f"{device}/activities")[1] if a["id"] == activity["id"]][0]
    started = eventually(lambda: (lambda a: a if a["state"] == "active" else None)(current()), seconds=20)
    assert started and started["alert"]["title"] == "Kick-off" and started["alert"]["body"] == "Lions v Wolves", current()

    status, updated = call("POST", f"{device}/activities/{activity['id']}/update", body={
        "contentState": {"score": "1-0"}, "alert": {"title": "Goal!", "body": "Lions 1-0", "sound": "goal.caf"}})
    assert status == 200 and updated["alert"]["title"] == "Goal!" and updated["alert"]["sound"] == "goal.caf", updated

    # Bad input: a start without an alert, a start in the next decade, a style that does not exist.
    for body, words in [({"start": time.time() + 60}, "needs alert"),
                        ({"start": 1e30, "alert": {"title": "a", "body": "b"}}, "within ten years"),
                        ({"style": "loud"}, "standard or transient")]:
        status, refused = call("POST", f"{device}/apps/com.yue.originPush/activities",
                               body={"type": "ScoreAttributes", **body})
        assert status == 400 and words in json.dumps(refused), (body, refused)
