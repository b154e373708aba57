//! `bench compare OLD NEW`: what moved between two runs of the same experiments, cell by cell
//! (a server's step) and finding by finding, judged by the runs' own 95 % intervals.
//!
//! A cell is compared on the figure that carries across runs: when both runs measured the C
//! ceiling in the same rounds, each server's requests/s and CPU per request as a ratio to the
//! ceiling's in the same round (the machine's speed, which moves by the hour on a shared VM,
//! cancels out); otherwise the figures themselves. A finding is compared on its ratio (the
//! median of the rounds' ratios, [`findings`](super::findings)).
//!
//! **Moved** means the two 95 % intervals do not overlap. That is stricter than a test at
//! 5 %: two intervals of the same median both miss it, on opposite sides, far less often than
//! one in twenty (about one in 400 for two independent 95 % intervals of a normal figure), so
//! over the hundred-odd comparisons of a publish a false alarm is rare rather than expected.
//! The price is power: a change smaller than the intervals' width is reported as not shown,
//! never as absent. A side without an interval (a run of one round, a file from before
//! rounds) cannot be judged, and says so.
//!
//! E7's answer, the rate a server sustains, has no such interval: the search brackets it
//! between the last rate held and the first not held ([`bench_model::sustainable`]), and the
//! true rate lies in that bracket, `[held, not held)` (`[held, ∞)` for a lower bound). It is
//! compared on its bracket, and so is a finding between two sustained rates: it **moved** when
//! the two brackets do not overlap, that is, when one run held a rate the other did not.
//! An E7 rung is also compared on its p99 (over the ceiling's), the figure E7 is about.

use std::path::{Path, PathBuf};

use bench_model::experiment::{self, Quantity};
use bench_model::results::{CEILING, Interval, Results, Run, ServerResult, StepResult};
use bench_model::sustainable;

use crate::error::ReportError;
use crate::model::{Block, Cell, Document, Table};
use crate::table::Table as TextTable;

/// A figure of one run, with its interval when the run had rounds enough.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The median.
    pub median: f64,
    /// Its 95 % interval.
    pub interval: Option<Interval>,
}

/// What a comparison concluded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// The intervals do not overlap: the figure moved, by `new / old`.
    Moved(f64),
    /// The intervals overlap: no change shown at these runs' precision.
    Same,
    /// A side has no interval: it cannot be judged.
    Unjudged,
}

impl Verdict {
    fn of(old: &Estimate, new: &Estimate) -> Verdict {
        match (old.interval, new.interval) {
            (Some(a), Some(b)) if a.n >= 2 && b.n >= 2 => {
                if a.high < b.low || b.high < a.low {
                    Verdict::Moved(new.median / old.median)
                } else {
                    Verdict::Same
                }
            }
            _ => Verdict::Unjudged,
        }
    }

    /// Two brackets `[low, high)` of a searched rate (or a ratio of two): moved when they do
    /// not overlap, so that one run held a rate the other did not.
    fn of_brackets(old: &Estimate, new: &Estimate) -> Verdict {
        match (old.interval, new.interval) {
            (Some(a), Some(b)) if a.high <= b.low || b.high <= a.low => {
                Verdict::Moved(new.median / old.median)
            }
            (Some(_), Some(_)) => Verdict::Same,
            _ => Verdict::Unjudged,
        }
    }

    /// `moved +12.3 %`, `same`, `no interval`.
    pub fn text(&self) -> String {
        match self {
            Verdict::Moved(x) => format!("moved {:+.1} %", (x - 1.0) * 100.0),
            Verdict::Same => "same".into(),
            Verdict::Unjudged => "no interval".into(),
        }
    }
}

/// One compared figure: a cell's or a finding's.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The experiment (`e3`).
    pub experiment: String,
    /// What is compared: `server-hyper / c100` or a finding's first words.
    pub what: String,
    /// Which figure (`requests/s ÷ ceiling`, `CPU µs/request`, `ratio`).
    pub figure: String,
    /// The old run's.
    pub old: Estimate,
    /// The new run's.
    pub new: Estimate,
    /// The conclusion.
    pub verdict: Verdict,
}

/// The comparison of two sets of results.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    /// Every compared figure, cells first, by experiment.
    pub changes: Vec<Change>,
    /// The experiments in only one of the two.
    pub unmatched: Vec<String>,
}

