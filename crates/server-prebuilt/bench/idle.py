"""Holds N keep-alive connections open to a server, each after one answered request, and
prints the server's RSS (VmRSS of PID) before and with them. Usage: idle.py PORT PID N"""
import resource, socket, sys, time

port, pid, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

before = rss_kib()
conns = []
req = b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(req)
    got = b""
    while not got.endswith(b"Hello, World"):
        chunk = s.recv(4096)
        if not chunk:
            raise SystemExit(f"closed at connection {i}")
        got += chunk
    conns.append(s)
time.sleep(1)
with_idle = rss_kib()
print(f"RSS before: {before} KiB; with {n} idle keep-alive connections: {with_idle} KiB; "
      f"per connection: {(with_idle - before) * 1024 / n:.0f} bytes")
for s in conns:
    s.close()
