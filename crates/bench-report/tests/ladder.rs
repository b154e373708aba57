//! The report of a ladder of offered rates (E7) from recorded runs (`tests/data/results-e7.json`,
//! `results-e7-rounds.json`): its tables of rungs, capacities and brackets, its marks, its
//! charts against the offered rate (the findings' pair, the Rust variants, the peers) and
//! their bands, and its ratios to the ceiling.

use bench_report::{Doc, html, markdown, svg_string};

mod common;

use common::{cell, first_round, first_rounds, load, table, texts, well_formed};

/// A recorded quick E7 run of every server (`results-e7.json`: `bench run e7 --quick`,
/// 2026-12-01, on a machine busy with other builds, so every figure is marked ‡).
#[test]
fn e7_tables_have_a_column_per_rung_and_each_servers_saturation() {
    let r = load("results-e7.json");
    let md = markdown(&r);
    let head = [
        "Server",
        "Analogue of",
        "Capacity, req/s",
        "Searched between",
        "p99 ≤ 10 ms up to",
        "r1k",
        "r10k",
        "r40k",
        "r120k",
    ];
    for endpoint in ["/hello", "/api/hello"] {
        let t = table(
            &md,
            &format!("## `{endpoint}`: p99 ms · server CPU µs per request, at each offered rate"),
        );
        assert_eq!(t.0, head);
        // A row per server that ran the endpoint: the peers ran /hello only.
        let rows: Vec<&str> = t.1.iter().map(|r| r[0].as_str()).collect();
        let ran: Vec<&str> = r
            .servers
            .iter()
            .filter(|s| s.steps.iter().any(|st| st.endpoint == endpoint))
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(rows, ran, "{endpoint}");
        assert_eq!(rows.len(), if endpoint == "/hello" { 12 } else { 6 });
        for s in &r.servers {
            let Some(row) = t.1.iter().find(|row| row[0] == s.name) else {
                continue;
            };
            for (id, got) in head[5..].iter().zip(&row[5..]) {
                let want = match s
                    .steps
                    .iter()
                    .find(|st| st.endpoint == endpoint && st.step == *id)
                {
                    // Above the rung it stopped at: not run.
                    None => "—".to_string(),
                    Some(st) => {
                        let m = st.median.as_ref().unwrap();
                        format!(
                            "{} · {}{}",
                            bench_report::format::ms(m.latency_us.p99.unwrap() as f64),
                            bench_report::format::cpu(m.cpu_us_per_request.unwrap()),
                            if m.disturbed { " ‡" } else { "" }
                        )
                    }
                };
                assert_eq!(got, &want, "{} {endpoint} {id}", s.name);
            }
            // Its capacity with its interval, and the bracket the search narrowed.
            let sus = bench_model::sustainable::sustained(&s.steps, endpoint).unwrap();
            let cap = bench_model::verdict::capacity::Capacity::of(&s.steps, endpoint)
                .map_or("n/a".to_string(), |c| c.text(bench_model::stats::thousands));
            assert_eq!(row[2].trim_end_matches([' ', '‡', '†']), cap);
            assert_eq!(row[3], sus.bracket());
        }
    }
    let t = table(
        &md,
        "## `/hello`: p99 ms · server CPU µs per request, at each offered rate",
    );
    assert_eq!(cell(&t, "server-hyper", "r1k"), "3.98 · 81.92 ‡");
    assert_eq!(cell(&t, "server-hyper", "r120k"), "—");
    // Held at 10k, not at 40k (this fixture has no search): the capacity between them with
    // its interval, the bracket, and the highest rate held with a p99 a user does not notice.
    assert_eq!(
        cell(&t, "server-hyper", "Capacity, req/s"),
        "19,930 [7,406–54,176] ‡",
        "one round a rung: a wide interval"
    );
    assert_eq!(
        cell(&t, "server-hyper", "Searched between"),
        "held 10,000, not held 40,000"
    );
    assert_eq!(cell(&t, "server-hyper", "p99 ≤ 10 ms up to"), "1,000");
    // Not held at the lowest rate.
    // Not held at the lowest rate tried: at most a little above it.
    assert_eq!(cell(&t, "tornado", "Capacity, req/s"), "≤ 1,313");
    assert_eq!(
        cell(&t, "tornado", "Searched between"),
        "not held at 1,000, the lowest rate"
    );
    assert_eq!(cell(&t, "tornado", "p99 ≤ 10 ms up to"), "none");
    // The achieved rate with its share of the offered one; the tail from the intended send
    // time beside the one from the actual send. The other tables name only the rung.
    let t = table(&md, "## `/hello`: requests/s achieved at each offered rate");
    assert_eq!(cell(&t, "server-prebuilt", "r40k"), "39,241 (98 %) ‡");
    assert_eq!(
        cell(&t, "server-prebuilt", "Capacity, req/s"),
        "69,564 [29,733–164,391] ‡"
    );
    let t = table(
        &md,
        "## `/hello`: p99.9 ms from the intended send time · from the actual send",
    );
    assert_eq!(cell(&t, "server-hyper", "r1k"), "5.99 · 5.99 ‡");
    // No bar-chart tables of the closed-loop experiments.
    assert!(!md.contains("req/s r1k"), "{md}");
}

