//! The HTML report in a real browser: headless Chromium opens the pages `bench report --html`
//! makes from `file://` URLs with their network emulated offline.
//!
//! - The runs frozen in `tests/data/runs-2026-12-01` (and a recorded run with an invalid
//!   step): it renders with no console error or exception, makes no request beyond the page
//!   itself, shows every chart with its marks, no chart's text over another's, and sorts a
//!   table when a column's head is clicked (a real mouse click); a screenshot in
//!   `target/tmp/bench-report.png`. A second, deliberately bad page shows that the console and
//!   network checks can fail.
//! - The published page, docs/results, at 390 and at 1,400 px: the header says its commit
//!   and date; no chart's text leaves the window or covers another's, none is under 11 px on
//!   the phone; each figure of a finding is the same figure as its table cell; a narrow chart
//!   shows first the panel a finding reads; a wide table keeps its first column and says it
//!   scrolls; no request. Each check is then shown to fail on the same page broken on purpose
//!   (`tests/browser/checks.js` holds them). Screenshots in `target/tmp/bench-report-390*.png`
//!   and `…-1400*.png`.
//! - The recorded run with timelines (docs/notes/2026-12-04-noise) at 390 and 1,400 px: its
//!   timeline chart shows in the layout that fits, no chart text leaves the window or covers
//!   another (the overlap check shown to fail on it broken on purpose); screenshots in
//!   `target/tmp/bench-report-timeline-*.png`.
//! - A frozen run doctored to an older commit shows, at its top, which servers' code changed
//!   since (and its markdown says so).
//!
//! The driver (`tests/browser/driver.rs`) is the DevTools protocol over
//! `--remote-debugging-pipe`: no WebSocket, no debugging port, no driver crate.
//!
//! Skipped, with the reason printed, when no Chromium is found (`BENCH_CHROMIUM`, else
//! `chromium` or `chromium-browser` on PATH; `scripts/install-peers.sh` installs Debian's); a
//! failure instead under `BENCH_REQUIRE_TOOLS=1`, as in CI (`manifest::require`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use bench_model::results::Results;
use bench_report::{Doc, html, html_at, markdown, markdown_at};
use manifest::require;
use serde_json::{Value, json};

#[path = "browser/driver.rs"]
mod driver;

use driver::{Browser, base64, chromium};

/// The checks run in the page (`window.checks`).
const CHECKS: &str = include_str!("browser/checks.js");

