//! The report of recorded results documents (`tests/data/results-*.json`, made by
//! `tests/data/make-results.py`): the markdown tables' rows, columns and values, the SVG's
//! well-formedness and legend, and `write_beside`; and that no text of any chart of any
//! results file (docs/results and the test data), on the page or in the SVG file, overlaps
//! another or leaves its drawing.

use std::fs;
use std::path::{Path, PathBuf};

use bench_chart::draw::check::problems;
use bench_chart::timeline::TimelineChart;
use bench_model::noise::Dips;
use bench_model::results::Results;
use bench_model::results::timeline::Timeline;
use bench_report::{Doc, html, markdown, svg_string, write_beside};

mod common;

use common::{
    cell, data, file_drawings, first_round, first_rounds, load, page_drawings, table, texts,
    well_formed, with_timelines,
};

#[test]
fn recorded_medians_agree_with_finish() {
    // The documents' medians and spreads were computed by the generator; recomputing them
    // with the library must give the same figures.
    for name in ["results-e1.json", "results-e3.json", "results-e4.json"] {
        let r = load(name);
        for s in &r.servers {
            for st in &s.steps {
                let mut again = st.clone();
                again.finish();
                assert_eq!(again.median, st.median, "{name} {} {}", s.name, st.step);
                let (a, b) = (
                    again.spread.unwrap_or_default(),
                    st.spread.unwrap_or_default(),
                );
                assert!(
                    (a.relative - b.relative).abs() < 1e-12,
                    "{name} {}",
                    st.step
                );
            }
        }
    }
}

#[test]
fn e3_header_and_tables() {
    let r = load("results-e3.json");
    let md = markdown(&r);
    assert!(md.starts_with("# E3: Blazeio vs tuned node:http"), "{md}");
    for line in [
        "- Date: 2026-11-29T22:40:00Z to 2026-11-29T22:47:31Z",
        "- Machine: bench-host, Intel(R) Xeon(R) CPU @ 2.20GHz, 2 CPUs, 7.8 GiB",
        "- Git: a747613c0ffee0123456789abcdef0123456789a",
        "- Tool: wrk (wrk debian/4.1.0-3+b2 [epoll])",
        "- Tool command (/ c100): `wrk -t1 -c100 -d10s --timeout 60s --latency http://127.0.0.1:40123/`",
        "- Command: `bench run e3 --tool wrk --servers server-prebuilt,server-hyper,node-http`",
        "- Pinning: servers on CPU 0, load tool on CPU 1",
        "- Note: ulimit -n 20000",
    ] {
        assert!(md.lines().any(|l| l == line), "no line {line:?} in:\n{md}");
    }

    let root = table(&md, "## `/`");
    let want: Vec<String> = ["Server", "Analogue of"]
        .into_iter()
        .map(String::from)
        .chain(
            ["req/s", "avg ms", "socket errors"]
                .into_iter()
                .flat_map(|m| ["c100", "c1000", "c10000"].map(|c| format!("{m} {c}"))),
        )
        .collect();
    assert_eq!(root.0, want);
    let names: Vec<&str> = root.1.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["server-prebuilt", "server-hyper", "node-http"]);
    assert_eq!(cell(&root, "server-prebuilt", "Analogue of"), "Blazeio");
    assert_eq!(cell(&root, "server-prebuilt", "req/s c100"), "81,103");
    assert_eq!(cell(&root, "node-http", "req/s c10000"), "9,381");
    assert_eq!(cell(&root, "node-http", "avg ms c1000"), "388.00");
    assert_eq!(cell(&root, "node-http", "socket errors c10000"), "read 256");
    assert_eq!(cell(&root, "server-prebuilt", "socket errors c10000"), "0");

    let ip = table(&md, "## `/my/ip`");
    assert_eq!(cell(&ip, "server-hyper", "req/s c10000"), "invalid");
    assert_eq!(cell(&ip, "server-hyper", "req/s c1000"), "62,000");
    assert!(md.contains(
        "- server-hyper `/my/ip` c10000: the server stopped answering during the run (exit status 137"
    ));

    let res = table(&md, "## Resources (server process tree, median of repeats)");
    assert_eq!(res.1.len(), 18);
    let row = &res.1[0];
    assert_eq!(
        row,
        &[
            "server-prebuilt",
            "/",
            "c100",
            "2.1",
            "3.8",
            "3.2",
            "99.1",
            "12.22",
            "n/a",
            "n/a",
            "n/a",
            "n/a",
            "n/a"
        ]
    );
    assert!(
        res.1
            .iter()
            .any(|r| r[1] == "/my/ip" && r[2] == "c10000" && r[3] == "invalid")
    );
    assert!(!md.contains("## Spread"), "one repeat has no spread table");
    assert!(md.contains("- wrk --latency reports p50/p75/p90/p99: no p95"));
}

