"""The console in a real browser (Debian's Chromium through Playwright), driven by roles and names as a user sees
them: sign in from `herald up`'s link, lint, send, watch the device, act and reply, History, the delivery log,
escaping, CSRF and sign-out. The tests run in order and share one `herald up`."""
import http.client
import json
import os
import pathlib
import re
import subprocess
import urllib.request

from playwright.sync_api import expect

NAV = ["Compose", "History", "Delivery log", "Devices", "Channels", "Apps", "Tools", "Metrics"]
SHOTS = os.environ.get("HERALD_SCREENSHOTS")
state = {}


def shot(page, name):
    if SHOTS:
        pathlib.Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)


def compose_and_send(page, title, body, media=None):
    page.goto(state["base"] + "/console/compose")
    page.get_by_label("Target", exact=True).select_option("device")
    page.get_by_label("Title", exact=True).fill(title)
    page.get_by_label("Body", exact=True).fill(body)
    page.get_by_label("Category", exact=True).select_option("com.yue.originPush.myNotificationCategory")
    if media:
        page.get_by_label("Media URL (downloaded by the service extension)", exact=True).fill(media)
    page.get_by_role("button", name="Send", exact=True).click()
    sent = page.get_by_role("status").filter(has_text="Sent: notification")
    expect(sent).to_be_visible()
    link = page.get_by_role("link", name="Open its delivery log")
    return link.get_attribute("href").split("apns-id=")[1]


def test_sign_in_from_the_link_herald_up_prints(page, herald):
    state["base"] = herald["base"]
    page.goto(herald["link"])
    expect(page).to_have_url(re.compile(r"/console/compose$"))
    names = page.get_by_role("navigation").get_by_role("link").all_inner_texts()
    assert names == NAV
    # The code is spent: the same link no longer signs in.
    other = page.context.browser.new_context()
    again = other.new_page()
    again.goto(herald["link"])
    expect(again.get_by_role("alert")).to_contain_text("used already")
    other.close()


def test_a_broken_priority_is_linted_as_you_type_then_fixed(page):
    page.goto(state["base"] + "/console/compose")
    page.get_by_label("Priority", exact=True).fill("7")
    lint = page.get_by_role("status", name="Lint")
    expect(lint).to_contain_text("apns-priority")
    expect(lint).to_contain_text("BadPriority")
    shot(page, "compose")
    page.get_by_label("Priority", exact=True).fill("10")
    expect(lint).not_to_contain_text("apns-priority")


def test_an_expiration_past_64_bits_is_linted_and_crashes_nothing(page, herald):
    page.goto(state["base"] + "/console/compose")
    lint = page.get_by_role("status", name="Lint")
    page.get_by_label("Expiration", exact=False).fill("9223372036854775807")
    expect(lint).not_to_contain_text("BadExpirationDate")
    page.get_by_label("Expiration", exact=False).fill("99999999999999999999999")
    expect(lint).to_contain_text("BadExpirationDate")
    page.get_by_label("Expiration", exact=False).fill("")
    # herald up (gateway, provider and device in one process) is still running and answering.
    status = page.evaluate("async () => (await fetch('/console/compose')).status")
    assert status == 200


def test_a_sent_push_shows_on_the_device_with_its_attachment(page, media):
    apns_id = compose_and_send(page, "Lunch is ready", "Come down", media=f"http://{media}/lunch.png")
    state["first"] = apns_id
    page.get_by_role("navigation").get_by_role("link", name="Devices").click()
    article = page.get_by_role("article", name="Lunch is ready")
    expect(article).to_be_visible(timeout=15000)
    image = article.get_by_role("img")
    expect(image).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth === 96", arg=image.element_handle())
    shot(page, "devices")


