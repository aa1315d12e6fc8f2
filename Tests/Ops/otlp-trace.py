#!/usr/bin/env python3
"""One push traced end to end over OTLP: `herald up --otlp-endpoint` exports to a real OTLP/HTTP receiver (this
script, decoding with opentelemetry-proto from PyPI), and the trace of a notification created with a caller's W3C
`traceparent` is checked: the API request continues the caller's trace, the fan-out is its child, each chunk's
`apns send` the fan-out's, each APNs request (apns-id, push type, status) the send's, the local APNs' `apns accept`
the request's, the simulated device's `device receive` the gateway's and its `display` under it, and the device's
receipts (`herald receipt`, linked to their own requests) under the fan-out (three services:
herald-provider, herald-gateway, herald-device); a line logged in a request's span carries its `trace_id`.
Prints the trace.

Usage: HERALD_BIN=.build/debug/herald python3 Tests/Ops/otlp-trace.py   (pip install opentelemetry-proto)
"""
import http.server
import os
import re
import secrets
import shutil
import tempfile
import threading

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from herald_up import HeraldUp, call, wait

SPANS = []
SERVICES = {}
LOCK = threading.Lock()


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        with LOCK:
            for resource in request.resource_spans:
                service = {a.key: a.value.string_value for a in resource.resource.attributes}.get("service.name")
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        SPANS.append((service, span))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.end_headers()
        self.wfile.write(trace_service_pb2.ExportTraceServiceResponse().SerializeToString())

    def log_message(self, *args):
        pass


def attributes(span):
    values = {}
    for attribute in span.attributes:
        value = attribute.value
        if value.HasField("string_value"):
            values[attribute.key] = value.string_value
        elif value.HasField("bool_value"):
            values[attribute.key] = value.bool_value
        else:
            values[attribute.key] = value.int_value
    return values


# Every span one push's trace has, from the API request to the device's receipts.
WANTED = {"POST /v1/notifications", "herald fan-out", "apns send", "apns request", "apns accept", "device receive",
          "service extension", "display", "herald receipt"}


def main():
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    work = tempfile.mkdtemp(prefix="herald-otlp-")
    up = None
    try:
        up = HeraldUp(work, extra=["--otlp-endpoint", f"http://127.0.0.1:{receiver.server_address[1]}"],
                      environment=dict(os.environ, OTEL_BSP_SCHEDULE_DELAY="200"))
        app, base, admin = up.app, up.base, up.admin
        trace_id, caller_span = secrets.token_hex(16), secrets.token_hex(8)
        status, created = call(
            "POST", f"{base}/v1/notifications?app={app}", admin,
            {"target": {"all": True},
             "content": {"title": "traced", "body": "one push, one trace", "mutableContent": True}},
            headers={"traceparent": f"00-{trace_id}-{caller_span}-01"})
        assert status == 202, f"creating answered {status}: {created}"
        wait("the notification was sent",
             lambda: call("GET", f"{base}/v1/notifications/{created['id']}?app={app}", admin)[1].get("state") == "done")

        def ours():
            with LOCK:
                spans = [span for _, span in SPANS if span.trace_id.hex() == trace_id]
            for service, span in SPANS:
                SERVICES[span.span_id.hex()] = service
            names = {span.name for span in spans}
            missing[:] = sorted(WANTED - names)
            # The displayed receipt comes after the delivered one, often in a later export: wait for both.
            events = {attributes(span).get("herald.receipt.event") for span in spans if span.name == "herald receipt"}
            missing.extend(f"the {event} receipt" for event in ("delivered", "displayed") if event not in events)
            return spans if not missing else None

        missing = []
        spans = wait("the trace's spans reached the receiver", ours, 120, lambda: f"missing: {', '.join(missing)}")
        by_id = {span.span_id.hex(): span for span in spans}
        api = next(span for span in spans if span.name == "POST /v1/notifications")
        assert api.parent_span_id.hex() == caller_span, "the API span continues the caller's traceparent"
        assert attributes(api).get("http.response.status_code") == 202, attributes(api)
        fan_out = next(span for span in spans if span.name == "herald fan-out")
        assert fan_out.parent_span_id == api.span_id, "the fan-out is the API request's child"
        sends = [span for span in spans if span.name == "apns send"]
        assert all(span.parent_span_id == fan_out.span_id for span in sends), "each send is the fan-out's child"
        assert sum(attributes(span).get("apns.accepted", 0) for span in sends) >= 1, [attributes(s) for s in sends]
        requests = [span for span in spans if span.name == "apns request"]
        assert all(by_id.get(span.parent_span_id.hex()) in sends for span in requests), "requests under a send"
        for request in requests:
            values = attributes(request)
            assert values.get("apns.status") == 200 and values.get("messaging.system") == "apns", values
            assert re.fullmatch(r"[0-9A-Fa-f-]{36}", str(values.get("messaging.message.id"))), values
        # The local APNs continues the provider's request span; the device continues the gateway's.
        accept = next(span for span in spans if span.name == "apns accept")
        assert by_id.get(accept.parent_span_id.hex()) in requests, "the gateway's span is the APNs request's child"
        assert attributes(accept).get("apns.status") == 200, attributes(accept)
        receive = next(span for span in spans if span.name == "device receive")
        assert receive.parent_span_id == accept.span_id, "the device's span is the gateway's child"
        extension = next(span for span in spans if span.name == "service extension")
        assert extension.parent_span_id == receive.span_id, "the service extension runs in the device's span"
        display = next(span for span in spans if span.name == "display")
        assert display.parent_span_id == receive.span_id and attributes(display).get("herald.displayed") in (1, True)
        assert SERVICES[accept.span_id.hex()] == "herald-gateway" and SERVICES[receive.span_id.hex()] == "herald-device"
        assert SERVICES[api.span_id.hex()] == "herald-provider"
        # The device's receipts come back into the same trace, under the fan-out, linked to their own request.
        receipts = [span for span in spans if span.name == "herald receipt"]
        assert all(span.parent_span_id == fan_out.span_id and len(span.links) == 1 for span in receipts)
        assert {"delivered", "displayed"} <= {attributes(span).get("herald.receipt.event") for span in receipts}, \
            [attributes(span) for span in receipts]

        # A line logged while a request's span is active names its trace.
        refused_trace = secrets.token_hex(16)
        status, _ = call("POST", f"{base}/v1/notifications?app={app}", "sk_wrong", {"target": {"all": True}},
                         headers={"traceparent": f"00-{refused_trace}-{secrets.token_hex(8)}-01"})
        assert status == 401, status

        def logged():
            return [line for line in up.output().splitlines()
                    if "refused" in line and f"trace_id={refused_trace}" in line]

        wait("the refusal's log line carries its trace_id", logged, 30)
        print(f"otlp-trace: one trace {trace_id}, {len(spans)} spans:")
        for span in sorted(spans, key=lambda span: span.start_time_unix_nano):
            depth, parent = 0, span.parent_span_id.hex()
            while parent in by_id:
                depth, parent = depth + 1, by_id[parent].parent_span_id.hex()
            duration = (span.end_time_unix_nano - span.start_time_unix_nano) / 1e6
            extra = {k: v for k, v in attributes(span).items()
                     if k in ("apns.status", "apns.accepted", "messaging.batch.message_count", "herald.deliveries",
                              "herald.receipt.event")}
            print(f"  {'  ' * depth}{span.name} [{SERVICES.get(span.span_id.hex())}]  {duration:.2f} ms  {extra or ''}")
    finally:
        if up:
            up.stop()
        receiver.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
