//! The DevTools driver of the browser tests: a Chromium process over
//! `--remote-debugging-pipe` (JSON messages, each ended by a NUL, on the browser's file
//! descriptors 3 and 4), written here in a hundred lines with `serde_json`: no WebSocket and
//! no debugging port (nothing listens), and no driver crate whose generated protocol bindings
//! would dominate the build.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use manifest::require;
use serde_json::{Value, json};

const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-pipe",
];
const TIMEOUT: Duration = Duration::from_secs(30);

pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BENCH_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    require::program("chromium").or_else(|| require::program("chromium-browser"))
}

/// A Chromium process driven over the DevTools pipe.
pub struct Browser {
    child: Child,
    to: ChildStdin,
    from: Receiver<Value>,
    next: u64,
    /// Every event seen so far (messages without an `id`).
    events: Vec<Value>,
}

impl Browser {
    pub fn launch(bin: &Path, profile: &Path) -> Browser {
        let _ = fs::remove_dir_all(profile);
        fs::create_dir_all(profile).unwrap();
        let log = fs::File::create(profile.join("stderr.txt")).unwrap();
        // The pipe must be the browser's fds 3 (commands in) and 4 (replies out): the shell
        // moves our stdin and stdout pipes there.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null"#)
            .arg(bin)
            .args(FLAGS)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
        let to = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, from) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(out);
            let mut buf = Vec::new();
            while matches!(r.read_until(0, &mut buf), Ok(n) if n > 0) {
                buf.pop_if(|b| *b == 0);
                if let Ok(v) = serde_json::from_slice::<Value>(&buf)
                    && tx.send(v).is_err()
                {
                    break;
                }
                buf.clear();
            }
        });
        Browser {
            child,
            to,
            from,
            next: 0,
            events: Vec::new(),
        }
    }

    /// Sends `method` (to `session`'s page, or to the browser) and waits for its result.
    pub fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.to.write_all(&bytes).unwrap();
        self.to.flush().unwrap();
        let v = self.wait(|v| v["id"] == json!(id), method);
        assert!(v.get("error").is_none(), "{method}: {}", v["error"]);
        v["result"].clone()
    }

    /// Waits for the first message `want` accepts, keeping the events that pass by.
    pub fn wait(&mut self, want: impl Fn(&Value) -> bool, what: &str) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from.recv_timeout(left) {
                Ok(v) => {
                    if v.get("id").is_none() {
                        self.events.push(v.clone());
                    }
                    if want(&v) {
                        return v;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no answer to {what} within {TIMEOUT:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("the browser quit before {what}"),
            }
        }
    }

    /// A page of its own, its console, log and network watched, the network offline.
    pub fn page(&mut self, width: u32, height: u32) -> String {
        let target = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target["targetId"], "flatten": true }),
        );
        let s = attached["sessionId"].as_str().unwrap().to_string();
        for m in [
            "Runtime.enable",
            "Log.enable",
            "Network.enable",
            "Page.enable",
        ] {
            self.call(Some(&s), m, json!({}));
        }
        self.call(
            Some(&s),
            "Network.emulateNetworkConditions",
            json!({ "offline": true, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1 }),
        );
        self.call(
            Some(&s),
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        s
    }

    pub fn open(&mut self, s: &str, url: &str) {
        self.events.clear();
        self.call(Some(s), "Page.navigate", json!({ "url": url }));
        self.wait(
            |v| v["method"] == "Page.loadEventFired" && v["sessionId"] == json!(s),
            "the load event",
        );
    }

    /// The value of a JavaScript expression in the page.
    pub fn eval(&mut self, s: &str, expr: &str) -> Value {
        let r = self.call(
            Some(s),
            "Runtime.evaluate",
            json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(
            r.get("exceptionDetails").is_none(),
            "{expr}: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// A left click with the mouse at the centre of the element `selector` names.
    pub fn click(&mut self, s: &str, selector: &str) {
        let at = self.eval(
            s,
            &format!(
                "(() => {{ const e = document.querySelector({selector:?}); e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
            ),
        );
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                Some(s),
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": at[0], "y": at[1], "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// What went wrong on the page since it was opened: console errors, exceptions, error log
    /// entries, and every request for anything but `url` itself.
    pub fn problems(&self, url: &str) -> Vec<String> {
        let mut out = Vec::new();
        for e in &self.events {
            let p = &e["params"];
            let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
            match e["method"].as_str().unwrap_or("") {
                "Runtime.consoleAPICalled"
                    if matches!(p["type"].as_str(), Some("error" | "assert")) =>
                {
                    out.push(format!("console.{}: {}", text(&p["type"]), p["args"]))
                }
                "Runtime.exceptionThrown" => out.push(format!(
                    "exception: {}",
                    text(&p["exceptionDetails"]["exception"]["description"])
                )),
                "Log.entryAdded" if p["entry"]["level"] == "error" => {
                    out.push(format!("log: {}", text(&p["entry"]["text"])))
                }
                "Network.requestWillBeSent" if p["request"]["url"] != url => {
                    out.push(format!("request: {}", text(&p["request"]["url"])))
                }
                _ => {}
            }
        }
        out
    }

    pub fn requests(&self) -> usize {
        self.events
            .iter()
            .filter(|e| e["method"] == "Network.requestWillBeSent")
            .count()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Our own child, by its handle (exec kept the shell's PID).
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn base64(text: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text.bytes().filter(|c| *c != b'=').map(val).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | (u32::from(*d) << (18 - 6 * i)));
        out.extend(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

impl Browser {
    /// A PNG of the page's viewport (scrolled to `y` first, the viewport `height` tall), written
    /// to `path`.
    pub fn screenshot(&mut self, s: &str, y: f64, path: &Path) {
        self.eval(s, &format!("window.scrollTo(0, {y})"));
        let shot = self.call(
            Some(s),
            "Page.captureScreenshot",
            json!({ "format": "png" }),
        );
        let png = base64(shot["data"].as_str().unwrap());
        assert_eq!(&png[1..4], b"PNG");
        fs::write(path, png).unwrap();
        println!("screenshot: {}", path.display());
    }
}
