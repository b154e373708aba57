//! The HTML report in a real browser: headless Chromium opens the page `bench report --html`
//! makes of the runs frozen in `tests/data/runs-2026-12-01` (and of a recorded run with an
//! invalid step) from a `file://` URL with its network emulated offline, and the test checks
//! that it renders with no console error or exception, makes no request beyond the page
//! itself, shows every chart with its marks, and sorts a table when a column's head is
//! clicked (a real mouse click); it writes a screenshot to `target/tmp/bench-report.png`. A
//! second, deliberately bad page shows that the console and network checks can fail. A frozen
//! run doctored to an older commit shows, at its top, which servers' code changed since (and
//! its markdown says so).
//!
//! The driver is the DevTools protocol over `--remote-debugging-pipe` (JSON messages, each
//! ended by a NUL, on the browser's file descriptors 3 and 4), written here in a hundred
//! lines with `serde_json`: no WebSocket and no debugging port (nothing listens), and no
//! driver crate whose generated protocol bindings would dominate the build.
//!
//! Skipped, with the reason printed, when no Chromium is found (`BENCH_CHROMIUM`, else
//! `chromium` or `chromium-browser` on PATH; `scripts/install-peers.sh` installs Debian's); a
//! failure instead under `BENCH_REQUIRE_TOOLS=1`, as in CI (`manifest::require`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use bench_model::results::Results;
use bench_report::{Doc, html, html_at, markdown, markdown_at};
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

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BENCH_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    require::program("chromium").or_else(|| require::program("chromium-browser"))
}

/// A Chromium process driven over the DevTools pipe.
struct Browser {
    child: Child,
    to: ChildStdin,
    from: Receiver<Value>,
    next: u64,
    /// Every event seen so far (messages without an `id`).
    events: Vec<Value>,
}

