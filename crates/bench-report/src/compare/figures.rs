//! Each figure's per-round values in the two runs, and its judgement
//! ([`bench_model::verdict::judge`]): the cells, E7's capacities and the findings.

use bench_model::experiment::{self, Pick, Quantity};
use bench_model::results::{CEILING, Interval, Results, Run, ServerResult, StepResult};
use bench_model::stats::{self, LEVEL};
use bench_model::sustainable;
use bench_model::verdict::capacity::{self, Capacity, Curve};
use bench_model::verdict::{Bound, Side, Verdict, judge};

use super::{Change, Estimate, Kind, Marks};
use crate::read::find;

/// One run's side of a figure: the per-round values, how it is shown, its rounds' marks.
struct Sample {
    values: Vec<f64>,
    shown: Estimate,
    marks: Marks,
}

impl Sample {
    /// The values and their median and interval, bounded as `bound`.
    fn of(values: Vec<f64>, bound: Bound, marks: Marks) -> Option<Sample> {
        let median = stats::median(values.clone())?;
        Some(Sample {
            shown: Estimate {
                median,
                interval: stats::median_interval(values.clone(), LEVEL).filter(|i| i.n >= 2),
                bound,
            },
            values,
            marks,
        })
    }

    fn side(&self) -> Side {
        Side {
            values: self.values.clone(),
            bound: self.shown.bound,
        }
    }
}

/// The marks of `st`'s rounds (and `other`'s in the same rounds: a ratio's two sides).
fn marks(st: &StepResult, other: Option<&StepResult>) -> Marks {
    let mut m = Marks {
        n: st.repeats.len(),
        ..Marks::default()
    };
    for r in &st.repeats {
        let o = other.and_then(|o| o.in_round(r.round?));
        m.tool += usize::from(r.tool_set_pace() || o.is_some_and(Run::tool_set_pace));
        m.machine += usize::from(r.disturbed || o.is_some_and(|o| o.disturbed));
    }
    m
}

/// Whether the load tool set `st`'s pace in any of its rounds: its requests/s is then a
/// lower bound of the server's, as the page marks it (`†`).
/// A figure of a cell: name, name over the ceiling, the figure of a run, whether the tool's
/// pace bounds it, on open-loop rungs only.
type Figure = (
    &'static str,
    &'static str,
    fn(&Run) -> Option<f64>,
    bool,
    bool,
);

const FIGURES: [Figure; 3] = [
    (
        "requests/s",
        "requests/s ÷ ceiling",
        |r| Some(r.requests_per_s),
        true,
        false,
    ),
    (
        "CPU µs/request",
        "CPU µs/request ÷ ceiling",
        |r| r.cpu_us_per_request,
        false,
        false,
    ),
    // The figure an open-loop rung (E7) is about.
    (
        "p99 ms",
        "p99 ÷ ceiling",
        |r| Some(r.latency_us.p99? as f64 / 1000.0),
        false,
        true,
    ),
];

/// `st`'s figure in run `r`: over the ceiling's in the same round when `to_ceiling`, else as
/// measured; requests/s the tool set in any round is at least what was measured (the
/// ceiling's own pace does not bound a ratio: it is the yardstick as measured).
fn cell(
    r: &Results,
    st: &StepResult,
    figure: fn(&Run) -> Option<f64>,
    bounded: bool,
    to_ceiling: bool,
) -> Option<Sample> {
    if !st.valid {
        return None;
    }
    let bound = if bounded && st.tool_set_pace() {
        Bound::AtLeast
    } else {
        Bound::Exact
    };
    let values: Vec<f64> = if to_ceiling {
        st.paired_ratios(r.ceiling_step(&st.endpoint, &st.step)?, figure)
    } else {
        st.repeats
            .iter()
            .filter_map(figure)
            .filter(|v| *v > 0.0)
            .collect()
    };
    Sample::of(values, bound, marks(st, None))
}

fn change(
    (experiment, what, figure, kind): (&str, String, String, Kind),
    old: Sample,
    new: Sample,
    margin: f64,
) -> Change {
    Change {
        experiment: experiment.to_string(),
        what,
        figure,
        kind,
        judgement: judge(&old.side(), &new.side(), margin),
        old: old.shown,
        new: new.shown,
        marks: (old.marks, new.marks),
        verdict: Verdict::Unjudged,
    }
}

