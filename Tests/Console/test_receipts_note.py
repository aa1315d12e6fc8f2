"""An app whose devices never report: History's "Why" says once, for the whole notification, that receipts need
HeraldKit in the app, instead of leaving every device at "awaiting device". Its own `herald up`: in the shared one the
demo device has reported by now."""
import json
import pathlib
import re
import ssl
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import running_herald
from test_console import shot
from test_doors import admin_token, signed_in_with
from test_live_activity import call


@pytest.fixture(scope="module")
def herald(media):
    with running_herald(media) as running:
        yield running


def offline_token(herald, bundle_id):
    """A token the local APNs issued for the demo app to a phone that never connects."""
    running = json.loads((pathlib.Path(herald["data"]) / "running.json").read_text())
    gateway = running["gateway"]
    request = urllib.request.Request(
        gateway["url"] + "/admin/devices", method="POST",
        data=json.dumps({"topic": bundle_id, "environment": "development", "count": 1}).encode())
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", "Bearer " + pathlib.Path(gateway["adminTokenFile"]).read_text().strip())
    context = ssl.create_default_context(cafile=gateway["caFile"])
    with urllib.request.urlopen(request, context=context, timeout=30) as response:
        return json.loads(response.read())["tokens"][0]


def test_an_app_whose_devices_never_report_gets_one_note(browser, herald):
    admin = admin_token(herald)
    status, apps = call("GET", herald["base"] + "/v1/apps", admin)
    assert status == 200, apps
    app = apps[0]
    token = offline_token(herald, app["bundleID"])
    status, answer = call("POST", f"{herald['base']}/v1/devices?app={app['id']}", admin,
                          {"token": token, "bundleID": app["bundleID"]})
    assert status in (200, 201), answer
    status, created = call("POST", f"{herald['base']}/v1/notifications?app={app['id']}", admin,
                           {"target": {"token": token}, "content": {"title": "Silent app", "body": "no receipts"}})
    assert status == 202, created
    context, page = signed_in_with(browser, herald, admin)
    page.get_by_role("navigation").get_by_role("link", name="History").click()
    row = page.get_by_role("row").filter(has_text=token)
    expect(row).to_be_visible(timeout=15000)
    row.get_by_role("button", name=re.compile("^Why")).click()
    breakdown = page.get_by_role("list", name="Devices by verdict")
    expect(breakdown).to_contain_text("awaitingDevice", timeout=15000)
    expect(breakdown.get_by_role("note")).to_have_count(1)
    expect(breakdown.get_by_role("note")).to_contain_text("no device of this app has ever reported a receipt")
    expect(breakdown.get_by_role("note")).to_contain_text("HeraldKit")
    shot(page, "history-receipts-note")
    context.close()
