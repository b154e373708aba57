//! The report of a results file as a [`Document`]: a header (experiment, date, machine, git
//! revision, tool and the exact flags of a step, the command; a banner when the run is
//! partial; a line naming the servers whose code changed since the run, given the workspace
//! to ask), the findings (a sentence per comparison the experiment declares, computed from
//! the figures: [`findings`](super::findings)), a sentence on which figures are the load
//! tool's limit rather than the server's and one on the machine's, then the tables the
//! experiment declares ([`Shown::tables`](bench_model::experiment::Shown), shaped like its article's;
//! a tool-bound step's requests/s marked `†`), then resources (the tool's CPU beside the
//! server's), spread, invalid steps and the tools' caveats, which every report has (see the
//! [report](super) module for what each table holds).

use bench_model::sustainable;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use bench_model::experiment::{
    At, BASELINE, Charts, Measure, PROBE_ENDPOINT, TFB_PIPELINE, Tables,
};
use bench_model::results::{
    CEILING, Interference, Interval, Intervals, Results, Run, SOCKET_ERRORS, ServerResult,
    StepResult,
};
use bench_model::rules::{OTHER_CPU_LIMIT, SERVER_WAIT_LIMIT, STEAL_LIMIT};

use super::model::{Block, Cell, Document, Marks, Table};
use super::stale::staleness;
use crate::format::thousands;
use crate::read::{disturbed_steps, endpoints, find, shown, step_ids};

/// The markdown report of `r`, made without a repository to ask whether its servers' code
/// changed since (as [`markdown_at`] with `None`).
pub fn markdown(r: &Results) -> String {
    markdown_at(r, None)
}

/// The markdown report of `r`; with the workspace `root`, it opens with the servers whose
/// code changed since the run ([`stale`](super::stale)).
pub fn markdown_at(r: &Results, root: Option<&Path>) -> String {
    document(r, root).markdown()
}

/// The report of `r`; with the workspace `root`, it says which servers' code changed since.
pub(crate) fn document(r: &Results, root: Option<&Path>) -> Document {
    let mut d = header(r);
    d.changed = root.and_then(|root| staleness(r, root).line());
    // An A/A pair that differed says this run's precision before anything else.
    d.notice = aa_flag(r);
    let found = super::findings::sentences(r);
    if !found.is_empty() {
        d.push(Block::Heading("Findings".to_string()));
        d.push(Block::List(found));
    }
    tool_limit(&mut d, r);
    machine_limit(&mut d, r);
    how_sure(&mut d, r);
    against_ceiling(&mut d, r);
    let endpoints = endpoints(r);
    for t in shown(r).tables {
        match *t {
            Tables::PerEndpoint(decl) => {
                for endpoint in &endpoints {
                    let steps = step_ids(r, endpoint);
                    let mut cols = Vec::new();
                    for c in decl {
                        let at: &[String] = match c.at {
                            At::Each => &steps,
                            At::Last => &steps[steps.len().saturating_sub(1)..],
                        };
                        cols.extend(
                            at.iter().map(|s| {
                                Col::new(endpoint, s, format!("{} {s}", c.label), c.measure)
                            }),
                        );
                    }
                    d.push(Block::Heading(format!("`{endpoint}`")));
                    d.push(Block::Table(server_table(r, &cols)));
                }
            }
            Tables::StepByStep(decl) => {
                for endpoint in &endpoints {
                    let steps = step_ids(r, endpoint);
                    let mut cols = Vec::new();
                    for s in &steps {
                        for &(label, m) in decl {
                            let header = if steps.len() > 1 {
                                format!("{label} {s}")
                            } else {
                                label.to_string()
                            };
                            cols.push(Col::new(endpoint, s, header, m));
                        }
                    }
                    d.push(Block::Heading(format!("`{endpoint}`")));
                    d.push(Block::Table(server_table(r, &cols)));
                }
            }
            Tables::PerMeasure(decl) => {
                // The scenarios (one step per endpoint) as columns; the baseline (the probe
                // alone) is no scenario: it is in the probe's table.
                let steps: Vec<(&String, String)> = endpoints
                    .iter()
                    .flat_map(|e| step_ids(r, e).into_iter().map(move |s| (e, s)))
                    .filter(|(_, s)| s != BASELINE)
                    .collect();
                for &(title, m) in decl {
                    d.push(Block::Heading(title.to_string()));
                    let cols: Vec<Col> = steps
                        .iter()
                        .map(|(e, s)| Col::new(e, s, s.clone(), m))
                        .collect();
                    d.push(Block::Table(server_table(r, &cols)));
                }
            }
            Tables::Probe => probe_tables(&mut d, r),
            Tables::Tfb => tfb(&mut d, r, &endpoints),
            Tables::Verified => verified(&mut d, r),
            Tables::Rungs => ladder(&mut d, r, &endpoints),
        }
    }
    resources(&mut d, r);
    spread(&mut d, r);
    invalid(&mut d, r);
    caveats(&mut d, r);
    d
}

/// One column of a table of a row per server: its header, the step it reads, and what it
/// shows of the step's median run.
struct Col {
    endpoint: String,
    step: String,
    header: String,
    measure: Measure,
}

impl Col {
    fn new(endpoint: &str, step: &str, header: String, measure: Measure) -> Col {
        Col {
            endpoint: endpoint.to_string(),
            step: step.to_string(),
            header,
            measure,
        }
    }
}

/// Our figure of `measure` in `s`'s `run` of step `st` (`None`: not measured).
pub(crate) fn figure(s: &ServerResult, st: &StepResult, run: &Run, m: Measure) -> Option<String> {
    Some(match m {
        Measure::RequestsPerS => rps(run),
        Measure::MeanMs => format!("{:.2}", run.latency_us.mean? / 1000.0),
        Measure::P50Ms => ms(run.latency_us.p50?),
        Measure::P95Ms => ms(run.latency_us.p95?),
        Measure::P99Ms => ms(run.latency_us.p99?),
        Measure::KbPerS => thousands(run.transfer_bytes_per_s / 1024.0),
        Measure::BytesPerResponse => format!("{:.0}", run.bytes_per_response),
        Measure::RssBeforeAfterMb => {
            let first = s
                .steps
                .iter()
                .find(|x| x.endpoint == st.endpoint)
                .and_then(|x| x.median.as_ref())
                .and_then(|m| m.rss_kb)?;
            let end = run.rss_kb?;
            format!(
                "{:.1} → {:.1}",
                first.start as f64 / 1024.0,
                end.end as f64 / 1024.0
            )
        }
        Measure::ErrorRate => error_rate(run),
        Measure::SocketErrors => socket_errors(run),
        Measure::Errors => errors_cell(run),
    })
}

/// The cell of `s`'s step `(endpoint, step)`: `—` when it did not run it, `invalid`, `n/a`
/// when it has no median run, else what `show` makes of the step and its median run.
fn step_cell(
    s: &ServerResult,
    endpoint: &str,
    step: &str,
    show: impl FnOnce(&StepResult, &Run) -> Cell,
) -> Cell {
    match find(s, endpoint, step) {
        None => Cell::text("—"),
        Some(st) if !st.valid => Cell::invalid(st.invalid_reason.as_deref()),
        Some(st) => match &st.median {
            None => Cell::text("n/a"),
            Some(run) => show(st, run),
        },
    }
}

/// `[low–high]`, the interval of a step's median `m` over its rounds, written as the figure
/// is (`[low–high; 3 rounds, 75 %]` below 95 %: [`Interval::bracket`]); `None` for a measure
/// without one or a step of fewer than two rounds.
pub(crate) fn interval_text(st: &StepResult, m: Measure) -> Option<String> {
    let iv = st.intervals.as_ref()?;
    let (i, show): (_, fn(f64) -> String) = match m {
        Measure::RequestsPerS => (iv.requests_per_s?, thousands),
        Measure::P99Ms => (iv.p99_us?, |us| format!("{:.2}", us / 1000.0)),
        Measure::P95Ms => (iv.p95_us?, |us| format!("{:.2}", us / 1000.0)),
        Measure::P50Ms => (iv.p50_us?, |us| format!("{:.2}", us / 1000.0)),
        Measure::MeanMs => (iv.mean_us?, |us| format!("{:.2}", us / 1000.0)),
        Measure::KbPerS => (iv.transfer_bytes_per_s?, |b| thousands(b / 1024.0)),
        _ => return None,
    };
    Some(i.bracket(show))
}