#[test]
fn e7_marks_invalid_and_tool_bound_rungs_and_a_ladder_that_never_stopped() {
    let mut r = load("results-e7.json");
    let hyper = &mut r.servers[0];
    assert_eq!(hyper.name, "server-hyper");
    // r10k on /hello invalid (it stopped the ladder), r1k on /api/hello tool-bound, and
    // /api/hello's saturation taken away: it kept up with every rung it ran.
    hyper
        .steps
        .retain(|st| !(st.endpoint == "/hello" && st.step == "r40k"));
    let st = hyper
        .steps
        .iter_mut()
        .find(|st| st.endpoint == "/hello" && st.step == "r10k")
        .unwrap();
    st.valid = false;
    st.invalid_reason = Some("the load tool was the limit at this rate (…)".into());
    for st in hyper
        .steps
        .iter_mut()
        .filter(|st| st.endpoint == "/api/hello")
    {
        st.saturation = None;
        if st.step == "r1k" {
            st.median.as_mut().unwrap().tool_bound = true;
        }
    }
    let md = markdown(&r);
    let t = table(
        &md,
        "## `/hello`: p99 ms · server CPU µs per request, at each offered rate",
    );
    assert_eq!(cell(&t, "server-hyper", "r10k"), "invalid");
    // Held 1,000 in its one round: a lower bound, and one round cannot put it at 1,000.
    assert_eq!(cell(&t, "server-hyper", "Capacity, req/s"), "≥ 757 ‡");
    assert_eq!(
        cell(&t, "server-hyper", "Searched between"),
        "no valid run at 10,000"
    );
    let t = table(
        &md,
        "## `/api/hello`: p99 ms · server CPU µs per request, at each offered rate",
    );
    assert!(cell(&t, "server-hyper", "r1k").ends_with(" †‡"));
    // Its lowest rung was the tool's (†): that rung says nothing of the server, and its
    // capacity comes from the runs of the rungs above it (held 10k, not 40k); the search's
    // ladder, read rung by rung, stopped there.
    assert_eq!(
        cell(&t, "server-hyper", "Capacity, req/s"),
        "19,930 [7,406–54,176]"
    );
    assert_eq!(
        cell(&t, "server-hyper", "Searched between"),
        "the load tool's limit at 1,000"
    );
    assert!(
        md.contains(
            "## Invalid steps\n\n- server-hyper `/hello` r10k: the load tool was the limit"
        )
    );
    let svg = svg_string(&r);
    well_formed(&svg).unwrap();
    assert!(
        svg.contains(">✕</text>"),
        "the invalid rung is marked on the charts"
    );
    assert!(svg.contains("† the load generator was ≥ 90 % busy"));
    // Where the generator's own limit lies, said once.
    assert!(
        md.contains("The load generator itself was the limit from 1,000 requests/s"),
        "{md}"
    );
}

