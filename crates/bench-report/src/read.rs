//! What every report reads of a run the same way: its endpoints and step ids in order, one
//! server's step, what its experiment shows ([`Shown`]), the marks of a figure and the
//! footnotes that explain them; and of the header of every other results file, its
//! provenance lines, revision and dirty mark; and a file's link relative to a directory.

use std::fs;
use std::path::{Component, Path};

use bench_model::experiment::{self, Shown};
use bench_model::results::{Header, Results, Run, ServerResult, StepResult};

use crate::model::{MACHINE_MARK, Marks, ROUND_TRIP_MARK, TOOL_MARK};

/// The endpoints of `r`, in the order they first appear.
pub(crate) fn endpoints(r: &Results) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for st in r.servers.iter().flat_map(|s| &s.steps) {
        if !v.contains(&st.endpoint) {
            v.push(st.endpoint.clone());
        }
    }
    v
}

/// The step ids of `endpoint` in `r`, in the order they first appear.
pub(crate) fn step_ids(r: &Results, endpoint: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for st in r.servers.iter().flat_map(|s| &s.steps) {
        if st.endpoint == endpoint && !v.contains(&st.step) {
            v.push(st.step.clone());
        }
    }
    v
}

/// The step `(endpoint, step)` of `s`, if it ran.
pub(crate) fn find<'a>(s: &'a ServerResult, endpoint: &str, step: &str) -> Option<&'a StepResult> {
    s.steps
        .iter()
        .find(|st| st.endpoint == endpoint && st.step == step)
}

/// What the report of `r` shows: its experiment's declaration ([`Shown`]); for a file of no
/// known experiment, a ladder's when a step records an offered rate, else
/// [`experiment::OTHER_SHOWN`].
pub(crate) fn shown(r: &Results) -> &'static Shown {
    match experiment::find(&r.experiment) {
        Some(e) => &e.shown,
        None if r.steps().any(|(_, st)| st.offered_requests_per_s.is_some()) => {
            &experiment::LADDER_SHOWN
        }
        None => &experiment::OTHER_SHOWN,
    }
}

/// The title of what the runs `runs` of one experiment measured: its declared title when
/// they measured every step of it, else the declared title's head (before its first `: `)
/// with the connections, endpoints and way of sending they measured; a ladder of offered
/// rates (E7) always says its own rates, the rates the search added, its endpoints and
/// connections (`The open-loop profile: latency and CPU per request at fixed offered rates,
/// 10k, 40k and 80k requests/s and 18 rates searched between them, on /hello at 100
/// connections`). A title promises nothing the runs did not measure.
pub(crate) fn measured_title(runs: &[&Results]) -> String {
    let Some(first) = runs.first() else {
        return String::new();
    };
    let e = experiment::find(&first.experiment);
    let declared = e.map_or(first.title.as_str(), |e| e.title);
    let head = declared.split_once(": ").map_or(declared, |(h, _)| h);
    // E4's baseline is the probe alone, no load: no step of the title's.
    let steps: Vec<&StepResult> = runs
        .iter()
        .flat_map(|r| r.steps())
        .map(|(_, st)| st)
        .filter(|st| st.step != experiment::BASELINE)
        .collect();
    if steps.is_empty() {
        return declared.to_string();
    }
    let mut endpoints: Vec<String> = Vec::new();
    for st in &steps {
        if !endpoints.contains(&st.endpoint) {
            endpoints.push(st.endpoint.clone());
        }
    }
    let mut conns: Vec<usize> = steps.iter().map(|st| st.connections).collect();
    conns.sort_unstable();
    conns.dedup();
    let conns_text = |conns: &[usize]| {
        let n: Vec<String> = conns
            .iter()
            .map(|c| bench_chart::format::thousands(*c as f64))
            .collect();
        format!(
            "{} connection{}",
            bench_chart::format::listed(&n),
            if conns == [1] { "" } else { "s" }
        )
    };
    if steps.iter().any(|st| st.offered_requests_per_s.is_some()) {
        let rates = |searched: bool| {
            let mut v: Vec<f64> = steps
                .iter()
                .filter(|st| st.searched_rounds.is_some() == searched)
                .filter_map(|st| st.offered_requests_per_s)
                .collect();
            v.sort_by(f64::total_cmp);
            v.dedup();
            v
        };
        let ladder: Vec<String> = rates(false)
            .into_iter()
            .map(bench_chart::format::rate)
            .collect();
        let searched = rates(true).len();
        let searched = match searched {
            0 => String::new(),
            1 => " and 1 rate searched between them".to_string(),
            n => format!(" and {n} rates searched between them"),
        };
        return format!(
            "{head}: latency and CPU per request at fixed offered rates, {} requests/s{searched}, on {} at {}",
            bench_chart::format::listed(&ladder),
            bench_chart::format::listed(&endpoints),
            conns_text(&conns)
        );
    }
    let Some(e) = e else {
        return declared.to_string();
    };
    let all = e
        .steps(false)
        .iter()
        .filter(|d| d.id != experiment::BASELINE)
        .all(|d| {
            steps
                .iter()
                .any(|st| st.endpoint == d.endpoint && st.step == d.id)
        });
    if all {
        return declared.to_string();
    }
    // How requests were sent, and any pipelining, from the declared steps measured.
    let declared_steps = e.steps(false);
    let of = |st: &StepResult| {
        declared_steps
            .iter()
            .find(|d| d.endpoint == st.endpoint && d.id == st.step)
    };
    let mut modes: Vec<&str> = steps
        .iter()
        .filter_map(|st| of(st))
        .map(|d| match d.mode.name() {
            "http1.0" => "a new HTTP/1.0 connection per request",
            "http1.0-keep-alive" => "HTTP/1.0 keep-alive",
            "close" => "a new connection per request",
            _ => "keep-alive",
        })
        .collect();
    modes.dedup();
    let pipelined: Vec<String> = endpoints
        .iter()
        .map(|e| {
            let depth = steps
                .iter()
                .filter(|st| &st.endpoint == e)
                .filter_map(|st| of(st))
                .map(|d| d.pipeline)
                .max()
                .unwrap_or(1);
            if depth > 1 {
                format!("{e} (pipelined {depth} deep)")
            } else {
                e.clone()
            }
        })
        .collect();
    let how = if modes.len() == 1 {
        format!("{} at ", modes[0])
    } else {
        String::new()
    };
    format!(
        "{head}: {how}{} on {}",
        conns_text(&conns),
        bench_chart::format::listed(&pipelined)
    )
}

