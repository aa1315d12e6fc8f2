"""Runs every example README's commands exactly as printed, in one shell after the set-up in examples/README.md, on
a fresh working folder (no key, no gateway data, no device), and checks what the README says you see.

`swift run herald` is answered by the built binary (HERALD_BIN, default .build/debug/herald) through a `swift` shim
on PATH, so the test does not wait on SwiftPM; every other word of the commands is the README's.
"""
import json
import os
import pathlib
import re
import signal
import subprocess
import threading
import time
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DEVICE = "http://127.0.0.1:2198"


def commands(readme):
    """The README's shell blocks, in order."""
    return re.findall(r"```sh\n(.*?)```", readme.read_text(), re.S)


def device(path):
    with urllib.request.urlopen(DEVICE + path, timeout=10) as answer:
        return json.loads(answer.read())


@pytest.fixture
def shell(tmp_path):
    """Runs a script the way a user pasting into one shell would, from a fresh folder that sees examples/."""
    (tmp_path / "examples").symlink_to(EXAMPLES)
    shim = tmp_path / "bin"
    shim.mkdir()
    # Absolute: the commands run from another folder.
    binary = os.path.abspath(os.environ.get("HERALD_BIN", str(ROOT / ".build" / "debug" / "herald")))
    (shim / "swift").write_text(
        '#!/bin/sh\nif [ "$1" = run ] && [ "$2" = herald ]; then shift 2; exec "%s" "$@"; fi\nexec swift "$@"\n'
        % binary)
    (shim / "swift").chmod(0o755)
    started = []

    def run(script):
        process = subprocess.Popen(
            ["bash", "-c", "set -euo pipefail\n" + script], cwd=tmp_path, start_new_session=True,
            env={**os.environ, "PATH": f"{shim}:{os.environ['PATH']}"},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        started.append(process)
        # The script's own commands end; the jobs it started (gateway, device, servers) keep the pipe open, so the
        # lines are read on a thread and the script's own end is watched too: a command that fails under `set -e`
        # ends bash without the marker, and the test must fail then, not wait for a pipe that never closes.
        lines = []
        done = threading.Event()

        def read():
            for line in process.stdout:
                lines.append(line)
                if line.startswith("__DONE__"):
                    break
            done.set()
        threading.Thread(target=read, daemon=True).start()
        while not done.wait(0.2):
            if process.poll() is not None and not done.wait(2):
                break
        output = "".join(lines)
        status = int(output.rsplit("__DONE__", 1)[1]) if "__DONE__" in output else None
        assert status == 0, f"the README's commands failed ({status}):\n{output}"
        return output

    # A command's answer may end without a newline (curl): the marker starts a line of its own.
    yield lambda script: run(commands(EXAMPLES / "README.md")[0] + script + "\nprintf '\\n__DONE__%s\\n' $?\n")
    for process in started:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        process.wait(timeout=30)
        # The jobs outlive bash: the next example needs their ports, so wait until every one has gone.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.killpg(process.pid, signal.SIGKILL)


def answers(output):
    """Every JSON object and array of objects the commands printed (curl's answers), in order; the device's log lines around them are
    skipped."""
    decoder = json.JSONDecoder()
    found = []
    for start in [match.start() for match in re.finditer(r'\[?\{"', output)]:
        if found and start < found[-1][1]:
            continue
        try:
            value, end = decoder.raw_decode(output, start)
        except ValueError:
            continue
        found.append((value, end))
    return [value for value, _ in found]


def example(name):
    return "".join(commands(EXAMPLES / name / "README.md"))


def test_000_ritl_demo(shell):
    output = shell(example("000-ritl-demo"))
    listed = [answer for answer in answers(output) if isinstance(answer, list)]
    assert len(listed) == 1 and len(listed[0]) == 1, output  # the update replaced the first: one notification
    assert listed[0][0]["subtitle"] == "Session 02" and listed[0][0]["requestIdentifier"] == "session"
    # The respond answer is the last line the script printed.
    assert answers(output)[-1]["deliveredToApp"] is True, output
    assert "Session 01" in output and "我是在Service里面修改后的title" in output, output
    assert device("/apps")[0]["badge"] == 2


def test_001_invitation_rich_media(shell):
    shell(example("001-invitation-rich-media"))
    shown = device("/notifications/00000000-0000-4000-8000-000000000011")
    assert shown["title"] == "邀请" and shown["body"] == "Yue invites you to the iOS 10 session"
    assert [attachment["type"] for attachment in shown["attachments"]] == ["public.png"]
    assert [action["identifier"] for action in shown["actions"]] == [
        "action.join", "action.look", "action.cancel", "action.input"]


def test_002_image_download(shell):
    output = shell(example("002-image-download"))
    first = device("/notifications/00000000-0000-4000-8000-000000000021")
    assert first["title"] == "New photo [modified]"
    assert [attachment["type"] for attachment in first["attachments"]] == ["public.jpeg"]
    second = device("/notifications/00000000-0000-4000-8000-000000000022")
    assert second["title"] == "New photo" and second["attachments"] == []
    assert "is text/html, not a supported image, audio or movie type" in output, output


def test_003_dynamic_categories(shell):
    output = shell(example("003-dynamic-categories"))
    gif = device("/notifications/00000000-0000-4000-8000-000000000031")
    assert [attachment["type"] for attachment in gif["attachments"]] == ["com.compuserve.gif"]
    assert gif["badge"] == 3 and [action["title"] for action in gif["actions"]] == ["I love it~", "I don't care~"]
    reply = answers(output)[-1][0]  # the list the app's server answers
    assert reply["event"] == "response" and reply["action"] == "text" and reply["text"] == "To the moon!"
    assert reply["apnsID"] == "00000000-0000-4000-8000-000000000032"


def test_004_content_extension(shell):
    output = shell(example("004-content-extension"))
    expanded = [answer for answer in answers(output) if "contentExtension" in answer]
    assert expanded, output
    view = expanded[0]["contentExtension"]
    assert view["title"] == "Content extension" and view["body"] == "Expand me" and view["imagePath"], view
    assert answers(output)[-1]["deliveredToApp"] is True, output
    assert device("/notifications") == []


def test_005_live_score(shell):
    output = shell(example("005-live-score"))
    started = [answer for answer in answers(output) if isinstance(answer, list) and answer]
    assert started and started[0][0]["attributesType"] == "ScoreAttributes" and started[0][0]["state"] == "active", output
    assert started[0][0]["contentState"]["score"] == "0-0", started
    # The end is a broadcast the device takes when it arrives: its state is read until it shows.
    deadline = time.monotonic() + 20
    while (activity := device("/activities")[0])["state"] != "ended" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert activity["state"] == "ended" and activity["contentState"]["score"] == "2-1", activity
    scheduled = [answer for answer in answers(output) if isinstance(answer, dict) and answer.get("scheduledStart")]
    assert scheduled and scheduled[0]["state"] == "pending", output
    wolves = [a for a in device("/activities") if a["attributes"].get("away") == "Wolves"]
    assert wolves and wolves[0]["state"] == "active" and wolves[0]["alert"]["title"] == "Kick-off", wolves


def test_the_gateway_banners_commands_run_as_pasted_from_another_folder(shell, tmp_path):
    shell("")
    banner = (tmp_path / "gateway.log").read_text()
    binary = os.path.abspath(os.environ.get("HERALD_BIN", str(ROOT / ".build" / "debug" / "herald")))
    for start in ("curl --http2", f"{binary} send"):
        block = banner[banner.index(start):].split("\n\n", 1)[0]
        sent = subprocess.run(["bash", "-c", block], cwd="/", capture_output=True, text=True, timeout=60)
        assert sent.returncode == 0, f"{block}\n{sent.stdout}{sent.stderr}"
        assert "accepted" in sent.stdout or sent.stdout == "", f"{block}\n{sent.stdout}{sent.stderr}"