#[test]
fn e7_charts_are_latency_and_cpu_against_the_offered_rate() {
    let r = load("results-e7.json");
    let svg = svg_string(&r);
    well_formed(&svg).unwrap();
    let texts = texts(&svg);
    // Per endpoint: p99 (first), CPU per request, p50 and p99.9 against the offered rate;
    // none of the closed-loop experiments' bar charts.
    for endpoint in ["/hello", "/api/hello"] {
        for title in [
            "Latency against the offered rate: p99 (from each request&#39;s intended send time)",
            "Server CPU time per request against the offered rate",
            "p50 latency against the offered rate (from each request&#39;s intended send time)",
            "p99.9 latency against the offered rate (from each request&#39;s intended send time)",
        ] {
            let want = format!("{title} · {endpoint}");
            assert!(texts.contains(&want), "no {want:?} in {texts:?}");
        }
    }
    assert!(!svg.contains("class=\"bar\""));
    assert!(!texts.iter().any(|t| t.starts_with("Requests per second")));
    // The servers split: the findings' pair first (on /hello, where both ran), then the
    // Rust variants, then the peers; /api/hello, which no peer ran, the Rust variants alone.
    let pair = "the findings&#39; server-prebuilt and node-http";
    assert_eq!(texts.iter().filter(|t| *t == pair).count(), 4, "{texts:?}");
    assert_eq!(
        texts.iter().filter(|t| *t == "Rust variants").count(),
        8,
        "{texts:?}"
    );
    assert_eq!(texts.iter().filter(|t| *t == "peers").count(), 4);
    for axis in [
        "↑ p99 latency, log scale (less is better)",
        "↑ CPU µs/request, log scale (less is better)",
        "offered rate, requests/s (log scale) →",
        "100 ms: the keep-up limit",
        "1k",
        "10k",
        "100k",
    ] {
        assert!(texts.iter().any(|t| t == axis), "{axis:?} in {texts:?}");
    }
    // The keep-up limit is a line the legend names, never a label over the lines.
    assert_eq!(
        texts
            .iter()
            .filter(|t| *t == "100 ms: the keep-up limit")
            .count(),
        2
    );
    // Every server named above its panel; a point per measured rung, figure and panel it is
    // drawn in (the pair's twice on /hello), each with its tooltip; a hollow marker per
    // saturation and panel, and one in each chart's legend.
    for s in &r.servers {
        assert!(texts.iter().any(|t| t == &s.name), "{}", s.name);
    }
    let panels = |s: &bench_model::results::ServerResult, endpoint: &str| {
        if endpoint == "/hello" && ["server-prebuilt", "node-http"].contains(&s.name.as_str()) {
            2
        } else {
            1
        }
    };
    let drawn = |only_saturated: bool| -> usize {
        r.servers
            .iter()
            .flat_map(|s| s.steps.iter().map(move |st| (s, st)))
            .filter(|(_, st)| !only_saturated || st.saturation.is_some())
            .map(|(s, st)| panels(s, &st.endpoint))
            .sum()
    };
    assert_eq!(svg.matches("class=\"mark\"").count(), 4 * drawn(false));
    assert_eq!(
        svg.matches("fill=\"#FFFFFF\" stroke=").count(),
        4 * drawn(true) + 8
    );
    assert!(svg.contains("solid: a Rust variant; dashed: a peer"));
    // No two lines of a panel share a colour: the pair's two differ.
    let colour = |name: &str| {
        let at = svg
            .find(&format!("<title>{name}, 1,000 requests/s"))
            .unwrap();
        let rest = &svg[at..];
        let f = rest.find("fill=\"").unwrap() + 6;
        rest[f..f + 7].to_string()
    };
    assert_ne!(colour("server-prebuilt"), colour("node-http"));
    // A closed-loop run has no charts against the rate.
    assert!(!svg_string(&load("results-e3.json")).contains("against the offered rate"));
    // The page: E7's section, with its charts, each wide and narrow.
    let page = html(&[Doc {
        results: r,
        href: None,
    }]);
    assert!(page.contains("<section class=\"experiment\" id=\"e7\">"));
    for id in ["latency-rate", "cpu-rate", "p50-rate", "p999-rate"] {
        for class in ["wide", "narrow"] {
            assert_eq!(
                page.matches(&format!("<svg class=\"chart {class}\" data-chart=\"{id}\""))
                    .count(),
                2,
                "{id} {class}"
            );
        }
    }
    // And the first, p99, the headline chart of its findings.
    assert_eq!(
        page.matches("<svg class=\"headline-chart wide\" data-chart=\"latency-rate\"")
            .count(),
        1
    );
}

