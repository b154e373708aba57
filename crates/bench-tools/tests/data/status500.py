# An HTTP/1.1 server that fails on purpose, for recording the load tools' outputs with error
# statuses: `python3 status500.py N [DELAY_MS]` answers every Nth request (counted across
# connections, from the first) with
#     HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\n\r\n
# and the others with `200 OK` and the 2-byte body `ok`; N = 1 answers every request with
# the 500. Each answer waits DELAY_MS first (default 0), which keeps a timed run to a few
# hundred requests.
#
# Keep-alive as a server should: an HTTP/1.1 connection stays open unless the request says
# `Connection: close` (answered with `connection: close`, then closed); an HTTP/1.0 one is
# closed after the answer unless the request says `Connection: keep-alive`, which is
# answered with `connection: keep-alive` (as `ab -k` needs). Prints `listening on
# http://ADDR` once bound, and the number of 200 and 500 answers on SIGINT or SIGTERM. Reads
# its requests with `httpconn.py`, beside it.
import itertools, signal, socket, sys, threading, time

from httpconn import Requests, keeps_open, parse

every = int(sys.argv[1]) if len(sys.argv) > 1 else 1
delay = (int(sys.argv[2]) if len(sys.argv) > 2 else 0) / 1000.0
counter = itertools.count()
lock = threading.Lock()
answered = {200: 0, 500: 0}

def answer(head):
    words, fields = parse(head)
    version = words[-1]
    keep = keeps_open(version, fields)
    if version == b"HTTP/1.0":
        extra = b"connection: keep-alive\r\n" if keep else b""
    else:
        extra = b"" if keep else b"connection: close\r\n"
    with lock:
        i = next(counter)
        status = 500 if i % every == every - 1 else 200
        answered[status] += 1
    if status == 500:
        out = b"HTTP/1.1 500 Internal Server Error\r\n" + extra + b"content-length: 0\r\n\r\n"
    else:
        out = b"HTTP/1.1 200 OK\r\n" + extra + b"content-length: 2\r\n\r\nok"
    return out, keep

def handle(c):
    requests = Requests(c)
    try:
        while True:
            head = requests.head()
            if head is None:
                return
            out, keep = answer(head)
            if delay:
                time.sleep(delay)
            c.sendall(out)
            if not keep:
                return
    except OSError:
        pass
    finally:
        c.close()

def stop(*_):
    print("answered: %d x 200, %d x 500" % (answered[200], answered[500]), flush=True)
    sys.exit(0)

signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(1024)
print("listening on http://127.0.0.1:%d" % s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    threading.Thread(target=handle, args=(c,), daemon=True).start()
