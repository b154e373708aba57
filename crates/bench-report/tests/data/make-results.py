# Generates crates/bench-report/tests/data/results-*.json: hand-made, realistic bench.results/1
# documents (numbers in the range measured on this machine), for tests/report.rs.
import json, statistics, sys
out = sys.argv[1]

def run(rps, dur, p50, p90, p95, p99, mx, mean, bpr, errors=None, rss=(4000, 9000, 8000), cpu=98.5, notes=()):
    req = int(rps * dur)
    e = dict(connect=0, read=0, write=0, timeout=0, status=0, other=0)
    e.update(errors or {})
    r = {
        "requests": req, "duration_s": dur, "requests_per_s": rps,
        "transfer_bytes_per_s": rps * bpr, "bytes_per_response": bpr,
        "latency_us": dict(mean=mean, p50=p50, p90=p90, p95=p95, p99=p99, max=mx),
        "errors": e,
        "rss_kb": None if rss is None else dict(start=rss[0], peak=rss[1], end=rss[2]),
        "server_cpu_percent": None if cpu is None else cpu,
        "server_cpu_s": None if cpu is None else round(cpu / 100 * dur, 4),
        "cpu_us_per_request": None if cpu is None else round(cpu / 100 * dur / req * 1e6, 4),
    }
    if notes:
        r["notes"] = list(notes)
    return r

def med(vals):
    return statistics.median(vals)

def median_run(runs):
    def m(get, integer=False):
        v = [get(r) for r in runs if get(r) is not None]
        if not v:
            return None
        x = med(v)
        if integer:
            s = sorted(v); n = len(s)
            x = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2] + 1) // 2
        return x
    lat = {k: m(lambda r, k=k: r["latency_us"][k], k != "mean") for k in ["mean", "p50", "p90", "p95", "p99", "max"]}
    rss = None
    if any(r["rss_kb"] for r in runs):
        rss = {k: m(lambda r, k=k: r["rss_kb"][k] if r["rss_kb"] else None, True) for k in ["start", "peak", "end"]}
    notes = []
    for r in runs:
        for n in r.get("notes", []):
            if n not in notes:
                notes.append(n)
    res = {
        "requests": m(lambda r: r["requests"], True), "duration_s": m(lambda r: r["duration_s"]),
        "requests_per_s": m(lambda r: r["requests_per_s"]),
        "transfer_bytes_per_s": m(lambda r: r["transfer_bytes_per_s"]),
        "bytes_per_response": m(lambda r: r["bytes_per_response"]),
        "latency_us": lat,
        "errors": {k: m(lambda r, k=k: r["errors"][k], True) for k in ["connect", "read", "write", "timeout", "status", "other"]},
        "rss_kb": rss,
        "server_cpu_percent": m(lambda r: r["server_cpu_percent"]),
        "server_cpu_s": m(lambda r: r["server_cpu_s"]),
        "cpu_us_per_request": m(lambda r: r["cpu_us_per_request"]),
    }
    if notes:
        res["notes"] = notes
    return res

def step(step, endpoint, conns, cmd, repeats, duration=None, requests=None, valid=True, reason=None):
    s = dict(step=step, endpoint=endpoint, connections=conns, requests=requests, duration_s=duration,
             tool_command=cmd, valid=valid, invalid_reason=reason, repeats=repeats,
             median=None, spread=None)
    if repeats:
        s["median"] = median_run(repeats)
        v = [r["requests_per_s"] for r in repeats]
        mid = med(v)
        s["spread"] = dict(requests_per_s_min=min(v), requests_per_s_max=max(v),
                           relative=(max(v) - min(v)) / mid if mid > 0 else 0.0)
    return s

def server(name, kind, style, analogue, command, steps, extra=()):
    return dict(name=name, kind=kind, style=style, analogue=analogue, command=command,
                extra_headers=[dict(field=f, bytes=b) for f, b in extra], steps=steps)

def doc(exp, title, tool, toolv, quick, repeat, target, pinning, notes, servers, start, end, command):
    return {
        "schema": "bench.results/1", "experiment": exp, "title": title,
        "started_utc": start, "finished_utc": end, "command": command,
        "machine": dict(hostname="bench-host", kernel="Linux 6.1.0-27-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.115-1 (2024-11-01)",
                        cpus=2, cpu_model="Intel(R) Xeon(R) CPU @ 2.20GHz", mem_total_kb=8148032),
        "git": dict(revision="a747613c0ffee0123456789abcdef0123456789a", dirty=False),
        "versions": {"bench": "0.1.0", "rustc": "rustc 1.95.0 (59807616e 2026-04-14)", "tool": toolv},
        "tool": tool, "quick": quick, "repeat": repeat, "target": target, "pinning": pinning,
        "notes": notes, "servers": servers,
    }

