"""Doors another site or another app could open, tried in a real browser against `herald up`: a sign-in link or form
from another site's page must not sign the browser in (login CSRF), and an app that shares a bundle ID with the demo
app must not see the demo device's notifications in its console session."""
import os
import pathlib
import re
import subprocess

import pytest
from playwright.sync_api import expect

from conftest import running_herald
from test_live_activity import call

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.environ.get("HERALD_BIN", str(ROOT / ".build" / "debug" / "herald"))
EVIL = "http://attacker.test"


@pytest.fixture(scope="module")
def herald(media):
    """A `herald up` of these tests' own: the shared one has an extra app and a spent sign-in limit by now."""
    with running_herald(media) as running:
        yield running


def admin_token(herald):
    return (pathlib.Path(herald["data"]) / "provider" / "admin-token").read_text().strip()


def new_link(herald):
    made = subprocess.run(
        [BINARY, "console-link", "--provider", herald["base"], "--provider-token-file",
         f"{herald['data']}/provider/admin-token"], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stdout + made.stderr
    return re.search(r"(http://\S+/console/login\?code=\S+)", made.stdout).group(1)


def attacker_page(browser, html):
    """A page of another origin (Playwright answers for it; nothing leaves the machine) in a browser of its own."""
    context = browser.new_context()
    page = context.new_page()
    page.route(f"{EVIL}/**", lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(f"{EVIL}/")
    return context, page


def signed_in_with(browser, herald, key):
    """A browser of its own signed in to the console with `key`."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(herald["base"] + "/console/login")
    page.get_by_label("Admin token or API key", exact=True).fill(key)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/console/compose$"))
    return context, page


def signed_in(context):
    return any(cookie["name"] == "herald_console" and cookie["value"] for cookie in context.cookies())


def test_a_sign_in_link_from_another_site_only_shows_a_button(browser, herald):
    link = new_link(herald)
    context, page = attacker_page(browser, f'<a id="go" href="{link}">a prize</a>')
    page.click("#go")
    expect(page.get_by_role("alert")).to_contain_text("opened from another page")
    if os.environ.get("HERALD_SCREENSHOTS"):
        page.screenshot(path=f"{os.environ['HERALD_SCREENSHOTS']}/login-confirm.png")
    assert "/console/login?code=" in page.url
    assert not signed_in(context)
    # The person who ran `herald console-link` can still use it: the button is a form of Herald's own page.
    page.get_by_role("button", name="Sign in with this link").click()
    expect(page).to_have_url(re.compile(r"/console/compose$"))
    assert signed_in(context)
    context.close()


def test_a_sign_in_form_posted_from_another_site_is_refused(browser, herald):
    admin = admin_token(herald)
    app = call("GET", f"{herald['base']}/v1/apps", admin)[1][0]["id"]
    status, made = call("POST", f"{herald['base']}/v1/apps/{app}/keys", admin)
    assert status == 201, made
    form = (f'<form id="f" method="post" action="{herald["base"]}/console/login">'
            f'<input name="key" value="{made["apiKey"]}"></form>')
    context, page = attacker_page(browser, form)
    with page.expect_navigation():
        page.evaluate("document.getElementById('f').submit()")
    expect(page.get_by_role("alert")).to_contain_text("from another site")
    assert not signed_in(context)
    context.close()


def test_an_app_sharing_the_bundle_id_sees_none_of_the_demo_devices_notifications(browser, herald, tmp_path):
    admin = admin_token(herald)
    keys = subprocess.run([BINARY, "keys", "generate", "--out", str(tmp_path), "--key-id", "TWIN000001"],
                          capture_output=True, text=True, timeout=60)
    assert keys.returncode == 0, keys.stdout + keys.stderr
    pem = next(tmp_path.glob("*.p8")).read_text()
    demo = call("GET", f"{herald['base']}/v1/apps", admin)[1][0]
    status, twin = call("POST", f"{herald['base']}/v1/apps", admin, {
        "name": "Twin", "bundleID": demo["bundleID"], "environment": "production",
        "authentication": {"kind": "token", "teamID": "HERALDTEAM", "keyID": "TWIN000001", "privateKey": pem}})
    assert status == 201, twin
    # The twin registers the demo device's (development) token with its own publishable key, as anyone who read the
    # token somewhere could: that proves nothing, and the twin still sees nothing of the demo device.
    context, page = signed_in_with(browser, herald, admin)
    demo_token = page.evaluate("async () => (await fetch('/console/api/simulators')).json()")[0]["apps"][0]["token"]
    context.close()
    status, _ = call("POST", f"{herald['base']}/v1/devices", twin["app"]["publishableKey"], {"token": demo_token})
    assert status in (200, 201)
    context, page = signed_in_with(browser, herald, twin["apiKey"])
    devices = page.evaluate("async () => (await fetch('/console/api/simulators')).json()")
    assert devices and all(device.get("apps") == [] for device in devices), devices
    notifications = page.evaluate("async () => (await fetch('/console/api/simulators/0/notifications')).json()")
    assert notifications == [], notifications
    context.close()
    # The demo app's own key still sees its device.
    status, own = call("POST", f"{herald['base']}/v1/apps/{demo['id']}/keys", admin)
    context, page = signed_in_with(browser, herald, own["apiKey"])
    devices = page.evaluate("async () => (await fetch('/console/api/simulators')).json()")
    assert [app["bundleID"] for app in devices[0]["apps"]] == [demo["bundleID"]], devices
    context.close()


OPEN_STREAM = """async (app) => {
  // A live view, read as the page reads it; window.streamEnded turns true when the server ends it.
  window.streamEnded = false;
  const answer = await fetch('/console/api/history/stream?app=' + app);
  const reader = answer.body.getReader();
  (async () => { try { while (!(await reader.read()).done) {} } catch (e) {} window.streamEnded = true; })();
  return answer.status;
}"""


def quiet_page(context, herald):
    """A page of the console's origin that runs no script of its own (a stylesheet), so nothing on it navigates away
    when the session ends while a test watches a stream from it."""
    page = context.new_page()
    page.goto(herald["base"] + "/console/assets/console.css")
    return page


def new_app(herald, admin, tmp_path, name, key_id):
    keys = subprocess.run([BINARY, "keys", "generate", "--out", str(tmp_path / key_id), "--key-id", key_id],
                          capture_output=True, text=True, timeout=60)
    assert keys.returncode == 0, keys.stdout + keys.stderr
    pem = next((tmp_path / key_id).glob("*.p8")).read_text()
    status, app = call("POST", f"{herald['base']}/v1/apps", admin, {
        "name": name, "bundleID": f"com.example.{key_id.lower()}", "environment": "development",
        "authentication": {"kind": "token", "teamID": "HERALDTEAM", "keyID": key_id, "privateKey": pem}})
    assert status == 201, app
    return app["app"]["id"], app["apiKey"]


def test_a_revoked_key_ends_its_console_session_and_its_live_views_at_once(browser, herald):
    admin = admin_token(herald)
    app = call("GET", f"{herald['base']}/v1/apps", admin)[1][0]["id"]
    status, made = call("POST", f"{herald['base']}/v1/apps/{app}/keys", admin)
    assert status == 201, made
    context, _ = signed_in_with(browser, herald, made["apiKey"])
    page = quiet_page(context, herald)
    assert page.evaluate(OPEN_STREAM, app) == 200
    assert page.evaluate("async () => (await fetch('/console/api/simulators')).status") == 200
    status, _ = call("DELETE", f"{herald['base']}/v1/apps/{app}/keys/{made['id']}", admin)
    assert status == 204
    page.wait_for_function("() => window.streamEnded === true", timeout=15000)
    answer = page.evaluate("async () => { const r = await fetch('/console/api/simulators'); "
                           "return [r.status, await r.text()]; }")
    assert answer[0] == 401 and "revoked" in answer[1], answer
    page.goto(herald["base"] + "/console/history")
    expect(page).to_have_url(re.compile(r"/console/login"))
    context.close()


def test_a_deleted_apps_session_ends(browser, herald, tmp_path):
    admin = admin_token(herald)
    app, key = new_app(herald, admin, tmp_path, "Doomed", "DOOMED0001")
    context, page = signed_in_with(browser, herald, key)
    page.goto(herald["base"] + "/console/history")
    expect(page).to_have_url(re.compile(r"/console/history$"))
    page = quiet_page(context, herald)
    assert page.evaluate(OPEN_STREAM, app) == 200
    status, _ = call("DELETE", f"{herald['base']}/v1/apps/{app}", admin)
    assert status == 200
    page.wait_for_function("() => window.streamEnded === true", timeout=15000)
    page.goto(herald["base"] + "/console/history")
    expect(page).to_have_url(re.compile(r"/console/login"))
    context.close()


def test_signing_out_closes_the_sessions_live_views(browser, herald):
    context, other = signed_in_with(browser, herald, admin_token(herald))
    app = call("GET", f"{herald['base']}/v1/apps", admin_token(herald))[1][0]["id"]
    page = quiet_page(context, herald)
    assert page.evaluate(OPEN_STREAM, app) == 200
    other.get_by_role("button", name="Sign out").click()
    expect(other).to_have_url(re.compile(r"/console/login"))
    page.wait_for_function("() => window.streamEnded === true", timeout=15000)
    context.close()


def test_an_apps_session_sees_neither_the_servers_files_nor_the_providers_metrics(browser, herald):
    admin = admin_token(herald)
    app = call("GET", f"{herald['base']}/v1/apps", admin)[1][0]["id"]
    status, made = call("POST", f"{herald['base']}/v1/apps/{app}/keys", admin)
    assert status == 201, made
    context, page = signed_in_with(browser, herald, made["apiKey"])
    files = page.evaluate("async () => (await fetch('/console/api/send-files')).json()")
    assert files["keyFiles"] == {} and files["caFiles"] == {}, files
    assert page.evaluate("async () => (await fetch('/console/api/metrics')).status") == 403
    page.goto(herald["base"] + "/console/metrics")
    expect(page.locator("#metrics-admin-only")).to_contain_text("admin only")
    assert page.locator("#charts").count() == 0
    context.close()
    # The admin still sees both.
    context, page = signed_in_with(browser, herald, admin)
    files = page.evaluate("async () => (await fetch('/console/api/send-files')).json()")
    assert files["keyFiles"], files
    page.goto(herald["base"] + "/console/metrics")
    expect(page.locator("#charts")).to_be_visible()
    context.close()