impl Comparison {
    /// The figures that moved.
    pub fn moved(&self) -> impl Iterator<Item = &Change> {
        self.changes
            .iter()
            .filter(|c| matches!(c.verdict, Verdict::Moved(_)))
    }
}

/// The `bench run` results in `path`: the file itself, or the newest file of each experiment
/// in a folder (a published one).
pub fn load(path: &Path) -> Result<Vec<Results>, ReportError> {
    let files: Vec<PathBuf> = if path.is_dir() {
        let entries = std::fs::read_dir(path).map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut v: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == "json")
                    && bench_model::results::schema_of(p).as_deref()
                        == Some(bench_model::results::SCHEMA)
            })
            .collect();
        v.sort();
        v
    } else {
        vec![path.to_path_buf()]
    };
    let mut newest: Vec<Results> = Vec::new();
    for f in files {
        let r = Results::load(&f)?;
        match newest.iter_mut().find(|n| n.experiment == r.experiment) {
            Some(n) if n.header.started_utc < r.header.started_utc => *n = r,
            Some(_) => {}
            None => newest.push(r),
        }
    }
    if newest.is_empty() {
        return Err(ReportError::NoResults(path.to_path_buf()));
    }
    Ok(newest)
}

/// Compares `old` and `new`, experiment by experiment.
pub fn compare(old: &[Results], new: &[Results]) -> Comparison {
    let mut out = Comparison::default();
    for o in old {
        match new.iter().find(|n| n.experiment == o.experiment) {
            Some(n) => {
                cells(&mut out.changes, o, n);
                sustained(&mut out.changes, o, n);
                findings(&mut out.changes, o, n);
            }
            None => out.unmatched.push(format!("{} (old only)", o.experiment)),
        }
    }
    for n in new {
        if !old.iter().any(|o| o.experiment == n.experiment) {
            out.unmatched.push(format!("{} (new only)", n.experiment));
        }
    }
    out
}

/// A figure of a run's step: its ratio to the ceiling's in the same rounds when `to_ceiling`,
/// else its median with its interval.
fn estimate(
    r: &Results,
    st: &StepResult,
    figure: fn(&Run) -> Option<f64>,
    interval: fn(&StepResult) -> Option<Interval>,
    to_ceiling: bool,
) -> Option<Estimate> {
    if !st.valid {
        return None;
    }
    if to_ceiling {
        let (median, i) = r.to_ceiling(st, figure)?;
        return Some(Estimate {
            median,
            interval: Some(i),
        });
    }
    Some(Estimate {
        median: figure(st.median.as_ref()?)?,
        interval: interval(st),
    })
}

/// Every (server, step) of `o` that `n` has too, on requests/s and CPU per request, and an
/// open-loop rung (E7) also on its p99.
fn cells(out: &mut Vec<Change>, o: &Results, n: &Results) {
    // Plain name, name over the ceiling, the figure, its interval, on rungs only.
    type Figure = (
        &'static str,
        &'static str,
        fn(&Run) -> Option<f64>,
        fn(&StepResult) -> Option<Interval>,
        bool,
    );
    let figures: [Figure; 3] = [
        (
            "requests/s",
            "requests/s ÷ ceiling",
            |r| Some(r.requests_per_s),
            |st| st.intervals?.requests_per_s,
            false,
        ),
        (
            "CPU µs/request",
            "CPU µs/request ÷ ceiling",
            |r| r.cpu_us_per_request,
            |st| st.intervals?.cpu_us_per_request,
            false,
        ),
        // The figure an open-loop rung (E7) is about: compared on rungs only.
        (
            "p99 ms",
            "p99 ÷ ceiling",
            |r| Some(r.latency_us.p99? as f64 / 1000.0),
            |st| {
                let i = st.intervals?.p99_us?;
                Some(Interval {
                    low: i.low / 1000.0,
                    high: i.high / 1000.0,
                    ..i
                })
            },
            true,
        ),
    ];
    for so in &o.servers {
        let Some(sn) = n.servers.iter().find(|s| s.name == so.name) else {
            continue;
        };
        for sto in &so.steps {
            let Some(stn) = step(sn, sto) else {
                continue;
            };
            // Against the ceiling when both runs can say it (the ceiling itself: as it is).
            let rps = |r: &Run| Some(r.requests_per_s);
            let to_ceiling = so.name != CEILING
                && o.to_ceiling(sto, rps).is_some()
                && n.to_ceiling(stn, rps).is_some();
            let rung = sustainable::rate_of(sto).is_some();
            for (plain, ratio, figure, interval, rungs_only) in figures {
                if rungs_only && !rung {
                    continue;
                }
                let (Some(old), Some(new)) = (
                    estimate(o, sto, figure, interval, to_ceiling),
                    estimate(n, stn, figure, interval, to_ceiling),
                ) else {
                    continue;
                };
                out.push(Change {
                    experiment: o.experiment.clone(),
                    what: format!("{} `{}` {}", so.name, sto.endpoint, sto.step),
                    figure: if to_ceiling { ratio } else { plain }.to_string(),
                    verdict: Verdict::of(&old, &new),
                    old,
                    new,
                });
            }
        }
    }
}