/// Whether the machine (other work, steal, CPU waits) may have set `st`'s figures: its median
/// run's recorded mark (`step::machine::disturbed`, the one rule).
pub(crate) fn disturbed(st: &StepResult) -> bool {
    st.median.as_ref().is_some_and(|m| m.disturbed)
}

/// The marks of a valid step's figures: its median run's ([`Marks::of`]); none for an
/// invalid step or one of no median.
pub(crate) fn step_marks(st: &StepResult) -> Marks {
    match &st.median {
        Some(m) if st.valid => Marks::of(m),
        _ => Marks::default(),
    }
}

/// The marks of a run's figure: ` †` (tool-bound), ` ‡` (disturbed), ` §` (set by the round
/// trips), their combinations, or nothing.
pub fn marks(run: &Run) -> String {
    Marks::of(run).suffix()
}

/// The footnotes of the marks in `r`'s tables, one line each (none when nothing is marked):
/// which figures the load tool set, and which the machine set.
pub fn footnotes(r: &Results) -> Vec<String> {
    let mut out = Vec::new();
    let bound = r.tool_bound_steps();
    if !bound.is_empty() {
        let list: Vec<String> = bound.iter().map(|b| b.describe()).collect();
        out.push(format!(
            "{TOOL_MARK} tool-bound: {} used at least 90 % of what it could use (its busiest thread's CPU for a single-threaded tool, all the CPUs it may run on for a multi-threaded one), so these figures are its limit, not the server's: {}",
            r.tool,
            list.join("; ")
        ));
    }
    let paced: Vec<String> = r
        .steps()
        .filter_map(|(s, st)| {
            let why = st.median.as_ref()?.round_trips_bound.as_ref()?;
            Some(format!("{} {} {} ({why})", s.name, st.endpoint, st.step))
        })
        .collect();
    if !paced.is_empty() {
        out.push(format!(
            "{ROUND_TRIP_MARK} set by the round trips: neither the server nor the load tool used 90 % of what it could, so each connection waited on its own round trips and these requests/s are not the server's capacity (more connections would give more): {}",
            paced.join("; ")
        ));
    }
    let busy = disturbed_steps(r);
    if !busy.is_empty() {
        out.push(format!(
            "{MACHINE_MARK} disturbed: the machine set these figures, not the server (other work, steal or CPU waits past the limits, even after the retries): {}",
            busy.join("; ")
        ));
    }
    out
}