/// Chromium's binary; where it is missing, what [`require::missing`] does with that (a failure
/// in CI, a skip that says so elsewhere) and `None`.
fn chromium_or_missing() -> Option<PathBuf> {
    let bin = chromium();
    if bin.is_none() {
        require::missing(
            "bench::browser",
            "Chromium",
            "set BENCH_CHROMIUM, or run scripts/install-peers.sh to install Debian's chromium",
        );
    }
    bin
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

/// Whether `r` is a ladder of offered rates (E7), whose charts are four per endpoint against
/// the offered rate (p99, CPU per request, p50, p99.9) instead of the four bar charts.
fn ladder(r: &Results) -> bool {
    r.servers
        .iter()
        .flat_map(|s| &s.steps)
        .any(|st| st.offered_requests_per_s.is_some())
}

/// The endpoints of a ladder document (each has its four charts against the rate).
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
    let Some(bin) = chromium_or_missing() else {
        return;
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
    let want = 4 * groups + 2 * probes + 4 * rated;
    // Each chart drawn twice, wide and narrow: at this width the wide one shows.
    let charts = b.eval(
        &s,
        "Array.from(document.querySelectorAll('svg.chart')).filter(c => c.getBoundingClientRect().width > 0).map(c => { const r = c.getBoundingClientRect(); const marks = Array.from(c.querySelectorAll('.bar, .mark')).filter(m => m.getBoundingClientRect().width > 0).length; return [c.dataset.chart, r.width, r.height, marks, c.classList.contains('wide')]; })",
    );
    assert_eq!(
        b.eval(&s, "document.querySelectorAll('svg.chart.narrow').length"),
        json!(want)
    );
    let charts = charts.as_array().unwrap();
    assert_eq!(charts.len(), want, "{charts:?}");
    for c in charts {
        assert!(
            c[1].as_f64().unwrap() > 300.0 && c[2].as_f64().unwrap() > 100.0,
            "{c}"
        );
        assert!(c[3].as_u64().unwrap() > 0, "a chart with no marks: {c}");
        assert_eq!(c[4], json!(true), "{c}");
    }
    for (kind, count) in [
        ("rps", groups + probes),
        ("cpu", groups),
        ("rss", groups),
        ("latency", groups + probes),
        ("latency-rate", rated),
        ("cpu-rate", rated),
        ("p50-rate", rated),
        ("p999-rate", rated),
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
        "[document.querySelector('main > section').id, document.querySelectorAll('#findings div.finding').length, document.querySelectorAll('#findings div.finding li').length, document.querySelectorAll('#findings svg.headline-chart.wide').length, document.querySelectorAll('details.provenance').length, document.querySelectorAll('details.provenance[open]').length, /127\\.0\\.0\\.1:|\\/(work|home|tmp)\\//.test(document.documentElement.outerHTML)]",
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

    // No chart's text over another's, nor out of the window: every chart of the frozen runs.
    b.eval(&s, CHECKS);
    for check in ["overlaps", "overflow"] {
        let found = b.eval(&s, &format!("window.checks.{check}()"));
        assert_eq!(found, json!([]), "{check}");
    }

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

    // The top of the page: the header, the key.
    b.screenshot(&s, 0.0, &tmp.join("bench-report.png"));

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

/// The results files of docs/results, the published page's.
fn published() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(root().join("docs/results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// `window.checks.NAME(ARGS)` in the page: what it found wrong, the first 20 of it (the
/// `tables` check also gives how many tables overflowed).
fn check(b: &mut Browser, s: &str, call: &str) -> Value {
    b.eval(
        s,
        &format!("(() => {{ const r = window.checks.{call}; return Array.isArray(r[0]) ? [r[0].slice(0, 20), r[1]] : r.slice(0, 20); }})()"),
    )
}

/// Whether the check `call` finds something once `breaking` (JavaScript) has broken the page,
/// which `restoring` then puts back: each check is shown to be able to fail.
fn fails_when_broken(b: &mut Browser, s: &str, call: &str, breaking: &str, restoring: &str) {
    let clean = check(b, s, call);
    b.eval(s, breaking);
    let broken = check(b, s, call);
    b.eval(s, restoring);
    let found = |v: &Value| {
        let list = if v[1].is_number() { &v[0] } else { v };
        list.as_array().map_or(0, Vec::len)
    };
    assert_eq!(found(&clean), 0, "{call} before breaking: {clean}");
    assert!(
        found(&broken) > 0,
        "{call} found nothing once broken by {breaking}"
    );
    assert_eq!(check(b, s, call), clean, "{call} after restoring");
}

/// The published page (docs/results, written as `bench report --html` writes it, with the
/// workspace to ask git) in a phone's window, 390 px wide, and a wide screen's, 1,400 px: what
/// issue 45 asks of it, each check then shown to fail on the page broken on purpose.
#[test]
fn the_published_page_reads_on_a_phone_and_on_a_wide_screen() {
    let Some(bin) = chromium_or_missing() else {
        return;
    };
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let files = published();
    let page = tmp.join("bench-report-published.html");
    bench_report::write_html(&files, &page, Some(&root())).unwrap();
    let url = format!("file://{}", page.display());
    // What the header must say: the runs' commit and the day they started.
    let runs: Vec<Results> = files
        .iter()
        .filter(|f| !bench_report::is_other_results_file(f))
        .map(|f| Results::load(f).unwrap())
        .collect();
    assert!(!runs.is_empty(), "no run in docs/results");
    let commit = runs[0].header.git.revision.clone().unwrap_or_default();
    let commit = &commit[..7.min(commit.len())];
    let first = runs
        .iter()
        .map(|r| r.header.started_utc.as_str())
        .min()
        .unwrap();
    let date = &first[..10];

    let mut b = Browser::launch(&bin, &tmp.join("bench-report-published-chromium"));
    for width in [390_u32, 1400] {
        let s = b.page(width, 900);
        b.open(&s, &url);
        b.eval(&s, CHECKS);
        let phone = width < 700;
        assert_eq!(
            check(&mut b, &s, &format!("header({commit:?}, {date:?})")),
            json!([]),
            "{width}: the header"
        );
        for call in ["overflow()", "overlaps()", "figures()", "cited()"] {
            assert_eq!(check(&mut b, &s, call), json!([]), "{width}: {call}");
        }
        // The layout that fits: the narrow charts on the phone, the wide ones else.
        let shown = b.eval(
            &s,
            "['wide', 'narrow'].map(c => Array.from(document.querySelectorAll('svg.' + c)).filter(x => x.getBoundingClientRect().width > 0).length)",
        );
        let (wide, narrow) = (shown[0].as_u64().unwrap(), shown[1].as_u64().unwrap());
        assert!(
            if phone {
                wide == 0 && narrow > 20
            } else {
                narrow == 0 && wide > 20
            },
            "{width}: {shown}"
        );
        let tables = check(&mut b, &s, "tables()");
        assert_eq!(tables[0], json!([]), "{width}: tables");
        if phone {
            assert_eq!(
                check(&mut b, &s, "small(11)"),
                json!([]),
                "{width}: small text"
            );
            assert!(tables[1].as_u64().unwrap() > 10, "{width}: {tables}");
        } else {
            // A wide table may use the window's width, beyond the text's column, within the
            // window.
            let used = b.eval(
                &s,
                "(() => { const col = document.querySelector('main p').getBoundingClientRect().width; return Array.from(document.querySelectorAll('.tbl')).map(t => t.getBoundingClientRect()).filter(r => r.width > col + 20).map(r => [r.left, r.right, innerWidth]); })()",
            );
            let used = used.as_array().unwrap();
            assert!(!used.is_empty(), "{width}: no table wider than the text");
            for r in used {
                assert!(
                    r[0].as_f64().unwrap() >= 0.0
                        && r[1].as_f64().unwrap() <= r[2].as_f64().unwrap(),
                    "{width}: {r}"
                );
            }
        }
        // The screenshots: the header; the findings; E7's table of rungs (on the phone,
        // scrolled sideways: its first column stays).
        let name = |what: &str| tmp.join(format!("bench-report-{width}-{what}.png"));
        b.screenshot(&s, 0.0, &name("top"));
        let at = |b: &mut Browser, sel: &str| {
            b.eval(
                &s,
                &format!(
                    "document.querySelector({sel:?}).getBoundingClientRect().top + scrollY - 10"
                ),
            )
            .as_f64()
            .unwrap()
        };
        let y = at(&mut b, "#findings");
        b.screenshot(&s, y, &name("findings"));
        // E7's table of rungs: its capacity column sorts as numbers, a bound (`≥ 80,000`) by
        // its value.
        b.eval(
            &s,
            "Array.from(document.querySelectorAll('#e7 .tbl')).find(t => t.querySelector('th').parentNode.textContent.includes('Capacity')).id = 'rungs'",
        );
        let table = "#rungs";
        let capacity = "#rungs th:nth-child(3) button";
        b.click(&s, capacity);
        let sorted = b.eval(
            &s,
            "Array.from(document.querySelectorAll('#rungs tbody tr')).map(r => r.cells[2].textContent)",
        );
        let lead = |t: &Value| -> Option<f64> {
            let t = t.as_str()?.trim().trim_start_matches(['≥', '≤']).trim();
            t.split([' ', '[']).next()?.replace(',', "").parse().ok()
        };
        let values: Vec<f64> = sorted.as_array().unwrap().iter().filter_map(lead).collect();
        assert!(values.len() >= 10, "{width}: {sorted}");
        assert!(
            values.windows(2).all(|w| w[0] >= w[1]),
            "{width}: not sorted by value: {sorted}"
        );
        assert!(
            sorted
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t.as_str().unwrap().starts_with('≥')),
            "{width}: no bound among {sorted}"
        );
        b.click(&s, capacity);
        if phone {
            b.eval(
                &s,
                &format!(
                    "document.querySelector({:?}).scrollLeft = 260",
                    format!("{table} .scroll")
                ),
            );
        }
        let y = at(&mut b, table);
        b.screenshot(&s, y, &name("table"));
        b.eval(
            &s,
            &format!(
                "document.querySelector({:?}).scrollLeft = 0",
                format!("{table} .scroll")
            ),
        );
        assert!(b.requests() >= 1, "the network watch is not working");
        let problems = b.problems(&url);
        assert!(problems.is_empty(), "{width}: {problems:#?}");

        // Each check can fail: the same page, broken on purpose, then put back.
        let svg = "Array.from(document.querySelectorAll('svg.chart')).filter(x => x.getBoundingClientRect().width > 0)[0]";
        fails_when_broken(
            &mut b,
            &s,
            "overlaps()",
            &format!(
                "(() => {{ const t = {svg}.querySelector('text'); const c = t.cloneNode(true); c.id = 'broken'; c.textContent = 'a label over another'; t.parentNode.appendChild(c); }})()"
            ),
            "document.getElementById('broken').remove()",
        );
        if phone {
            fails_when_broken(
                &mut b,
                &s,
                "overflow()",
                &format!(
                    "(() => {{ const v = {svg}; const c = v.querySelector('text').cloneNode(true); c.id = 'broken'; c.setAttribute('x', v.viewBox.baseVal.width - 20); c.removeAttribute('text-anchor'); c.textContent = 'a label past the window'; v.appendChild(c); }})()"
                ),
                "document.getElementById('broken').remove()",
            );
            fails_when_broken(
                &mut b,
                &s,
                "small(11)",
                &format!(
                    "{svg}.querySelector('text').setAttribute('data-size', {svg}.querySelector('text').getAttribute('font-size')), {svg}.querySelector('text').setAttribute('font-size', '7')"
                ),
                &format!(
                    "{svg}.querySelector('text').setAttribute('font-size', {svg}.querySelector('text').getAttribute('data-size'))"
                ),
            );
            fails_when_broken(
                &mut b,
                &s,
                "cited()",
                "(() => { const v = Array.from(document.querySelectorAll('svg.narrow')).find(x => x.getBoundingClientRect().width > 0 && x.querySelectorAll('text.panel').length > 1 && x.querySelector('text.panel').textContent.includes(\"(a finding's)\")); const p = v.querySelectorAll('text.panel'); v.id = 'broken'; [p[0].textContent, p[1].textContent] = [p[1].textContent, p[0].textContent]; })()",
                "(() => { const p = document.getElementById('broken').querySelectorAll('text.panel'); [p[0].textContent, p[1].textContent] = [p[1].textContent, p[0].textContent]; document.getElementById('broken').removeAttribute('id'); })()",
            );
            fails_when_broken(
                &mut b,
                &s,
                "tables()",
                "Array.from(document.querySelectorAll('.tbl.more tbody td:first-child')).forEach(td => td.style.position = 'static')",
                "Array.from(document.querySelectorAll('.tbl.more tbody td:first-child')).forEach(td => td.style.position = '')",
            );
        }
        fails_when_broken(
            &mut b,
            &s,
            "figures()",
            "(() => { const f = document.querySelector('#findings span.fig'); const run = document.getElementById(f.closest('li').querySelector('a.from').getAttribute('href').slice(1)); const td = Array.from(run.querySelectorAll('td[data-fig]')).find(t => t.dataset.fig === f.dataset.fig); td.id = 'broken'; td.dataset.was = td.innerHTML; td.textContent = '1' + td.textContent; })()",
            "(() => { const td = document.getElementById('broken'); td.innerHTML = td.dataset.was; delete td.dataset.was; td.removeAttribute('id'); })()",
        );
        fails_when_broken(
            &mut b,
            &s,
            &format!("header({commit:?}, {date:?})"),
            "(() => { const d = document.querySelector('#about .commit dd'); d.dataset.was = d.innerHTML; d.textContent = 'unknown'; })()",
            "(() => { const d = document.querySelector('#about .commit dd'); d.innerHTML = d.dataset.was; delete d.dataset.was; })()",
        );
        // And the network watch: a request the page did not make.
        b.eval(
            &s,
            "new Promise(r => { const i = new Image(); i.onload = r; i.onerror = r; i.src = 'http://192.0.2.1/x.png'; })",
        );
        let problems = b.problems(&url).join("\n");
        assert!(
            problems.contains("request: http://192.0.2.1/x.png"),
            "{width}: {problems}"
        );
    }
}

/// The results files with timelines: E3's in the dated note of 2026-12-04
/// (`docs/notes/2026-12-04-noise/`, any folder under it).
fn timed() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for p in fs::read_dir(dir)
            .into_iter()
            .flatten()
            .map(|e| e.unwrap().path())
        {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                walk(&p, out);
            } else if name.starts_with("e3-") && name.ends_with(".json") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("docs/notes/2026-12-04-noise"), &mut out);
    out.sort();
    out
}

/// A page of the recorded run with timelines at 390 and 1,400 px: its one timeline chart
/// shows in the layout that fits, none of its text (nor any other chart's) leaves the window
/// or covers another, none under 11 px on the phone; the overlap check shown to fail on the
/// timeline chart broken on purpose. Screenshots in `target/tmp/bench-report-timeline-*.png`.
#[test]
fn the_timeline_reads_on_a_phone_and_on_a_wide_screen() {
    let files = timed();
    assert!(
        !files.is_empty(),
        "no e3-*.json under docs/notes/2026-12-04-noise: the recorded run with timelines"
    );
    let Some(bin) = chromium_or_missing() else {
        return;
    };
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let page = tmp.join("bench-report-timeline.html");
    bench_report::write_html(&files, &page, Some(&root())).unwrap();
    let url = format!("file://{}", page.display());
    let mut b = Browser::launch(&bin, &tmp.join("bench-report-timeline-chromium"));
    for width in [390_u32, 1400] {
        let s = b.page(width, 900);
        b.open(&s, &url);
        b.eval(&s, CHECKS);
        let phone = width < 700;
        for call in ["overflow()", "overlaps()"] {
            assert_eq!(check(&mut b, &s, call), json!([]), "{width}: {call}");
        }
        if phone {
            assert_eq!(check(&mut b, &s, "small(11)"), json!([]), "{width}");
        }
        // One timeline chart, drawn in the layout that fits, with a line per round.
        let shown = b.eval(
            &s,
            "Array.from(document.querySelectorAll('svg.chart[data-chart=timeline]')).filter(x => x.getBoundingClientRect().width > 0).map(x => [x.classList.contains('narrow'), x.querySelectorAll('polyline.round').length, x.getBoundingClientRect().width])",
        );
        let shown = shown.as_array().unwrap();
        assert_eq!(shown.len(), 1, "{width}: {shown:?}");
        assert_eq!(shown[0][0], json!(phone), "{width}: {shown:?}");
        assert!(shown[0][1].as_u64().unwrap() >= 3, "{width}: {shown:?}");
        assert!(
            shown[0][2].as_f64().unwrap() <= f64::from(width),
            "{width}: {shown:?}"
        );
        let y = b
            .eval(
                &s,
                "document.querySelector('figure[data-chart=timeline]').getBoundingClientRect().top + scrollY - 10",
            )
            .as_f64()
            .unwrap();
        b.screenshot(
            &s,
            y,
            &tmp.join(format!("bench-report-timeline-{width}.png")),
        );
        let problems = b.problems(&url);
        assert!(problems.is_empty(), "{width}: {problems:#?}");
        // The overlap check sees the timeline chart: a label over another there is found.
        let svg = "Array.from(document.querySelectorAll('svg.chart[data-chart=timeline]')).filter(x => x.getBoundingClientRect().width > 0)[0]";
        fails_when_broken(
            &mut b,
            &s,
            "overlaps()",
            &format!(
                "(() => {{ const t = {svg}.querySelectorAll('text')[2]; const c = t.cloneNode(true); c.id = 'broken'; c.textContent = 'a label over another'; t.parentNode.appendChild(c); }})()"
            ),
            "document.getElementById('broken').remove()",
        );
    }
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

    let Some(bin) = chromium_or_missing() else {
        return;
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