fn step<'a>(s: &'a ServerResult, like: &StepResult) -> Option<&'a StepResult> {
    s.steps
        .iter()
        .find(|st| st.endpoint == like.endpoint && st.step == like.step)
}

/// The bracket of the rate `s` sustains on `endpoint`, as an estimate: the rate held, in
/// `[held, first not held)`, `[held, ∞)` when it is a lower bound; `None` without rungs there
/// or when none was held.
fn bracket(s: &ServerResult, endpoint: &str) -> Option<Estimate> {
    let sus = sustainable::sustained(&s.steps, endpoint)?;
    let (rate, st) = sus.held?;
    Some(Estimate {
        median: rate,
        interval: Some(Interval {
            low: rate,
            high: sus.not_held().unwrap_or(f64::INFINITY),
            confidence: 1.0,
            n: st.repeats.len(),
        }),
    })
}

/// Every server's sustained rate (E7) on each endpoint that both runs searched, on its bracket
/// (an endpoint without rungs has none).
fn sustained(out: &mut Vec<Change>, o: &Results, n: &Results) {
    let endpoints = crate::read::endpoints(o);
    for so in &o.servers {
        let Some(sn) = n.servers.iter().find(|s| s.name == so.name) else {
            continue;
        };
        for endpoint in &endpoints {
            let (Some(old), Some(new)) = (bracket(so, endpoint), bracket(sn, endpoint)) else {
                continue;
            };
            out.push(Change {
                experiment: o.experiment.clone(),
                what: format!("{} `{endpoint}` sustained", so.name),
                figure: "req/s, held–not held".to_string(),
                verdict: Verdict::of_brackets(&old, &new),
                old,
                new,
            });
        }
    }
}

/// The ratio of two sustained rates, on the ratio of their brackets: `a / b` lies in
/// `[a.low / b.high, a.high / b.low)`.
fn kept_up_ratio(r: &Results, f: &experiment::Finding) -> Option<Estimate> {
    let server = |name: &str| r.servers.iter().find(|s| s.name == name);
    let a = bracket(server(f.a.server)?, f.a.endpoint)?;
    let b = bracket(server(f.b.server)?, f.b.endpoint)?;
    let (ia, ib) = (a.interval?, b.interval?);
    Some(Estimate {
        median: a.median / b.median,
        interval: Some(Interval {
            low: ia.low / ib.high,
            high: ia.high / ib.low,
            confidence: 1.0,
            n: ia.n.min(ib.n),
        }),
    })
}

/// Every finding of the experiment that both runs state, on its ratio.
fn findings(out: &mut Vec<Change>, o: &Results, n: &Results) {
    let Some(e) = experiment::find(&o.experiment) else {
        return;
    };
    for f in e.findings {
        if f.quantity == Quantity::KeptUp {
            if let (Some(old), Some(new)) = (kept_up_ratio(o, f), kept_up_ratio(n, f)) {
                out.push(Change {
                    experiment: o.experiment.clone(),
                    what: format!("finding: {} over {}", f.a.server, f.b.server),
                    figure: "ratio of the rates sustained, held–not held".to_string(),
                    verdict: Verdict::of_brackets(&old, &new),
                    old,
                    new,
                });
            }
            continue;
        }
        let (Some(a), Some(b)) = (
            super::findings::compared(o, f),
            super::findings::compared(n, f),
        ) else {
            continue;
        };
        let est = |c: &super::findings::Compared| Estimate {
            median: c.x,
            interval: c.paired.map(|p| p.1),
        };
        let (old, new) = (est(&a), est(&b));
        out.push(Change {
            experiment: o.experiment.clone(),
            what: format!("finding: {} over {}", f.a.server, f.b.server),
            figure: format!("ratio of {}", f.quantity.name()),
            verdict: Verdict::of(&old, &new),
            old,
            new,
        });
    }
}

