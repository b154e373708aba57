"""Tornado, E5's Python system: an Application of RequestHandlers in one process on the asyncio
event loop, the contract's bodies built once.

    peers/python/.venv/bin/python peers/python/tornado_server.py --addr 127.0.0.1:8888

Tornado's own additions are turned off where it offers the switch: the `Server` field
(cleared in set_default_headers), the `Etag` (compute_etag returns None) and the HTML error
pages (write_error writes nothing). Prints the ready line once listening; SIGINT/SIGTERM stop
accepting, let open requests finish (at most 5 s) and exit 0.
"""

import asyncio

import tornado.httpserver
import tornado.netutil
import tornado.web

import common


class Handler(tornado.web.RequestHandler):
    """Contract headers only: no Server, no Etag, no error page bodies."""

    def set_default_headers(self):
        self.clear_header("Server")
        self.clear_header("Content-Type")

    def compute_etag(self):
        return None

    def write_error(self, status_code, **kwargs):
        self.clear_header("Content-Type")
        if status_code == 405:
            self.set_header("Allow", "GET, HEAD")
        self.finish()


class Fixed(Handler):
    """A fixed body with its content type."""

    def initialize(self, ctype, body):
        self.ctype, self.body = ctype, body

    def get(self):
        self.set_header("Content-Type", self.ctype)
        self.write(self.body)

    head = get


class MyIp(Handler):
    def get(self):
        self.set_header("Content-Type", common.CT_TEXT)
        self.write(common.client_ip(self.request.remote_ip).encode())

    head = get


class Echo(Handler):
    def get(self):
        self.set_header("Content-Type", common.CT_TEXT)
        self.write(common.hey(self.request.query))

    head = get


class AnyMethod:
    """Every method name: an unknown path is 404 whatever the method."""

    def __contains__(self, method):
        return True


class NotFound(Handler):
    SUPPORTED_METHODS = AnyMethod()

    def prepare(self):
        self.set_status(404)
        self.finish()


def make_app():
    return tornado.web.Application(
        [
            (r"/", Fixed, {"ctype": common.CT_TEXT, "body": common.ROOT}),
            (r"/api/hello", Fixed, {"ctype": common.CT_JSON, "body": common.HELLO}),
            (r"/hello", Fixed, {"ctype": common.CT_TEXT, "body": common.HELLO_TEXT}),
            (r"/my/ip", MyIp),
            (r"/api", Echo),
        ],
        default_handler_class=NotFound,
        compress_response=False,
        log_function=lambda handler: None,  # no access log, as a benchmarked server runs
    )


async def main():
    host, port = common.parse_addr("tornado_server")
    server = tornado.httpserver.HTTPServer(make_app(), idle_connection_timeout=65)
    try:
        sockets = tornado.netutil.bind_sockets(port, address=host, backlog=4096)
    except OSError as err:
        common.listen_failed("tornado_server", err)
    server.add_sockets(sockets)
    common.ready_line(sockets[0].getsockname())

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (2, 15):  # SIGINT, SIGTERM
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.stop()
    try:
        await asyncio.wait_for(server.close_all_connections(), 5)
    except asyncio.TimeoutError:
        pass
    common.exit_now(0)


if __name__ == "__main__":
    asyncio.run(main())