/// A table of a row per server (its name and what it is the analogue of), a column per
/// `Col`; a requests/s column marks the figures the load tool or the machine may have set.
fn server_table(r: &Results, cols: &[Col]) -> Table {
    let mut t = Table::new(
        [("Server", false), ("Analogue of", false)]
            .map(|(h, f)| (h.to_string(), f))
            .into_iter()
            .chain(cols.iter().map(|c| (c.header.clone(), true))),
    );
    for s in &r.servers {
        let mut cells = vec![Cell::text(&s.name), Cell::text(analogue(s))];
        cells.extend(cols.iter().map(|c| {
            step_cell(s, &c.endpoint, &c.step, |st, run| {
                let mut text = figure(s, st, run, c.measure).unwrap_or_else(|| "n/a".into());
                if let Some(i) = interval_text(st, c.measure) {
                    text = format!("{text} {i}");
                }
                if c.measure == Measure::RequestsPerS {
                    Cell::marked(text, Marks::of(run))
                } else {
                    Cell::text(text)
                }
            })
        }));
        t.push(&s.name, cells);
    }
    t
}

/// E4's lesson and its remedy: for each server that ran a probe, the probe's requests/s,
/// p50 and p99 under each scenario's load, the baseline (the probe alone) first. A step where
/// the probe got no answer in some round has its p99 over every round, those at their lower
/// bound (`≥`, [`StepResult::probe_p99`]), and a line below the table that says how many
/// rounds were answered. Nothing when no step has a probe (files from before probes).
fn probe_tables(d: &mut Document, r: &Results) {
    let probed = |s: &ServerResult| {
        s.steps
            .iter()
            .any(|st| st.median.as_ref().is_some_and(|m| m.probe.is_some()))
    };
    if !r.servers.iter().any(probed) {
        return;
    }
    d.push(Block::Heading(format!(
        "The probe: `{PROBE_ENDPOINT}` beside each scenario's load"
    )));
    d.push(Block::Para(format!(
        "While each scenario's load runs, a probe of 1 connection (closed loop, the built-in \
         generator, pinned like the load) asks for `{PROBE_ENDPOINT}`, from a second after the \
         load's measured run starts to a second before it ends; `no load` is the probe alone \
         on the idle server. A blocked event loop stalls every other request: it shows here as \
         the probe's latency, and its remedy (`sync-offload`) as the probe's latency back near \
         the baseline."
    )));
    for s in r.servers.iter().filter(|s| probed(s)) {
        d.push(Block::Subheading(format!("`{}` ({})", s.name, analogue(s))));
        let (rate, p50) = (
            format!("`{PROBE_ENDPOINT}` requests/s"),
            format!("`{PROBE_ENDPOINT}` p50 ms"),
        );
        let mut t = Table::of(
            &["load on"],
            &[&rate, &p50, "p99 ms", "probe errors", "load requests/s"],
        );
        let mut unanswered = Vec::new();
        for st in &s.steps {
            let what = if st.step == BASELINE {
                "no load (baseline)".to_string()
            } else {
                format!("`{}`", st.endpoint)
            };
            let probe = st.median.as_ref().and_then(|m| m.probe.as_deref());
            // Over every round, one without an answer at its lower bound.
            let censored = st.probe_p99().filter(|p| st.valid && p.at_least());
            let p99 = |p: &Run| match &censored {
                Some(c) => format!("≥ {:.2}", c.median_us / 1000.0),
                None => p.latency_us.p99.map_or("n/a".into(), ms),
            };
            if let Some(c) = &censored {
                unanswered.push(format!(
                    "{what}: the probe {}; so its p99 is a lower bound (≥), and its p50 is over the rounds with an answer",
                    crate::findings::probe_answers(c)
                ));
            }
            let mut row = vec![Cell::text(what.clone())];
            let texts = |v: [String; 4]| v.map(Cell::text);
            match (st.valid, probe) {
                (false, _) => row.extend(std::iter::repeat_n(
                    Cell::invalid(st.invalid_reason.as_deref()),
                    4,
                )),
                (true, None) => row.extend(std::iter::repeat_n(Cell::text("n/a"), 4)),
                // No answer in the whole window, and no error: still pending when it stopped.
                (true, Some(p)) if p.requests == 0 => row.extend(texts([
                    rps(p),
                    format!("none answered in {:.0} s", p.duration_s),
                    if censored.is_some() {
                        p99(p)
                    } else {
                        "—".to_string()
                    },
                    errors_cell(p),
                ])),
                (true, Some(p)) => row.extend(texts([
                    rps(p),
                    p.latency_us.p50.map_or("n/a".into(), ms),
                    p99(p),
                    errors_cell(p),
                ])),
            }
            row.push(match (&st.median, st.step == BASELINE) {
                (_, true) => Cell::text("—"),
                (Some(m), false) if st.valid => Cell::text(rps(m)),
                (Some(_), false) => Cell::invalid(st.invalid_reason.as_deref()),
                (None, false) => Cell::text("n/a"),
            });
            t.push(&s.name, row);
        }
        d.push(Block::Table(t));
        if !unanswered.is_empty() {
            d.push(Block::Para(format!(
                "No answer in a round: {}.",
                unanswered.join("; ")
            )));
        }
    }
}

/// E6 in TechEmpower's shape: a table per test (plaintext, JSON), a row per server, its
/// requests/s at each concurrency (`†` where the load tool may have set the pace), its best
/// and the share of the best of all, and the errors.
fn tfb(d: &mut Document, r: &Results, endpoints: &[String]) {
    for endpoint in endpoints {
        let (test, how) = if endpoint == "/hello" {
            ("Plaintext", format!("pipelined {TFB_PIPELINE} deep"))
        } else {
            ("JSON", "no pipelining".to_string())
        };
        d.push(Block::Heading(format!(
            "{test} (`{endpoint}`, {how}): requests/s"
        )));
        let steps = step_ids(r, endpoint);
        let medians = |s| valid_medians(s, endpoint, &steps);
        let best_of_all = r
            .servers
            .iter()
            .flat_map(|s| medians(s).into_iter().flatten().map(|m| m.requests_per_s))
            .fold(0.0, f64::max);
        let mut figures: Vec<&str> = steps.iter().map(String::as_str).collect();
        figures.extend(["best", "% of best", "errors"]);
        let mut t = Table::of(&["Server", "Analogue of"], &figures);
        for s in &r.servers {
            let mut row = vec![Cell::text(&s.name), Cell::text(analogue(s))];
            for id in &steps {
                row.push(step_cell(s, endpoint, id, |_, m| {
                    Cell::marked(rps(m), Marks::of(m))
                }));
            }
            let runs = medians(s);
            let best = runs
                .iter()
                .flatten()
                .map(|m| m.requests_per_s)
                .fold(None, |b: Option<f64>, x| Some(b.map_or(x, |b| b.max(x))));
            row.push(Cell::text(best.map_or("n/a".into(), thousands)));
            row.push(Cell::text(match best {
                Some(b) if best_of_all > 0.0 => format!("{:.1} %", b / best_of_all * 100.0),
                _ => "n/a".into(),
            }));
            let errors: Vec<String> = runs
                .iter()
                .map(|run| run.map_or("—".into(), errors_cell))
                .collect();
            row.push(Cell::text(errors.join(" / ")));
            t.push(&s.name, row);
        }
        d.push(Block::Table(t));
    }
    d.push(Block::Para(
        "† the load tool set the pace of this figure, so the server may be faster; ‡ the machine did (other work, steal or CPU waits). Errors are per concurrency, in the columns' order.".to_string(),
    ));
}