#[test]
fn e1_repeats_spread_and_unmeasured_p95() {
    let r = load("results-e1.json");
    let md = markdown(&r);
    let hello = table(&md, "## `/api/hello`");
    assert_eq!(
        hello.0[2..],
        [
            "req/s c100",
            "req/s c500",
            "req/s c1000",
            "p50 ms c1000",
            "p95 ms c1000",
            "p99 ms c1000",
            "errors c1000"
        ]
    );
    // The medians of 0.97×, 1.00× and 1.04× the base rate: the base rate.
    assert_eq!(cell(&hello, "express", "req/s c100"), "1,240");
    assert_eq!(cell(&hello, "server-actix", "req/s c1000"), "22,000");
    assert_eq!(cell(&hello, "server-actix", "p95 ms c1000"), "n/a");
    assert_eq!(cell(&hello, "express", "errors c1000"), "0.06 %");
    assert_eq!(cell(&hello, "server-axum", "errors c1000"), "0.00 %");
    assert_eq!(cell(&hello, "server-axum", "Analogue of"), "Express, Koa");
    let private = table(&md, "## `/api/private`");
    assert_eq!(cell(&private, "server-axum", "req/s c100"), "18,414");

    let spread = table(&md, "## Spread over repeats (requests/s)");
    assert_eq!(spread.1.len(), 3 * 6);
    let row = spread
        .1
        .iter()
        .find(|r| r[0] == "express" && r[1] == "/api/hello" && r[2] == "c100")
        .unwrap();
    assert_eq!(row[3..], ["3", "1,203", "1,240", "1,290", "7.0 %"]);
}

#[test]
fn e4_scenarios_as_columns_and_remote_target() {
    let r = load("results-e4.json");
    let md = markdown(&r);
    assert!(md.contains("- Target: http://10.0.0.2:8080 (remote: no RSS or CPU sampling)"));
    let rps = table(&md, "## Requests/s");
    assert_eq!(
        rps.0[2..],
        ["async", "sync", "sync-offload", "nexttick", "timer"]
    );
    assert_eq!(cell(&rps, "server-hyper", "sync"), "66");
    let errors = table(&md, "## Errors (timeouts, socket errors, error statuses)");
    assert_eq!(cell(&errors, "server-axum", "sync"), "1240 (timeout 1240)");
    assert_eq!(cell(&errors, "server-axum", "async"), "0");
    let p99 = table(&md, "## p99 latency (ms)");
    assert_eq!(cell(&p99, "server-hyper", "sync"), "10,000.00");
    let res = table(&md, "## Resources (server process tree, median of repeats)");
    assert!(
        res.1.iter().all(|r| r[3..].iter().all(|c| c == "n/a")),
        "{res:?}"
    );
}

#[test]
fn the_well_formedness_check_can_fail() {
    assert!(well_formed("<svg><g></g></svg>").is_ok());
    assert!(well_formed("<svg><g></svg>").is_err());
    assert!(well_formed("<svg></svg><svg></svg>").is_err());
    assert!(well_formed("<svg a=\"1></svg>").is_err());
    assert!(well_formed("").is_err());
}

#[test]
fn svg_is_well_formed_and_names_every_server() {
    for name in ["results-e1.json", "results-e3.json", "results-e4.json"] {
        let r = load(name);
        let svg = svg_string(&r);
        well_formed(&svg).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(svg.contains("<svg"), "{name}");
        let texts = texts(&svg);
        for s in &r.servers {
            assert!(
                texts.iter().any(|t| t == &s.name),
                "{name}: no row label for {} in {texts:?}",
                s.name
            );
        }
        // The four charts, each with its unit on the axis; E4's remote target has no CPU
        // or RSS figures, so no chart of them.
        let sampled = name != "results-e4.json";
        for (axis, want) in [
            ("requests/s (more is better)", true),
            ("µs of server CPU per request (less is better)", sampled),
            (
                "MB, peak RSS of the server&#39;s process tree (less is better)",
                sampled,
            ),
            ("latency, log scale (less is better)", true),
        ] {
            assert_eq!(
                texts.iter().any(|t| t == axis),
                want,
                "{name}: axis {axis:?}"
            );
        }
        // A bar per valid measured step in the requests/s charts, and one per step with a
        // CPU figure in the CPU charts.
        let measured: Vec<_> = r
            .servers
            .iter()
            .flat_map(|s| &s.steps)
            .filter(|s| s.valid)
            .filter_map(|s| s.median.as_ref())
            .collect();
        let bars = measured.len()
            + measured
                .iter()
                .filter(|m| m.cpu_us_per_request.is_some())
                .count()
            + measured.iter().filter(|m| m.rss_kb.is_some()).count();
        assert_eq!(svg.matches("class=\"bar\"").count(), bars, "{name}");
        // Latency on a log axis: decade ticks in µs, ms or s.
        assert!(texts.iter().any(|t| t == "10 ms"), "{name}: {texts:?}");
        // The invalid step is marked, not drawn as a bar.
        let invalid = r.servers.iter().flat_map(|s| &s.steps).any(|s| !s.valid);
        assert_eq!(texts.iter().any(|t| t == "✕ invalid"), invalid, "{name}");
    }
}

