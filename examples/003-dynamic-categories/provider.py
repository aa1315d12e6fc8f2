"""The provider's side of the loop in its smallest form: keeps what devices POST (registrations, reports) and shows
it back. `GET /reports?event=response` answers 404 until a report of that event has arrived (so `curl $R` waits)."""
import http.server
import json
import urllib.parse

received = {"register": [], "reports": []}


class Provider(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        path = self.path.strip("/")
        length = int(self.headers.get("Content-Length") or 0)
        if path not in received or length > 65536:
            self.send_error(404 if path not in received else 413)
            return
        received[path].append(json.loads(self.rfile.read(length) or b"{}"))
        self.send_response(204)
        self.end_headers()

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        event = urllib.parse.parse_qs(url.query).get("event", [None])[0]
        found = [body for body in received.get(url.path.strip("/"), []) if event in (None, body.get("event"))]
        if not found:
            self.send_error(404, "nothing received yet")
            return
        body = (json.dumps(found, ensure_ascii=False) + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", 9000), Provider).serve_forever()