/// A figure with its interval: `0.981 [0.95–1.01]`.
fn shown(e: &Estimate) -> String {
    let f = |x: f64| {
        if x.abs() >= 1000.0 {
            crate::format::thousands(x)
        } else if x.abs() >= 10.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.3}")
        }
    };
    match e.interval {
        Some(i) if i.high.is_infinite() => format!("≥ {}", f(e.median)),
        Some(i) => format!("{} [{}–{}]", f(e.median), f(i.low), f(i.high)),
        None => f(e.median),
    }
}

const HEADER: [&str; 6] = ["experiment", "what", "figure", "old", "new", "verdict"];

fn row(c: &Change) -> Vec<String> {
    vec![
        c.experiment.clone(),
        c.what.clone(),
        c.figure.clone(),
        shown(&c.old),
        shown(&c.new),
        c.verdict.text(),
    ]
}

/// The comparison for the terminal: every figure that moved, or all with `all`.
pub fn table(c: &Comparison, all: bool) -> TextTable {
    let mut t = TextTable::new(&HEADER);
    for ch in c
        .changes
        .iter()
        .filter(|ch| all || matches!(ch.verdict, Verdict::Moved(_)))
    {
        t.row(row(ch));
    }
    t
}

/// One line: how many figures were compared, moved, the same, unjudged.
pub fn summary(c: &Comparison) -> String {
    let count = |v: fn(&Verdict) -> bool| c.changes.iter().filter(|ch| v(&ch.verdict)).count();
    format!(
        "{} figures compared: {} moved beyond their 95 % intervals, {} the same within them, {} without an interval on a side{}",
        c.changes.len(),
        count(|v| matches!(v, Verdict::Moved(_))),
        count(|v| matches!(v, Verdict::Same)),
        count(|v| matches!(v, Verdict::Unjudged)),
        if c.unmatched.is_empty() {
            String::new()
        } else {
            format!("; not compared: {}", c.unmatched.join(", "))
        }
    )
}