def test_an_action_and_a_text_reply_travel_back_through_the_device(page):
    article = page.get_by_role("article", name="Lunch is ready")
    article.get_by_text("Expand").click()
    # iOS 15's action icon (UNNotificationActionIcon) is shown by its name before the title.
    expect(article.get_by_role("button", name="收到了")).to_contain_text("[checkmark.circle]")
    shot(page, "devices-actions")
    article.get_by_role("button", name="收到了").click()
    said = page.get_by_role("status", name="Responses on device 1")
    expect(said).to_contain_text("foregroundAction")
    apns_id = compose_and_send(page, "Dinner?", "Reply with a time")
    state["second"] = apns_id
    page.get_by_role("navigation").get_by_role("link", name="Devices").click()
    article = page.get_by_role("article", name="Dinner?")
    expect(article).to_be_visible(timeout=15000)
    article.get_by_text("Expand").click()
    article.get_by_role("textbox", name="想说什么?").fill("seven o'clock")
    article.get_by_role("button", name="发送").click()
    expect(page.get_by_role("status", name="Responses on device 1")).to_contain_text("seven o'clock")


def test_copy_as_herald_send_runs_as_pasted_from_another_folder(page, tmp_path):
    page.goto(state["base"] + "/console/compose")
    page.get_by_label("Target", exact=True).select_option("device")
    page.get_by_label("Title", exact=True).fill("Pasted")
    page.get_by_role("button", name="Copy as herald send").click()
    copied = page.get_by_label("Copied text")
    expect(copied).to_have_value(re.compile("--ca-file '/"))
    text = copied.input_value()
    assert "--auth-key 'HERALDTEAM:HERALDUP01:/" in text, text
    assert not text.startswith("#"), "nothing left for the user to fill in: " + text
    # Pasted into a shell somewhere else: absolute paths, the CA, and the binary that runs herald up.
    result = subprocess.run(["bash", "-c", text], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 accepted" in result.stdout, result.stdout


def test_an_ended_session_says_why_and_keeps_the_draft_through_a_new_sign_in_link(page, herald):
    page.goto(state["base"] + "/console/compose")
    page.get_by_label("Title", exact=True).fill("Draft kept")
    page.get_by_label("Collapse ID", exact=True).fill("draft-1")
    page.context.clear_cookies()  # the session ends (as after 12 hours idle or a restart)
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page).to_have_url(re.compile(r"/console/login\?expired=1"))
    expect(page.get_by_role("alert")).to_contain_text("Your console session ended")
    binary = os.environ.get("HERALD_BIN", str(pathlib.Path(__file__).resolve().parents[2] / ".build" / "debug" / "herald"))
    made = subprocess.run(
        [binary, "console-link", "--provider", state["base"], "--provider-token-file",
         f"{herald['data']}/provider/admin-token"], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stdout + made.stderr
    link = re.search(r"(http://\S+/console/login\?code=\S+)", made.stdout).group(1)
    page.goto(link)
    expect(page).to_have_url(re.compile(r"/console/compose$"))
    expect(page.get_by_label("Title", exact=True)).to_have_value("Draft kept")
    expect(page.get_by_label("Collapse ID", exact=True)).to_have_value("draft-1")
    expect(page.get_by_text("what you were composing is back")).to_be_visible()
    page.get_by_label("Collapse ID", exact=True).fill("")


def test_the_commands_herald_up_prints_run_as_pasted_from_another_folder(herald, tmp_path):
    banner = herald["banner"]
    commands = []
    for heading in ["push to every device of the demo app through the provider:", "or straight to the local APNs:"]:
        block = banner.split(heading, 1)[1].lstrip("\n").split("\n\n", 1)[0]
        lines = [line for line in block.splitlines() if line.startswith("  ") and not line.startswith("  (")]
        commands.append("\n".join(lines))
    through_provider = subprocess.run(["bash", "-c", commands[0]], cwd=tmp_path, capture_output=True, text=True,
                                      timeout=60)
    assert through_provider.returncode == 0, through_provider.stderr
    assert json.loads(through_provider.stdout)["id"], through_provider.stdout
    direct = subprocess.run(["bash", "-c", commands[1]], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert direct.returncode == 0, direct.stdout + direct.stderr
    assert "1 accepted" in direct.stdout, direct.stdout


def test_history_and_the_delivery_log_show_the_answers(page):
    page.get_by_role("navigation").get_by_role("link", name="History").click()
    table = page.get_by_role("table")
    expect(table).to_contain_text("foregroundAction 1", timeout=15000)
    expect(page.get_by_role("row").filter(has_text="destructiveTextAction")).to_contain_text("1")
    shot(page, "history")
    # Why: the notification replied to, counted by verdict, and its devices listed with their sentence.
    page.get_by_role("row").filter(has_text="destructiveTextAction").get_by_role("button", name=re.compile("^Why")).click()
    breakdown = page.get_by_role("list", name="Devices by verdict")
    expect(breakdown).to_contain_text("replied: shown, and the person replied")
    breakdown.get_by_role("button", name=re.compile("^List 1 replied")).click()
    devices = page.get_by_role("list", name="Devices: replied")
    expect(devices).to_contain_text("shown, and the person replied \"seven o'clock\"")
    shot(page, "history-why")
    page.goto(state["base"] + "/console/delivery?apns-id=" + state["second"])
    verdict = page.get_by_role("region", name="Verdict")
    expect(verdict).to_contain_text("replied", timeout=15000)
    expect(verdict).to_contain_text("the person replied")
    timeline = page.get_by_role("list", name="Timeline")
    expect(timeline).to_contain_text("queued")
    expect(timeline).to_contain_text("answered 200")
    expect(timeline).to_contain_text("gateway")
    expect(timeline).to_contain_text("reply “seven o'clock”", timeout=15000)
    # Steps of the same millisecond never put an effect before its cause: queued, then the gateway's receipt, then
    # anything the device reported.
    steps = timeline.get_by_role("listitem").all_inner_texts()
    first = lambda text: next(index for index, step in enumerate(steps) if text in step)
    assert first("queued") < first("received") < first("device → provider"), steps
    # Each report to the provider comes after the device's own event, whatever the clocks said.
    for event in ["delivered", "displayed", "action"]:
        device = next(index for index, step in enumerate(steps) if "device 1" in step and event in step)
        report = next(index for index, step in enumerate(steps) if "device → provider" in step and event in step)
        assert device < report, (event, steps)
    shot(page, "delivery-log")
    page.get_by_label("apns-id", exact=True).fill("not-a-uuid")
    page.get_by_role("button", name="Look up").click()
    expect(page.get_by_role("alert")).to_contain_text("not a UUID")


def test_history_shows_a_notification_in_several_languages_counted_by_language(page, herald):
    admin = (pathlib.Path(herald["data"]) / "provider" / "admin-token").read_text().strip()
    app = json.load(urllib.request.urlopen(urllib.request.Request(
        state["base"] + "/v1/apps", headers={"Authorization": f"Bearer {admin}"})))[0]["id"]
    body = json.dumps({"target": {"all": True}, "content": {"title": "Hello", "body": "default",
                       "languages": {"zh-Hans": {"body": "你好"}, "fr": {"body": "Bonjour"}}}}).encode()
    request = urllib.request.Request(state["base"] + f"/v1/notifications?app={app}", data=body, method="POST",
                                     headers={"Authorization": f"Bearer {admin}", "Content-Type": "application/json"})
    created = json.load(urllib.request.urlopen(request))
    page.goto(state["base"] + "/console/history")
    choose = page.get_by_label("App", exact=True)
    choose.select_option(value=app)
    row = page.locator(f"tr[data-id='{created['id']}']")
    expect(row).to_contain_text(re.compile(r"Languages: fr \d+, zh-Hans \d+, default \d+"), timeout=15000)
    shot(page, "history-languages")


def test_compose_has_a_tab_per_language_each_linted_then_sent_and_counted_by_language(page):
    page.goto(state["base"] + "/console/compose")
    page.get_by_label("Target", exact=True).select_option("all")
    page.get_by_label("Title", exact=True).fill("Dinner")
    page.get_by_label("Body", exact=True).fill("It is ready")
    tag = page.get_by_label("Add a language", exact=False)
    tag.fill("not a tag!")
    page.get_by_role("button", name="Add language").click()
    expect(page.get_by_role("alert")).to_contain_text("is not a language tag")
    tag.fill("fr")
    page.get_by_role("button", name="Add language").click()
    expect(page.get_by_role("tab", name="fr")).to_have_attribute("aria-selected", "true")
    page.get_by_label("Title in fr", exact=True).fill("Dîner")
    page.get_by_label("Body in fr", exact=True).fill("x" * 5000)
    language_lint = page.get_by_role("status", name="Language lint")
    expect(language_lint).to_contain_text("PayloadTooLarge")
    expect(page.get_by_role("tab", name="fr ⚠")).to_be_visible()
    page.get_by_label("Body in fr", exact=True).fill("Il est prêt")
    expect(language_lint).to_contain_text("No problems")
    tag.fill("zh_Hans")
    page.get_by_role("button", name="Add language").click()
    page.get_by_label("Body in zh-Hans", exact=True).fill("晚饭好了")
    expect(page.get_by_role("tab", name="zh-Hans")).to_have_attribute("aria-selected", "true")
    shot(page, "compose-languages")
    page.get_by_role("button", name="Send", exact=True).click()
    sent = page.get_by_role("status").filter(has_text="Sent: notification")
    expect(sent).to_be_visible()
    notification = sent.inner_text().split("notification ")[1].split(" ")[0]
    page.goto(state["base"] + "/console/history")
    row = page.locator(f"tr[data-id='{notification}']")
    expect(row).to_contain_text(re.compile(r"Languages: fr \d+, zh-Hans \d+, default \d+"), timeout=15000)


def test_history_and_metrics_read_without_javascript(browser, context, page):
    """The server renders History's first page (the apps, the latest notifications with their counts) and Metrics'
    last hour."""
    no_script = browser.new_context(viewport={"width": 1280, "height": 800}, java_script_enabled=False)
    no_script.add_cookies(context.cookies())
    try:
        plain = no_script.new_page()
        plain.goto(state["base"] + "/console/history")
        expect(plain.get_by_label("App")).to_contain_text("(")
        table = plain.get_by_role("table")
        expect(table).to_contain_text("foregroundAction 1")
        expect(plain.get_by_role("row").filter(has_text="destructiveTextAction")).to_contain_text("done")
        expect(plain.get_by_role("status")).to_contain_text("Counts as the page loaded")
        shot(plain, "history-without-javascript")
        plain.goto(state["base"] + "/console/metrics")
        expect(plain.get_by_role("img")).to_have_count(5)
        expect(plain.get_by_role("img", name=re.compile("^Sends accepted by APNs per second: latest"))).to_be_visible()
        shot(plain, "metrics-without-javascript")
    finally:
        no_script.close()


def test_text_from_a_payload_is_shown_as_text_never_run(page):
    apns_id = compose_and_send(page, "<img src=x onerror=alert(1)>", "<b>bold?</b>")
    page.get_by_role("navigation").get_by_role("link", name="Devices").click()
    article = page.get_by_role("article", name="<img src=x onerror=alert(1)>")
    expect(article).to_be_visible(timeout=15000)
    expect(article).to_contain_text("<b>bold?</b>")
    assert page.locator("img[src='x']").count() == 0
    page.goto(state["base"] + "/console/delivery?apns-id=" + apns_id)
    expect(page.get_by_role("list", name="Timeline")).to_contain_text("queued")
    assert page.dialogs == []


def test_a_reply_being_typed_survives_a_new_notification(page):
    compose_and_send(page, "Tea?", "Reply with a time")
    page.get_by_role("navigation").get_by_role("link", name="Devices").click()
    article = page.get_by_role("article", name="Tea?")
    expect(article).to_be_visible(timeout=15000)
    article.get_by_text("Expand").click()
    reply = article.get_by_role("textbox", name="想说什么?")
    reply.fill("half past")
    device_api = page.evaluate("async () => (await (await fetch('/console/api/simulators')).json())[0]")
    bundle = device_api["apps"][0]["bundleID"]
    request = urllib.request.Request(
        device_api["url"].rstrip("/") + f"/apps/{bundle}/notifications", method="POST",
        headers={"Content-Type": "application/json"}, data=json.dumps({"title": "Meanwhile"}).encode())
    assert urllib.request.urlopen(request).status == 201
    expect(page.get_by_role("article", name="Meanwhile")).to_be_visible(timeout=15000)
    expect(page.get_by_role("article", name="Tea?").get_by_role("textbox", name="想说什么?")).to_have_value("half past")


def test_pending_local_notifications_and_the_state_filter_on_devices(page):
    page.goto(state["base"] + "/console/devices")
    device_api = page.evaluate("async () => (await (await fetch('/console/api/simulators')).json())[0]")
    bundle = device_api["apps"][0]["bundleID"]
    request = urllib.request.Request(
        device_api["url"].rstrip("/") + f"/apps/{bundle}/notifications", method="POST",
        headers={"Content-Type": "application/json"},
        data=json.dumps({"title": "Stand up", "trigger": {"timeInterval": 3600}}).encode())
    assert urllib.request.urlopen(request).status == 201
    pending = page.get_by_role("list", name="Pending local notifications on device 1")
    expect(pending).to_contain_text("Stand up")
    expect(pending).to_contain_text("after 3600 s")
    shot(page, "devices-pending")
    table = page.get_by_role("table")
    page.get_by_label("State", exact=True).select_option("inactive")
    page.get_by_role("button", name="Filter").click()
    expect(table.locator("tbody tr")).to_have_count(0)
    page.get_by_label("State", exact=True).select_option("active")
    page.get_by_role("button", name="Filter").click()
    expect(table.locator("tbody tr")).to_have_count(1)


def test_a_session_may_hold_only_so_many_live_views(page, herald):
    cookie = next(c for c in page.context.cookies() if c["name"] == "herald_console")
    host, port = herald["base"].split("//")[1].split(":")
    app = page.evaluate("async () => (await (await fetch('/v1/apps')).json())[0].id")
    streams, refused = [], None
    for _ in range(20):
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request("GET", f"/console/api/history/stream?app={app}",
                           headers={"Cookie": f"herald_console={cookie['value']}"})
        response = connection.getresponse()
        if response.status == 429:
            refused = response.read().decode()
            break
        assert response.status == 200
        streams.append(connection)
    for connection in streams:
        connection.close()
    assert refused and "live views open already" in refused
    assert len(streams) <= 16


def test_other_pages_render(page):
    for name, shotname in [("Apps", "apps"), ("Tools", "tools"), ("Metrics", "metrics")]:
        page.get_by_role("navigation").get_by_role("link", name=name).click()
        expect(page.get_by_role("heading", level=1)).to_have_text(name)
        shot(page, shotname)
    page.goto(state["base"] + "/console/tools")
    page.get_by_label("Device token", exact=True).fill("abc")
    page.get_by_role("button", name="Check token").click()
    expect(page.get_by_role("status").filter(has_text="valid")).to_contain_text("BadDeviceToken")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(state["base"] + "/console/devices")
    expect(page.get_by_role("article").first).to_be_visible(timeout=15000)
    shot(page, "devices-phone")
    page.set_viewport_size({"width": 1280, "height": 800})


def test_channels_made_listed_and_broadcast_to_with_the_activity_tokens(page, herald):
    page.get_by_role("navigation").get_by_role("link", name="Channels").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Channels")
    # herald up's device registered a push-to-start token for the demo app's live score.
    tokens = page.get_by_role("table", name=re.compile("Push-to-start and update tokens"))
    expect(tokens).to_contain_text("pushToStart")
    expect(tokens).to_contain_text("ScoreAttributes")
    # Just reported with the device's current token: not stale.
    expect(tokens.get_by_role("row").filter(has_text="pushToStart")).not_to_contain_text("stale")
    expect(tokens.get_by_role("row").filter(has_text="pushToStart").get_by_role("cell").nth(3)).to_have_text("demo")
    page.get_by_label("Name", exact=True).fill("final score")
    page.get_by_label("Storage policy", exact=True).select_option("1")
    page.get_by_role("button", name="Create channel").click()
    expect(page.get_by_role("status").filter(has_text="Created channel")).to_be_visible()
    channels = page.get_by_role("table", name=re.compile("channels, oldest first"))
    expect(channels).to_contain_text("final score")
    expect(channels).to_contain_text("Most Recent Message Stored")
    # The demo app on herald up's device starts a live score subscribed to the new channel.
    channel = page.get_by_role("status").filter(has_text="Created channel").inner_text().split()[-1].rstrip(".")
    device = json.loads((pathlib.Path(herald["data"]) / "running.json").read_text())["deviceAPI"]
    request = urllib.request.Request(f"{device}/apps/com.yue.originPush/activities", method="POST",
                                     data=json.dumps({"type": "ScoreAttributes", "channel": channel}).encode(),
                                     headers={"Content-Type": "application/json"})
    assert urllib.request.urlopen(request, timeout=10).status == 201
    page.get_by_label("Content state (JSON)", exact=True).fill('{"score": "2-2"')
    page.get_by_role("button", name="Send broadcast").click()
    expect(page.get_by_role("alert")).to_contain_text("not JSON")
    page.get_by_label("Content state (JSON)", exact=True).fill('{"score": "2-2"}')
    page.get_by_label("Keep for (seconds, 0 = one attempt; a No Message Stored channel takes only 0)",
                      exact=True).fill("600")
    page.get_by_role("button", name="Send broadcast").click()
    expect(page.get_by_role("status").filter(has_text="Queued as")).to_be_visible()
    shot(page, "channels")
    page.get_by_role("navigation").get_by_role("link", name="Devices").click()
    activities = page.get_by_role("list", name="Live Activities on device 1")
    expect(activities).to_contain_text('ScoreAttributes active {"score":"2-2"}', timeout=15000)
    expect(activities).to_contain_text(f"channel {channel}")
    shot(page, "devices-activities")


def test_an_activitys_alert_and_the_widgets_reloads_show_on_the_phone(page, herald):
    device = json.loads((pathlib.Path(herald["data"]) / "running.json").read_text())["deviceAPI"]

    def post(path, body):
        request = urllib.request.Request(f"{device}{path}", method="POST", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())
    started = post("/apps/com.yue.originPush/activities", {"type": "ScoreAttributes", "pushToken": True})
    post(f"/activities/{started['id']}/update", {"contentState": {"score": "3-2"},
                                                  "alert": {"title": "Goal!", "body": "Lions 3-2"}})
    page.get_by_role("navigation").get_by_role("link", name="Devices").click()
    alert = page.get_by_role("alert", name="Alert of ScoreAttributes").filter(has_text="Goal!")
    expect(alert).to_contain_text("Lions 3-2", timeout=15000)
    widgets = page.get_by_role("list", name="Widgets and controls on device 1")
    expect(widgets).to_contain_text("ScoreWidget (widget)")
    expect(widgets).to_contain_text("MuteControl (control)")
    expect(widgets).to_contain_text("of 70 reloads in 24 h")
    shot(page, "devices-widgets")


def test_an_apps_environment_and_key_change_in_the_console_and_the_key_shows_only_its_fingerprint(page, tmp_path):
    binary = os.environ.get("HERALD_BIN", str(pathlib.Path(__file__).resolve().parents[2] / ".build" / "debug" / "herald"))
    for key_id in ["AAAAAAAAA1", "BBBBBBBBB2"]:
        made = subprocess.run([binary, "keys", "generate", "--team-id", "DEF123GHIJ", "--key-id", key_id, "--out",
                               str(tmp_path)], capture_output=True, text=True, timeout=60)
        assert made.returncode == 0, made.stderr
    page.goto(state["base"] + "/console/apps")
    page.get_by_label("Name", exact=True).fill("Moving app")
    page.get_by_label("Bundle ID", exact=True).fill("com.example.moving")
    page.get_by_label("Team ID", exact=True).fill("DEF123GHIJ")
    page.get_by_label("Key ID", exact=True).fill("AAAAAAAAA1")
    page.get_by_label("Signing key (.p8) or certificate (.p12)", exact=True).set_input_files(str(tmp_path / "AuthKey_AAAAAAAAA1.p8"))
    page.get_by_role("button", name="Create app").click()
    expect(page.get_by_role("status").filter(has_text="Created Moving app")).to_be_visible()
    page.reload()
    page.get_by_label("App", exact=True).select_option(label="Moving app (com.example.moving)")
    page.get_by_label(re.compile("^Environment \\(an app on Apple's host")).select_option("production")
    page.get_by_label("New key ID", exact=True).fill("BBBBBBBBB2")
    page.get_by_label("New signing key (.p8) or certificate (.p12)").set_input_files(str(tmp_path / "AuthKey_BBBBBBBBB2.p8"))
    page.get_by_role("button", name="Save", exact=True).click()
    saved = page.get_by_role("status").filter(has_text="The new key is SHA256:")
    expect(saved).to_be_visible()
    card = page.get_by_role("listitem").filter(has_text="Moving app")
    expect(card).to_contain_text("production · https://api.push.apple.com")
    expect(card).to_contain_text("key BBBBBBBBB2 (SHA256:")
    assert "PRIVATE KEY" not in page.content()
    shot(page, "apps")


def choose_demo_app(page):
    select = page.get_by_label("App", exact=True)
    expect(select.locator("option").nth(1)).to_be_attached()
    label = next(text for text in select.locator("option").all_text_contents() if "Moving" not in text)
    select.select_option(label=label)


def test_webhook_events_not_delivered_are_listed_with_their_error(page):
    page.goto(state["base"] + "/console/apps")
    choose_demo_app(page)
    page.get_by_label("Webhook URL", exact=True).fill("https://hooks.invalid/herald")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Saved")).to_be_visible()
    compose_and_send(page, "Webhook?", "Answer me")
    page.get_by_role("navigation").get_by_role("link", name="Devices").click()
    article = page.get_by_role("article", name="Webhook?")
    expect(article).to_be_visible(timeout=15000)
    article.get_by_text("Expand").click()
    article.get_by_role("button", name="收到了").click()
    page.goto(state["base"] + "/console/apps")
    choose_demo_app(page)
    events = page.get_by_role("list", name="Webhook events not delivered")
    # The sender tries at once and fails (the name does not resolve): the event waits, with the error, for its next try.
    for _ in range(30):
        if "hooks.invalid" in events.inner_text():
            break
        page.get_by_role("button", name="Refresh").click()
        page.wait_for_timeout(500)
    expect(events).to_contain_text("https://hooks.invalid/herald")
    expect(events).to_contain_text("1 attempt; last error:")
    expect(page.locator("#webhooks-summary")).to_contain_text("waiting for their next attempt")
    expect(page.get_by_role("button", name="Retry the dead events")).to_be_disabled()
    shot(page, "apps-webhooks")
    page.get_by_label("Webhook URL", exact=True).fill("")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Saved")).to_be_visible()


def test_a_key_restricted_to_sending_is_listed_with_its_scope_and_the_audit_log_shows_who_made_it(page):
    page.goto(state["base"] + "/console/apps")
    choose_demo_app(page)
    keys = page.get_by_role("list", name="API keys")
    expect(keys).to_contain_text("every scope")
    page.get_by_label("send", exact=True).check()
    page.get_by_role("button", name="Create API key").click()
    made = page.get_by_role("status").filter(has_text="only send")
    expect(made).to_contain_text("sk_")
    expect(keys).to_contain_text("only: send")
    audit = page.get_by_role("list", name="Audit log")
    expect(audit).to_contain_text("POST /v1/apps/{appID}/keys → 201")
    expect(audit).to_contain_text("(console)")
    shot(page, "apps-keys-audit")
    key_id = made.locator("p").first.inner_text().split()[3]
    page.get_by_label("Key ID to revoke").fill(key_id)
    page.get_by_role("button", name="Revoke").click()
    expect(keys).not_to_contain_text("only: send")
    expect(audit).to_contain_text("DELETE /v1/apps/{appID}/keys/{keyID} → 204")


def test_quiet_hours_and_frequency_caps_are_set_shown_and_refused_with_the_field_on_the_apps_page(page):
    page.goto(state["base"] + "/console/apps")
    choose_demo_app(page)
    quiet = page.get_by_label("Quiet hours in each device's time zone", exact=False)
    caps = page.get_by_label("Frequency caps", exact=False)
    quiet.fill("22:00-08:00")
    page.get_by_label("In quiet hours, alerts").select_option("drop")
    caps.fill('[{"category": "marketing", "limit": 3, "window": "1d"}]')
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Saved")).to_be_visible()
    cards = page.locator("#apps")
    expect(cards).to_contain_text("Quiet hours: 22:00–08:00 (drop) · frequency caps: marketing 3 per 86400 s per user")
    shot(page, "apps-quiet-hours-caps")
    caps.fill('[{"category": "marketing", "limit": 0, "window": "1d"}]')
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("frequencyCaps[0].limit")
    quiet.fill("")
    caps.fill("")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(cards).to_contain_text("Quiet hours: none · frequency caps: none")


def test_changes_without_the_csrf_token_are_refused_and_sign_out_ends_the_session(page):
    page.goto(state["base"] + "/console/compose")
    status = page.evaluate("""async () => (await fetch('/v1/notifications?app=x', {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body: '{}'})).status""")
    assert status == 403
    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"/console/login$"))
    page.goto(state["base"] + "/console/compose")
    expect(page).to_have_url(re.compile(r"/console/login$"))
    status = page.evaluate("async () => (await fetch('/v1/apps')).status")
    assert status == 401
    page.get_by_label("Admin token or API key", exact=True).fill("sk_wrong")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("neither the admin token nor an API key")


def test_sign_in_is_refused_for_a_minute_after_many_failures(page, herald):
    page.goto(state["base"] + "/console/login")
    statuses = page.evaluate("""async () => {
        const statuses = [];
        for (let i = 0; i < 21; i++) {
            const answer = await fetch('/console/login', {method: 'POST',
                headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'key=sk_wrong' + i});
            statuses.push(answer.status);
        }
        return statuses;
    }""")
    assert statuses[-1] == 429 and 401 in statuses
    page.get_by_label("Admin token or API key", exact=True).fill("sk_wrong")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("sign-ins from your address failed in the last minute")
    # Others' failures never lock the admin out: the admin token still signs in from the same address.
    admin_token = (pathlib.Path(herald["data"]) / "provider" / "admin-token").read_text().strip()
    page.get_by_label("Admin token or API key", exact=True).fill(admin_token)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/console/compose$"))
