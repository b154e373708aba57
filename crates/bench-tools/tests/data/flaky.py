# A deliberately flaky HTTP server for recording tool outputs with errors:
# every 5th request is dropped (connection closed unanswered), bodies alternate in length,
# every 7th answer is a 500.
import socket, threading, itertools, sys
n = itertools.count()
lock = threading.Lock()
def handle(c):
    buf = b""
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                d = c.recv(4096)
                if not d: return
                buf += d
            head, buf = buf.split(b"\r\n\r\n", 1)
            close = head.startswith(b"GET") and b"HTTP/1.0" in head.split(b"\r\n")[0] and b"keep-alive" not in head.lower()
            with lock: i = next(n)
            if i % 5 == 4:
                return
            body = b"x" if i % 2 else b"yy"
            status = b"500 Internal Server Error" if i % 7 == 6 else b"200 OK"
            c.sendall(b"HTTP/1.1 " + status + b"\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            if close: return
    except OSError:
        pass
    finally:
        c.close()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(1024)
print("listening on http://127.0.0.1:%d" % s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    threading.Thread(target=handle, args=(c,), daemon=True).start()
