#!/usr/bin/env python3
"""A TCP proxy that adds a fixed delay in each direction, so a server on this machine answers as if it were far away
(the kernel here has no netem). Bytes keep their order; each chunk read is written DELAY later, so the round trip
through the proxy is 2 x DELAY plus the server's own time. Bandwidth is not limited.

    python3 Benchmarks/latency-proxy.py --listen 4443 --target 127.0.0.1:2197 --rtt-ms 50

Prints "listening on PORT" once it accepts connections (--listen 0 picks a free port); --host gives the address
(127.0.0.1 by default).
"""
import argparse, asyncio, os, sys


async def pipe(reader, writer, delay):
    loop = asyncio.get_running_loop()
    pending = asyncio.Queue()

    async def delayed_writer():
        while True:
            due, data = await pending.get()
            if data is None:
                break
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            # Gather what else is due before draining: one write per burst, not per chunk.
            while not pending.empty() and pending._queue[0][0] <= loop.time():
                _, more = pending.get_nowait()
                if more is None:
                    await writer.drain()
                    writer.close()
                    return
                writer.write(more)
            await writer.drain()
        writer.close()

    task = asyncio.create_task(delayed_writer())
    try:
        while True:
            data = await reader.read(256 * 1024)
            if not data:
                break
            pending.put_nowait((loop.time() + delay, data))
    except (ConnectionError, OSError):
        pass
    pending.put_nowait((loop.time() + delay, None))
    try:
        await task
    except (ConnectionError, OSError):
        pass


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    parser.add_argument("--target", required=True, help="host:port")
    parser.add_argument("--rtt-ms", type=float, required=True, help="the round trip to add (half each way)")
    parser.add_argument("--exit-with-stdin", action="store_true",
                        help="exit when standard input closes (a test's proxy ends with the test, however it ends)")
    options = parser.parse_args()
    host, port = options.target.rsplit(":", 1)
    delay = options.rtt_ms / 2000

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer, delay), pipe(server_reader, client_writer, delay))

    server = await asyncio.start_server(handle, options.host, options.listen)
    print(f"listening on {server.sockets[0].getsockname()[1]}", flush=True)
    if options.exit_with_stdin:
        loop = asyncio.get_running_loop()
        loop.add_reader(sys.stdin.fileno(), lambda: sys.stdin.buffer.read1(4096) or os._exit(0))
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
