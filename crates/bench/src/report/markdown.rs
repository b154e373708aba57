//! The markdown report: a header (experiment, date, machine, git revision, tool and the exact
//! flags of a step, the command; a banner first when the run is partial), a sentence on
//! which figures are the load tool's limit rather than the server's, then the experiment's
//! tables shaped like its article's (a tool-bound step's requests/s marked `†`), then
//! resources (the tool's CPU beside the server's), spread, invalid steps and the tools'
//! caveats (see the [report](super) module for what each table holds).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::experiment::TFB_PIPELINE;
use crate::results::{Interference, Results, Run, ServerResult, StepResult};
use crate::step::machine::{OTHER_CPU_LIMIT, SERVER_WAIT_LIMIT, STEAL_LIMIT};

use super::{disturbed_steps, endpoints, find, is_ladder, marks, step_ids, thousands};
use crate::experiment::{BASELINE, PROBE_ENDPOINT};

/// What a column shows of a run.
type ShowFn = Box<dyn Fn(&Run) -> Option<String>>;

/// One column of a table: its header, the step it reads, and what it shows of the step's
/// median run (`None` shows as `n/a`); a requests/s column (`rate`) marks a tool-bound step
/// with `†`.
struct Col {
    header: String,
    step: String,
    show: ShowFn,
    rate: bool,
}

impl Col {
    fn new(header: String, step: &str, show: impl Fn(&Run) -> Option<String> + 'static) -> Col {
        Col {
            rate: header.starts_with("req/s"),
            header,
            step: step.to_string(),
            show: Box::new(show),
        }
    }
}

/// The markdown report of `r`.
pub fn markdown(r: &Results) -> String {
    let mut out = String::new();
    header(&mut out, r);
    tool_limit(&mut out, r);
    machine_limit(&mut out, r);
    let endpoints = endpoints(r);
    match r.experiment.as_str() {
        _ if is_ladder(r) => ladder(&mut out, r, &endpoints),
        "e4" => {
            // One table per measure, the scenarios (one step per endpoint) as columns.
            // The baseline (the probe alone) is no scenario: it is in the probe's table.
            let steps: Vec<(String, String)> = endpoints
                .iter()
                .flat_map(|e| step_ids(r, e).into_iter().map(move |s| (e.clone(), s)))
                .filter(|(_, s)| s != BASELINE)
                .collect();
            type Show = fn(&Run) -> Option<String>;
            let measures: [(&str, Show); 3] = [
                ("Requests/s", |run| Some(rps(run))),
                ("Errors (timeouts, socket errors, error statuses)", |run| {
                    Some(errors_cell(run))
                }),
                ("p99 latency (ms)", |run| run.latency_us.p99.map(ms)),
            ];
            for (title, show) in measures {
                let _ = writeln!(out, "## {title}\n");
                let cols = steps
                    .iter()
                    .map(|(e, s)| {
                        let mut c = Col::new(s.clone(), s, show);
                        c.rate = title == "Requests/s";
                        (e.as_str(), c)
                    })
                    .collect::<Vec<_>>();
                table(&mut out, r, &cols);
            }
            probe_tables(&mut out, r);
        }
        "e6" => e6(&mut out, r, &endpoints),
        id => {
            for endpoint in &endpoints {
                let steps = step_ids(r, endpoint);
                let cols = columns(id, &steps);
                let _ = writeln!(out, "## `{endpoint}`\n");
                let cols: Vec<(&str, Col)> =
                    cols.into_iter().map(|c| (endpoint.as_str(), c)).collect();
                table(&mut out, r, &cols);
            }
        }
    }
    resources(&mut out, r);
    spread(&mut out, r);
    invalid(&mut out, r);
    caveats(&mut out, r);
    out
}