/// Every (server, step) of `o` that `n` has too, on requests/s and CPU per request, and an
/// open-loop rung (E7) also on its p99; over the ceiling's when both runs measured it in
/// rounds.
pub(super) fn cells(out: &mut Vec<Change>, o: &Results, n: &Results, margin: f64) {
    for so in &o.servers {
        let Some(sn) = n.servers.iter().find(|s| s.name == so.name) else {
            continue;
        };
        for sto in &so.steps {
            let Some(stn) = find(sn, &sto.endpoint, &sto.step) else {
                continue;
            };
            let rps = |r: &Run| Some(r.requests_per_s);
            let to_ceiling = so.name != CEILING
                && o.to_ceiling(sto, rps).is_some()
                && n.to_ceiling(stn, rps).is_some();
            let rung = sustainable::rate_of(sto).is_some();
            for (plain, ratio, figure, bounded, rungs_only) in FIGURES {
                if rungs_only && !rung {
                    continue;
                }
                let (Some(a), Some(b)) = (
                    cell(o, sto, figure, bounded, to_ceiling),
                    cell(n, stn, figure, bounded, to_ceiling),
                ) else {
                    continue;
                };
                let (name, kind) = if to_ceiling {
                    (ratio, Kind::ToCeiling)
                } else {
                    (plain, Kind::Cell)
                };
                let what = format!("{} `{}` {}", so.name, sto.endpoint, sto.step);
                out.push(change(
                    (&o.experiment, what, name.to_string(), kind),
                    a,
                    b,
                    margin,
                ));
            }
        }
    }
}

/// A capacity's curve (or a ratio of two) as it is shown: the estimate and its 95 %
/// likelihood interval over `trials` runs; open above, the interval's lower end as a lower
/// bound (`≥`), open below, its upper end as an upper bound.
fn capacity_of(curve: &Curve, trials: usize) -> Estimate {
    let c = Capacity::from_curve(curve, trials);
    Estimate {
        median: c.rate,
        interval: Some(Interval {
            low: c.low,
            high: c.high,
            confidence: LEVEL,
            n: trials,
        }),
        bound: match (c.at_least(), c.at_most()) {
            (true, false) => Bound::AtLeast,
            (false, true) => Bound::AtMost,
            _ => Bound::Exact,
        },
    }
}

/// The runs of `s`'s rungs on `endpoint` as E7's capacity reads them, and their curve.
fn curve(s: &ServerResult, endpoint: &str) -> Option<(Curve, usize)> {
    let t = capacity::trials(&s.steps, endpoint);
    Some((Curve::of(&t)?, t.len()))
}

/// Every server's capacity (E7) on each endpoint both runs have rungs of
/// ([`bench_model::verdict::capacity`]).
pub(super) fn capacities(out: &mut Vec<Change>, o: &Results, n: &Results, margin: f64) {
    let endpoints = crate::read::endpoints(o);
    for so in &o.servers {
        let Some(sn) = n.servers.iter().find(|s| s.name == so.name) else {
            continue;
        };
        for endpoint in &endpoints {
            let (Some((a, ta)), Some((b, tb))) = (curve(so, endpoint), curve(sn, endpoint)) else {
                continue;
            };
            out.push(capacity_change(
                (
                    &o.experiment,
                    format!("{} `{endpoint}`", so.name),
                    "capacity, req/s".to_string(),
                ),
                (&a, ta),
                (&b, tb),
                margin,
            ));
        }
    }
}

fn capacity_change(
    (experiment, what, figure): (&str, String, String),
    (a, ta): (&Curve, usize),
    (b, tb): (&Curve, usize),
    margin: f64,
) -> Change {
    let m = |t: usize| Marks {
        n: t,
        ..Marks::default()
    };
    Change {
        experiment: experiment.to_string(),
        what,
        figure,
        kind: Kind::Capacity,
        old: capacity_of(a, ta),
        new: capacity_of(b, tb),
        marks: (m(ta), m(tb)),
        judgement: Some(capacity::judge(a, b, (ta, tb), margin)),
        verdict: Verdict::Unjudged,
    }
}

/// A finding's per-round ratios in `r`: `a`'s figure over `b`'s in each round both measured
/// (requests/s that the tool set on both sides compares CPU per request instead), with the
/// bound the sides' paces give it; `None` for a side not run, invalid, or not one step.
fn finding(r: &Results, f: &experiment::Finding, q: Quantity) -> Option<Sample> {
    let (Pick::Step(ia), Pick::Step(ib)) = (f.a.pick, f.b.pick) else {
        return None;
    };
    let server = |name: &str| r.servers.iter().find(|s| s.name == name);
    let sa = find(server(f.a.server)?, f.a.endpoint, ia).filter(|s| s.valid)?;
    let sb = find(server(f.b.server)?, f.b.endpoint, ib).filter(|s| s.valid)?;
    // Requests/s the tool set, and a probe that got no answer (E4), are at least what was
    // counted.
    let at_least = |st: &StepResult| match q {
        Quantity::RequestsPerS => st.tool_set_pace(),
        Quantity::ProbeP99Ms => st.repeats.iter().any(|r| {
            r.probe_p99_or_censored()
                .is_some_and(|(_, censored)| censored)
        }),
        _ => false,
    };
    let of = |st: &StepResult| {
        if at_least(st) {
            Bound::AtLeast
        } else {
            Bound::Exact
        }
    };
    let bound = Bound::of_ratio(of(sa), of(sb))?;
    Sample::of(
        sa.paired_ratios(sb, |run| q.of(run)),
        bound,
        marks(sa, Some(sb)),
    )
}