impl Browser {
    fn launch(bin: &Path, profile: &Path) -> Browser {
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
    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
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
    fn wait(&mut self, want: impl Fn(&Value) -> bool, what: &str) -> Value {
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
    fn page(&mut self, width: u32, height: u32) -> String {
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

    fn open(&mut self, s: &str, url: &str) {
        self.events.clear();
        self.call(Some(s), "Page.navigate", json!({ "url": url }));
        self.wait(
            |v| v["method"] == "Page.loadEventFired" && v["sessionId"] == json!(s),
            "the load event",
        );
    }

    /// The value of a JavaScript expression in the page.
    fn eval(&mut self, s: &str, expr: &str) -> Value {
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
    fn click(&mut self, s: &str, selector: &str) {
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
    fn problems(&self, url: &str) -> Vec<String> {
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

    fn requests(&self) -> usize {
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

fn base64(text: &str) -> Vec<u8> {
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

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The runs measured 2026-11-29..12-01, frozen in `tests/data/runs-2026-12-01` (copied from
/// docs/results before `bench publish` replaced them, so the figures asserted here stay).
fn runs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/runs-2026-12-01")
}

/// The frozen runs ([`runs`]), the recorded E3 run (server-hyper's `/my/ip` c10000 invalid)
/// and the recorded quick E7 run (a ladder of offered rates: charts against the rate).
fn docs() -> Vec<Doc> {
    let mut files: Vec<PathBuf> = fs::read_dir(runs())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        // `bench instructions`, `tools compare` and `idle` files have their own sections.
        .filter(|p| !bench_report::is_other_results_file(p))
        .collect();
    files.sort();
    for recorded in ["results-e3.json", "results-e7.json"] {
        files.push(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data")
                .join(recorded),
        );
    }
    files
        .iter()
        .map(|f| Doc {
            results: Results::load(f).unwrap_or_else(|e| panic!("{e}")),
            href: None,
        })
        .collect()
}

/// The charts a run should have: four per endpoint, or four in all for scenarios (several
/// endpoints of one step each, as E4's).
/// The chart groups of `r` (each with a requests/s, CPU, RSS and latency chart), and whether
/// it has E4's probe (whose group has only a requests/s and a latency chart).
fn charts_of(r: &Results) -> (usize, bool) {
    if ladder(r) {
        return (0, false);
    }
    let mut steps: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for st in r.servers.iter().flat_map(|s| &s.steps) {
        steps.entry(&st.endpoint).or_default().insert(&st.step);
    }
    let scenarios = steps.len() > 1 && steps.values().all(|s| s.len() == 1);
    let probe = r
        .servers
        .iter()
        .flat_map(|s| &s.steps)
        .any(|st| st.median.as_ref().is_some_and(|m| m.probe.is_some()));
    (if scenarios { 1 } else { steps.len() }, probe)
}

/// Whether `r` is a ladder of offered rates (E7), whose charts are two per endpoint against the
/// offered rate (latency, CPU per request) instead of the four bar charts.
fn ladder(r: &Results) -> bool {
    r.servers
        .iter()
        .flat_map(|s| &s.steps)
        .any(|st| st.offered_requests_per_s.is_some())
}

/// The endpoints of a ladder document (each has its two charts against the rate).
fn ladder_endpoints(r: &Results) -> usize {
    let mut e: BTreeSet<&str> = BTreeSet::new();
    if ladder(r) {
        e.extend(
            r.servers
                .iter()
                .flat_map(|s| &s.steps)
                .map(|st| st.endpoint.as_str()),
        );
    }
    e.len()
}

#[test]
fn the_page_renders_offline_and_sorts() {
    let Some(bin) = chromium() else {
        return require::missing(
            "bench::browser",
            "Chromium",
            "set BENCH_CHROMIUM, or run scripts/install-peers.sh to install Debian's chromium",
        );
    };
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let docs = docs();
    let page = html(&docs);
    // Nothing in it may point outside (the CSP forbids loading it anyway).
    for bad in [
        "src=\"http",
        "href=\"http",
        "src='http",
        "href='http",
        "url(http",
        "@import",
    ] {
        assert!(!page.contains(bad), "the page has {bad:?}");
    }
    let file = tmp.join("bench-report.html");
    fs::write(&file, &page).unwrap();
    let url = format!("file://{}", file.display());

    let started = Instant::now();
    let mut b = Browser::launch(&bin, &tmp.join("bench-report-chromium"));
    let s = b.page(1366, 2400);
    b.open(&s, &url);

    // Every chart there, drawn, with marks.
    let (groups, probes) = docs
        .iter()
        .map(|d| charts_of(&d.results))
        .fold((0, 0), |(g, p), (groups, probe)| {
            (g + groups, p + usize::from(probe))
        });
    let rated: usize = docs.iter().map(|d| ladder_endpoints(&d.results)).sum();
    assert!(rated > 0, "no ladder of offered rates among the documents");
    let want = 4 * groups + 2 * probes + 2 * rated;
    let charts = b.eval(
        &s,
        "Array.from(document.querySelectorAll('svg.chart')).map(c => { const r = c.getBoundingClientRect(); const marks = Array.from(c.querySelectorAll('.bar, .mark')).filter(m => m.getBoundingClientRect().width > 0).length; return [c.dataset.chart, r.width, r.height, marks]; })",
    );
    let charts = charts.as_array().unwrap();
    assert_eq!(charts.len(), want, "{charts:?}");
    for c in charts {
        assert!(
            c[1].as_f64().unwrap() > 300.0 && c[2].as_f64().unwrap() > 100.0,
            "{c}"
        );
        assert!(c[3].as_u64().unwrap() > 0, "a chart with no marks: {c}");
    }
    for (kind, count) in [
        ("rps", groups + probes),
        ("cpu", groups),
        ("rss", groups),
        ("latency", groups + probes),
        ("latency-rate", rated),
        ("cpu-rate", rated),
    ] {
        assert_eq!(
            charts.iter().filter(|c| c[0] == kind).count(),
            count,
            "{kind}"
        );
    }
    // One section per experiment, in order; E3's runs newest first; the invalid step and
    // the tool-bound ones marked.
    let order = b.eval(
        &s,
        "Array.from(document.querySelectorAll('section.experiment')).map(x => x.id)",
    );
    assert_eq!(order, json!(["e1", "e2", "e3", "e4", "e5", "e6", "e7"]));
    // The page opens with the findings: the first section of <main>, a block per experiment
    // with a sentence or more and its headline chart; each run's provenance folded, closed.
    let findings = b.eval(
        &s,
        "[document.querySelector('main > section').id, document.querySelectorAll('#findings div.finding').length, document.querySelectorAll('#findings div.finding li').length, document.querySelectorAll('#findings svg.headline-chart').length, document.querySelectorAll('details.provenance').length, document.querySelectorAll('details.provenance[open]').length, /127\\.0\\.0\\.1:|\\/(work|home|tmp)\\//.test(document.documentElement.outerHTML)]",
    );
    assert_eq!(findings[0], "findings", "{findings}");
    assert_eq!(findings[1], 7, "{findings}");
    assert!(findings[2].as_u64().unwrap() >= 7, "{findings}");
    assert_eq!(findings[3], 7, "{findings}");
    assert_eq!(findings[4], json!(docs.len()), "{findings}");
    assert_eq!(findings[5], 0, "{findings}");
    assert_eq!(findings[6], false, "a port or a machine path: {findings}");
    let e3 = b.eval(
        &s,
        "Array.from(document.querySelectorAll('#e3 article.run')).map(x => x.id)",
    );
    // Every E3 run given (the frozen ones and the recorded one), newest first.
    let mut want: Vec<String> = docs
        .iter()
        .filter(|d| d.results.experiment == "e3")
        .map(|d| d.results.file_name().trim_end_matches(".json").to_string())
        .collect();
    want.sort_unstable_by(|a, b| b.cmp(a));
    assert!(want.len() >= 2, "{want:?}");
    assert_eq!(e3, json!(want));
    let marks = b.eval(
        &s,
        "[document.querySelectorAll('td.invalid').length, document.querySelectorAll('td.bound').length, Array.from(document.querySelectorAll('#e3-20261129T224000Z svg.chart')).some(c => c.textContent.includes('✕ invalid'))]",
    );
    assert!(
        marks[0].as_u64().unwrap() > 0 && marks[1].as_u64().unwrap() > 0,
        "{marks}"
    );
    assert_eq!(
        marks[2],
        json!(true),
        "the invalid step is not marked on the chart"
    );

    // Sorting: E3's first table by requests/s at c100, a click for descending, another for
    // ascending; the cells without a figure (—) stay last.
    let table = "#e3-20261129T234030Z table.sortable:not(.reported):not(.fairness)";
    let column = |b: &mut Browser| -> Vec<Option<f64>> {
        let v = b.eval(
            &s,
            &format!(
                "(() => {{ const t = document.querySelector({table:?}); const j = Array.from(t.tHead.rows[0].cells).findIndex(c => c.textContent.includes('req/s c100')); return Array.from(t.tBodies[0].rows).map(r => r.cells[j].textContent); }})()"
            ),
        );
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| {
                c.as_str()
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .replace(',', "")
                    .parse()
                    .ok()
            })
            .collect()
    };
    let before = column(&mut b);
    assert!(
        before.iter().filter(|v| v.is_some()).count() >= 3,
        "{before:?}"
    );
    let head = format!("{table} th:nth-child(3) button");
    b.click(&s, &head);
    let desc = column(&mut b);
    let nums: Vec<f64> = desc.iter().flatten().copied().collect();
    assert!(
        nums.windows(2).all(|w| w[0] >= w[1]),
        "not descending: {desc:?}"
    );
    assert_ne!(desc, before, "the click changed nothing");
    b.click(&s, &head);
    let asc = column(&mut b);
    let nums: Vec<f64> = asc.iter().flatten().copied().collect();
    assert!(
        nums.windows(2).all(|w| w[0] <= w[1]),
        "not ascending: {asc:?}"
    );
    assert_eq!(
        b.eval(
            &s,
            &format!("document.querySelector({head:?}).parentNode.getAttribute('aria-sort')")
        ),
        json!("ascending")
    );

    // The top of the page: the key, the first experiment's figures and charts.
    b.eval(&s, "window.scrollTo(0, 0)");
    let shot = b.call(
        Some(&s),
        "Page.captureScreenshot",
        json!({ "format": "png" }),
    );
    let png = base64(shot["data"].as_str().unwrap());
    assert_eq!(&png[1..4], b"PNG");
    let out = tmp.join("bench-report.png");
    fs::write(&out, png).unwrap();
    println!("screenshot: {}", out.display());

    assert!(
        b.requests() >= 1,
        "no request seen at all: the network watch is not working"
    );
    let problems = b.problems(&url);
    assert!(problems.is_empty(), "{problems:#?}");

    // The checks can fail: a page with a console error, an exception and an outside image.
    let bad = tmp.join("bench-report-bad.html");
    fs::write(
        &bad,
        "<!DOCTYPE html><title>bad</title><img src=\"http://192.0.2.1/x.png\"><script>console.error('boom'); null.x;</script>",
    )
    .unwrap();
    let bad_url = format!("file://{}", bad.display());
    b.open(&s, &bad_url);
    let problems = b.problems(&bad_url).join("\n");
    for want in [
        "console.error: ",
        "exception: TypeError",
        "request: http://192.0.2.1/x.png",
    ] {
        assert!(problems.contains(want), "no {want:?} in:\n{problems}");
    }
    println!("browser checks took {:?}", started.elapsed());
}

/// The revision of this repository's fifth newest commit (merges left out) to
/// `crates/server-prebuilt`'s code: a run made there has had its code changed four times since.
fn older_prebuilt_revision() -> String {
    // Its code only, as the staleness line counts it: a commit that touched only its tests or
    // README would not count, and the line could then name fewer than four commits.
    let out = Command::new("git")
        .arg("-C")
        .arg(root())
        .args([
            "log",
            "--no-merges",
            "--format=%H",
            "--",
            "crates/server-prebuilt",
        ])
        .args(bench_report::stale::NOT_CODE)
        .output()
        .expect("git");
    assert!(out.status.success(), "git log: {out:?}");
    let log = String::from_utf8(out.stdout).unwrap();
    log.lines()
        .nth(4)
        .unwrap_or_else(|| panic!("this test needs the repository's history: {log:?}"))
        .to_string()
}

/// `N` of `server (N commit[s])` in `line`, when it names `server`.
fn commits_named(line: &str, server: &str) -> Option<usize> {
    let at = line.find(&format!("{server} ("))? + server.len() + 2;
    line[at..].split(' ').next()?.parse().ok()
}

#[test]
fn a_stale_run_says_what_changed_on_the_page_and_in_its_markdown() {
    // A run made the page's way (frozen in tests/data), doctored to an older commit, beside
    // the same run as if made at HEAD (nothing changed since: no line) and one made at a
    // commit this repository does not have. The history read is the repository's own.
    let file = runs().join("e3-20261201T192631Z.json");
    let committed = Results::load(&file).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        committed
            .servers
            .iter()
            .any(|s| s.name == "server-prebuilt")
    );
    let old = older_prebuilt_revision();
    let mut stale = committed.clone();
    stale.header.git.revision = Some(old.clone());
    let mut current = committed.clone();
    current.header.started_utc = "2026-12-01T19:26:32Z".into();
    let head = Command::new("git")
        .arg("-C")
        .arg(root())
        .args(["rev-parse", "HEAD"])
        .output()
        .unwrap();
    current.header.git.revision = Some(String::from_utf8(head.stdout).unwrap().trim().to_string());
    let mut foreign = committed.clone();
    foreign.header.started_utc = "2026-12-01T19:26:33Z".into();
    foreign.header.git.revision = Some("0123456789abcdef0123456789abcdef01234567".into());
    let root = root();

    // The markdown: the line right under the title, naming the server and its commits.
    let md = markdown_at(&stale, Some(&root));
    let line = md.lines().nth(2).unwrap_or_default();
    assert!(
        line.starts_with("> **Changed since this run:** "),
        "not at the top:\n{md}"
    );
    let n = commits_named(line, "server-prebuilt");
    assert!(n.is_some_and(|n| n >= 4), "{line}");
    assert!(!markdown(&stale).contains("Changed since this run"));
    assert!(
        !markdown_at(&current, Some(&root)).contains("Changed since this run"),
        "a run at HEAD is current"
    );
    assert!(
        markdown_at(&foreign, Some(&root)).contains(
            "> **Changed since this run:** unknown: its commit `0123456` is not in this repository's history."
        )
    );

    let Some(bin) = chromium() else {
        return require::missing(
            "bench::browser",
            "Chromium",
            "set BENCH_CHROMIUM, or run scripts/install-peers.sh to install Debian's chromium",
        );
    };
    let docs: Vec<Doc> = [&stale, &current, &foreign]
        .into_iter()
        .map(|r| Doc {
            results: r.clone(),
            href: None,
        })
        .collect();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let page = tmp.join("bench-report-stale.html");
    fs::write(&page, html_at(&docs, Some(&root))).unwrap();
    let url = format!("file://{}", page.display());
    let mut b = Browser::launch(&bin, &tmp.join("bench-report-stale-chromium"));
    let s = b.page(1366, 1200);
    b.open(&s, &url);
    // Per run: the box's text, whether it is the run's first block after its heading, its
    // size and background.
    let runs = b.eval(
        &s,
        "Array.from(document.querySelectorAll('article.run')).map(a => { const p = a.querySelector('p.stale'); if (!p) return [a.id, null]; const r = p.getBoundingClientRect(); return [a.id, p.textContent, a.children[1] === p, r.width > 100 && r.height > 10, getComputedStyle(p).backgroundColor]; })",
    );
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 3, "{runs:?}");
    let of = |id: &str| {
        runs.iter()
            .find(|r| r[0] == id)
            .unwrap_or_else(|| panic!("{id}: {runs:?}"))
    };
    let shown = of("e3-20261201T192631Z");
    let text = shown[1].as_str().unwrap_or_default();
    assert!(text.starts_with("Changed since this run: "), "{shown}");
    assert_eq!(commits_named(text, "server-prebuilt"), n, "{shown}");
    assert_eq!(shown[2], json!(true), "not at the run's top: {shown}");
    assert_eq!(shown[3], json!(true), "not visible: {shown}");
    assert_eq!(
        shown[4],
        json!("rgb(255, 244, 224)"),
        "not a warning: {shown}"
    );
    assert_eq!(of("e3-20261201T192632Z")[1], Value::Null, "{runs:?}");
    let unknown = of("e3-20261201T192633Z")[1].as_str().unwrap_or_default();
    assert!(
        unknown.contains("unknown: its commit 0123456 is not in this repository's history"),
        "{unknown}"
    );
    let problems = b.problems(&url);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn base64_decodes() {
    assert_eq!(base64("aGVsbG8="), b"hello");
    assert_eq!(base64("aGk="), b"hi");
    assert_eq!(base64("YWJj"), b"abc");
}
