//! Adding a server of your own, as docs/add-a-server.md tells a newcomer to: an entry in a
//! file of one's own, given with `--servers-file`, then `bench list`, `bench verify --servers
//! mine` (the conformance core group and the fairness table) and `bench run e3 --servers
//! mine,server-hyper`. The server is a small Python one this test writes (raw sockets, one
//! thread per connection, requests read with crates/bench-tools/tests/data/httpconn.py written beside it),
//! serving `/`, `/hello` and `/my/ip` as the contract says.
//!
//! And what a wrong entry gets: one line on stderr naming the file and the field, exit status 2.
//!
//! The first needs `python3` on PATH (scripts/install-peers.sh installs it for the Python
//! peers): without it, it is skipped with a `skipped:` line, or fails under
//! `BENCH_REQUIRE_TOOLS=1` as in CI (`conformance::require`). The Rust binaries are the debug
//! ones beside this test's `bench`, passed with `--bin-dir` as in tests/cli.rs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use bench_model::results::Results;

const BENCH: &str = env!("CARGO_BIN_EXE_bench");

/// The server: enough of the contract for the core checks of `/`, `/hello` and `/my/ip`, and
/// E3's keep-alive load. `--addr HOST:PORT`, the ready line once bound, exit 0 on SIGTERM. It
/// reads its requests with [`HTTPCONN`], written beside it.
const SERVER: &str = r#"
import email.utils, signal, socketserver, sys, threading

from httpconn import Requests, keeps_open, parse

TEXT = b"text/plain; charset=utf-8"
BODIES = {b"/": b"." * 1024, b"/hello": b"Hello, World"}
REASONS = {200: b"OK", 400: b"Bad Request", 404: b"Not Found", 405: b"Method Not Allowed"}

def answer(status, body=b"", head=False, close=False, keep_alive=False, extra=b""):
    out = b"HTTP/1.1 %d %s\r\n" % (status, REASONS[status])
    if body:
        out += b"content-type: " + TEXT + b"\r\n"
    out += b"content-length: %d\r\n" % len(body)
    out += b"date: " + email.utils.formatdate(usegmt=True).encode() + b"\r\n" + extra
    if close:
        out += b"connection: close\r\n"
    elif keep_alive:
        out += b"connection: keep-alive\r\n"
    return out + b"\r\n" + (b"" if head else body)

class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        requests = Requests(sock)
        while True:
            head = requests.head()
            if head is None:
                return
            parts, fields = parse(head)
            if len(parts) != 3 or parts[2] not in (b"HTTP/1.0", b"HTTP/1.1"):
                sock.sendall(answer(400, close=True))
                return
            method, target, version = parts
            if not requests.skip_body(int(fields.get(b"content-length", b"0") or b"0")):
                return
            close = not keeps_open(version, fields)
            keep_alive = version == b"HTTP/1.0" and not close
            if target.startswith(b"http://"):
                target = b"/" + target.split(b"/", 3)[3] if target.count(b"/") >= 3 else b"/"
            path = target.split(b"?", 1)[0]
            body = self.client_address[0].encode() if path == b"/my/ip" else BODIES.get(path)
            if body is None:
                out = answer(404, head=method == b"HEAD", close=close, keep_alive=keep_alive)
            elif method not in (b"GET", b"HEAD"):
                out = answer(405, close=close, keep_alive=keep_alive, extra=b"allow: GET, HEAD\r\n")
            else:
                out = answer(200, body, method == b"HEAD", close, keep_alive)
            sock.sendall(out)
            if close:
                return

class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 4096

