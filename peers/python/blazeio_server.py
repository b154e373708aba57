"""Blazeio 2.2.2.5, E3's Python system, in its prebuilt-response style.

    peers/python/.venv/bin/python peers/python/blazeio_server.py --addr 127.0.0.1:8000

E3's article: Blazeio writes one prebuilt buffer (status line, headers and body) per request
with one send. Blazeio's routed API closes the connection after every response, so this
peer is a raw main handler (`App.__server_handler__`) that loops on the connection: Blazeio's
own request parser (`Request.prepare_http_request`) reads each head, and one prebuilt buffer
answers it. Unlike the article's server it sends the contract's `Date`: the buffers are rebuilt
once a second, so a request still costs one lookup and one write.

Blazeio picks its event loop at import time in an order that depends on the hash seed
(peers/README.md, "Notes per runtime"), so a uvloop loop is made current before `import Blazeio` (and
Blazeio's own `uvloop.install()`, which would drop that loop, is made a no-op). Blazeio
logs to stdout; its output goes to stderr here so that the ready line is the first line.
"""

import asyncio
import sys
from email.utils import formatdate

import uvloop

import common

# Blazeio binds sys.stdout at import time: point it at stderr, keep stdout for the ready line.
READY_OUT = sys.stdout
sys.stdout = sys.stderr

LOOP = uvloop.new_event_loop()
asyncio.set_event_loop(LOOP)
# Blazeio's import runs `uvloop.install()` in a hash-seed-dependent order; run after our
# set_event_loop it would put in a fresh policy without our loop, and the import then fails
# ("There is no current event loop"). The loop is uvloop already, so make install a no-op.
uvloop.install = lambda: None

import Blazeio  # noqa: E402  (after the loop is current, on purpose)


def response(status, reason, fields, body=b""):
    """A whole response: status line, the contract's fields and `body`."""
    head = b"HTTP/1.1 %d %s\r\ndate: %s\r\n" % (status, reason, DATE[0])
    head += b"".join(b"%s: %s\r\n" % f for f in fields)
    return head + b"content-length: %d\r\n\r\n" % len(body) + body


DATE = [b""]
FIXED = {}  # path -> (GET bytes, HEAD bytes)
EMPTY = {}  # status -> bytes


def rebuild():
    """Rebuilds every prebuilt response with the current `Date`; runs once a second."""
    DATE[0] = formatdate(usegmt=True).encode()
    for path, ctype, body in (
        ("/", common.CT_TEXT, common.ROOT),
        ("/api/hello", common.CT_JSON, common.HELLO),
        ("/hello", common.CT_TEXT, common.HELLO_TEXT),
    ):
        get = response(200, b"OK", [(b"content-type", ctype)], body)
        FIXED[path] = (get, get[: len(get) - len(body)])
    EMPTY[404] = response(404, b"Not Found", [])
    EMPTY[405] = response(405, b"Method Not Allowed", [(b"allow", b"GET, HEAD")])
    LOOP.call_later(1.0 - (LOOP.time() % 1.0), rebuild)


def answer(r):
    """The bytes that answer the request Blazeio has just parsed into `r`."""
    path = r.path
    if path[:1] != "/":  # an absolute-form target: its path
        rest = path.partition("://")[2]
        path = "/" + rest.partition("/")[2] if rest else path
    head = r.method == "HEAD"
    fixed = FIXED.get(path)
    if fixed is not None:
        if r.method == "GET" or head:
            return fixed[head]
        return EMPTY[405]
    if path not in ("/my/ip", "/api"):
        return EMPTY[404]
    if r.method != "GET" and not head:
        return EMPTY[405]
    if path == "/my/ip":
        body = common.client_ip(r.ip_host).encode()
    else:
        body = common.hey(r.tail.partition("?")[2])
    whole = response(200, b"OK", [(b"content-type", common.CT_TEXT)], body)
    return whole[: len(whole) - len(body)] if head else whole


async def discard_body(r):
    """Reads and drops a request body announced by content-length, so the next head parses."""
    if r.content_length:
        async for _ in r.pull():
            pass


def main():
    host, port = common.parse_addr("blazeio_server")
    rebuild()
    web = Blazeio.App(host, port)

    @web.__server_handler__()
    async def serve(r):
        # One connection: parse a head, answer it with one write, until the client leaves.
        while True:
            r.method = r.headers = None
            r.content_length, r.current_length = None, 0
            try:
                await Blazeio.Request.prepare_http_request(r, web)
            except Exception:  # EOF (Blazeio raises Err("Request has no headers")) or junk
                return
            r.transport.write(answer(r))
            if r.content_length and r.method not in r.non_bodied_methods:
                await discard_body(r)
            connection = (r.headers or {}).get("Connection", "").lower()
            if connection == "close":
                return

    async def run():
        task = asyncio.ensure_future(web.run(host, port, backlog=4096))
        waiter = asyncio.ensure_future(web.is_server_running.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            common.listen_failed("blazeio_server", task.exception())
        common.ready_line(web.server.sockets[0].getsockname(), READY_OUT)
        stop = asyncio.Event()
        for sig in (2, 15):  # SIGINT, SIGTERM
            LOOP.add_signal_handler(sig, stop.set)
        await stop.wait()
        web.server.close()
        common.exit_now(0)

    LOOP.run_until_complete(run())


if __name__ == "__main__":
    main()