/// E4's lesson and its remedy: for each server that ran a probe, the probe's requests/s,
/// p50 and p99 under each scenario's load, the baseline (the probe alone) first. Nothing
/// when no step has a probe (files from before probes).
fn probe_tables(out: &mut String, r: &Results) {
    let probed = |s: &ServerResult| {
        s.steps
            .iter()
            .any(|st| st.median.as_ref().is_some_and(|m| m.probe.is_some()))
    };
    if !r.servers.iter().any(probed) {
        return;
    }
    let _ = writeln!(
        out,
        "## The probe: `{PROBE_ENDPOINT}` beside each scenario's load\n\n\
         While each scenario's load runs, a probe of 1 connection (closed loop, the built-in \
         generator, pinned like the load) asks for `{PROBE_ENDPOINT}`, from a second after the \
         load's measured run starts to a second before it ends; `no load` is the probe alone \
         on the idle server. A blocked event loop stalls every other request: it shows here as \
         the probe's latency, and its remedy (`sync-offload`) as the probe's latency back near \
         the baseline.\n"
    );
    for s in r.servers.iter().filter(|s| probed(s)) {
        let _ = writeln!(out, "### `{}` ({})\n", s.name, analogue(s));
        let head: Vec<String> = [
            "load on".to_string(),
            format!("`{PROBE_ENDPOINT}` requests/s"),
            format!("`{PROBE_ENDPOINT}` p50 ms"),
            "p99 ms".to_string(),
            "probe errors".to_string(),
            "load requests/s".to_string(),
        ]
        .into();
        let rows: Vec<Vec<String>> = s
            .steps
            .iter()
            .map(|st| {
                let what = if st.step == BASELINE {
                    "no load (baseline)".to_string()
                } else {
                    format!("`{}`", st.endpoint)
                };
                let probe = st.median.as_ref().and_then(|m| m.probe.as_deref());
                let mut row = vec![what];
                match (st.valid, probe) {
                    (false, _) => row.extend(std::iter::repeat_n("invalid".to_string(), 4)),
                    (true, None) => row.extend(std::iter::repeat_n("n/a".to_string(), 4)),
                    // No answer in the whole window, and no error: still pending when it stopped.
                    (true, Some(p)) if p.requests == 0 => row.extend([
                        rps(p),
                        format!("none answered in {:.0} s", p.duration_s),
                        "—".to_string(),
                        errors_cell(p),
                    ]),
                    (true, Some(p)) => row.extend([
                        rps(p),
                        p.latency_us.p50.map_or("n/a".into(), ms),
                        p.latency_us.p99.map_or("n/a".into(), ms),
                        errors_cell(p),
                    ]),
                }
                row.push(match (&st.median, st.step == BASELINE) {
                    (_, true) => "—".to_string(),
                    (Some(m), false) if st.valid => rps(m),
                    (Some(_), false) => "invalid".to_string(),
                    (None, false) => "n/a".to_string(),
                });
                row
            })
            .collect();
        write_table(out, &head, &rows, 1);
    }
}

