# The request side of the small Python test servers (`status500.py` here, and the server
# tests/own_server.rs writes beside a copy of this file): requests read off one connection,
# their fields, and whether the connection stays open after the answer.


class Requests:
    """The requests arriving on one blocking socket, read head by head."""

    def __init__(self, sock):
        self.sock, self.buf = sock, b""

    def _more(self):
        data = self.sock.recv(65536)
        self.buf += data
        return bool(data)

    def head(self):
        """The next request head (the bytes before its blank line), or None when the peer
        closes first."""
        while b"\r\n\r\n" not in self.buf:
            if not self._more():
                return None
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        return head

    def skip_body(self, length):
        """Reads past a body of `length` bytes: False when the peer closes first."""
        while len(self.buf) < length:
            if not self._more():
                return False
        self.buf = self.buf[length:]
        return True


def parse(head):
    """The request line's words and the fields (names lowercased, the first of a name kept)."""
    lines = head.split(b"\r\n")
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        fields.setdefault(name.strip().lower(), value.strip())
    return lines[0].split(b" "), fields


def keeps_open(version, fields):
    """Whether the connection stays open after the answer: HTTP/1.1 unless the request says
    `Connection: close`, HTTP/1.0 only when it says `Connection: keep-alive`."""
    tokens = {t.strip().lower() for t in fields.get(b"connection", b"").split(b",")}
    if version == b"HTTP/1.0":
        return b"keep-alive" in tokens
    return b"close" not in tokens