/// A real E7 run in rounds (`results-e7-rounds.json`): each server's line in the charts has
/// the band of its rungs' 95 % intervals, said in the legend and in each point's tooltip; a
/// run of one round has none.
#[test]
fn a_ladder_in_rounds_draws_each_lines_interval_as_a_band() {
    let r = load("results-e7-rounds.json");
    let svg = svg_string(&r);
    well_formed(&svg).unwrap();
    // Four charts (p99, CPU, p50, p99.9), each of two panels of three lines (the findings'
    // pair and the ceiling; the Rust variants and the ceiling), a band per line: every
    // server ran at least two rungs with six rounds.
    assert_eq!(r.servers.len(), 4);
    assert_eq!(
        svg.matches("<polygon class=\"band\"").count(),
        4 * 6,
        "bands"
    );
    assert!(svg.contains("band: the 95 % interval of the median over the rounds"));
    // node-http's p99 at 10,000 requests/s, as the table gives it: 23.54 ms, 1.68–72.96.
    assert!(
        svg.contains("node-http, 10,000 requests/s offered: p99 23.5 ms"),
        "{svg}"
    );
    assert!(svg.contains("p99 23.5 ms, 9,983 achieved; 95 % CI: 1.68 ms–73 ms"));
    // Six rounds at every rung: no band below the level.
    assert!(!svg.contains("below-level"));
    // One round: no interval, no band, no legend line.
    let one = first_round(&r);
    let svg = svg_string(&one);
    assert!(!svg.contains("class=\"band\""));
    assert!(!svg.contains("band: the 95 % interval"));
}

/// At an offered rate the ceiling is the yardstick of CPU per request and of the tail: each
/// server's CPU per request, p99 and p99.9 over the ceiling's at the same rung and round.
#[test]
fn a_ladder_against_the_ceiling_compares_cpu_and_the_tail_at_every_rate() {
    let md = markdown(&load("results-e7-rounds.json"));
    let t = table(&md, "### `/hello`");
    assert_eq!(
        t.0[..4],
        ["Server", "CPU/request r1k", "p99 r1k", "p99.9 r1k"]
    );
    assert_eq!(t.0.len(), 1 + 3 * 3);
    assert!(!t.0.iter().any(|h| h.starts_with("requests/s")));
    assert_eq!(
        cell(&t, "server-prebuilt", "CPU/request r40k"),
        "1.06 [0.98–1.20]"
    );
    assert_eq!(cell(&t, "node-http", "p99 r10k"), "39.07 [3.70–138.18]");
    assert!(md.contains("the offered rate sets every server's requests/s while it keeps up"));
    // A closed-loop run in rounds keeps requests/s and CPU per request.
    let md = markdown(&load("results-e3-rounds.json"));
    let t = table(&md, "### `/`");
    assert_eq!(t.0, ["Server", "requests/s c100", "CPU/request c100"]);
}

/// E7's bands from too few rounds (the run cut to 3 rounds; a searched rate has 2 or 3 of its
/// own) are drawn lighter and dashed, with their own legend line and tooltips, never as 95 %
/// intervals; cut for one server, the others keep theirs.
#[test]
fn a_band_from_too_few_rounds_is_drawn_apart_and_said() {
    let full = load("results-e7-rounds.json");
    let r = first_rounds(&full, 3, None);
    let svg = svg_string(&r);
    well_formed(&svg).unwrap();
    assert_eq!(
        svg.matches(r#"<polygon class="band below-level""#).count(),
        4 * 6,
        "bands below the level"
    );
    assert!(!svg.contains(r#"<polygon class="band""#));
    assert!(!svg.contains("band: the 95 %"));
    assert!(svg.contains(
        "light, dashed band: too few rounds for a 95 % interval, min–max of 3 rounds, 75 %"
    ));
    assert!(
        svg.contains("achieved; min–max of 3 rounds, 75 %: "),
        "{svg}"
    );
    assert!(!svg.contains("95 % CI"));
    // One server cut: its band apart, the others' at 95 %, both said.
    let one = first_rounds(&full, 2, Some("node-http"));
    let svg = svg_string(&one);
    assert_eq!(
        svg.matches(r#"<polygon class="band below-level""#).count(),
        4,
        "{svg}"
    );
    assert_eq!(svg.matches(r#"<polygon class="band""#).count(), 4 * 6 - 4);
    assert!(svg.contains("band: the 95 % interval of the median over the rounds"));
    // The paragraph on how sure counts them, and names the searched rates among them.
    let mut searched = one.clone();
    let node = searched
        .servers
        .iter_mut()
        .find(|s| s.name == "node-http")
        .unwrap();
    node.steps[2].searched_rounds = Some(3);
    let md = markdown(&searched);
    assert!(md.contains("**Too few rounds for 95 %:** 24 of the run's 96 intervals (in 3 of its 12 steps; 1 of them rates the search for the sustainable rate added, each measured in rounds of its own) are over fewer than 6 rounds, too few for a 95 % interval: 24 over 2 rounds, which hold the median 50 % of the time."), "{md}");
    assert!(svg.contains(
        "light, dashed band: too few rounds for a 95 % interval, min–max of 2 rounds, 50 %"
    ));
}