/// The columns of one endpoint's table for experiment `id`.
fn columns(id: &str, steps: &[String]) -> Vec<Col> {
    let last = steps.last().cloned().unwrap_or_default();
    let each = |label: &str, show: fn(&Run) -> Option<String>| -> Vec<Col> {
        steps
            .iter()
            .map(|s| Col::new(format!("{label} {s}"), s, show))
            .collect()
    };
    let mut cols = Vec::new();
    match id {
        "e1" => {
            cols.extend(each("req/s", |r| Some(rps(r))));
            for (p, get) in [
                (
                    "p50",
                    (|r: &Run| r.latency_us.p50) as fn(&Run) -> Option<u64>,
                ),
                ("p95", |r: &Run| r.latency_us.p95),
                ("p99", |r: &Run| r.latency_us.p99),
            ] {
                cols.push(Col::new(format!("{p} ms {last}"), &last, move |r| {
                    get(r).map(ms)
                }));
            }
            cols.push(Col::new(format!("errors {last}"), &last, |r| {
                Some(error_rate(r))
            }));
        }
        "e2" => {
            for s in steps {
                let sfx = if steps.len() > 1 {
                    format!(" {s}")
                } else {
                    String::new()
                };
                cols.push(Col::new(format!("req/s{sfx}"), s, |r| Some(rps(r))));
                cols.push(Col::new(format!("ms per request{sfx}"), s, |r| {
                    r.latency_us.mean.map(|m| format!("{:.2}", m / 1000.0))
                }));
                cols.push(Col::new(format!("KB/s{sfx}"), s, |r| {
                    Some(thousands(r.transfer_bytes_per_s / 1024.0))
                }));
                cols.push(Col::new(format!("bytes/response{sfx}"), s, |r| {
                    Some(format!("{:.0}", r.bytes_per_response))
                }));
                cols.push(Col::new(format!("errors{sfx}"), s, |r| {
                    Some(errors_cell(r))
                }));
            }
        }
        "e3" => {
            cols.extend(each("req/s", |r| Some(rps(r))));
            cols.extend(each("avg ms", |r| {
                r.latency_us.mean.map(|m| format!("{:.2}", m / 1000.0))
            }));
            cols.extend(each("socket errors", |r| Some(socket_errors(r))));
        }
        "e5" => {
            cols.extend(each("req/s", |r| Some(rps(r))));
            cols.extend(each("errors", |r| Some(errors_cell(r))));
        }
        _ => {
            cols.extend(each("req/s", |r| Some(rps(r))));
            cols.extend(each("p99 ms", |r| r.latency_us.p99.map(ms)));
        }
    }
    cols
}

/// E6 in TechEmpower's shape: a table per test (plaintext, JSON), a row per server, its
/// requests/s at each concurrency (`†` where the load tool may have set the pace), its best
/// and the share of the best of all, and the errors; then what each server answered to one
/// plain `GET` before any load.
fn e6(out: &mut String, r: &Results, endpoints: &[String]) {
    for endpoint in endpoints {
        let (test, how) = if endpoint == "/hello" {
            ("Plaintext", format!("pipelined {TFB_PIPELINE} deep"))
        } else {
            ("JSON", "no pipelining".to_string())
        };
        let _ = writeln!(out, "## {test} (`{endpoint}`, {how}): requests/s\n");
        let steps = step_ids(r, endpoint);
        let medians = |s| valid_medians(s, endpoint, &steps);
        let best_of_all = r
            .servers
            .iter()
            .flat_map(|s| {
                medians(s)
                    .into_iter()
                    .flatten()
                    .map(|(_, m)| m.requests_per_s)
            })
            .fold(0.0, f64::max);
        let mut head = vec!["Server".to_string(), "Analogue of".to_string()];
        head.extend(steps.iter().cloned());
        head.extend(["best".into(), "% of best".into(), "errors".into()]);
        let mut rows = Vec::new();
        for s in &r.servers {
            let mut row = vec![s.name.clone(), analogue(s)];
            let runs = medians(s);
            for (id, run) in steps.iter().zip(&runs) {
                row.push(match (find(s, endpoint, id), run) {
                    (None, _) => "—".to_string(),
                    (Some(_), None) => "invalid".to_string(),
                    (Some(_), Some((_, m))) => format!("{}{}", rps(m), marks(m)),
                });
            }
            let best = runs
                .iter()
                .flatten()
                .map(|(_, m)| m.requests_per_s)
                .fold(None, |b: Option<f64>, x| Some(b.map_or(x, |b| b.max(x))));
            row.push(best.map_or("n/a".into(), thousands));
            row.push(match best {
                Some(b) if best_of_all > 0.0 => format!("{:.1} %", b / best_of_all * 100.0),
                _ => "n/a".into(),
            });
            let errors: Vec<String> = runs
                .iter()
                .map(|run| run.map_or("—".into(), |(_, m)| errors_cell(m)))
                .collect();
            row.push(errors.join(" / "));
            rows.push(row);
        }
        write_table(out, &head, &rows, 2);
    }
    let _ = writeln!(
        out,
        "† the load tool set the pace of this figure, so the server may be faster; ‡ the machine did (other work, steal or CPU waits). Errors are per concurrency, in the columns' order.\n"
    );
    verified(out, r);
}