/// The comparison as a markdown report: the summary, then every figure.
pub fn markdown(c: &Comparison, old: &str, new: &str) -> String {
    let mut t = Table::of(&HEADER[..3], &HEADER[3..5]);
    t.columns.push(crate::model::Column {
        header: HEADER[5].to_string(),
        figure: false,
    });
    for ch in &c.changes {
        t.push(&ch.what, row(ch).into_iter().map(Cell::text).collect());
    }
    Document {
        title: "Two runs compared".to_string(),
        header: vec![
            ("Old".to_string(), format!("`{old}`")),
            ("New".to_string(), format!("`{new}`")),
        ],
        blocks: vec![
            Block::Para(summary(c)),
            Block::Para(
                "A figure moved when the two runs' 95 % intervals do not overlap; a ratio to the ceiling is of the same round's ceiling, so the machine's speed cancels out. A rate sustained (E7) is compared on its search's bracket, from the rate held to the first not held (`≥`: a lower bound), and moved when the two brackets do not overlap.".to_string(),
            ),
            Block::Table(t),
        ],
        ..Document::default()
    }
    .markdown_tight()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recorded E3 document (server-prebuilt and node-http) with the ceiling added and
    /// every `/` c100 step measured in `rounds` rounds: server-prebuilt at `pre` requests/s,
    /// node-http at `node` and the ceiling at `ceiling` in every round, each scaled by that
    /// round's speed (`speeds`, the machine's).
    fn rounds(speeds: &[f64], pre: f64, node: f64, ceiling: f64) -> Results {
        let mut r: Results =
            serde_json::from_str(include_str!("../tests/data/results-e3.json")).unwrap();
        let mut c = r.servers[0].clone();
        c.name = CEILING.into();
        // The ceiling answers `/` only here.
        c.steps.retain(|st| st.endpoint == "/");
        r.servers.push(c);
        for s in &mut r.servers {
            let base = match s.name.as_str() {
                "server-prebuilt" => pre,
                "node-http" => node,
                _ => ceiling,
            };
            let st = s
                .steps
                .iter_mut()
                .find(|st| st.endpoint == "/" && st.step == "c100")
                .unwrap();
            let one = st.repeats[0].clone();
            st.repeats = speeds
                .iter()
                .enumerate()
                .map(|(i, v)| Run {
                    requests_per_s: base * v,
                    cpu_us_per_request: Some(1e6 / (base * v)),
                    round: Some(i as u32 + 1),
                    tool_bound: false,
                    ..one.clone()
                })
                .collect();
            st.finish();
        }
        r
    }

    fn change<'a>(c: &'a Comparison, what: &str, figure: &str) -> &'a Change {
        c.changes
            .iter()
            .find(|ch| ch.what == what && ch.figure == figure)
            .unwrap_or_else(|| panic!("{what} {figure}: {:#?}", c.changes))
    }

    const FAST: [f64; 7] = [1.0, 0.9, 1.1, 0.95, 1.05, 0.92, 1.08];

    #[test]
    fn the_machines_speed_cancels_out_against_the_ceiling() {
        // The same servers on a machine 30 % slower: every figure fell, no ratio moved.
        let slow: Vec<f64> = FAST.iter().map(|v| v * 0.7).collect();
        let c = compare(
            &[rounds(&FAST, 100_000.0, 20_000.0, 110_000.0)],
            &[rounds(&slow, 100_000.0, 20_000.0, 110_000.0)],
        );
        let pre = change(&c, "server-prebuilt `/` c100", "requests/s ÷ ceiling");
        assert_eq!(pre.verdict, Verdict::Same, "{pre:?}");
        assert!((pre.old.median - 100.0 / 110.0).abs() < 1e-9);
        // The ceiling itself is compared on its figures, which did move.
        let ceiling = change(&c, "ceiling `/` c100", "requests/s");
        assert!(
            matches!(ceiling.verdict, Verdict::Moved(x) if (x - 0.7).abs() < 0.01),
            "{ceiling:?}"
        );
        // A step without the ceiling is compared on its own figures.
        assert!(
            c.changes
                .iter()
                .any(|ch| ch.what == "server-prebuilt `/my/ip` c100" && ch.figure == "requests/s")
        );
        assert_eq!(c.moved().count(), 2, "the ceiling's requests/s and CPU");
    }

    #[test]
    fn a_server_that_got_slower_moved_and_its_finding_too() {
        let old = rounds(&FAST, 100_000.0, 20_000.0, 110_000.0);
        let new = rounds(&FAST, 80_000.0, 20_000.0, 110_000.0);
        let c = compare(std::slice::from_ref(&old), &[new]);
        let pre = change(&c, "server-prebuilt `/` c100", "requests/s ÷ ceiling");
        assert!(
            matches!(pre.verdict, Verdict::Moved(x) if (x - 0.8).abs() < 1e-9),
            "{pre:?}"
        );
        assert_eq!(pre.verdict.text(), "moved -20.0 %");
        let node = change(&c, "node-http `/` c100", "requests/s ÷ ceiling");
        assert_eq!(node.verdict, Verdict::Same);
        let f = change(
            &c,
            "finding: server-prebuilt over node-http",
            "ratio of requests/s",
        );
        assert!(matches!(f.verdict, Verdict::Moved(_)), "{f:?}");
        assert!((f.old.median - 5.0).abs() < 1e-9 && (f.new.median - 4.0).abs() < 1e-9);
        // The same run against itself: nothing moved.
        let same = compare(std::slice::from_ref(&old), std::slice::from_ref(&old));
        assert_eq!(same.moved().count(), 0);
        assert!(summary(&same).contains(" 0 moved beyond their 95 % intervals"));
    }

    #[test]
    fn a_run_without_rounds_cannot_be_judged_and_an_experiment_alone_is_named() {
        let one: Results =
            serde_json::from_str(include_str!("../tests/data/results-e3.json")).unwrap();
        let c = compare(std::slice::from_ref(&one), std::slice::from_ref(&one));
        assert!(!c.changes.is_empty());
        assert!(c.changes.iter().all(|ch| ch.verdict == Verdict::Unjudged));
        // p99 is compared on open-loop rungs only (E7), never on E3's closed-loop steps.
        assert!(c.changes.iter().all(|ch| !ch.figure.starts_with("p99")));
        let mut e5 = one.clone();
        e5.experiment = experiment::E5.id.into();
        let c = compare(&[one], &[e5]);
        assert_eq!(c.unmatched, ["e3 (old only)", "e5 (new only)"]);
        let md = markdown(&c, "a", "b");
        assert!(md.starts_with("# Two runs compared\n"), "{md}");
        assert!(
            md.contains("not compared: e3 (old only), e5 (new only)"),
            "{md}"
        );
    }

    /// The recorded E7 ladder in rounds (server-prebuilt, server-hyper, node-http, the
    /// ceiling at 1k, 10k, 40k requests/s on `/hello`).
    fn ladder() -> Results {
        serde_json::from_str(include_str!("../tests/data/results-e7-rounds.json")).unwrap()
    }

    #[test]
    fn a_sustained_rate_is_compared_on_its_bracket_and_moves_when_another_rate_is_held() {
        let old = ladder();
        let same = compare(std::slice::from_ref(&old), std::slice::from_ref(&old));
        let node = change(
            &same,
            "node-http `/hello` sustained",
            "req/s, held–not held",
        );
        assert_eq!(node.verdict, Verdict::Same, "{node:?}");
        let held = node.old.median;
        let high = node.old.interval.unwrap().high;
        assert!(held >= 1000.0 && high > held, "{node:?}");
        let f = change(
            &same,
            "finding: server-prebuilt over node-http",
            "ratio of the rates sustained, held–not held",
        );
        assert_eq!(f.verdict, Verdict::Same, "{f:?}");
        // An open-loop rung is compared on its p99 too, against the ceiling's.
        change(&same, "server-prebuilt `/hello` r10k", "p99 ÷ ceiling");
        assert_eq!(same.moved().count(), 0);

        // node-http no longer keeps up above 1k: its bracket falls below the old one's.
        let mut new = old.clone();
        let n = new
            .servers
            .iter_mut()
            .find(|s| s.name == "node-http")
            .unwrap();
        for st in n.steps.iter_mut().filter(|st| st.step != "r1k") {
            for r in &mut st.repeats {
                r.requests_per_s = r.offered_requests_per_s.unwrap() * 0.5;
            }
            st.finish();
        }
        let c = compare(std::slice::from_ref(&old), &[new]);
        let node = change(&c, "node-http `/hello` sustained", "req/s, held–not held");
        assert!(
            matches!(node.verdict, Verdict::Moved(x) if (x - 1000.0 / held).abs() < 1e-9),
            "{node:?}"
        );
        assert_eq!(node.new.interval.unwrap().high, 10_000.0);
        let f = change(
            &c,
            "finding: server-prebuilt over node-http",
            "ratio of the rates sustained, held–not held",
        );
        // server-prebuilt's rate is a lower bound in both runs (the ladder's top), so the ratio
        // is one too: at least 1 then, at least 4 now. Two lower bounds overlap: not moved.
        let low = |e: &Estimate| e.interval.unwrap().low;
        assert_eq!((low(&f.old), low(&f.new)), (1.0, 4.0), "{f:?}");
        assert_eq!(f.verdict, Verdict::Same, "{f:?}");
        // server-prebuilt held the ladder's top in both: a lower bound, the same.
        let pre = change(
            &c,
            "server-prebuilt `/hello` sustained",
            "req/s, held–not held",
        );
        assert_eq!(pre.verdict, Verdict::Same);
        assert_eq!(shown(&pre.old), "≥ 40,000");
    }

    #[test]
    fn a_folder_gives_its_newest_file_of_each_experiment() {
        let dir = std::env::temp_dir().join(format!("bench-compare-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut r = rounds(&FAST, 1.0, 1.0, 1.0);
        r.header.started_utc = "2026-12-01T00:00:00Z".into();
        r.save(&dir.join("e3-old.json")).unwrap();
        r.header.started_utc = "2026-12-02T00:00:00Z".into();
        r.save(&dir.join("e3-new.json")).unwrap();
        std::fs::write(dir.join("other.json"), "{\"schema\": \"bench.idle/1\"}").unwrap();
        let got = load(&dir).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].header.started_utc, "2026-12-02T00:00:00Z");
        let empty = dir.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        assert!(
            load(&empty)
                .unwrap_err()
                .to_string()
                .contains("no bench run results file")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