/// A ladder of offered rates (E7), per endpoint: the table of rungs (`p99 ms · CPU µs per
/// request` at each offered rate, a row per server, its saturation beside its name), then the
/// achieved rate at each rung, then the tail (p99.9) from the intended send time beside the
/// one from the actual send, which a tool that omits the requests a stall delayed would show.
fn ladder(d: &mut Document, r: &Results, endpoints: &[String]) {
    let limit = bench_model::rules::KEEP_UP_P99.as_millis();
    let share = bench_model::rules::KEEP_UP_SHARE * 100.0;
    let opt_ms = |us: Option<u64>| us.map_or("n/a".to_string(), ms);
    for endpoint in endpoints {
        // The ladder's own rates; a searched rate is one server's, told in its Sustains cell.
        let rungs: Vec<String> = step_ids(r, endpoint)
            .into_iter()
            .filter(|id| {
                !r.servers
                    .iter()
                    .any(|s| find(s, endpoint, id).is_some_and(|st| st.searched_rounds.is_some()))
            })
            .collect();
        let served: Vec<&ServerResult> = r
            .servers
            .iter()
            .filter(|s| s.steps.iter().any(|st| &st.endpoint == endpoint))
            .collect();
        // The first table says why each ladder stopped; the others where.
        let table = |show: &dyn Fn(&Run) -> String, why: bool| {
            let rungs: Vec<&str> = rungs.iter().map(String::as_str).collect();
            let head: &[&str] = if why {
                &[
                    "Server",
                    "Analogue of",
                    "Capacity, req/s",
                    "Searched between",
                    "p99 ≤ 10 ms up to",
                ]
            } else {
                &["Server", "Analogue of", "Capacity, req/s"]
            };
            let mut t = Table::of(head, &rungs);
            for s in &served {
                let sus = sustainable::sustained(&s.steps, endpoint);
                let mut row = vec![
                    Cell::text(&s.name),
                    Cell::text(analogue(s)),
                    match crate::findings::capacity_read(s, endpoint, true) {
                        Some((text, marks)) => Cell::marked(text, marks),
                        None => Cell::text("n/a"),
                    },
                ];
                if why {
                    row.push(Cell::text(
                        sus.as_ref().map_or("n/a".into(), |x| x.bracket()),
                    ));
                    row.push(Cell::text(
                        sus.as_ref()
                            .and_then(|x| x.noticed)
                            .map_or("none".into(), |(rate, _)| thousands(rate)),
                    ));
                }
                row.extend(rungs.iter().map(|id| {
                    step_cell(s, endpoint, id, |_, m| Cell::marked(show(m), Marks::of(m)))
                }));
                t.push(&s.name, row);
            }
            Block::Table(t)
        };
        d.push(Block::Heading(format!(
            "`{endpoint}`: p99 ms · server CPU µs per request, at each offered rate"
        )));
        d.push(Block::Para(format!(
            "`rK` is an offered rate of K thousand requests/s. Each cell is the p99 latency, from \
             each request's intended send time, then the server's CPU time per request. A server \
             keeps up with a rate when it achieves at least {share:.0} % of it with a p99 of at \
             most {limit} ms, and holds it when it keeps up in the majority of its rounds; each \
             round's ladder stops at the first rate it cannot keep up with, so `—` is a rate no \
             round reached. **Capacity** is the rate the server keeps up with in half its runs, \
             with its 95 % interval: a probit fit of every run of every rung (kept up or not, \
             against the log of the rate), `≥` where the load tool was the limit above every \
             rate it held (docs/reading-results.md). Between the last ladder rate held (in \
             most rounds) and the first not held, `bench run` searches (halving the bracket, \
             each rate its own {search} rounds) until the two were within {bracket:.0} %, to \
             put runs where the capacity is; **Searched between** says that bracket, or why \
             the search stopped (held at the ladder's top, or the load tool's limit above it). \
             **p99 ≤ 10 ms up to**: the highest rate held with a p99 a user does not notice.",
            search = sustainable::search_rounds(r.repeat),
            bracket = (sustainable::BRACKET - 1.0) * 100.0,
        )));
        d.push(table(
            &|m| {
                format!(
                    "{} · {}",
                    opt_ms(m.latency_us.p99),
                    m.cpu_us_per_request
                        .map_or("n/a".to_string(), |c| format!("{c:.2}"))
                )
            },
            true,
        ));
        d.push(Block::Heading(format!(
            "`{endpoint}`: requests/s achieved at each offered rate"
        )));
        d.push(Block::Para(
            "The responses per second of the measured window, and their share of the rate \
             offered."
                .to_string(),
        ));
        d.push(table(
            &|m| match m.offered_requests_per_s {
                Some(o) if o > 0.0 => {
                    format!("{} ({:.0} %)", rps(m), m.requests_per_s / o * 100.0)
                }
                _ => rps(m),
            },
            false,
        ));
        d.push(Block::Heading(format!(
            "`{endpoint}`: p99.9 ms from the intended send time · from the actual send"
        )));
        d.push(Block::Para(
            "The first figure counts a request from when it was due, so a stall weighs in every \
             request it held back; the second from when it was sent, the figure of a tool that \
             waits for an answer before the next request (coordinated omission). `n/a`: the tool \
             reports no second figure (k6, oha)."
                .to_string(),
        ));
        d.push(table(
            &|m| {
                format!(
                    "{} · {}",
                    opt_ms(m.latency_us.p999),
                    opt_ms(m.latency_uncorrected_us.as_ref().and_then(|l| l.p999))
                )
            },
            false,
        ));
    }
    if let Some(rate) = generator_limit(r) {
        d.push(Block::Para(format!(
            "The load generator itself was the limit from {} requests/s (†: its thread busy, or \
             requests due that it never sent): no rung at or above that rate says anything of \
             a server, so a rate held up to it is a lower bound (`≥`). `cargo bench -p loadgen` \
             measures where that limit lies on a machine (crates/loadgen/README.md).",
            thousands(rate)
        )));
    }
    d.push(Block::Para(
        "† the load tool set the pace of this figure; ‡ the machine did (other work, steal or CPU waits).".to_string(),
    ));
}

/// The lowest offered rate at which a rung of any server was the load tool's
/// ([`sustainable::Held::Tool`]), if any.
fn generator_limit(r: &Results) -> Option<f64> {
    r.servers
        .iter()
        .flat_map(|s| {
            let rounds = sustainable::ladder_rounds(s.steps.iter());
            s.steps
                .iter()
                .filter(move |st| sustainable::held(st, rounds) == sustainable::Held::Tool)
        })
        .filter_map(sustainable::rate_of)
        .min_by(f64::total_cmp)
}

/// Each step's valid median run of `s` on `endpoint` (`None`: not run, invalid or empty).
fn valid_medians<'a>(
    s: &'a ServerResult,
    endpoint: &str,
    steps: &[String],
) -> Vec<Option<&'a Run>> {
    steps
        .iter()
        .map(|id| {
            find(s, endpoint, id)
                .filter(|st| st.valid)
                .and_then(|st| st.median.as_ref())
        })
        .collect()
}

/// What each server answered to one plain `GET` per endpoint before the load.
fn verified(d: &mut Document, r: &Results) {
    if r.servers.iter().all(|s| s.verified.is_empty()) {
        return;
    }
    d.push(Block::Heading(
        "Responses verified before the load (one plain `GET` each)".to_string(),
    ));
    let mut t = Table::of(
        &[
            "Server",
            "Endpoint",
            "Header fields",
            "Differs from the contract",
        ],
        &["Status", "Head B", "Body B"],
    );
    for s in &r.servers {
        for v in &s.verified {
            let cells = [
                s.name.clone(),
                v.endpoint.clone(),
                v.fields.join(", "),
                if v.notes.is_empty() {
                    "nothing".into()
                } else {
                    v.notes.join("; ")
                },
                v.status.map_or("-".into(), |c| c.to_string()),
                v.head_bytes.to_string(),
                v.body_bytes.to_string(),
            ];
            t.push(&s.name, cells.map(Cell::text).into());
        }
    }
    d.push(Block::Table(t));
}