/// What a finding compares, for a comparison's row: its two servers, and where when they are
/// one server (E4's probe under a scenario over its baseline).
fn finding_what(f: &experiment::Finding) -> String {
    let at = |s: &experiment::Side| match s.pick {
        Pick::Step(id) => format!(" `{}` {id}", s.endpoint),
        Pick::Best => format!(" `{}` best", s.endpoint),
        Pick::KeptUp => format!(" `{}`", s.endpoint),
    };
    if f.a.server == f.b.server {
        format!("finding: {}{} over{}", f.a.server, at(&f.a), at(&f.b))
    } else {
        format!("finding: {} over {}", f.a.server, f.b.server)
    }
}

/// Every finding of the experiment that both runs state, on its per-round ratios; E7's on the
/// difference of two capacities; one that is not of one step a side (E6's best steps) is
/// listed, not judged.
pub(super) fn findings(out: &mut Vec<Change>, o: &Results, n: &Results, margin: f64) {
    let Some(e) = experiment::find(&o.experiment) else {
        return;
    };
    for f in e.findings {
        let what = finding_what(f);
        if f.quantity == Quantity::KeptUp {
            let ratio = |r: &Results| -> Option<(Curve, usize)> {
                let s = |name: &str| r.servers.iter().find(|s| s.name == name);
                let (a, ta) = curve(s(f.a.server)?, f.a.endpoint)?;
                let (b, tb) = curve(s(f.b.server)?, f.b.endpoint)?;
                Some((Curve::difference(&a, &b), ta.min(tb)))
            };
            if let (Some(a), Some(b)) = (ratio(o), ratio(n)) {
                out.push(capacity_change(
                    (&o.experiment, what, "ratio of the capacities".to_string()),
                    (&a.0, a.1),
                    (&b.0, b.1),
                    margin,
                ));
            }
            continue;
        }
        if !matches!((f.a.pick, f.b.pick), (Pick::Step(_), Pick::Step(_))) {
            // No rounds to pair: the ratio of the two runs' figures, said and not judged.
            let shown = |r: &Results| {
                let c = crate::findings::compared(r, f)?;
                Some(Estimate {
                    median: c.x,
                    interval: None,
                    bound: match c.bound {
                        "at least " => Bound::AtLeast,
                        "at most " => Bound::AtMost,
                        _ => Bound::Exact,
                    },
                })
            };
            if let (Some(a), Some(b)) = (shown(o), shown(n)) {
                out.push(Change {
                    experiment: o.experiment.clone(),
                    what,
                    figure: format!(
                        "ratio of {} (of each run's best step: no rounds to pair)",
                        f.quantity.name()
                    ),
                    kind: Kind::Finding,
                    old: a,
                    new: b,
                    marks: (Marks::default(), Marks::default()),
                    judgement: None,
                    verdict: Verdict::Unjudged,
                });
            }
            continue;
        }
        // Requests/s the tool set on both sides (in either run), or a bound in both runs, is
        // no finding about the servers that can be judged: their CPU per request is.
        let bounded = |q: Quantity| match (finding(o, f, q), finding(n, f, q)) {
            (Some(a), Some(b)) => a.shown.bound != Bound::Exact && a.shown.bound == b.shown.bound,
            _ => true,
        };
        let q = if f.quantity == Quantity::RequestsPerS && bounded(f.quantity) {
            Quantity::CpuUsPerRequest
        } else {
            f.quantity
        };
        let (Some(a), Some(b)) = (finding(o, f, q), finding(n, f, q)) else {
            continue;
        };
        let figure = if q == f.quantity {
            format!("ratio of {}", q.name())
        } else {
            format!("ratio of {} (requests/s: the tool's limit)", q.name())
        };
        out.push(change(
            (&o.experiment, what, figure, Kind::Finding),
            a,
            b,
            margin,
        ));
    }
}
