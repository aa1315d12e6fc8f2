"""Starts `herald up` (the release or debug binary) and a media server for the console's browser tests."""
import contextlib
import http.server
import os
import pathlib
import re
import shutil
import struct
import subprocess
import tempfile
import threading
import zlib

import pytest
from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]


def png(width=96, height=64):
    """A small gradient PNG, made here so the test needs no file."""
    rows = b"".join(b"\x00" + b"".join(bytes((x * 255 // width, y * 255 // height, 180)) for x in range(width))
                    for y in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


class Media(http.server.BaseHTTPRequestHandler):
    body = png()

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def media():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Media)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@contextlib.contextmanager
def running_herald(media):
    """`herald up` on free ports in a new folder; yields its console sign-in link, provider base URL and folder."""
    binary = os.environ.get("HERALD_BIN", str(ROOT / ".build" / "debug" / "herald"))
    data = tempfile.mkdtemp(prefix="herald-console-")
    process = subprocess.Popen(
        [binary, "up", "--data", data, "--gateway-port", "0", "--manage-port", "0", "--provider-port", "0", "--device-api-port", "0",
         "--allow-attachment-host", media],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    link = None
    lines = []
    for line in process.stdout:
        lines.append(line)
        found = re.search(r"console (http://\S+/console/login\?code=\S+)", line)
        if found:
            link = found.group(1)
        if "--mutable-content" in line:  # the last line of the example commands after the device's banner
            break
    assert link, "herald up printed no console link:\n" + "".join(lines)
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    try:
        yield {"link": link, "base": link.split("/console/")[0], "data": data, "banner": "".join(lines)}
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="session")
def herald(media):
    """The `herald up` the console tests share (they run in order)."""
    with running_herald(media) as running:
        yield running


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                             args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    yield context
    context.close()


@pytest.fixture(scope="session")
def page(context, herald):
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.dialogs = dialogs
    yield page
