"""Sends COUNT notifications with aioapns (the Python APNs client) over one connection to an APNs-compatible server
and prints the rate: `notifications/s <rate> accepted <n>`. aioapns always dials Apple's host name on port 443, so its
protocol class is pointed at HOST:PORT first; the gateway answers `127.0.0.1` as the development environment.

Usage: python3 aioapns-send.py HOST PORT CA_FILE KEY_FILE KEY_ID TEAM_ID TOPIC TOKEN COUNT [CONCURRENCY]
"""
import asyncio
import ssl
import sys
import time

from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsDevelopmentClientProtocol


async def main() -> None:
    host, port, ca_file, key_file, key_id, team_id, topic, token, count = sys.argv[1:10]
    concurrency = int(sys.argv[10]) if len(sys.argv) > 10 else 100
    APNsDevelopmentClientProtocol.APNS_SERVER = host
    APNsDevelopmentClientProtocol.APNS_PORT = int(port)
    context = ssl.create_default_context(cafile=ca_file)
    with open(key_file) as f:
        key = f.read()
    started = time.monotonic()
    client = APNs(key=key, key_id=key_id, team_id=team_id, topic=topic, use_sandbox=True, max_connections=1,
                  ssl_context=context)
    gate = asyncio.Semaphore(concurrency)
    accepted = 0

    async def send_one() -> None:
        nonlocal accepted
        async with gate:
            result = await client.send_notification(
                NotificationRequest(device_token=token, message={"aps": {"alert": "Hello"}}, push_type=PushType.ALERT))
            if result.is_successful:
                accepted += 1

    await asyncio.gather(*(send_one() for _ in range(int(count))))
    elapsed = time.monotonic() - started
    print(f"notifications/s {int(count) / elapsed:.0f} accepted {accepted}")


asyncio.run(main())