WRK = "wrk --latency reports p50/p75/p90/p99: no p95"

# ---- E3: wrk, one repeat, pinned, an invalid step and socket errors.
def e3():
    def wrk(port, c, path):
        return ["wrk", "-t1", f"-c{c}", "-d10s", "--timeout", "60s", "--latency", f"http://127.0.0.1:{port}{path}"]
    figures = {
        "server-prebuilt": {"/": [(81102.92, 763, 1460, 58480, 81020, 2930.0), (79850.5, 11900, 14100, 21000, 64000, 12400.0), (71210.0, 131000, 160000, 250000, 1900000, 139000.0)],
                            "/my/ip": [(84010.0, 740, 1400, 50100, 70000, 2800.0), (82000.0, 11500, 13900, 20100, 61000, 12100.0), (73000.0, 128000, 158000, 240000, 1800000, 135000.0)]},
        "server-hyper": {"/": [(63500.0, 1500, 2100, 4200, 30000, 1570.0), (61200.0, 16100, 18200, 25000, 90000, 16300.0), (55000.0, 170000, 200000, 300000, 2500000, 180000.0)],
                         "/my/ip": [(64100.0, 1480, 2050, 4100, 29000, 1550.0), (62000.0, 16000, 18000, 24000, 88000, 16100.0), None]},
        "node-http": {"/": [(12883.0, 7500, 9100, 15000, 60000, 7760.0), (13199.0, 74000, 80000, 120000, 400000, 388000.0), (9381.0, 900000, 1200000, 1900000, 9000000, 1050000.0)],
                      "/my/ip": [(12500.0, 7700, 9300, 15500, 61000, 7990.0), (12900.0, 76000, 82000, 121000, 410000, 390000.0), (9100.0, 910000, 1210000, 1950000, 9100000, 1070000.0)]},
    }
    port = {"server-prebuilt": 40123, "server-hyper": 40124, "node-http": 40125}
    meta = {
        "server-prebuilt": ("rust", "raw sockets, prebuilt responses, one write per batch", ["Blazeio"], [("server", 11)]),
        "server-hyper": ("rust", "bare hyper 1, tokio current-thread", ["tuned node:http"], []),
        "node-http": ("peer", "node:http, tuned (keep-alive timeout, no Date cost)", ["node:http"], []),
    }
    servers = []
    for name, per in figures.items():
        steps = []
        for path, rows in per.items():
            for c, f in zip([100, 1000, 10000], rows):
                cmd = wrk(port[name], c, path)
                if f is None:
                    steps.append(step(f"c{c}", path, c, cmd, [], duration=10.0, valid=False,
                                      reason="the server stopped answering during the run (exit status 137: killed by the OOM killer)"))
                    continue
                rps, p50, p90, p99, mx, mean = f
                errors = {}
                if name == "node-http" and c == 10000:
                    errors = {"read": 256}
                bpr = 1143.0 if path == "/" else 135.0
                rss = {"server-prebuilt": (2100, 3900 + c // 10, 3300), "server-hyper": (3000, 8000 + c, 6000), "node-http": (48000, 96000 + c * 2, 90000)}[name]
                cpu = 99.1 if name != "node-http" else 100.0
                steps.append(step(f"c{c}", path, c, cmd, [run(rps, 10.0, p50, p90, None, p99, mx, mean, bpr, errors, rss, cpu, [WRK])], duration=10.0))
        kind, style, analogue, extra = meta[name]
        command = [f"target/release/{name}", "--addr", "127.0.0.1:0"] if kind == "rust" else ["node", "peers/node-http/server.js", "127.0.0.1:0"]
        servers.append(server(name, kind, style, analogue, command, steps, extra))
    return doc("e3", "Blazeio vs tuned node:http: keep-alive at 100/1,000/10,000 connections", "wrk", "wrk debian/4.1.0-3+b2 [epoll]",
               False, 1, None, dict(server_cpus=[0], load_cpus=[1]), ["ulimit -n 20000"], servers,
               "2026-11-29T22:40:00Z", "2026-11-29T22:47:31Z", ["bench", "run", "e3", "--tool", "wrk", "--servers", "server-prebuilt,server-hyper,node-http"])

# ---- E1: builtin, three repeats, two endpoints.
def e1():
    base = {"server-axum": [19800.0, 18900.0, 17600.0], "server-actix": [24100.0, 23200.0, 22000.0], "express": [1240.0, 1860.0, 2010.0]}
    meta = {"server-axum": ("rust", "axum 0.8 with tower layers", ["Express", "Koa"]),
            "server-actix": ("rust", "actix-web 4", ["Fastify"]),
            "express": ("peer", "Express 5 with express.json()", ["Express"])}
    servers = []
    for name, rates in base.items():
        steps = []
        for path, factor in [("/api/hello", 1.0), ("/api/private", 0.93)]:
            for c, rate in zip([100, 500, 1000], rates):
                reps = []
                for k, wobble in enumerate([0.97, 1.0, 1.04]):
                    r = rate * factor * wobble
                    lat = c / r * 1e6
                    errs = {"timeout": 23} if (name == "express" and c == 1000) else {}
                    reps.append(run(round(r, 2), 20.0, int(lat * 0.9), int(lat * 1.6), None, int(lat * 3.1), int(lat * 9), lat, 180.0, errs,
                                    (9000 + 100 * k, 12000 + c * 3, 11000) if name != "express" else (68000, 132000, 128000), 97.0,
                                    ["loadgen reports p50/p75/p90/p99/p99.9: no p95"]))
                cmd = ["target/release/loadgen", f"http://127.0.0.1:4100{len(servers)}{path}", "-c", str(c), "-d", "20s", "--mode", "keep-alive", "--timeout", "60s"]
                if path == "/api/private":
                    cmd += ["-H", "Authorization: Bearer bench-token"]
                cmd += ["--json", "--no-progress"]
                steps.append(step(f"c{c}", path, c, cmd, reps, duration=20.0))
        kind, style, analogue = meta[name]
        servers.append(server(name, kind, style, analogue, [f"target/release/{name}", "--addr", "127.0.0.1:0"] if kind == "rust" else ["node", "peers/express/server.js", "127.0.0.1:0"], steps))
    return doc("e1", "Express vs Fastify vs Koa under a ramp: 100, 500, 1000 connections on /api/hello and the Bearer-token /api/private",
               "builtin", "loadgen 0.1.0", True, 3, None, None, [], servers, "2026-11-30T08:00:00Z", "2026-11-30T08:09:12Z", ["bench", "run", "e1", "--quick"])

# ---- E4: remote target (no sampling), oha.
def e4():
    scen = ["async", "sync", "sync-offload", "nexttick", "timer"]
    figs = {"server-hyper": [9800.0, 66.0, 9400.0, 41000.0, 23000.0], "server-axum": [9700.0, 65.0, 9300.0, 39000.0, 21000.0]}
    servers = []
    for name, rates in figs.items():
        steps = []
        for s, r in zip(scen, rates):
            errs = {"timeout": 1240} if s == "sync" else {}
            p99 = 10_900 if s != "sync" else 10_000_000
            cmd = ["oha", "-z", "20s", "-c", "100", "-t", "10s", "--no-tui", "--output-format", "json", f"http://10.0.0.2:8080/api/{s}"]
            steps.append(step(s, f"/api/{s}", 100, cmd, [run(r, 20.0, 10_200, 10_600, 10_700, p99, p99 + 500, 10_250.0, 1024.0, errs, None, None,
                                                               ["oha: transfer and bytes per response count bodies only"])], duration=20.0))
        servers.append(server(name, "rust", "tokio", ["node:http"], [], steps))
    return doc("e4", "Event-loop scenarios: async, sync, sync-offload, nexttick, timer at 100 connections", "oha", "oha 1.16.0",
               False, 1, "http://10.0.0.2:8080", None, ["no /proc sampling: remote target"], servers,
               "2026-11-30T09:00:00Z", "2026-11-30T09:04:00Z", ["bench", "run", "e4", "--tool", "oha", "--target", "http://10.0.0.2:8080"])

for name, d in [("results-e3.json", e3()), ("results-e1.json", e1()), ("results-e4.json", e4())]:
    with open(f"{out}/{name}", "w") as f:
        json.dump(d, f, indent=2)
        f.write("\n")