/// A ladder of offered rates (E7), per endpoint: the table of rungs (`p99 ms · CPU µs per
/// request` at each offered rate, a row per server, its saturation beside its name), then the
/// achieved rate at each rung, then the tail (p99.9) from the intended send time beside the
/// one from the actual send, which a tool that omits the requests a stall delayed would show.
fn ladder(out: &mut String, r: &Results, endpoints: &[String]) {
    let limit = crate::step::verdict::KEEP_UP_P99.as_millis();
    let share = crate::step::verdict::KEEP_UP_SHARE * 100.0;
    for endpoint in endpoints {
        let rungs = step_ids(r, endpoint);
        let _ = writeln!(
            out,
            "## `{endpoint}`: p99 ms · server CPU µs per request, at each offered rate\n\n\
             `rK` is an offered rate of K thousand requests/s. Each cell is the p99 latency, from \
             each request's intended send time, then the server's CPU time per request. A \
             server's ladder stops at the first rate it cannot keep up with (achieved under \
             {share:.0} % of the offered rate, or p99 over {limit} ms): its saturation; `—` is a \
             rate above it, not run.\n"
        );
        let mut head = vec![
            "Server".to_string(),
            "Analogue of".to_string(),
            "Saturation".to_string(),
        ];
        head.extend(rungs.iter().cloned());
        let served: Vec<&ServerResult> = r
            .servers
            .iter()
            .filter(|s| s.steps.iter().any(|st| &st.endpoint == endpoint))
            .collect();
        // The first table says why each ladder stopped; the others where.
        let row = |s: &ServerResult, show: &dyn Fn(&Run) -> String, why: bool| {
            let mut row = vec![s.name.clone(), analogue(s), saturation(s, endpoint, why)];
            row.extend(rungs.iter().map(|id| match find(s, endpoint, id) {
                None => "—".to_string(),
                Some(st) if !st.valid => "invalid".to_string(),
                Some(st) => match &st.median {
                    None => "n/a".to_string(),
                    Some(m) => format!("{}{}", show(m), marks(m)),
                },
            }));
            row
        };
        let opt_ms = |us: Option<u64>| us.map_or("n/a".to_string(), ms);
        let rows: Vec<Vec<String>> = served
            .iter()
            .map(|s| {
                row(
                    s,
                    &|m| {
                        format!(
                            "{} · {}",
                            opt_ms(m.latency_us.p99),
                            m.cpu_us_per_request
                                .map_or("n/a".to_string(), |c| format!("{c:.2}"))
                        )
                    },
                    true,
                )
            })
            .collect();
        write_table(out, &head, &rows, 3);

        let _ = writeln!(
            out,
            "## `{endpoint}`: requests/s achieved at each offered rate\n\n\
             The responses per second of the measured window, and their share of the rate \
             offered.\n"
        );
        let rows: Vec<Vec<String>> = served
            .iter()
            .map(|s| {
                row(
                    s,
                    &|m| match m.offered_requests_per_s {
                        Some(o) if o > 0.0 => {
                            format!("{} ({:.0} %)", rps(m), m.requests_per_s / o * 100.0)
                        }
                        _ => rps(m),
                    },
                    false,
                )
            })
            .collect();
        write_table(out, &head, &rows, 3);

        let _ = writeln!(
            out,
            "## `{endpoint}`: p99.9 ms from the intended send time · from the actual send\n\n\
             The first figure counts a request from when it was due, so a stall weighs in every \
             request it held back; the second from when it was sent, the figure of a tool that \
             waits for an answer before the next request (coordinated omission). `n/a`: the tool \
             reports no second figure (k6, oha).\n"
        );
        let rows: Vec<Vec<String>> = served
            .iter()
            .map(|s| {
                row(
                    s,
                    &|m| {
                        format!(
                            "{} · {}",
                            opt_ms(m.latency_us.p999),
                            opt_ms(m.latency_uncorrected_us.as_ref().and_then(|l| l.p999))
                        )
                    },
                    false,
                )
            })
            .collect();
        write_table(out, &head, &rows, 3);
    }
    let _ = writeln!(
        out,
        "† the load tool set the pace of this figure; ‡ the machine did (other work, steal or CPU waits).\n"
    );
}

