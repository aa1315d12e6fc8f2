"""A notification's and an app's lifecycle in the console (issue 47): History cancels a scheduled notification and
draws each notification's funnel; Apps pauses and resumes an app; Metrics' charts have a time axis and units. Its own
`herald up`, so pausing the app does not hold up the shared one's tests."""
import re

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


def test_cancel_pause_resume_and_the_funnel(browser, herald):
    admin = admin_token(herald)
    status, apps = call("GET", herald["base"] + "/v1/apps", admin)
    assert status == 200, apps
    app = apps[0]
    status, sent = call("POST", f"{herald['base']}/v1/notifications?app={app['id']}", admin,
                        {"target": {"all": True}, "content": {"title": "Now", "body": "sent"}})
    assert status == 202, sent
    status, later = call("POST", f"{herald['base']}/v1/notifications?app={app['id']}", admin,
                         {"target": {"all": True}, "content": {"title": "Later", "body": "wrong"},
                          "sendAt": "2999-01-01T00:00:00Z"})
    assert status == 202, later
    context, page = signed_in_with(browser, herald, admin)
    page.get_by_role("navigation").get_by_role("link", name="History").click()

    # The funnel of the sent one: as many accepted as targeted.
    sent_row = page.get_by_role("row").filter(has=page.get_by_role("button", name=f"Why: {sent['id']}"))
    targeted = sent["stats"]["targeted"]
    expect(sent_row.get_by_role("img")).to_have_attribute(
        "aria-label", re.compile(rf"^targeted {targeted}, accepted {targeted}, delivered \d+, displayed \d+, opened \d+$"),
        timeout=15000)
    expect(sent_row.get_by_role("button", name=f"Cancel: {sent['id']}")).to_have_count(0)

    # The scheduled one is cancelled from its row, after a confirmation.
    later_row = page.get_by_role("row").filter(has=page.get_by_role("button", name=f"Why: {later['id']}"))
    expect(later_row).to_contain_text("scheduled")
    page.once("dialog", lambda dialog: dialog.accept())
    later_row.get_by_role("button", name=f"Cancel: {later['id']}").click()
    expect(page.get_by_role("status")).to_contain_text(f"Cancelled {later['id']}")
    expect(later_row).to_contain_text("cancelled", timeout=15000)
    expect(later_row.get_by_role("button", name=f"Cancel: {later['id']}")).to_have_count(0)
    shot(page, "history-lifecycle")
    status, report = call("GET", f"{herald['base']}/v1/notifications/{later['id']}?app={app['id']}", admin)
    assert report["state"] == "cancelled" and report["stats"]["cancelled"] == later["stats"]["targeted"], report

    # Apps: pause, then resume.
    page.get_by_role("navigation").get_by_role("link", name="Apps").click()
    page.get_by_role("button", name=f"Pause {app['name']}").click()
    expect(page.get_by_role("status")).to_contain_text(f"Paused {app['name']}")
    expect(page.get_by_text(re.compile("^Paused since"))).to_be_visible()
    shot(page, "apps-paused")
    status, paused = call("GET", f"{herald['base']}/v1/apps/{app['id']}", admin)
    assert paused.get("pausedAt"), paused
    page.get_by_role("button", name=f"Resume {app['name']}").click()
    expect(page.get_by_role("status")).to_contain_text(f"Resumed {app['name']}")
    expect(page.get_by_role("button", name=f"Pause {app['name']}")).to_be_visible()

    # Metrics: once two samples exist, every chart has a time axis and its unit on the value axis.
    page.get_by_role("navigation").get_by_role("link", name="Metrics").click()
    # (Until then each chart says there is no data yet; the page swaps the charts in every 10 seconds.)
    expect(page.locator("#charts polyline")).to_have_count(5, timeout=45000)
    accepted = page.get_by_role("img", name=re.compile("^Sends accepted by APNs per second: latest"))
    expect(accepted.locator("text.time")).to_have_count(4)
    expect(accepted.locator("text.time").first).to_have_text(re.compile(r"^\d\d:\d\d:\d\d$"))
    expect(accepted.locator("text.unit")).to_have_text("per second")
    expect(page.get_by_role("img", name=re.compile("^Queue depth")).locator("text.unit")).to_have_text("deliveries")
    shot(page, "metrics")

    # Apps: deleting the app asks first, then removes it with its history.
    page.get_by_role("navigation").get_by_role("link", name="Apps").click()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name=f"Delete {app['name']}").click()
    expect(page.get_by_role("status")).to_contain_text(f"Deleted {app['name']}")
    status, gone = call("GET", f"{herald['base']}/v1/apps/{app['id']}", admin)
    assert status == 404, gone
    context.close()