/// The document's title, partial banner and header lines.
fn header(r: &Results) -> Document {
    let m = &r.header.machine;
    let mut lines: Vec<(&str, String)> = vec![
        (
            "Date",
            format!("{} to {}", r.header.started_utc, r.header.finished_utc),
        ),
        (
            "Machine",
            format!(
                "{}, {}, {} CPUs, {:.1} GiB",
                or_unknown(&m.hostname),
                or_unknown(&m.cpu_model),
                m.cpus,
                m.mem_total_kb as f64 / 1024.0 / 1024.0
            ),
        ),
        ("Kernel", or_unknown(&m.kernel).to_string()),
        (
            "Git",
            format!(
                "{}{}",
                r.header.git.revision.as_deref().unwrap_or("unknown"),
                match r.header.git.dirty {
                    Some(true) => " (with uncommitted changes)",
                    _ => "",
                }
            ),
        ),
    ];
    let version = r
        .header
        .versions
        .get("tool")
        .map(|v| format!(" ({v})"))
        .unwrap_or_default();
    lines.push(("Tool", format!("{}{version}", r.tool)));
    let mut header: Vec<(String, String)> =
        lines.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    if let Some(cmd) = r
        .servers
        .iter()
        .flat_map(|s| &s.steps)
        .find(|s| !s.tool_command.is_empty())
    {
        header.push((
            format!("Tool command ({} {})", cmd.endpoint, cmd.step),
            format!("`{}`", cmd.tool_command.join(" ")),
        ));
    }
    let mut more = vec![
        ("Command", format!("`{}`", r.header.command.join(" "))),
        (
            "Length",
            match r.seed {
                // Files from before rounds ran the servers in turn.
                None => format!(
                    "{}, {} repeat{} per step (the tables show the median)",
                    if r.quick { "quick" } else { "full" },
                    r.repeat,
                    if r.repeat == 1 { "" } else { "s" }
                ),
                Some(seed) => format!(
                    "{}, {} round{}, the servers of each step in a random order (seed {seed}), each cell on a fresh process (the tables show the median over the rounds)",
                    if r.quick { "quick" } else { "full" },
                    r.repeat,
                    if r.repeat == 1 { "" } else { "s" }
                ),
            },
        ),
        (
            "Pinning",
            match &r.pinning {
                Some(p) => format!(
                    "servers on CPU {}, load tool on CPU {}",
                    cpus(&p.server_cpus),
                    cpus(&p.load_cpus)
                ),
                None => "none".to_string(),
            },
        ),
        (
            "Target",
            match &r.target {
                Some(t) => format!("{t} (remote: no RSS or CPU sampling)"),
                None => "servers started by the harness on this machine".to_string(),
            },
        ),
    ];
    more.extend(r.notes.iter().map(|n| ("Note", n.clone())));
    header.extend(more.into_iter().map(|(k, v)| (k.to_string(), v)));
    Document {
        title: format!("{}: {}", r.experiment.to_uppercase(), r.title),
        partial: (!r.complete).then(|| {
            r.incomplete_reason
                .clone()
                .unwrap_or_else(|| "it did not finish".to_string())
        }),
        header,
        ..Document::default()
    }
}

/// The sentence that says how sure the figures are, when the run measured them in rounds
/// (files from before rounds have no intervals, and no such sentence); and, when any figure's
/// interval is over too few rounds for 95 % ([`few_rounds`]), how many are and what that means.
fn how_sure(d: &mut Document, r: &Results) {
    let Some(n) = r
        .steps()
        .filter_map(|(_, st)| st.intervals?.requests_per_s.map(|i| i.n))
        .max()
    else {
        return;
    };
    let seed = r.seed.map_or(String::new(), |s| format!(" (seed {s})"));
    let few = few_rounds(r).map_or(String::new(), |few| format!(" {few}"));
    let precision = aa_pairs(r);
    let precision = if precision.is_empty() {
        String::new()
    } else {
        format!(
            " **This run's precision**, from a server measured twice as two copies (an A/A pair, which should differ by nothing; each ratio the median of the rounds' ratios of the two copies' figures, with its interval, CPU per request being the server's own figure even when the load tool set the pace; † and ‡ count each copy's rounds whose pace the load tool set, or that the machine disturbed: a pair the tool set measures the tool's variation more than the server's): {}.",
            precision.join("; ")
        )
    };
    d.push(Block::Para(format!(
        "**How sure:** each figure is the median over the run's rounds (up to {n}: every server once per step in each, in a fresh random order{seed}, each on a fresh process), and `[low–high]` beside it is its 95 % confidence interval: the order statistics of the rounds, which hold the true median at least 95 % of the time whatever the figures' distribution. A finding's ratio is the median of the ratios of the two servers' figures in the same round, with its interval; one that holds 1.00 shows no difference at this run's precision.{few}{precision}"
    )));
}

/// Every interval of a step's figures, those it has.
fn each_interval(iv: &Intervals) -> impl Iterator<Item = Interval> {
    [
        iv.requests_per_s,
        iv.cpu_us_per_request,
        iv.p99_us,
        iv.mean_us,
        iv.p50_us,
        iv.p95_us,
        iv.p999_us,
        iv.transfer_bytes_per_s,
    ]
    .into_iter()
    .flatten()
}

/// How many of the intervals of `r`'s valid steps are over too few rounds for 95 % (E7's
/// searched rates, of 2 or 3 rounds of their own; a run of fewer than 6 rounds), and what
/// that means; `None` when none is.
fn few_rounds(r: &Results) -> Option<String> {
    let steps: Vec<(&StepResult, Vec<Interval>)> = r
        .steps()
        .filter(|(_, st)| st.valid)
        .filter_map(|(_, st)| Some((st, each_interval(st.intervals.as_ref()?).collect())))
        .collect();
    let all: usize = steps.iter().map(|(_, v)| v.len()).sum();
    let below: Vec<(&StepResult, Vec<Interval>)> = steps
        .iter()
        .map(|(st, v)| (*st, v.iter().copied().filter(|i| !i.at_level()).collect()))
        .filter(|(_, v): &(_, Vec<Interval>)| !v.is_empty())
        .collect();
    let count: usize = below.iter().map(|(_, v)| v.len()).sum();
    if count == 0 {
        return None;
    }
    // By rounds: how many intervals, and the coverage of each.
    let mut by_n: BTreeMap<usize, (usize, f64)> = BTreeMap::new();
    for i in below.iter().flat_map(|(_, v)| v) {
        let e = by_n.entry(i.n).or_insert((0, i.confidence));
        e.0 += 1;
    }
    let rounds: Vec<String> = by_n
        .iter()
        .map(|(n, (k, c))| {
            format!(
                "{k} over {n} round{}, which hold the median {} of the time",
                if *n == 1 { "" } else { "s" },
                bench_model::stats::coverage(*c)
            )
        })
        .collect();
    let searched = below
        .iter()
        .filter(|(st, _)| st.searched_rounds.is_some())
        .count();
    let searched = match searched {
        0 => String::new(),
        k if k == below.len() => {
            "; all of them rates the search for the sustainable rate added, each measured in rounds of its own".to_string()
        }
        k => format!(
            "; {k} of them rates the search for the sustainable rate added, each measured in rounds of its own"
        ),
    };
    let example = below[0].1[0];
    Some(format!(
        "**Too few rounds for 95 %:** {count} of the run's {all} intervals (in {} of its {} steps{searched}) are over fewer than 6 rounds, too few for a 95 % interval: {}. Such an interval is the lowest and the highest round, and its brackets say its rounds and that chance (`{}`): it is the range its rounds spanned, which misses the true median as often as that chance says it may (half the time for 2 rounds), so read its figure as a rough one.",
        below.len(),
        steps.len(),
        rounds.join("; "),
        Interval {
            low: 0.0,
            high: 1.0,
            ..example
        }
        .bracket(|x| if x == 0.0 { "low" } else { "high" }.to_string())
    ))
}

/// One step of an A/A pair: the server's name, its copy, and the step of each.
struct AaStep<'r> {
    name: &'r str,
    copy: &'r ServerResult,
    first: &'r StepResult,
    second: &'r StepResult,
}

/// Every step of every A/A pair of `r` (a server and its copy `NAME#2`) that both copies
/// measured validly.
fn aa_steps(r: &Results) -> Vec<AaStep<'_>> {
    let mut out = Vec::new();
    for copy in &r.servers {
        let Some(name) = copy.copy_of() else {
            continue;
        };
        let Some(first) = r.servers.iter().find(|s| s.name == name) else {
            continue;
        };
        for st in first.steps.iter().filter(|st| st.valid) {
            if let Some(second) = find(copy, &st.endpoint, &st.step).filter(|c| c.valid) {
                out.push(AaStep {
                    name,
                    copy,
                    first: st,
                    second,
                });
            }
        }
    }
    out
}