#[test]
fn write_beside_writes_md_and_svg() {
    let dir = std::env::temp_dir().join(format!("bench-report-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let json = dir.join("e3-20261129T224000Z.json");
    fs::copy(data("results-e3.json"), &json).unwrap();
    let (md, svg) = write_beside(&json, None).unwrap();
    assert_eq!(md, dir.join("e3-20261129T224000Z.md"));
    assert_eq!(svg, dir.join("e3-20261129T224000Z.svg"));
    let r = load("results-e3.json");
    assert_eq!(fs::read_to_string(&md).unwrap(), markdown(&r));
    assert_eq!(fs::read_to_string(&svg).unwrap(), svg_string(&r));
    // A file that is not results is an error, not a panic.
    fs::write(&json, "{\"schema\": \"other/1\"}").unwrap();
    let e = write_beside(&json, None).unwrap_err();
    assert!(e.to_string().contains("schema \"other/1\""), "{e}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn e2_and_e5_shapes() {
    // E2's shape: one count-bounded step per endpoint, ab's figures.
    let mut r = load("results-e3.json");
    r.experiment = "e2".into();
    for s in &mut r.servers {
        s.steps.retain(|st| st.endpoint == "/" && st.step == "c100");
    }
    let md = markdown(&r);
    let t = table(&md, "## `/`");
    assert_eq!(
        t.0[2..],
        [
            "req/s",
            "ms per request",
            "KB/s",
            "bytes/response",
            "errors"
        ]
    );
    assert_eq!(cell(&t, "server-prebuilt", "req/s"), "81,103");
    assert_eq!(cell(&t, "server-prebuilt", "ms per request"), "2.93");
    // 81,102.92 × 1,143 B / 1,024.
    assert_eq!(cell(&t, "server-prebuilt", "KB/s"), "90,528");
    assert_eq!(cell(&t, "server-prebuilt", "bytes/response"), "1,143");

    // E5's shape: requests/s and errors per concurrency.
    let mut r = load("results-e3.json");
    r.experiment = "e5".into();
    let md = markdown(&r);
    let t = table(&md, "## `/`");
    assert_eq!(
        t.0[2..],
        [
            "req/s c100",
            "req/s c1000",
            "req/s c10000",
            "errors c100",
            "errors c1000",
            "errors c10000"
        ]
    );
    assert_eq!(cell(&t, "node-http", "errors c10000"), "256 (read 256)");
}

#[test]
fn html_page_is_self_contained_grouped_and_marked() {
    let mut e3 = load("results-e3.json");
    // One step the load generator capped (its busiest thread at 97 % of a CPU).
    let st = &mut e3.servers[0].steps[0];
    st.repeats[0].tool_busiest_thread_percent = Some(97.0);
    st.repeats[0].tool_bound = true;
    st.finish();
    let mut older = load("results-e3.json");
    older.header.started_utc = "2026-11-28T10:00:00Z".into();
    let docs: Vec<Doc> = [older, load("results-e4.json"), e3, load("results-e1.json")]
        .into_iter()
        .map(|results| Doc {
            results,
            href: None,
        })
        .collect();
    let page = html(&docs);
    // No request can leave the page: nothing refers outside, and the policy forbids it.
    for bad in [
        "src=\"http",
        "href=\"http",
        "url(",
        "@import",
        "<link",
        "<img",
    ] {
        assert!(!page.contains(bad), "the page has {bad:?}");
    }
    assert!(page.contains("content=\"default-src 'none'; "), "no CSP");
    // Grouped by experiment in order, each group's runs newest first.
    let at = |s: &str| page.find(s).unwrap_or_else(|| panic!("no {s:?}"));
    assert!(at("<section class=\"experiment\" id=\"e1\"") < at("id=\"e3\""));
    assert!(at("id=\"e3\"") < at("id=\"e4\""));
    assert!(at("id=\"e3-20261129T224000Z\"") < at("id=\"e3-20261128T100000Z\""));
    // The article's question and figures beside ours: Blazeio's 33,294 at c100.
    assert!(page.contains("Does one prebuilt buffer per request (Blazeio) beat tuned node:http"));
    assert!(
        page.contains("<td class=\"num\">33,294</td>"),
        "no article figure"
    );
    // Charts: four per endpoint of E3 (2) and E1 (2), and E4's two (its remote target has
    // no CPU or RSS) in one group, each run; each drawn wide and narrow.
    assert_eq!(
        page.matches("<figure class=\"chart\"").count(),
        8 + 8 + 8 + 2 + 3
    );
    assert_eq!(
        page.matches("<svg class=\"chart wide\"").count(),
        8 + 8 + 8 + 2
    );
    assert_eq!(
        page.matches("<svg class=\"chart narrow\"").count(),
        8 + 8 + 8 + 2
    );
    // The tables, sortable, with separators; the tool-bound step's requests/s marked once,
    // the invalid step marked with its reason.
    assert!(page.contains("<table class=\"sortable\">"));
    assert!(page.contains("<td class=\"num bound\" title=\"the load generator was ≥ 90 % busy: it may have set the pace\" data-fig=\"server-prebuilt|/|c100|rps\">81,103 †</td>"), "no tool-bound mark");
    assert_eq!(
        page.matches("81,103 †").count(),
        5,
        "the table cell, the bar's label (wide and narrow) and the same bar in E3's headline chart"
    );
    assert!(page.contains("<td class=\"num invalid\" title=\"the server stopped answering during the run (exit status 137: killed by the OOM killer)\">invalid</td>"));
    // Fairness: bytes per response and the extra fields.
    assert!(page.contains("<h4>Fairness: the bytes each server sends</h4>"));
    assert!(page.contains("server (11 B)"), "no extra header field");
}

#[test]
fn tool_bound_steps_and_partial_runs_are_marked() {
    // A file from before the tool's CPU was recorded says so, and marks nothing.
    let r = load("results-e3.json");
    let md = markdown(&r);
    assert!(md.contains("does not record wrk's own CPU"), "{md}");
    assert!(!md.contains(" † |") && !md.contains("Partial run"), "{md}");

    // The tool's CPU recorded: one step tool-bound, the others not.
    let mut r = load("results-e3.json");
    for s in &mut r.servers {
        for st in &mut s.steps {
            for run in st.repeats.iter_mut().chain(st.median.as_mut()) {
                run.tool_cpu_percent = Some(40.0);
                run.tool_cpus = Some(1);
                if s.name == "server-prebuilt" && st.endpoint == "/" && st.step == "c100" {
                    run.tool_cpu_percent = Some(99.5);
                    run.tool_bound = true;
                }
            }
        }
    }
    let md = markdown(&r);
    let root = table(&md, "## `/`");
    assert_eq!(cell(&root, "server-prebuilt", "req/s c100"), "81,103 †");
    assert_eq!(cell(&root, "server-prebuilt", "req/s c1000"), "79,851");
    assert_eq!(cell(&root, "server-prebuilt", "avg ms c100"), "2.93");
    let sentence = md
        .lines()
        .find(|l| l.starts_with("**The load tool's limit, not the server's:**"))
        .unwrap_or_else(|| panic!("no sentence in:\n{md}"));
    assert!(
        sentence.contains("wrk used at least 90 % of the CPUs it could use (of a CPU on its busiest thread, for a one-thread tool) in 1 of the steps")
            && sentence.contains("server-prebuilt / c100 (tool CPU 100 % of 1 CPU)"),
        "{sentence}"
    );
    let res = table(&md, "## Resources (server process tree, median of repeats)");
    assert_eq!(res.1[0][10], "99.5 †");
    // The chart marks the tool-bound step's requests/s bar (its label ends in `†`).
    let svg = svg_string(&r);
    assert!(
        svg.contains(" †</text>"),
        "no tool-bound bar label in the SVG"
    );

    // No step tool-bound: the sentence names the busiest.
    for s in &mut r.servers {
        for st in &mut s.steps {
            for run in st.repeats.iter_mut().chain(st.median.as_mut()) {
                run.tool_bound = false;
            }
        }
    }
    assert!(
        !svg_string(&r).contains(" †</text>"),
        "a bar marked with no step tool-bound"
    );
    let md = markdown(&r);
    assert!(
        md.contains("no step was tool-bound; wrk used at most 100 % of the CPUs it could use (server-prebuilt / c100, 100 % of 1 CPU)"),
        "{md}"
    );

    // A partial run: the banner, before anything else.
    r.complete = false;
    r.incomplete_reason = Some("interrupted by SIGINT after 4 of 18 step runs".into());
    let md = markdown(&r);
    let banner = md.lines().nth(2).unwrap_or_default();
    assert_eq!(
        banner,
        "> **Partial run: interrupted by SIGINT after 4 of 18 step runs.** This file was written after the last step that finished; the steps that had not run read `n/a`, and a step's median is over the repeats it had."
    );
    assert!(svg_string(&r).contains("PARTIAL RUN"));
}

#[test]
fn disturbed_steps_and_the_cpu_split_are_shown() {
    use bench_model::results::Interference;
    // A file from before the machine was measured says it cannot tell.
    let r = load("results-e3.json");
    let md = markdown(&r);
    assert!(
        md.contains("**The machine:** this file does not record what else ran"),
        "{md}"
    );

    // Every step measured on a quiet machine, with the CPU split; one step disturbed.
    let mut r = load("results-e3.json");
    for s in &mut r.servers {
        for st in &mut s.steps {
            for run in st.repeats.iter_mut().chain(st.median.as_mut()) {
                run.interference = Some(Interference {
                    other_cpu_percent: Some(1.5),
                    steal_percent: 0.2,
                    server_wait_percent: Some(0.8),
                    tool_wait_percent: Some(1.0),
                });
                run.cpu_user_us_per_request = Some(4.0);
                run.cpu_kernel_us_per_request = Some(8.22);
            }
        }
    }
    let quiet = markdown(&r);
    assert!(
        quiet.contains("**The machine:** quiet in every step: other work took at most 2 % of a CPU, steal at most 0 %, and the server waited for a CPU at most 1 % of the time (limits: 10 %, 5 %, and 5 % of waiting while other work ran)."),
        "{quiet}"
    );
    assert!(!quiet.contains(" ‡ |") && !quiet.contains("‡ |"), "{quiet}");
    let st = &mut r.servers[0].steps[0];
    for run in st.repeats.iter_mut() {
        run.interference.as_mut().unwrap().other_cpu_percent = Some(47.0);
        run.disturbed = true;
        run.disturbed_reason = Some("other work took 47 % of a CPU".into());
    }
    st.finish();
    let md = markdown(&r);
    let sentence = md
        .lines()
        .find(|l| l.starts_with("**The machine's figures, not the server's:**"))
        .unwrap_or_else(|| panic!("no sentence in:\n{md}"));
    assert!(
        sentence.contains("in 1 of the steps below")
            && sentence.contains("server-prebuilt / c100 (other work took 47 % of a CPU)"),
        "{sentence}"
    );
    let root = table(&md, "## `/`");
    assert_eq!(cell(&root, "server-prebuilt", "req/s c100"), "81,103 ‡");
    assert_eq!(cell(&root, "server-prebuilt", "req/s c1000"), "79,851");
    let res = table(&md, "## Resources (server process tree, median of repeats)");
    assert_eq!(
        res.1[0][7..].to_vec(),
        ["12.22", "4.00", "8.22", "n/a", "47.0 ‡", "0.8"]
    );
    // The chart: the disturbed bar's label, the legend, and the CPU split as two segments.
    let svg = svg_string(&r);
    assert!(svg.contains(" ‡</text>"), "no disturbed bar label");
    assert!(svg.contains("the machine was busy"), "no legend entry");
    assert!(
        svg.contains("light: its kernel share (system calls, loopback TCP)"),
        "no CPU split legend"
    );
    assert!(
        svg.contains("12.22 µs/request (the median), of which user 4.00 and kernel 8.22"),
        "no split in the tooltip"
    );
    // The label is the median total, the figure the tables give, never the sum of the
    // parts' medians (E5's node-http read 21.44 beside a table's 21.26).
    let hyper = r
        .servers
        .iter_mut()
        .find(|s| s.name == "server-hyper")
        .unwrap();
    hyper.steps[0].median.as_mut().unwrap().cpu_us_per_request = Some(11.5);
    let svg = svg_string(&r);
    let texts = texts(&svg);
    assert!(texts.iter().any(|t| t == "11.50"), "{texts:?}");
    assert!(!svg.contains("(4.00 + 8.22)"));
    let res = table(
        &markdown(&r),
        "## Resources (server process tree, median of repeats)",
    );
    let row = res.1.iter().find(|r| r[0] == "server-hyper").unwrap();
    assert_eq!(row[7], "11.50");
}

#[test]
fn the_page_opens_with_the_findings_and_names_no_machine_path_or_port() {
    let mut e3 = load("results-e3.json");
    // Paths and ports as a run on some machine might record them.
    e3.header.command[0] = "/home/someone/bin/bench".into();
    e3.notes.push(
        "server binary /work/main/target/release/server-hyper, scratch in /tmp/bench-1".into(),
    );
    let docs: Vec<Doc> = [e3, load("results-e1.json"), load("results-e4.json")]
        .into_iter()
        .map(|results| Doc {
            results,
            href: None,
        })
        .collect();
    let page = html(&docs);
    let at = |s: &str| page.find(s).unwrap_or_else(|| panic!("no {s:?}"));
    // The findings come first in <main>, before any experiment's section, each experiment
    // with its sentences, its headline chart and a link down to it.
    assert!(page.contains("<main>\n<section id=\"findings\" class=\"findings\">"));
    assert!(at("id=\"findings\"") < at("<section class=\"experiment\""));
    let findings = &page[at("id=\"findings\"")..at("<section class=\"experiment\"")];
    assert!(
        findings.contains("<code>server-prebuilt</code> serves 6.30× <code>node-http</code>&#39;s requests/s here (<code>/</code>, 100 connections: <span class=\"fig\" data-fig=\"server-prebuilt|/|c100|rps\">81,103</span> vs <span class=\"fig\" data-fig=\"node-http|/|c100|rps\">12,883</span> requests/s); the article: 2.58× (Blazeio vs node:http). <a class=\"from\" href=\"#e3-20261129T224000Z\">(run of 2026-11-29)</a>"),
        "{findings}"
    );
    // Each figure of a sentence is keyed to the cell of its run's table it is read from.
    assert!(page.contains("data-fig=\"server-prebuilt|/|c100|rps\">81,103</td>"));
    assert_eq!(
        findings
            .matches("<svg class=\"headline-chart wide\"")
            .count(),
        3
    );
    assert!(findings.contains("<a href=\"#e4\">E4 in detail ↓</a>"));
    // Each run's provenance folded, the commit short.
    assert_eq!(page.matches("<details class=\"provenance\">").count(), 3);
    assert!(page.contains("commit <code>a747613</code>, run of 2026-11-29"));
    assert!(!page.contains("a747613c0ffee"), "the full hash");
    // No port, no machine path; the file names stay.
    for bad in ["127.0.0.1:", "localhost:", "/work/", "/home/", "/tmp/"] {
        assert!(!page.contains(bad), "the page has {bad:?}");
    }
    assert!(page.contains("http://SERVER/"));
    assert!(page.contains("server binary server-hyper, scratch in bench-1"));
    // The markdown report opens with the same sentences.
    let md = markdown(&load("results-e3.json"));
    let (head, rest) = md.split_once("## Findings\n\n").expect("no findings");
    assert!(!head.contains("## "), "a section before the findings");
    assert!(
        rest.starts_with("- `server-prebuilt` serves 6.30× `node-http`"),
        "{rest}"
    );
}

/// A real run in rounds: every figure of the tables carries its 95 % interval, the paragraph
/// says how sure, from the A/A pair, and the ratios to the ceiling have a table of their own.
#[test]
fn a_run_in_rounds_shows_its_intervals_in_every_table() {
    let r = load("results-e3-rounds.json");
    let md = markdown(&r);
    let (head, rows) = table(&md, "## `/`");
    assert_eq!(
        head[2..],
        ["req/s c100", "avg ms c100", "socket errors c100"]
    );
    let prebuilt = rows.iter().find(|r| r[0] == "server-prebuilt").unwrap();
    assert_eq!(prebuilt[2], "131,449 [129,706–132,464] †");
    // The mean latency's interval too: the file was written before it had one, and loading
    // computes it from the rounds.
    assert!(prebuilt[3].starts_with("0.49 ["), "{prebuilt:?}");
    let node = rows.iter().find(|r| r[0] == "node-http").unwrap();
    assert_eq!(node[2], "37,422 [34,542–38,143]");
    let (head, rows) = table(&md, "## Resources (server process tree, median of repeats)");
    let cpu = head.iter().position(|h| h == "CPU µs/request").unwrap();
    assert_eq!(rows[0][..3], ["server-hyper", "/", "c100"]);
    assert_eq!(rows[0][cpu], "8.43 [8.39–8.49]");
    let (_, rows) = table(&md, "## Against the ceiling");
    assert_eq!(
        rows.iter().find(|r| r[0] == "server-hyper").unwrap()[1..],
        ["0.89 [0.88–0.89]", "1.20 [1.19–1.21]"]
    );
    assert!(md.contains("**This run's precision**, from a server measured twice as two copies (an A/A pair, which should differ by nothing;"), "{md}");
    assert!(md.contains("`server-prebuilt` over `server-prebuilt#2` at `/` c100: requests/s 1.00× [0.99–1.00], CPU per request 1.00× [1.00–1.01], 10 rounds; † 10/10 and 10/10 rounds, ‡ 0/10 and 0/10"), "{md}");
    // Its ratios hold 1.00: nothing opens the report.
    assert!(!md.contains("A/A pair differed"), "{md}");
    // A figure of one round has no interval: the same file cut to its first round.
    let one = first_round(&r);
    let md = markdown(&one);
    let (_, rows) = table(&md, "## `/`");
    let prebuilt = rows.iter().find(|r| r[0] == "server-prebuilt").unwrap();
    assert!(!prebuilt[2].contains('['), "{prebuilt:?}");
}

/// A bar whose figure the round trips set carries § in the chart as in the tables, with its
/// legend line.
#[test]
fn a_bar_set_by_the_round_trips_carries_its_mark() {
    let mut r = load("results-e3-rounds.json");
    let svg = svg_string(&r);
    assert!(!svg.contains('§'));
    let st = r
        .servers
        .iter_mut()
        .find(|s| s.name == "node-http")
        .unwrap()
        .steps
        .first_mut()
        .unwrap();
    st.median.as_mut().unwrap().round_trips_bound = Some("neither side set the pace".into());
    let svg = svg_string(&r);
    well_formed(&svg).unwrap();
    let texts = texts(&svg);
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("37,422") && t.ends_with(" §")),
        "{texts:?}"
    );
    assert!(svg.contains("§ neither the server nor the load generator was busy"));
}

/// An interval from fewer rounds than a 95 % interval needs (here node-http's, cut to 2 of
/// the run's 10 rounds) is never called 95 %: its brackets in every table say its rounds and
/// real coverage, the paragraph on how sure the figures are counts such intervals, the
/// finding gives its coverage, and the chart draws its whisker dashed, with a legend line and
/// a tooltip of its own; a run all of whose intervals are so has no legend that says 95 %.
#[test]
fn an_interval_from_too_few_rounds_says_its_coverage_everywhere() {
    let r = first_rounds(&load("results-e3-rounds.json"), 2, Some("node-http"));
    let md = markdown(&r);
    let (_, rows) = table(&md, "## `/`");
    let node = rows.iter().find(|r| r[0] == "node-http").unwrap();
    assert!(node[2].ends_with("; 2 rounds, 50 %]"), "{node:?}");
    let prebuilt = rows.iter().find(|r| r[0] == "server-prebuilt").unwrap();
    assert_eq!(prebuilt[2], "131,449 [129,706–132,464] †");
    let (head, rows) = table(&md, "## Resources (server process tree, median of repeats)");
    let cpu = head.iter().position(|h| h == "CPU µs/request").unwrap();
    let node = rows.iter().find(|r| r[0] == "node-http").unwrap();
    assert!(node[cpu].ends_with("; 2 rounds, 50 %]"), "{node:?}");
    let t = table(&md, "### `/`");
    assert!(
        cell(&t, "node-http", "requests/s c100").ends_with("; 2 rounds, 50 %]"),
        "{t:?}"
    );
    assert!(!cell(&t, "server-hyper", "requests/s c100").contains(';'));
    assert!(md.contains("(the median of the rounds' ratios, with its 95 % interval; where fewer than 6 rounds pair up, the lowest and the highest ratio, with its rounds and the chance it holds the median: `[low–high; 3 rounds, 75 %]`)"), "{md}");
    assert!(md.contains(" **Too few rounds for 95 %:** 16 of the run's 88 intervals (in 2 of its 11 steps) are over fewer than 6 rounds, too few for a 95 % interval: 16 over 2 rounds, which hold the median 50 % of the time. Such an interval is the lowest and the highest round, and its brackets say its rounds and that chance (`[low–high; 2 rounds, 50 %]`)"), "{md}");
    let (_, findings) = md.split_once("## Findings\n\n").unwrap();
    let finding = findings.lines().next().unwrap();
    assert!(
        finding.contains(", min–max of 2 rounds, 50 %, too few for a 95 % interval: each round's ratio is a lower bound (the load tool's limit), so the ratio is, 50 % of the time, at least 3.48)"),
        "{finding}"
    );
    assert!(!finding.contains("95 % CI"), "{finding}");
    let svg = svg_string(&r);
    well_formed(&svg).unwrap();
    assert!(
        svg.contains(r#"<path class="whisker below-level""#),
        "{svg}"
    );
    assert!(svg.contains("dashed: too few rounds for a 95 % interval, min–max of 2 rounds, 50 %"));
    assert!(
        svg.contains("requests/s (min–max of 2 rounds, 50 %: "),
        "{svg}"
    );
    // The others' whiskers are 95 % intervals, and their legend line says so.
    assert!(svg.contains("95 % interval of the median over the rounds"));
    assert!(svg.contains("requests/s (95 % CI: "), "{svg}");
    // Every server cut to 3 rounds: no whisker, legend or finding says 95 %.
    let three = first_rounds(&load("results-e3-rounds.json"), 3, None);
    let svg = svg_string(&three);
    assert!(!svg.contains("95 % interval of the median"), "{svg}");
    assert!(!svg.contains("95 % CI"), "{svg}");
    assert!(svg.contains("dashed: too few rounds for a 95 % interval, min–max of 3 rounds, 75 %"));
    let md = markdown(&three);
    assert!(!md.contains("95 % CI"), "{md}");
    assert!(
        md.contains("**Too few rounds for 95 %:** 88 of the run's 88 intervals"),
        "{md}"
    );
    let (_, rows) = table(&md, "## `/`");
    assert!(
        rows.iter().all(|r| r[2].contains("; 3 rounds, 75 %]")),
        "{rows:?}"
    );
}

/// The published E4 (node-http's steps): the probe's p99 beside `/api/sync` counts its 3
/// rounds without an answer at their bound, and the chart draws it with `≥`, says why in
/// its tooltip and has a legend line for it.
#[test]
fn a_probe_without_an_answer_is_drawn_as_a_lower_bound() {
    let r = load("results-e4-rounds.json");
    let svg = svg_string(&r);
    well_formed(&svg).unwrap();
    assert!(svg.contains("node-http, sync: p50 547 ms, p90 547 ms, p95 547 ms, p99 500 ms, max 547 ms; p99 at least 500 ms: the probe got no answer in 3 of its 6 rounds"), "{svg}");
    assert_eq!(svg.matches(r#"<text class="at-least""#).count(), 1);
    assert!(svg.contains("p99 a lower bound: the probe got no answer in some rounds"));
}

/// Every results file of an experiment run in docs/results, in the test data, and in the
/// dated note of the runs with timelines.
fn every_results_file() -> Vec<PathBuf> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        crate_dir.join("../../docs/results"),
        crate_dir.join("tests/data"),
        crate_dir.join("tests/data/runs-2026-12-01"),
        crate_dir.join(TIMED),
    ] {
        let mut found: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter(|p| !bench_report::is_other_results_file(p))
            .collect();
        found.sort();
        out.extend(found);
    }
    out
}

/// Where the runs with timelines are (their dated note, 2026-12-04).
const TIMED: &str = "../../docs/notes/2026-12-04-noise/a";

/// No text of any chart overlaps another or leaves its drawing (`bench_chart::draw::check`),
/// in every chart of every results file: wide and narrow as the page holds them (a run with
/// timelines: its timeline chart too), and as the SVG file beside it draws them.
#[test]
fn no_text_of_any_chart_overlaps_another_or_leaves_its_drawing() {
    let files = every_results_file();
    assert!(files.len() >= 20, "{files:?}");
    let mut bad = Vec::new();
    let mut checked = 0;
    for f in &files {
        let r = Results::load(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let page = html(&[Doc {
            results: r.clone(),
            href: None,
        }]);
        let (page, file) = (page_drawings(&page), file_drawings(&svg_string(&r)));
        // The file holds the page's charts, wide, but for the timeline (the page's alone).
        let wide = page
            .iter()
            .filter(|(w, _)| w.starts_with("chart wide") && !w.starts_with("chart wide timeline"))
            .count();
        assert_eq!(file.len(), wide, "{name}");
        let file = file.into_iter().map(|d| ("file".into(), d));
        for (what, d) in page.into_iter().chain(file) {
            checked += 1;
            for p in problems(&d) {
                bad.push(format!("{name} {what} ({} px): {p}", d.width));
            }
        }
    }
    assert!(checked > 300, "{checked}");
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// A run with timelines: one timeline chart in its experiment's section (the newest run's),
/// of the step of the first finding (`/` c100, server-prebuilt) when it has timelines, else
/// of the first server's that has; its caption the markdown's line under the tables.
#[test]
fn a_run_with_timelines_has_one_timeline_chart_and_its_caption_in_the_markdown() {
    let base = load("results-e3-rounds.json");
    // Only node-http's step has timelines: it is drawn.
    let node = with_timelines(base.clone(), "node-http", "/", "c100", None);
    let t = timeline_figure(&html(&[Doc {
        results: node.clone(),
        href: None,
    }]));
    assert_eq!(t.len(), 1);
    assert!(
        t[0].contains("E3 / c100: node-http, each round&#39;s measured window in 0.5 s intervals"),
        "{}",
        t[0]
    );
    // The finding's step has them too: it is drawn instead.
    let both = with_timelines(node, "server-prebuilt", "/", "c100", Some(3));
    let md = markdown(&both);
    let line = md
        .lines()
        .find(|l| l.starts_with("**Timeline**"))
        .unwrap_or_else(|| panic!("no timeline line:\n{md}"));
    let st = &both.servers[1].steps[0];
    assert_eq!(
        (both.servers[1].name.as_str(), st.step.as_str()),
        ("server-prebuilt", "c100")
    );
    let caption = bench_chart::timeline::caption(&Dips::of(st).unwrap());
    assert_eq!(
        line,
        format!("**Timeline** of `/` c100, server-prebuilt: {caption}")
    );
    assert!(
        caption.starts_with(
            "1 of 80 intervals was a dip (10 % below its round's median); none of the 10 rounds was"
        ),
        "{caption}"
    );
    // Under the experiment's tables, before the resources.
    let at = |s: &str| md.find(s).unwrap_or_else(|| panic!("no {s:?}"));
    assert!(
        at("**Timeline**") > at("| server-prebuilt |") && at("**Timeline**") < at("## Resources")
    );
    // Two runs with timelines: one chart, the newest run's, with one line per round and the dip.
    let mut older = both.clone();
    older.header.started_utc = "2026-12-01T00:00:00Z".into();
    let page = html(&[
        Doc {
            results: older,
            href: None,
        },
        Doc {
            results: both.clone(),
            href: None,
        },
    ]);
    let t = timeline_figure(&page);
    assert_eq!(t.len(), 1, "{t:?}");
    let newest = both.file_name().trim_end_matches(".json").to_string();
    let article = &page[page
        .find(&format!("<article class=\"run\" id=\"{newest}\""))
        .unwrap()..];
    let article = &article[..article.find("</article>").unwrap()];
    assert!(article.contains(&t[0]));
    for svg in t[0].split("</svg>").filter(|s| s.contains("<svg")) {
        assert_eq!(svg.matches("<polyline class=\"round\"").count(), 10);
        assert_eq!(svg.matches("<g class=\"dip\"").count(), 1);
        assert!(svg.contains("server-prebuilt"));
    }
    // The findings' headline chart is still the experiment's first bar chart.
    assert!(!page[..page.find("<section class=\"experiment\"").unwrap()].contains("timeline"));
}

/// The published runs predate timelines: no timeline chart on their page, no line in their
/// markdown.
#[test]
fn the_published_runs_have_no_timeline() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/results");
    let docs: Vec<Doc> = every_results_file()
        .into_iter()
        .filter(|f| f.starts_with(&root))
        .map(|f| Doc {
            results: Results::load(&f).unwrap(),
            href: None,
        })
        .collect();
    assert!(docs.len() >= 7);
    assert!(
        docs.iter()
            .all(|d| !markdown(&d.results).contains("**Timeline**"))
    );
    assert_eq!(timeline_figure(&html(&docs)), Vec::<String>::new());
}

/// Every timeline `<figure>` of a page.
fn timeline_figure(page: &str) -> Vec<String> {
    page.split("<figure class=\"chart\" data-chart=\"timeline\">")
        .skip(1)
        .map(|f| f[..f.find("</figure>").unwrap()].to_string())
        .collect()
}

/// The timeline chart marks the intervals and the rounds `Dips::of` counts, no more and no
/// fewer, in every step of the recorded run with timelines.
#[test]
fn the_timeline_marks_the_dips_and_low_rounds_that_dips_counts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(TIMED);
    let mut steps = 0;
    for f in fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        let r = Results::load(&f).unwrap();
        for st in r.servers.iter().flat_map(|s| &s.steps) {
            let Some(dips) = Dips::of(st) else { continue };
            let rounds: Vec<(u32, &Timeline)> = st
                .repeats
                .iter()
                .filter_map(|run| Some((run.round?, run.timeline.as_ref()?)))
                .collect();
            let c = TimelineChart::new(String::new(), &rounds, &dips).unwrap();
            let marked = c.rounds.iter().flat_map(|l| &l.points).filter(|p| p.2);
            assert_eq!(marked.count(), dips.dips, "{} {}", f.display(), st.step);
            let drawn: usize = c.rounds.iter().map(|l| l.points.len()).sum();
            assert_eq!((c.rounds.len(), drawn), (dips.repeats, dips.intervals));
            let low = c.rounds.iter().filter(|l| l.low).count();
            assert_eq!(low, dips.low_repeats, "{} {}", f.display(), st.step);
            steps += 1;
        }
    }
    assert!(steps >= 10, "{steps}");
}