/// `server /endpoint step (why)` for every step whose median run was disturbed.
pub(crate) fn disturbed_steps(r: &Results) -> Vec<String> {
    r.steps()
        .filter_map(|(s, st)| {
            let m = st.median.as_ref().filter(|m| m.disturbed)?;
            Some(format!(
                "{} {} {} ({})",
                s.name,
                st.endpoint,
                st.step,
                m.disturbed_reason.as_deref().unwrap_or("disturbed")
            ))
        })
        .collect()
}

/// The provenance lines that the reports of `bench tools compare` and `bench idle` open with:
/// when, the machine, the git revision, and `versions` (already written out).
pub(crate) fn provenance(h: &Header, versions: &[String]) -> Vec<(String, String)> {
    let m = &h.machine;
    [
        (
            "When",
            format!("{} to {} (UTC)", h.started_utc, h.finished_utc),
        ),
        (
            "Machine",
            format!(
                "{}, {} CPUs ({}), {}, {} MiB",
                m.hostname,
                m.cpus,
                m.cpu_model,
                m.kernel,
                m.mem_total_kb / 1024
            ),
        ),
        ("Git", format!("{}{}", revision(h), dirty(h, " (dirty)"))),
        ("Versions", versions.join("; ")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The results' git revision, or `unknown`.
pub(crate) fn revision(h: &Header) -> &str {
    h.git.revision.as_deref().unwrap_or("unknown")
}

/// `mark` when the working tree had uncommitted changes, else nothing.
pub(crate) fn dirty<'a>(h: &Header, mark: &'a str) -> &'a str {
    if h.git.dirty == Some(true) { mark } else { "" }
}

/// `to` as a link relative to the directory `from` (the page's to its notes, the README's to
/// its results files), `/`-separated; `None` when either cannot
/// be resolved.
pub(crate) fn relative(from: &Path, to: &Path) -> Option<String> {
    let from = fs::canonicalize(from).ok()?;
    let to = fs::canonicalize(to).ok()?;
    let a: Vec<Component<'_>> = from.components().collect();
    let b: Vec<Component<'_>> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_footnotes_come_from_the_recorded_verdicts() {
        let run = |tool_bound: bool, disturbed: bool| Run {
            requests_per_s: 1000.0,
            tool_bound,
            disturbed,
            disturbed_reason: disturbed.then(|| "other work took 45 % of a CPU".to_string()),
            tool_cpu_percent: Some(98.0),
            tool_cpus: Some(1),
            ..Run::default()
        };
        assert_eq!(marks(&run(false, false)), "");
        assert_eq!(marks(&run(true, false)), " †");
        assert_eq!(marks(&run(false, true)), " ‡");
        assert_eq!(marks(&run(true, true)), " †‡");
        let step = |id: &str, r: Run| {
            let mut st = StepResult {
                step: id.into(),
                endpoint: "/".into(),
                connections: 50,
                requests: None,
                duration_s: Some(2.0),
                offered_requests_per_s: None,
                tool_command: vec![],
                valid: true,
                invalid_reason: None,
                repeats: vec![r],
                median: None,
                spread: None,
                intervals: None,
                saturation: None,
                searched_rounds: None,
            };
            st.finish();
            st
        };
        let text = include_str!("../tests/data/results-e3.json");
        let mut r: Results = serde_json::from_str(text).unwrap();
        r.servers.truncate(1);
        r.servers[0].name = "x".into();
        r.servers[0].steps = vec![step("c1", run(false, false))];
        assert!(footnotes(&r).is_empty());
        r.servers[0].steps = vec![step("c1", run(true, false)), step("c2", run(false, true))];
        assert!(step_marks(&r.servers[0].steps[0]).tool && !disturbed(&r.servers[0].steps[0]));
        assert!(disturbed(&r.servers[0].steps[1]));
        let notes = footnotes(&r);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].starts_with("† tool-bound: "), "{notes:?}");
        assert!(
            notes[0].ends_with("x / c1 (tool CPU 98 % of 1 CPU)"),
            "{notes:?}"
        );
        assert_eq!(
            notes[1],
            "‡ disturbed: the machine set these figures, not the server (other work, steal or CPU waits past the limits, even after the retries): x / c2 (other work took 45 % of a CPU)"
        );
        // Neither side set the pace: its own mark and line.
        let paced = Run {
            round_trips_bound: Some("neither side set the pace".into()),
            ..run(false, false)
        };
        assert_eq!(marks(&paced), " §");
        r.servers[0].steps = vec![step("c3", paced)];
        assert_eq!(
            footnotes(&r),
            [
                "§ set by the round trips: neither the server nor the load tool used 90 % of what it could, so each connection waited on its own round trips and these requests/s are not the server's capacity (more connections would give more): x / c3 (neither side set the pace)"
            ]
        );
    }
}