/// A figure of a run, as an A/A pair reads it.
type AaFigure = fn(&Run) -> Option<f64>;

/// The two figures an A/A pair is read on: requests/s, and CPU per request (the server's own
/// figure even in a round whose pace the load tool set).
const AA_FIGURES: [(&str, AaFigure); 2] = [
    ("requests/s", |m| Some(m.requests_per_s)),
    ("CPU per request", |m| m.cpu_us_per_request),
];

impl AaStep<'_> {
    /// `` `server-prebuilt` over `server-prebuilt#2` at `/` c100 ``.
    fn what(&self) -> String {
        format!(
            "`{}` over `{}` at `{}` {}",
            self.name, self.copy.name, self.first.endpoint, self.first.step
        )
    }

    /// Each figure's ratio, those both copies have in two rounds or more.
    fn ratios(&self) -> Vec<AaRatio> {
        AA_FIGURES
            .iter()
            .filter_map(|&(label, figure)| {
                let (x, interval) = self.first.paired_ratio(self.second, figure)?;
                let side = bench_model::results::aa_one_sided(
                    &self.first.paired_ratios(self.second, figure),
                );
                Some(AaRatio {
                    label,
                    x,
                    interval,
                    side,
                })
            })
            .collect()
    }

    /// `6/6 and 5/6` of each copy's rounds that `mark` holds for.
    fn counted(&self, mark: fn(&Run) -> bool) -> String {
        let count = |st: &StepResult| {
            format!(
                "{}/{}",
                st.repeats.iter().filter(|m| mark(m)).count(),
                st.repeats.len()
            )
        };
        format!("{} and {}", count(self.first), count(self.second))
    }
}

/// An A/A pair's ratio of one figure on one step.
struct AaRatio {
    /// The figure (`requests/s`).
    label: &'static str,
    /// The median of the rounds' ratios.
    x: f64,
    /// Its interval.
    interval: Interval,
    /// Whether the pair differed on it
    /// ([`aa_one_sided`](bench_model::results::aa_one_sided)).
    side: Option<bench_model::results::OneSided>,
}

/// `1.07× [1.01–1.24]`: a ratio and its interval ([`Interval::bracket`]).
fn times(x: f64, i: &Interval) -> String {
    format!("{x:.2}× {}", i.bracket(|v| format!("{v:.2}")))
}

/// What each A/A pair of `r` (a server and its copy `NAME#2`) says of the run's precision, a
/// line per step both measured in rounds: the copies' ratios of requests/s and of CPU per
/// request, each with its interval, the rounds, a figure on which every round (or enough of
/// them for the interval) fell on one side of 1.00, and how many of each copy's rounds the
/// load tool (`†`) and the machine (`‡`) set (`` `server-prebuilt` over `server-prebuilt#2`
/// at `/` c100: requests/s 1.07× [1.01–1.24] (all 6 rounds above 1), CPU per request 0.95×
/// [0.80–1.19], 6 rounds; † 6/6 and 6/6 rounds, ‡ 0/6 and 0/6 ``).
pub(crate) fn aa_pairs(r: &Results) -> Vec<String> {
    let mut out = Vec::new();
    for aa in aa_steps(r) {
        let ratios = aa.ratios();
        let Some(n) = ratios.first().map(|a| a.interval.n) else {
            continue;
        };
        let figures: Vec<String> = ratios
            .iter()
            .map(|a| {
                let side = a
                    .side
                    .map_or(String::new(), |s| format!(" ({})", s.rounds_text()));
                format!("{} {}{side}", a.label, times(a.x, &a.interval))
            })
            .collect();
        out.push(format!(
            "{}: {}, {n} rounds; {} {} rounds, {} {}",
            aa.what(),
            figures.join(", "),
            super::model::TOOL_MARK,
            aa.counted(Run::tool_set_pace),
            super::model::MACHINE_MARK,
            aa.counted(|m| m.disturbed),
        ));
    }
    out
}

/// The report's first words when an A/A pair of `r` differed (on some step, its requests/s
/// or CPU-per-request ratio's interval leaves out 1.00:
/// [`aa_one_sided`](bench_model::results::aa_one_sided)): a statement of this run's
/// precision, with the difference's size, since two copies of one binary should not differ.
/// `None` when every pair's intervals hold 1.00, or there is no pair. The markdown report
/// (right under its title), the page (atop the run's article) and `bench run`'s summary
/// (before its table) put it first. From the second publish's E3:
///
/// > **This run's own A/A pair differed:** `server-prebuilt` over `server-prebuilt#2` at `/`
/// > c100, requests/s 1.07× [1.01–1.24], all 6 rounds above 1 (the load tool set the pace,
/// > †, in 6/6 and 6/6 of their rounds): two copies of one binary differed by that much in
/// > this run, so differences of that size between servers in this run are not findings,
/// > whatever their intervals say.
pub fn aa_flag(r: &Results) -> Option<String> {
    let mut differed = Vec::new();
    let mut copies: Vec<&str> = Vec::new();
    for aa in aa_steps(r) {
        for a in aa.ratios() {
            let Some(side) = a.side else {
                continue;
            };
            let tool = if aa
                .first
                .repeats
                .iter()
                .chain(&aa.second.repeats)
                .any(Run::tool_set_pace)
            {
                format!(
                    " (the load tool set the pace, {}, in {} of their rounds)",
                    super::model::TOOL_MARK,
                    aa.counted(Run::tool_set_pace)
                )
            } else {
                String::new()
            };
            differed.push(format!(
                "{}, {} {}, {}{tool}",
                aa.what(),
                a.label,
                times(a.x, &a.interval),
                side.rounds_text()
            ));
            if !copies.contains(&aa.copy.name.as_str()) {
                copies.push(&aa.copy.name);
            }
        }
    }
    if differed.is_empty() {
        return None;
    }
    let (pair, size) = match (copies.len(), differed.len()) {
        (1, 1) => ("pair", "that size"),
        (1, _) => ("pair", "those sizes"),
        _ => ("pairs", "those sizes"),
    };
    Some(format!(
        "**This run's own A/A {pair} differed:** {}: two copies of one binary differed by that much in this run, so differences of {size} between servers in this run are not findings, whatever their intervals say.",
        differed.join("; ")
    ))
}