/// Where `s`'s ladder on `endpoint` ended: the rung it could not keep up with (and, with
/// `why`, why); the invalid rung it stopped at; or the top rung it kept up with.
fn saturation(s: &ServerResult, endpoint: &str, why: bool) -> String {
    let rungs: Vec<&StepResult> = s
        .steps
        .iter()
        .filter(|st| st.endpoint == endpoint)
        .collect();
    if let Some(st) = rungs.iter().find(|st| st.saturation.is_some()) {
        return match (why, &st.saturation) {
            (true, Some(reason)) => format!("{}: {reason}", st.step),
            _ => st.step.clone(),
        };
    }
    if let Some(st) = rungs.iter().find(|st| !st.valid) {
        return format!("not found: {} invalid", st.step);
    }
    match rungs.iter().rev().find(|st| st.median.is_some()) {
        Some(st) => format!("none: kept up to {}", st.step),
        None => "n/a".to_string(),
    }
}

/// Each step's valid median run of `s` on `endpoint` (`None`: not run, invalid or empty).
fn valid_medians<'a>(
    s: &'a ServerResult,
    endpoint: &str,
    steps: &[String],
) -> Vec<Option<(&'a StepResult, &'a Run)>> {
    steps
        .iter()
        .map(|id| {
            find(s, endpoint, id)
                .filter(|st| st.valid)
                .and_then(|st| Some((st, st.median.as_ref()?)))
        })
        .collect()
}

