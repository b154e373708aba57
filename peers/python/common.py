"""What the Python peers share: the command line, the contract's bodies, the query echo.

Each peer (tornado_server.py, blazeio_server.py) is then only its framework's way of serving.
"""

import os
import signal
import sys
from urllib.parse import parse_qsl

CT_JSON = b"application/json"
CT_TEXT = b"text/plain; charset=utf-8"

HELLO = b'{"message":"Hello World"}'
ROOT = b"." * 1024
HELLO_TEXT = b"Hello, World"

# The paths the Python peers serve.
PATHS = ("/", "/api/hello", "/hello", "/my/ip", "/api")


def parse_addr(name):
    """`--addr HOST:PORT` (IPv6 as [::1]:PORT) from argv; a bad command line exits 2."""
    args = sys.argv[1:]
    host, port = "127.0.0.1", 8080
    while args:
        flag = args.pop(0)
        if flag == "--addr" and args:
            value = args.pop(0)
            h, sep, p = value.rpartition(":")
            if not sep or not p.isdigit() or int(p) > 65535 or not h:
                usage(name)
            host, port = h.strip("[]"), int(p)
        else:
            usage(name)
    return host, port


def usage(name):
    sys.stderr.write(f"{name}: usage: {name}.py --addr HOST:PORT\n")
    sys.exit(2)


def listen_failed(name, err):
    sys.stderr.write(f"{name}: cannot listen: {err}\n")
    sys.exit(2)


def ready_line(sockname, out=None):
    """Prints `listening on http://HOST:PORT` for a bound socket's address, once."""
    host, port = sockname[0], sockname[1]
    if ":" in host:
        host = f"[{host}]"
    out = out or sys.stdout
    out.write(f"listening on http://{host}:{port}\n")
    out.flush()


def hey(query):
    """The query echo: form decoding (`+` a space, malformed `%` kept, bytes that are not
    UTF-8 replaced), the first `name` and `lastname`, a missing one empty."""
    name = lastname = None
    for key, value in parse_qsl(query, keep_blank_values=True, errors="replace"):
        if key == "name" and name is None:
            name = value
        elif key == "lastname" and lastname is None:
            lastname = value
    return f"Hey {name or ''} {lastname or ''}".encode()


def client_ip(host):
    """The peer's address as text; an IPv4-mapped IPv6 address shown as IPv4."""
    return host[7:] if host.startswith("::ffff:") else host


def on_signals(stop):
    """SIGINT and SIGTERM call `stop()` (on the asyncio loop when one runs)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop())


def exit_now(code=0):
    """Exits at once, without waiting for library threads (Blazeio's logger and monitor)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