/// Every server's requests/s and CPU per request over the ceiling's in the same round, per
/// step (`0.94 [0.90–0.98]`, or `0.94 [0.90–0.98; 3 rounds, 75 %]` where too few rounds pair
/// up for 95 %): the figures that carry across runs and days. At an offered rate
/// (E7), where the rate sets the requests/s of every server that keeps up, CPU per request,
/// p99 and p99.9 instead. Nothing for a run without the ceiling in its rounds.
fn against_ceiling(d: &mut Document, r: &Results) {
    type Figure = fn(&Run) -> Option<f64>;
    let ratio = |x: f64| format!("{x:.2}");
    let text = |p: Option<(f64, Interval)>| {
        p.map_or("—".to_string(), |(x, i)| {
            format!("{} {}", ratio(x), i.bracket(ratio))
        })
    };
    // A ladder of offered rates, as the report decides it everywhere.
    let offered = shown(r).charts == Charts::Rates;
    let figures: &[(&str, Figure)] = if offered {
        &[
            ("CPU/request", |m| m.cpu_us_per_request),
            ("p99", |m| m.latency_us.p99.map(|v| v as f64)),
            ("p99.9", |m| m.latency_us.p999.map(|v| v as f64)),
        ]
    } else {
        &[
            ("requests/s", |m| Some(m.requests_per_s)),
            ("CPU/request", |m| m.cpu_us_per_request),
        ]
    };
    let mut any = false;
    // Whether a ratio's interval is below 95 % (too few rounds pair up).
    let mut below = false;
    let mut tables = Vec::new();
    for endpoint in endpoints(r) {
        let steps: Vec<String> = step_ids(r, &endpoint)
            .into_iter()
            .filter(|s| r.ceiling_step(&endpoint, s).is_some())
            .collect();
        if steps.is_empty() {
            continue;
        }
        let heads: Vec<String> = steps
            .iter()
            .flat_map(|s| figures.iter().map(move |(name, _)| format!("{name} {s}")))
            .collect();
        let heads: Vec<&str> = heads.iter().map(String::as_str).collect();
        let mut t = Table::of(&["Server"], &heads);
        for s in r.servers.iter().filter(|s| s.name != CEILING) {
            let mut cells = vec![Cell::text(&s.name)];
            for step in &steps {
                let st = find(s, &endpoint, step).filter(|st| st.valid);
                for (_, figure) in figures {
                    let x = st.and_then(|st| r.to_ceiling(st, figure));
                    any |= x.is_some();
                    below |= x.is_some_and(|(_, i)| !i.at_level());
                    cells.push(Cell::text(text(x)));
                }
            }
            t.push(&s.name, cells);
        }
        tables.push((endpoint, t));
    }
    if !any {
        return;
    }
    d.push(Block::Heading("Against the ceiling".to_string()));
    let interval = if below {
        "its 95 % interval; where fewer than 6 rounds pair up, the lowest and the highest ratio, with its rounds and the chance it holds the median: `[low–high; 3 rounds, 75 %]`"
    } else {
        "its 95 % interval"
    };
    let what = if offered {
        format!(
            "Each server's CPU per request, p99 and p99.9 latency at each offered rate over the C ceiling's at the same rate in the same round (the median of the rounds' ratios, with {interval}; the offered rate sets every server's requests/s while it keeps up, so those are not compared): above 1.00 it spent more CPU per request, or made its users wait longer, than the loopback's yardstick did under the same load at the same moment."
        )
    } else {
        format!(
            "Each server's requests/s and CPU per request over the C ceiling's in the same round (the median of the rounds' ratios, with {interval}): above 1.00 it served more, or spent more CPU per request, than the loopback's yardstick did under the same load at the same moment."
        )
    };
    d.push(Block::Para(format!(
        "{what} These ratios, not the figures themselves, are what can be compared across runs, days and machines: the VM's speed moves both sides alike."
    )));
    for (endpoint, t) in tables {
        d.push(Block::Subheading(format!("`{endpoint}`")));
        d.push(Block::Table(t));
    }
}