/// What each server answered to one plain `GET` per endpoint before the load.
fn verified(out: &mut String, r: &Results) {
    if r.servers.iter().all(|s| s.verified.is_empty()) {
        return;
    }
    let _ = writeln!(
        out,
        "## Responses verified before the load (one plain `GET` each)\n"
    );
    let head: Vec<String> = [
        "Server",
        "Endpoint",
        "Header fields",
        "Differs from the contract",
        "Status",
        "Head B",
        "Body B",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = Vec::new();
    for s in &r.servers {
        for v in &s.verified {
            rows.push(vec![
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
            ]);
        }
    }
    write_table(out, &head, &rows, 4);
}

fn header(out: &mut String, r: &Results) {
    let _ = writeln!(out, "# {}: {}\n", r.experiment.to_uppercase(), r.title);
    if !r.complete {
        let _ = writeln!(
            out,
            "> **Partial run: {}.** This file was written after the last step that finished; \
             the steps that had not run read `n/a`, and a step's median is over the repeats it had.\n",
            r.incomplete_reason
                .as_deref()
                .unwrap_or("it did not finish")
        );
    }
    let m = &r.machine;
    let mut lines = vec![
        format!("Date: {} to {}", r.started_utc, r.finished_utc),
        format!(
            "Machine: {}, {}, {} CPUs, {:.1} GiB",
            or_unknown(&m.hostname),
            or_unknown(&m.cpu_model),
            m.cpus,
            m.mem_total_kb as f64 / 1024.0 / 1024.0
        ),
        format!("Kernel: {}", or_unknown(&m.kernel)),
        format!(
            "Git: {}{}",
            r.git.revision.as_deref().unwrap_or("unknown"),
            match r.git.dirty {
                Some(true) => " (with uncommitted changes)",
                _ => "",
            }
        ),
    ];
    let version = r
        .versions
        .get("tool")
        .map(|v| format!(" ({v})"))
        .unwrap_or_default();
    lines.push(format!("Tool: {}{version}", r.tool));
    if let Some(cmd) = r
        .servers
        .iter()
        .flat_map(|s| &s.steps)
        .find(|s| !s.tool_command.is_empty())
    {
        lines.push(format!(
            "Tool command ({} {}): `{}`",
            cmd.endpoint,
            cmd.step,
            cmd.tool_command.join(" ")
        ));
    }
    lines.push(format!("Command: `{}`", r.command.join(" ")));
    lines.push(format!(
        "Length: {}, {} repeat{} per step (the tables show the median)",
        if r.quick { "quick" } else { "full" },
        r.repeat,
        if r.repeat == 1 { "" } else { "s" }
    ));
    lines.push(match &r.pinning {
        Some(p) => format!(
            "Pinning: servers on CPU {}, load tool on CPU {}",
            cpus(&p.server_cpus),
            cpus(&p.load_cpus)
        ),
        None => "Pinning: none".to_string(),
    });
    lines.push(match &r.target {
        Some(t) => format!("Target: {t} (remote: no RSS or CPU sampling)"),
        None => "Target: servers started by the harness on this machine".to_string(),
    });
    for l in lines {
        let _ = writeln!(out, "- {l}");
    }
    for n in &r.notes {
        let _ = writeln!(out, "- Note: {n}");
    }
    out.push('\n');
}

/// The sentence that says which figures are the load tool's limit rather than the server's.
fn tool_limit(out: &mut String, r: &Results) {
    let bound = r.tool_bound_steps();
    let tool = &r.tool;
    let medians = || {
        r.servers
            .iter()
            .flat_map(|s| s.steps.iter().map(move |st| (s, st)))
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
    let _ = writeln!(out, "{sentence}\n");
}

/// The sentence that says which figures the machine set (other work, steal, CPU waits)
/// rather than the server, or that it was quiet throughout.
fn machine_limit(out: &mut String, r: &Results) {
    let busy = disturbed_steps(r);
    let measured: Vec<&Interference> = r
        .servers
        .iter()
        .flat_map(|s| &s.steps)
        .filter_map(|st| st.median.as_ref()?.interference.as_ref())
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
    } else if r
        .servers
        .iter()
        .flat_map(|s| &s.steps)
        .any(|st| st.median.is_some())
    {
        "**The machine:** this file does not record what else ran on the machine (written \
         before bench measured it, or its steps were too short to), so it cannot say which \
         figures the machine set."
            .to_string()
    } else {
        return;
    };
    let _ = writeln!(out, "{sentence}\n");
}

/// A table: one row per server, a column per `Col` (each of the endpoint it names).
fn table(out: &mut String, r: &Results, cols: &[(&str, Col)]) {
    let mut head = vec!["Server".to_string(), "Analogue of".to_string()];
    head.extend(cols.iter().map(|(_, c)| c.header.clone()));
    let rows = r
        .servers
        .iter()
        .map(|s| {
            let mut row = vec![s.name.clone(), analogue(s)];
            row.extend(cols.iter().map(|(e, c)| match find(s, e, &c.step) {
                None => "—".to_string(),
                Some(st) if !st.valid => "invalid".to_string(),
                Some(st) => match &st.median {
                    None => "n/a".to_string(),
                    Some(run) => {
                        let cell = (c.show)(run).unwrap_or_else(|| "n/a".to_string());
                        if c.rate {
                            format!("{cell}{}", marks(run))
                        } else {
                            cell
                        }
                    }
                },
            }));
            row
        })
        .collect::<Vec<_>>();
    write_table(out, &head, &rows, 2);
}

/// Writes a markdown table whose first `left` columns are text (left-aligned), the rest
/// figures (right-aligned).
fn write_table(out: &mut String, head: &[String], rows: &[Vec<String>], left: usize) {
    let line = |cells: &[String]| {
        let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    out.push_str(&line(head));
    let rule: Vec<String> = head
        .iter()
        .enumerate()
        .map(|(i, _)| {
            if i < left {
                "---".into()
            } else {
                "---:".into()
            }
        })
        .collect();
    let _ = writeln!(out, "|{}|", rule.join("|"));
    for row in rows {
        out.push_str(&line(row));
    }
    out.push('\n');
}

fn resources(out: &mut String, r: &Results) {
    let _ = writeln!(
        out,
        "## Resources (server process tree, median of repeats)\n\n\
         CPU µs/request splits into user (the runtime's, the framework's and the variant's own \
         code) and kernel (system calls and loopback TCP). Tool CPU % is the load tool's own \
         process tree over its measured window (100 = one CPU), † where it set the pace. Other \
         CPU % is the machine's busy time that neither the server, the tool nor the harness \
         used, ‡ where the machine set the figures.\n"
    );
    let head: Vec<String> = [
        "Server",
        "Endpoint",
        "Step",
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
    ]
    .map(String::from)
    .to_vec();
    let cols = head.len() - 3;
    let mut rows = Vec::new();
    for s in &r.servers {
        for st in &s.steps {
            let mut row = vec![s.name.clone(), st.endpoint.clone(), st.step.clone()];
            match (&st.median, st.valid) {
                (_, false) => row.extend(std::iter::repeat_n("invalid".to_string(), cols)),
                (None, true) => row.extend(std::iter::repeat_n("n/a".to_string(), cols)),
                (Some(run), true) => {
                    let mb = |kb: Option<u64>| {
                        kb.map_or("n/a".into(), |kb| format!("{:.1}", kb as f64 / 1024.0))
                    };
                    let fig = |v: Option<f64>, d: usize| {
                        v.map_or("n/a".to_string(), |v| format!("{v:.d$}"))
                    };
                    let i = run.interference;
                    row.push(mb(run.rss_kb.map(|x| x.start)));
                    row.push(mb(run.rss_kb.map(|x| x.peak)));
                    row.push(mb(run.rss_kb.map(|x| x.end)));
                    row.push(fig(run.server_cpu_percent, 1));
                    row.push(fig(run.cpu_us_per_request, 2));
                    row.push(fig(run.cpu_user_us_per_request, 2));
                    row.push(fig(run.cpu_kernel_us_per_request, 2));
                    row.push(run.tool_cpu_percent.map_or("n/a".into(), |c| {
                        format!(
                            "{c:.1}{}",
                            if super::run_tool_bound(run) {
                                " †"
                            } else {
                                ""
                            }
                        )
                    }));
                    row.push(
                        i.and_then(|i| i.other_cpu_percent)
                            .map_or("n/a".into(), |c| {
                                format!("{c:.1}{}", if run.disturbed { " ‡" } else { "" })
                            }),
                    );
                    row.push(fig(i.and_then(|i| i.server_wait_percent), 1));
                }
            }
            rows.push(row);
        }
    }
    write_table(out, &head, &rows, 3);
    let short: Vec<String> = r
        .servers
        .iter()
        .flat_map(|s| s.steps.iter().map(move |st| (s, st)))
        .filter_map(|(s, st)| {
            let m = st.median.as_ref()?;
            let why = m.unmeasured.as_deref()?;
            Some(format!("{} {} {}: {why}", s.name, st.endpoint, st.step))
        })
        .collect();
    if !short.is_empty() {
        let _ = writeln!(out, "Not measured: {}.\n", short.join("; "));
    }
    let rounds: Vec<String> = r
        .servers
        .iter()
        .flat_map(|s| s.steps.iter().map(move |st| (s, st)))
        .filter_map(|(s, st)| {
            let n = st.median.as_ref()?.rounds.filter(|&n| n > 1)?;
            Some(format!("{} {} {} ×{n}", s.name, st.endpoint, st.step))
        })
        .collect();
    if !rounds.is_empty() {
        let _ = writeln!(
            out,
            "Count-bounded steps run their count again, back to back, until the measured window is at least {} s (the figures are over all the rounds): {}.\n",
            crate::step::MIN_COUNT_STEP.as_secs(),
            rounds.join("; ")
        );
    }
}

fn spread(out: &mut String, r: &Results) {
    if r.repeat <= 1 {
        return;
    }
    let _ = writeln!(out, "## Spread over repeats (requests/s)\n");
    let head: Vec<String> = [
        "Server", "Endpoint", "Step", "Repeats", "Min", "Median", "Max", "Spread",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = Vec::new();
    for s in &r.servers {
        for st in &s.steps {
            let (Some(sp), Some(m)) = (&st.spread, &st.median) else {
                continue;
            };
            rows.push(vec![
                s.name.clone(),
                st.endpoint.clone(),
                st.step.clone(),
                st.repeats.len().to_string(),
                thousands(sp.requests_per_s_min),
                thousands(m.requests_per_s),
                thousands(sp.requests_per_s_max),
                format!("{:.1} %", sp.relative * 100.0),
            ]);
        }
    }
    write_table(out, &head, &rows, 3);
}

fn invalid(out: &mut String, r: &Results) {
    let bad: Vec<String> = r
        .servers
        .iter()
        .flat_map(|s| {
            s.steps.iter().filter(|st| !st.valid).map(move |st| {
                format!(
                    "- {} `{}` {}: {}",
                    s.name,
                    st.endpoint,
                    st.step,
                    st.invalid_reason.as_deref().unwrap_or("no reason recorded")
                )
            })
        })
        .collect();
    if !bad.is_empty() {
        let _ = writeln!(out, "## Invalid steps\n\n{}\n", bad.join("\n"));
    }
}

fn caveats(out: &mut String, r: &Results) {
    // Each note once, with the steps it came from (server, endpoint, step) unless it applies
    // to every step: "loadgen was busy" on three steps of twenty says where the tool may have
    // set the pace.
    let mut notes: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut all_steps = 0;
    for s in &r.servers {
        for st in &s.steps {
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
    }
    if !notes.is_empty() {
        let _ = writeln!(
            out,
            "## What the tool could not measure exactly
"
        );
        for (n, places) in notes {
            if places.len() == all_steps {
                let _ = writeln!(out, "- {n}");
            } else {
                let list: Vec<&str> = places.iter().map(String::as_str).collect();
                let _ = writeln!(out, "- {n} ({})", list.join("; "));
            }
        }
        out.push('\n');
    }
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
pub(super) fn ms(us: u64) -> String {
    format!("{:.2}", us as f64 / 1000.0)
}

pub(super) fn error_rate(r: &Run) -> String {
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

fn errors_cell(r: &Run) -> String {
    let e = &r.errors;
    let parts = nonzero(&[
        ("connect", e.connect),
        ("read", e.read),
        ("write", e.write),
        ("timeout", e.timeout),
        ("status", e.status),
        ("other", e.other),
    ]);
    if parts.is_empty() {
        "0".into()
    } else {
        format!("{} ({parts})", e.total())
    }
}

pub(super) fn socket_errors(r: &Run) -> String {
    let e = &r.errors;
    let parts = nonzero(&[
        ("connect", e.connect),
        ("read", e.read),
        ("write", e.write),
        ("timeout", e.timeout),
    ]);
    if parts.is_empty() { "0".into() } else { parts }
}

/// `kind n` for each kind counted at least once, comma-separated (`read 76, timeout 2`).
fn nonzero(counts: &[(&str, u64)]) -> String {
    counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::results::{Latency, StepResult};

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

    #[test]
    fn the_probe_has_charts_of_its_own() {
        let r = with_probes();
        let charts = super::super::chart::charts(&r);
        let probe: Vec<_> = charts
            .iter()
            .filter(|c| c.group == super::super::chart::PROBE_GROUP)
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
        assert!(
            charts
                .iter()
                .all(|c| c.group == super::super::chart::PROBE_GROUP
                    || c.panels.iter().all(|p| p.title != BASELINE))
        );
    }
}
