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