def main():
    addr = sys.argv[sys.argv.index("--addr") + 1]
    host, port = addr.rsplit(":", 1)
    server = Server((host, int(port)), Handler)
    print("listening on http://%s:%d" % (host, server.server_address[1]), flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    while not stop.wait(0.2):
        pass
    server.shutdown()
    server.server_close()

main()
"#;

/// The request reading the test's Python servers share (crates/bench-tools/tests/data/status500.py too).
const HTTPCONN: &str = include_str!("../../bench-tools/tests/data/httpconn.py");

/// The entry for it, as a user writes it in a file of their own.
fn entry(script: &Path) -> String {
    format!(
        r#"[[server]]
name = "mine"
command = ["python3", "{}", "--addr", "{{addr}}"]
runtime = "python3"
style = "Python socketserver, one thread per connection"
analogue = ["server-hyper"]
experiments = ["E3"]
endpoints = ["/", "/hello", "/my/ip"]
groups = ["core"]
"#,
        script.display()
    )
}

/// The folder of this test's binaries, with server-hyper and loadgen built.
fn bin_dir() -> PathBuf {
    let dir = Path::new(BENCH)
        .parent()
        .expect("the bench binary has a folder")
        .to_path_buf();
    if ["server-hyper", "loadgen"]
        .iter()
        .any(|b| !dir.join(b).is_file())
    {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["build", "-p", "server-hyper", "-p", "loadgen"])
            .status()
            .expect("run cargo build");
        assert!(
            status.success(),
            "cargo build of server-hyper and loadgen failed"
        );
    }
    dir
}

/// Whether `python3` is here; when not, `test` is reported skipped (or fails, strict).
fn python(test: &str) -> bool {
    if conformance::require::program("python3").is_some() {
        return true;
    }
    conformance::require::missing(
        test,
        "python3",
        "apt-get install python3; scripts/install-peers.sh installs it",
    );
    false
}

/// A fresh folder holding the server script (and the module it imports).
fn scratch(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("bench-own-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create a scratch folder");
    let script = dir.join("mine.py");
    fs::write(&script, SERVER).expect("write the server");
    fs::write(dir.join("httpconn.py"), HTTPCONN).expect("write the server's module");
    (dir, script)
}

