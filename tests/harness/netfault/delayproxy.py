#!/usr/bin/env python3
"""delayproxy.py -- the delay fault of tests/harness/netfault (sch_netem is not in this kernel).

    delayproxy.py LISTEN_HOST LISTEN_PORT UPSTREAM_HOST UPSTREAM_PORT DELAY_FILE

Runs inside a node's network namespace (net.sh starts one per node, in front of its
redis-server) and forwards every TCP connection to the upstream. Each chunk read from
either side is held for the one-way delay in DELAY_FILE (milliseconds, a plain number;
no file or an empty one is 0) as it was when the chunk arrived, then written to the
other side, in order (a later chunk never overtakes an earlier one). The file is read
again for every chunk, so common.inc's nf_delay() changes the delay of connections that
are already open. An end of stream (or an error) on one side is passed on after the
chunks held before it: a request the client sent just before it closed still lands.
An upstream that cannot be reached (a node restarting) closes the client's connection.
"""
import asyncio
import socket
import sys


def delay_s(path):
    try:
        with open(path) as f:
            v = f.read().strip()
        return max(0.0, float(v) / 1000.0) if v else 0.0
    except (OSError, ValueError):
        return 0.0


def nodelay(writer):
    sock = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass


async def pipe(reader, writer, path):
    loop = asyncio.get_running_loop()
    q = asyncio.Queue()

    async def rd():
        while True:
            try:
                data = await reader.read(65536)
            except (OSError, asyncio.IncompleteReadError):
                data = b""
            await q.put((loop.time() + delay_s(path), data))
            if not data:
                return

    async def wr():
        while True:
            due, data = await q.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                break
            try:
                writer.write(data)
                await writer.drain()
            except OSError:
                break
        try:
            writer.close()
        except OSError:
            pass

    await asyncio.gather(rd(), wr())


async def main():
    lh, lp, uh, up, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]

    async def client(creader, cwriter):
        nodelay(cwriter)
        try:
            ureader, uwriter = await asyncio.wait_for(asyncio.open_connection(uh, up), 2.0)
        except (OSError, asyncio.TimeoutError):
            cwriter.close()
            return
        nodelay(uwriter)
        await asyncio.gather(pipe(creader, uwriter, path), pipe(ureader, cwriter, path),
                             return_exceptions=True)

    server = await asyncio.start_server(client, lh, lp, reuse_address=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