/// The sentence that says which figures are the load tool's limit rather than the server's.
fn tool_limit(d: &mut Document, r: &Results) {
    let bound = r.tool_bound_steps();
    let tool = &r.tool;
    let medians = || {
        r.steps()
            .filter_map(|(s, st)| Some((s, st, st.median.as_ref()?)))
    };
    let busiest = medians()
        .filter_map(|(s, st, m)| {
            let share = m.tool_cpu_percent? / m.tool_cpus.unwrap_or(1).max(1) as f64;
            Some((share, s, st, m))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let sentence = if !bound.is_empty() {
        let list: Vec<String> = bound.iter().map(|b| b.describe()).collect();
        format!(
            "**The load tool's limit, not the server's:** {tool} used at least 90 % of the CPUs \
             it could use (of a CPU on its busiest thread, for a one-thread tool) in {} of the \
             steps below, so their requests/s (marked †) are the most {tool} could send on this \
             machine, and the server may do more: {}.",
            bound.len(),
            list.join("; ")
        )
    } else if let Some((share, s, st, m)) = busiest {
        format!(
            "**The load tool's limit:** no step was tool-bound; {tool} used at most {:.0} % of \
             the CPUs it could use ({} {} {}, {:.0} % of {} CPU{}), so the requests/s below are \
             the servers' own.",
            share,
            s.name,
            st.endpoint,
            st.step,
            m.tool_cpu_percent.unwrap_or(0.0),
            m.tool_cpus.unwrap_or(1),
            if m.tool_cpus.unwrap_or(1) == 1 {
                ""
            } else {
                "s"
            }
        )
    } else if medians().next().is_some() {
        format!(
            "**The load tool's limit:** this file does not record {tool}'s own CPU (it was written \
             before bench measured it), so it cannot say which figures {tool} capped."
        )
    } else {
        return;
    };
    d.push(Block::Para(sentence));
}

/// The sentence that says which figures the machine set (other work, steal, CPU waits)
/// rather than the server, or that it was quiet throughout.
fn machine_limit(d: &mut Document, r: &Results) {
    let busy = disturbed_steps(r);
    let measured: Vec<&Interference> = r
        .steps()
        .filter_map(|(_, st)| st.median.as_ref()?.interference.as_ref())
        .collect();
    let most = |get: fn(&Interference) -> Option<f64>| {
        measured
            .iter()
            .filter_map(|i| get(i))
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
    };
    let sentence = if !busy.is_empty() {
        format!(
            "**The machine's figures, not the server's:** other work, steal or waits for a CPU \
             passed their limits in {} of the steps below even after their retries, so their \
             figures (marked ‡) say what the machine allowed: {}.",
            busy.len(),
            busy.join("; ")
        )
    } else if !measured.is_empty() {
        let pct = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.0} %"));
        format!(
            "**The machine:** quiet in every step: other work took at most {} of a CPU, steal \
             at most {}, and the server waited for a CPU at most {} of the time (limits: \
             {OTHER_CPU_LIMIT} %, {STEAL_LIMIT} %, and {SERVER_WAIT_LIMIT} % of waiting while other work ran).",
            pct(most(|i| i.other_cpu_percent)),
            pct(Some(
                measured.iter().map(|i| i.steal_percent).fold(0.0, f64::max)
            )),
            pct(most(|i| i.server_wait_percent))
        )
    } else if r.steps().any(|(_, st)| st.median.is_some()) {
        "**The machine:** this file does not record what else ran on the machine (written \
         before bench measured it, or its steps were too short to), so it cannot say which \
         figures the machine set."
            .to_string()
    } else {
        return;
    };
    d.push(Block::Para(sentence));
}

fn resources(d: &mut Document, r: &Results) {
    d.push(Block::Heading(
        "Resources (server process tree, median of repeats)".to_string(),
    ));
    d.push(Block::Para(
        "CPU µs/request splits into user (the runtime's, the framework's and the variant's own \
         code) and kernel (system calls and loopback TCP). Tool CPU % is the load tool's own \
         process tree over its measured window (100 = one CPU), † where it set the pace. Other \
         CPU % is the machine's busy time that neither the server, the tool nor the harness \
         used, ‡ where the machine set the figures."
            .to_string(),
    ));
    let mut t = Table::of(
        &["Server", "Endpoint", "Step"],
        &[
            "RSS start MB",
            "RSS peak MB",
            "RSS end MB",
            "Server CPU %",
            "CPU µs/request",
            "user µs",
            "kernel µs",
            "Tool CPU %",
            "Other CPU %",
            "Server wait %",
        ],
    );
    let cols = t.columns.len() - 3;
    for (s, st) in r.steps() {
        let mut row = [&s.name, &st.endpoint, &st.step].map(Cell::text).to_vec();
        match (&st.median, st.valid) {
            (_, false) => row.extend(std::iter::repeat_n(
                Cell::invalid(st.invalid_reason.as_deref()),
                cols,
            )),
            (None, true) => row.extend(std::iter::repeat_n(Cell::text("n/a"), cols)),
            (Some(run), true) => {
                let mb = |kb: Option<u64>| {
                    kb.map_or("n/a".into(), |kb| format!("{:.1}", kb as f64 / 1024.0))
                };
                let fig =
                    |v: Option<f64>, d: usize| v.map_or("n/a".to_string(), |v| format!("{v:.d$}"));
                let i = run.interference;
                let marks = Marks::of(run);
                row.extend(
                    [
                        mb(run.rss_kb.map(|x| x.start)),
                        mb(run.rss_kb.map(|x| x.peak)),
                        mb(run.rss_kb.map(|x| x.end)),
                        fig(run.server_cpu_percent, 1),
                        match st.intervals.and_then(|iv| iv.cpu_us_per_request) {
                            Some(iv) => format!(
                                "{} {}",
                                fig(run.cpu_us_per_request, 2),
                                iv.bracket(|x| format!("{x:.2}"))
                            ),
                            None => fig(run.cpu_us_per_request, 2),
                        },
                        fig(run.cpu_user_us_per_request, 2),
                        fig(run.cpu_kernel_us_per_request, 2),
                    ]
                    .map(Cell::text),
                );
                // The tool's CPU carries its mark, the machine's busy time its own.
                row.push(match run.tool_cpu_percent {
                    Some(c) => Cell::marked(
                        format!("{c:.1}"),
                        Marks {
                            machine: false,
                            ..marks
                        },
                    ),
                    None => Cell::text("n/a"),
                });
                row.push(match i.and_then(|i| i.other_cpu_percent) {
                    Some(c) => Cell::marked(
                        format!("{c:.1}"),
                        Marks {
                            tool: false,
                            ..marks
                        },
                    ),
                    None => Cell::text("n/a"),
                });
                row.push(Cell::text(fig(i.and_then(|i| i.server_wait_percent), 1)));
            }
        }
        t.push(&s.name, row);
    }
    d.push(Block::Table(t));
    let short: Vec<String> = r
        .steps()
        .filter_map(|(s, st)| {
            let why = st.median.as_ref()?.unmeasured.as_deref()?;
            Some(format!("{} {} {}: {why}", s.name, st.endpoint, st.step))
        })
        .collect();
    if !short.is_empty() {
        d.push(Block::Para(format!("Not measured: {}.", short.join("; "))));
    }
    let rounds: Vec<String> = r
        .steps()
        .filter_map(|(s, st)| {
            let n = st.median.as_ref()?.rounds.filter(|&n| n > 1)?;
            Some(format!("{} {} {} ×{n}", s.name, st.endpoint, st.step))
        })
        .collect();
    if !rounds.is_empty() {
        d.push(Block::Para(format!(
            "Count-bounded steps run their count again, back to back, until the measured window is at least {} s (the figures are over all the rounds): {}.",
            bench_model::rules::MIN_COUNT_STEP.as_secs(),
            rounds.join("; ")
        )));
    }
}

fn spread(d: &mut Document, r: &Results) {
    if r.repeat <= 1 {
        return;
    }
    d.push(Block::Heading(
        "Spread over repeats (requests/s)".to_string(),
    ));
    let mut t = Table::of(
        &["Server", "Endpoint", "Step"],
        &["Repeats", "Min", "Median", "Max", "Spread"],
    );
    for (s, st) in r.steps() {
        let (Some(sp), Some(m)) = (&st.spread, &st.median) else {
            continue;
        };
        let cells = [
            s.name.clone(),
            st.endpoint.clone(),
            st.step.clone(),
            st.repeats.len().to_string(),
            thousands(sp.requests_per_s_min),
            thousands(m.requests_per_s),
            thousands(sp.requests_per_s_max),
            format!("{:.1} %", sp.relative * 100.0),
        ];
        t.push(&s.name, cells.map(Cell::text).into());
    }
    d.push(Block::Table(t));
}

fn invalid(d: &mut Document, r: &Results) {
    let bad: Vec<String> = r
        .steps()
        .filter(|(_, st)| !st.valid)
        .map(|(s, st)| {
            format!(
                "{} `{}` {}: {}",
                s.name,
                st.endpoint,
                st.step,
                st.invalid_reason.as_deref().unwrap_or("no reason recorded")
            )
        })
        .collect();
    if !bad.is_empty() {
        d.push(Block::Heading("Invalid steps".to_string()));
        d.push(Block::List(bad));
    }
}

fn caveats(d: &mut Document, r: &Results) {
    // Each note once, with the steps it came from (server, endpoint, step) unless it applies
    // to every step: "loadgen was busy" on three steps of twenty says where the tool may have
    // set the pace.
    let mut notes: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut all_steps = 0;
    for (s, st) in r.steps() {
        all_steps += 1;
        let place = format!("{} {} {}", s.name, st.endpoint, st.step);
        for n in st
            .median
            .iter()
            .chain(&st.repeats)
            .flat_map(|run| &run.notes)
            .filter(|n| !n.contains(" aborted at the deadline"))
        {
            notes.entry(n.as_str()).or_default().insert(place.clone());
        }
    }
    if notes.is_empty() {
        return;
    }
    d.push(Block::Heading(
        "What the tool could not measure exactly".to_string(),
    ));
    let items = notes
        .into_iter()
        .map(|(n, places)| {
            if places.len() == all_steps {
                n.to_string()
            } else {
                let list: Vec<&str> = places.iter().map(String::as_str).collect();
                format!("{n} ({})", list.join("; "))
            }
        })
        .collect();
    d.push(Block::List(items));
}

pub(super) fn analogue(s: &ServerResult) -> String {
    if s.analogue.is_empty() {
        "—".to_string()
    } else {
        s.analogue.join(", ")
    }
}

fn or_unknown(s: &str) -> &str {
    if s.is_empty() { "unknown" } else { s }
}

fn cpus(v: &[usize]) -> String {
    v.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

fn rps(r: &Run) -> String {
    thousands(r.requests_per_s)
}

/// Microseconds as milliseconds with two decimals.
fn ms(us: u64) -> String {
    format!("{:.2}", us as f64 / 1000.0)
}

fn error_rate(r: &Run) -> String {
    let total = r.errors.total();
    if r.requests == 0 {
        return if total == 0 {
            "0".into()
        } else {
            total.to_string()
        };
    }
    format!("{:.2} %", total as f64 / r.requests as f64 * 100.0)
}

/// `kind n` for each kind of `r`'s failures counted at least once (with `socket`, of the
/// socket errors alone), comma-separated (`read 76, timeout 2`).
fn listed(r: &Run, socket: bool) -> String {
    r.errors
        .counted()
        .iter()
        .filter(|(k, _)| !socket || SOCKET_ERRORS.contains(k))
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every failure with its kinds (`47 (timeout 47)`), or `0`.
fn errors_cell(r: &Run) -> String {
    let parts = listed(r, false);
    if parts.is_empty() {
        "0".into()
    } else {
        format!("{} ({parts})", r.errors.total())
    }
}

/// The socket errors by kind (`read 256`), or `0`.
fn socket_errors(r: &Run) -> String {
    let parts = listed(r, true);
    if parts.is_empty() { "0".into() } else { parts }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use bench_model::results::{Latency, StepResult};

    /// A probe's run: `rps` requests/s, p50 and p99 in µs, `timeouts` errors.
    fn probe(rps: f64, p50: u64, p99: u64, timeouts: u64) -> Box<Run> {
        let mut run = Run {
            requests: (rps * 18.0) as u64,
            duration_s: 18.0,
            requests_per_s: rps,
            latency_us: Latency {
                p50: Some(p50),
                p99: Some(p99),
                ..Latency::default()
            },
            ..Run::default()
        };
        run.errors.timeout = timeouts;
        Box::new(run)
    }

    /// The recorded E4 document, with a baseline step and a probe on every step of
    /// server-hyper (server-axum keeps none: a file from before probes).
    fn with_probes() -> Results {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results-e4.json");
        let mut r = Results::load(&path).unwrap();
        let hyper = &mut r.servers[0];
        assert_eq!(hyper.name, "server-hyper");
        let mut baseline = StepResult {
            step: BASELINE.into(),
            endpoint: PROBE_ENDPOINT.into(),
            connections: 0,
            ..hyper.steps[0].clone()
        };
        baseline.median = Some(Run {
            probe: Some(probe(9000.0, 100, 250, 0)),
            ..Run::default()
        });
        hyper.steps.insert(0, baseline);
        let silent = Box::new(Run {
            requests: 0,
            duration_s: 18.0,
            ..Run::default()
        });
        let probes = [
            ("async", silent),
            ("sync", probe(7.0, 141_600, 212_400, 2)),
            ("sync-offload", probe(202.0, 4050, 16_600, 0)),
        ];
        for (step, p) in probes {
            let st = hyper.steps.iter_mut().find(|s| s.step == step).unwrap();
            st.median.as_mut().unwrap().probe = Some(p);
        }
        hyper
            .steps
            .iter_mut()
            .find(|s| s.step == "timer")
            .unwrap()
            .valid = false;
        r
    }

    #[test]
    fn the_probe_table_shows_each_scenarios_stall_beside_the_baseline() {
        let md = markdown(&with_probes());
        let at = md
            .find("## The probe: `/api/hello` beside each scenario's load")
            .expect(&md);
        let section = &md[at..];
        assert!(
            section.contains("load\n\nWhile each scenario's load runs, a probe of 1 connection")
        );
        let at = section.find("### `server-hyper`").unwrap();
        let lines: Vec<&str> = section[at..]
            .lines()
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .collect();
        assert_eq!(
            lines[0],
            "| load on | `/api/hello` requests/s | `/api/hello` p50 ms | p99 ms | probe errors | load requests/s |"
        );
        assert_eq!(lines[1], "|---|---:|---:|---:|---:|---:|");
        assert_eq!(
            lines[2],
            "| no load (baseline) | 9,000 | 0.10 | 0.25 | 0 | — |"
        );
        // A probe that got no answer in its window says so, not "n/a".
        assert!(
            lines[3].starts_with("| `/api/async` | 0 | none answered in 18 s | — | 0 | "),
            "{}",
            lines[3]
        );
        assert!(
            lines[4].starts_with("| `/api/sync` | 7 | 141.60 | 212.40 | 2 (timeout 2) | "),
            "{}",
            lines[4]
        );
        assert!(lines[5].starts_with("| `/api/sync-offload` | 202 | 4.05 | 16.60 | 0 | "));
        // A step without a probe's run says so; an invalid step says that.
        assert_eq!(
            lines[6],
            "| `/api/nexttick` | n/a | n/a | n/a | n/a | 41,000 |"
        );
        assert!(
            lines[7].starts_with("| `/api/timer` | invalid | invalid |"),
            "{}",
            lines[7]
        );
        assert_eq!(lines.len(), 8);
        // Only servers with a probe get a table.
        assert!(!section.contains("### `server-axum`"));
        // The baseline is no scenario column.
        let rps = &md[md.find("## Requests/s").unwrap()..md.find("## The probe").unwrap()];
        assert!(!rps.contains(BASELINE));
        // A file from before probes has no probe section.
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results-e4.json");
        assert!(!markdown(&Results::load(&path).unwrap()).contains("## The probe"));
    }

    /// The published E4 (node-http's steps, 6 rounds): beside `/api/sync` the probe got no
    /// answer in rounds 1, 2 and 4. Its p99 counts them at their bound, half the 1 s window
    /// (`≥ 500.00`, not the 547.33 of the three answered rounds alone), and a line says how
    /// many rounds were answered; the chart's cell has that p99, marked a lower bound.
    #[test]
    fn a_probe_round_without_an_answer_is_counted_at_its_bound_and_said() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results-e4-rounds.json");
        let r = Results::load(&path).unwrap();
        let md = markdown(&r);
        let at = md.find("### `node-http`").expect(&md);
        let rows: Vec<&str> = md[at..]
            .lines()
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .collect();
        assert!(
            rows[3].starts_with("| `/api/sync` | 1 | 547.33 | ≥ 500.00 | 0 | "),
            "{}",
            rows[3]
        );
        // Every round answered: its p99 as before.
        assert!(
            rows[4].starts_with("| `/api/sync-offload` | 9,021 | 0.05 | 2.34 | 0 | "),
            "{}",
            rows[4]
        );
        assert!(md.contains("\n\nNo answer in a round: `/api/sync`: the probe got an answer in 3 of its 6 rounds (0, 0, 1, 0, 1, 1 requests answered in each 1 s window, one at a time on 1 connection, so it sent at most one more each), and a round without one counts as half its window, 500 ms, the least it waited; so its p99 is a lower bound (≥), and its p50 is over the rounds with an answer.\n"), "{md}");
        let charts = crate::chart::charts(&r);
        let latency = charts
            .iter()
            .find(|c| {
                c.group == crate::chart::PROBE_GROUP && c.metric == crate::chart::Metric::Latency
            })
            .unwrap();
        let sync = latency.panels.iter().find(|p| p.title == "sync").unwrap();
        let c = sync.cells[0];
        assert_eq!(
            c.at_least.map(|u| (u.p99_us, u.censored, u.rounds)),
            Some((500_000.0, 3, 6))
        );
        assert!(
            matches!(c.value, crate::chart::Value::Latency(p) if p.values[3] == Some(500_000)),
            "{c:?}"
        );
        let offload = latency
            .panels
            .iter()
            .find(|p| p.title == "sync-offload")
            .unwrap();
        assert_eq!(offload.cells[0].at_least, None);
    }

    #[test]
    fn the_probe_has_charts_of_its_own() {
        let r = with_probes();
        let charts = crate::chart::charts(&r);
        let probe: Vec<_> = charts
            .iter()
            .filter(|c| c.group == crate::chart::PROBE_GROUP)
            .collect();
        assert_eq!(probe.len(), 2, "requests/s and latency");
        let titles: Vec<&str> = probe[0].panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "no load",
                "async",
                "sync",
                "sync-offload",
                "nexttick",
                "timer"
            ]
        );
        assert!(charts.iter().all(|c| c.group == crate::chart::PROBE_GROUP
            || c.panels.iter().all(|p| p.title != BASELINE)));
    }

    /// A recorded E3 run of 10 rounds with an A/A pair (server-prebuilt and its copy, the
    /// load tool setting the pace of every round) whose ratios hold 1.00; with `slower`, the
    /// copy's requests/s at `/` c100 made that much lower in every round, so that every
    /// round's ratio is above 1.
    fn e3_aa(slower: f64) -> Results {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results-e3-rounds.json");
        let mut r = Results::load(&path).unwrap();
        let copy = r
            .servers
            .iter_mut()
            .find(|s| s.name == "server-prebuilt#2")
            .unwrap();
        let st = copy
            .steps
            .iter_mut()
            .find(|st| st.endpoint == "/" && st.step == "c100")
            .unwrap();
        for m in &mut st.repeats {
            m.requests_per_s *= slower;
        }
        st.finish();
        r
    }

    /// The A/A line gives each step's requests/s and CPU-per-request ratios, each with its
    /// bracket, and each copy's rounds the tool (†) or the machine (‡) set; a pair whose
    /// interval leaves out 1.00 opens the report, and says so in its line too.
    #[test]
    fn an_aa_pair_that_differed_opens_the_report() {
        let same = e3_aa(1.0);
        let lines = aa_pairs(&same);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            lines[0],
            "`server-prebuilt` over `server-prebuilt#2` at `/` c100: requests/s 1.00× [0.99–1.00], CPU per request 1.00× [1.00–1.01], 10 rounds; † 10/10 and 10/10 rounds, ‡ 0/10 and 0/10"
        );
        assert_eq!(aa_flag(&same), None);
        let md = markdown(&same);
        assert!(!md.contains("A/A pair differed"), "{md}");

        let differed = e3_aa(0.9);
        let flag = aa_flag(&differed).unwrap();
        assert_eq!(
            flag,
            "**This run's own A/A pair differed:** `server-prebuilt` over `server-prebuilt#2` at `/` c100, requests/s 1.11× [1.10–1.11], all 10 rounds above 1 (the load tool set the pace, †, in 10/10 and 10/10 of their rounds): two copies of one binary differed by that much in this run, so differences of that size between servers in this run are not findings, whatever their intervals say."
        );
        // First, right under the title, before the header and the findings.
        let md = markdown(&differed);
        let (title, rest) = md.split_once("\n\n").unwrap();
        assert!(title.starts_with("# E3: "), "{title}");
        assert!(rest.starts_with(&format!("{flag}\n\n- Date: ")), "{rest}");
        assert!(
            aa_pairs(&differed)[0].contains("requests/s 1.11× [1.10–1.11] (all 10 rounds above 1)"),
            "{:?}",
            aa_pairs(&differed)
        );
        // The page's article of the run says it first too.
        let page = crate::html(&[crate::Doc {
            results: differed,
            href: None,
        }]);
        let article = &page[page.find("<article class=\"run\"").unwrap()..];
        let flag_at = article
            .find("<p class=\"precision\"><strong>This run&#39;s own A/A pair differed:</strong>");
        assert!(
            flag_at.is_some_and(|at| at < article.find("<h4>").unwrap()),
            "{article}"
        );
    }
}
