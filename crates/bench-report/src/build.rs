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
    At, BASELINE, Charts, Measure, PROBE_ENDPOINT, Quantity, TFB_PIPELINE, Tables,
};
use bench_model::results::{
    CEILING, Interference, Interval, Intervals, Results, Run, SOCKET_ERRORS, ServerResult,
    StepResult,
};
use bench_model::rules::{OTHER_CPU_LIMIT, SERVER_WAIT_LIMIT, STEAL_LIMIT};

use super::chart::{timeline, timeline_step};
use super::model::{Block, Cell, Document, Marks, Table};
use super::stale::staleness;
use crate::findings::key;
use crate::read::{disturbed_steps, endpoints, find, shown, step_ids};
use bench_chart::format::thousands;

mod ladder;
mod limits;
mod precision;

use ladder::ladder;
use limits::{against_ceiling, machine_limit, tool_limit};
pub use precision::aa_flag;
#[cfg(test)]
use precision::aa_pairs;
use precision::how_sure;

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
    // The page's timeline chart, in its caption's words.
    if let (Some((s, st)), Some(t)) = (timeline_step(r), timeline(r)) {
        let (e, step, name) = (&st.endpoint, &st.step, &s.name);
        let what = format!("**Timeline** of `{e}` {step}, {name}: {}", t.caption);
        d.push(Block::Para(what));
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
        Measure::MeanMs => bench_chart::format::ms(run.latency_us.mean?),
        Measure::P50Ms => ms(run.latency_us.p50?),
        Measure::P95Ms => ms(run.latency_us.p95?),
        Measure::P99Ms => ms(run.latency_us.p99?),
        Measure::KbPerS => thousands(run.transfer_bytes_per_s / 1024.0),
        Measure::BytesPerResponse => bench_chart::format::grouped(run.bytes_per_response, 0),
        Measure::RssBeforeAfterMb => {
            let first = s
                .steps
                .iter()
                .find(|x| x.endpoint == st.endpoint)
                .and_then(|x| x.median.as_ref())
                .and_then(|m| m.rss_kb)?;
            let end = run.rss_kb?;
            format!(
                "{} → {}",
                bench_chart::format::mb(first.start as f64),
                bench_chart::format::mb(end.end as f64)
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
        Measure::P99Ms => (iv.p99_us?, bench_chart::format::ms),
        Measure::P95Ms => (iv.p95_us?, bench_chart::format::ms),
        Measure::P50Ms => (iv.p50_us?, bench_chart::format::ms),
        Measure::MeanMs => (iv.mean_us?, bench_chart::format::ms),
        Measure::KbPerS => (iv.transfer_bytes_per_s?, |b| thousands(b / 1024.0)),
        _ => return None,
    };
    Some(i.bracket(show))
}

/// The quantity of a finding that a column of `measure` holds, when a finding can read one.
fn quantity(measure: Measure) -> Option<Quantity> {
    match measure {
        Measure::RequestsPerS => Some(Quantity::RequestsPerS),
        Measure::P99Ms => Some(Quantity::P99Ms),
        _ => None,
    }
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
                let cell = if c.measure == Measure::RequestsPerS {
                    Cell::marked(text, Marks::of(run))
                } else {
                    Cell::text(text)
                };
                match quantity(c.measure) {
                    Some(q) => cell.keyed(key(&s.name, &c.endpoint, &c.step, q)),
                    None => cell,
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
            // The p99 over the rounds, as the findings read it: one value, one text.
            let over_rounds = st.probe_p99().filter(|_| st.valid);
            let censored = over_rounds.clone().filter(|p| p.at_least());
            let p99 = |p: &Run| match &over_rounds {
                Some(c) if c.at_least() => format!("≥ {}", bench_chart::format::ms(c.median_us)),
                Some(c) => bench_chart::format::ms(c.median_us),
                None => p.latency_us.p99.map_or("n/a".into(), ms),
            };
            if let Some(c) = &censored {
                unanswered.push(format!(
                    "{what}: the probe {}; so its p99 is a lower bound (≥), and its p50 is over the rounds with an answer",
                    crate::findings::probe_answers(c)
                ));
            }
            let mut row = vec![Cell::text(what.clone())];
            // The p99 (the third) is the figure E4's findings read.
            let p99_key = key(&s.name, &st.endpoint, &st.step, Quantity::ProbeP99Ms);
            let texts = |v: [String; 4]| {
                let mut cells = v.map(Cell::text);
                cells[2] = std::mem::take(&mut cells[2]).keyed(p99_key.clone());
                cells
            };
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
                    Cell::marked(rps(m), Marks::of(m)).keyed(key(
                        &s.name,
                        endpoint,
                        id,
                        Quantity::RequestsPerS,
                    ))
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
        title: format!(
            "{}: {}",
            r.experiment.to_uppercase(),
            crate::read::measured_title(&[r])
        ),
        partial: (!r.complete).then(|| {
            r.incomplete_reason
                .clone()
                .unwrap_or_else(|| "it did not finish".to_string())
        }),
        header,
        ..Document::default()
    }
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
                    kb.map_or("n/a".into(), |kb| bench_chart::format::mb(kb as f64))
                };
                let fig = |v: Option<f64>, d: usize| {
                    v.map_or("n/a".to_string(), |v| bench_chart::format::grouped(v, d))
                };
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
                                iv.bracket(bench_chart::format::cpu)
                            ),
                            None => fig(run.cpu_us_per_request, 2),
                        },
                        fig(run.cpu_user_us_per_request, 2),
                        fig(run.cpu_kernel_us_per_request, 2),
                    ]
                    .map(Cell::text),
                );
                // The CPU per request (the fifth) is the figure the findings read.
                let cpu = row.len() - 3;
                row[cpu] = std::mem::take(&mut row[cpu]).keyed(key(
                    &s.name,
                    &st.endpoint,
                    &st.step,
                    Quantity::CpuUsPerRequest,
                ));
                // The tool's CPU carries its mark, the machine's busy time its own.
                row.push(match run.tool_cpu_percent {
                    Some(c) => Cell::marked(
                        bench_chart::format::grouped(c, 1),
                        Marks {
                            machine: false,
                            ..marks
                        },
                    ),
                    None => Cell::text("n/a"),
                });
                row.push(match i.and_then(|i| i.other_cpu_percent) {
                    Some(c) => Cell::marked(
                        bench_chart::format::grouped(c, 1),
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

/// Microseconds as milliseconds with two decimals ([`bench_chart::format::ms`]).
fn ms(us: u64) -> String {
    bench_chart::format::ms(us as f64)
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
mod tests;