fn bench(args: &[&str]) -> Output {
    Command::new(BENCH)
        .args(args)
        .stdin(Stdio::null())
        .env_remove("ADDR")
        .env_remove("PORT")
        .output()
        .expect("run bench")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn your_own_server_is_listed_verified_and_measured_beside_a_rust_variant() {
    if !python("bench::own_server::your_own_server_is_listed_verified_and_measured") {
        return;
    }
    let bins = bin_dir();
    let bins = bins.to_str().unwrap();
    let (dir, script) = scratch("run");
    let file = dir.join("mine.toml");
    fs::write(&file, entry(&script)).unwrap();
    let file = file.to_str().unwrap();

    let out = bench(&["list", "--servers-file", file, "--bin-dir", bins]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let row = stdout
        .lines()
        .find(|l| l.starts_with("mine "))
        .unwrap_or_else(|| panic!("no row for mine: {stdout}"));
    assert!(row.contains("peer (python3) from mine.toml"), "{row}");
    assert!(row.contains("yes (runtime found: python3)"), "{row}");

    let out = bench(&[
        "verify",
        "--servers",
        "mine",
        "--servers-file",
        file,
        "--bin-dir",
        bins,
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    println!("{stdout}");
    // One line for the server: the 16 core checks of its three endpoints, nothing excused.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("mine (127.0.0.1:"))
        .unwrap_or_else(|| panic!("no line for mine: {stdout}"));
    assert!(
        line.ends_with(
            "core: 16 passed, 0 excused, 0 failed; 29 not run (endpoints it does not serve)"
        ),
        "{line}"
    );
    // The fairness table: one row per endpoint it serves, the contract's bytes.
    let root = stdout
        .lines()
        .find(|l| l.starts_with("mine") && l.split_whitespace().nth(1) == Some("/"))
        .unwrap_or_else(|| panic!("no fairness row for mine /: {stdout}"));
    let cells: Vec<&str> = root.split_whitespace().collect();
    assert_eq!(
        cells[2..7],
        [
            "200",
            "119",
            "1024",
            "1143",
            "content-type,content-length,date"
        ],
        "{root}"
    );

    // An exception of its own: the checks it covers are excused (also those of an endpoint it
    // does not serve), and --verbose gives the reason under the server's line.
    let excusing = dir.join("excusing.toml");
    fs::write(
        &excusing,
        entry(&script)
            + "[[server.exception]]\nchecks = [\"core.method.*\"]\nreason = \"a reason of its own\"\n",
    )
    .unwrap();
    let out = bench(&[
        "verify",
        "mine",
        "--verbose",
        "--servers-file",
        excusing.to_str().unwrap(),
        "--bin-dir",
        bins,
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("mine (127.0.0.1:"))
        .unwrap_or_else(|| panic!("no line for mine: {stdout}"));
    assert!(
        lines[at].contains("core: 14 passed, 4 excused, 0 failed; 27 not run"),
        "{}",
        lines[at]
    );
    assert_eq!(
        lines[at + 1],
        "  EXCEPTION core.method.post, core.method.put, core.method.delete, core.method.lowercase-get: a reason of its own"
    );
    assert!(
        lines[at + 2].starts_with("  NOT RUN core.hello.get, "),
        "{}",
        lines[at + 2]
    );

    let results = dir.join("results");
    let out = bench(&[
        "run",
        "e3",
        "--servers",
        "mine,server-hyper",
        "--servers-file",
        file,
        "--quick",
        "--allow-busy",
        "--retries",
        "0",
        "--steps",
        "c100",
        "--bin-dir",
        bins,
        "--results-dir",
        results.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    let json = fs::read_dir(&results)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("a results file");
    bench_model::schema::check_file(&json).unwrap_or_else(|e| panic!("{e}"));
    let r = Results::load(&json).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.complete, "{:?}", r.incomplete_reason);
    let names: Vec<&str> = r.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["mine", "server-hyper"]);
    for s in &r.servers {
        let steps: Vec<(&str, &str)> = s
            .steps
            .iter()
            .map(|st| (st.endpoint.as_str(), st.step.as_str()))
            .collect();
        assert_eq!(steps, [("/", "c100"), ("/my/ip", "c100")], "{}", s.name);
        for st in &s.steps {
            assert!(
                st.valid,
                "{} {}: {:?}",
                s.name, st.endpoint, st.invalid_reason
            );
            let requests = st.median.as_ref().map_or(0, |m| m.requests);
            assert!(requests > 0, "{} {}", s.name, st.endpoint);
        }
    }
    assert_eq!(r.servers[0].kind, bench_model::results::ServerKind::Peer);
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_wrong_entry_is_one_line_naming_the_field_and_exit_status_two() {
    let bins = bin_dir();
    let bins = bins.to_str().unwrap();
    let (dir, script) = scratch("wrong");
    let good = entry(&script);
    let file = dir.join("mine.toml");
    let shown = file.display().to_string();
    for (wrong, want) in [
        (
            good.replace("command = [", "#command = ["),
            format!("{shown}: server \"mine\" has no `command`"),
        ),
        (
            good.replace("command = [", "comand = ["),
            format!("{shown}, line 3: unknown field `comand`, expected one of"),
        ),
        (
            good.replace("[\"server-hyper\"]", "[\"node:http\"]"),
            format!(
                "{shown}: server \"mine\": `analogue` \"node:http\" is not a Rust variant of the manifest (one of: server-hyper,"
            ),
        ),
        (
            good.replace("name = \"mine\"", "name = \"server-hyper\""),
            format!("{shown}: server \"server-hyper\" is listed twice"),
        ),
        (
            format!("{good}[[server.exception]]\nchecks = [\"core.hello.gte\"]\nreason = \"x\"\n"),
            format!(
                "{shown}: server \"mine\": exception `checks` entry \"core.hello.gte\" matches no conformance check"
            ),
        ),
        (
            good.replace("groups = [\"core\"]", "groups = [\"core\", \"rfc9113\"]"),
            format!("{shown}: server \"mine\": `groups` lists unknown group \"rfc9113\""),
        ),
    ] {
        fs::write(&file, &wrong).unwrap();
        for args in [
            vec!["verify", "--servers", "mine"],
            vec!["list"],
            vec!["run", "e3", "--servers", "mine", "--quick"],
        ] {
            let mut args = args.clone();
            args.extend(["--servers-file", &shown, "--bin-dir", bins]);
            let out = bench(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(
                err.starts_with(&format!("bench: {want}")),
                "{args:?}:\n want: bench: {want}\n  got: {err}"
            );
        }
    }
    let missing = dir.join("no-such.toml");
    let out = bench(&["list", "--servers-file", missing.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with(&format!("bench: cannot read {}: ", missing.display())),
        "{err}"
    );
    fs::remove_dir_all(&dir).ok();
}
