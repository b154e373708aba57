//! `bench noise`'s report: where each step's noise is ([`bench_model::noise`]), as terminal
//! tables or markdown. Three tables: the levels of each server's step (within a repeat,
//! between repeats, what independent intervals would give, the ratio to the ceiling of the
//! same round, the dips and what they went with); each A/A pair split into the part a round
//! shares and the part a run has alone; and, given two runs of one experiment, how far each
//! step's median moved between the sittings beside what its rounds alone would move it.

use bench_model::noise::{Dips, Levels, Pair, log_sd};
use bench_model::results::{CEILING, Results, Run, ServerResult, StepResult};
use bench_model::stats::median;

use bench_chart::table::Table;

fn f3(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{x:.3}"))
}

/// The valid step of `server` with `st`'s endpoint and name.
fn same<'a>(server: &'a ServerResult, st: &StepResult) -> Option<&'a StepResult> {
    crate::read::find(server, &st.endpoint, &st.step).filter(|s| s.valid)
}

/// The per-step levels, one row per server and step that has timelines.
pub fn levels(runs: &[Results]) -> Table {
    let mut t = Table::new(&[
        "experiment",
        "server",
        "step",
        "repeats",
        "intervals",
        "within",
        "if independent",
        "between",
        "first 0.5 s",
        "÷ ceiling",
        "dips",
        "low repeats",
        "dips went with",
    ]);
    for r in runs {
        for s in &r.servers {
            for st in s.steps.iter().filter(|st| st.valid) {
                let Some(l) = Levels::of(st) else { continue };
                let by_ceiling = r
                    .ceiling_step(&st.endpoint, &st.step)
                    .filter(|_| s.name != CEILING)
                    .map(|c| st.paired_ratios(c, |m| Some(m.requests_per_s)))
                    .and_then(|v| log_sd(&v));
                let d = Dips::of(st);
                t.row(vec![
                    r.experiment.clone(),
                    s.name.clone(),
                    format!("{} {}", st.endpoint, st.step),
                    l.repeats.to_string(),
                    l.intervals.to_string(),
                    f3(Some(l.within)),
                    f3(Some(l.if_independent)),
                    f3(l.between),
                    format!("{:.2}", l.opening),
                    f3(by_ceiling),
                    d.as_ref()
                        .map_or("–".into(), |d| format!("{}/{}", d.dips, d.intervals)),
                    d.as_ref()
                        .map_or("–".into(), |d| format!("{}/{}", d.low_repeats, d.repeats)),
                    d.as_ref().map_or("–".into(), went_with),
                ]);
            }
        }
    }
    t
}

/// The quantity that moved most with the dips: the most negative correlation, with its mean in
/// the dips and elsewhere; "nothing seen" when none is below −0.3 or there were no dips.
fn went_with(d: &Dips) -> String {
    if d.dips == 0 {
        return "no dips".into();
    }
    let best = d
        .with
        .iter()
        .filter_map(|c| c.correlation.map(|r| (r, c)))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((r, c)) if r < -0.3 => format!(
            "{} (r {r:.2}; {:.1} % in dips, {:.1} % elsewhere)",
            c.name, c.in_dips, c.elsewhere
        ),
        _ => "nothing seen".into(),
    }
}

/// Each A/A pair's split, on requests/s and on CPU per request.
pub fn pairs(runs: &[Results]) -> Table {
    let mut t = Table::new(&[
        "experiment",
        "pair",
        "step",
        "figure",
        "rounds",
        "per run",
        "per round",
        "total",
    ]);
    type Figure = fn(&Run) -> Option<f64>;
    let figures: [(&str, Figure); 2] = [
        ("requests/s", |m| Some(m.requests_per_s)),
        ("CPU per request", |m| m.cpu_us_per_request),
    ];
    for r in runs {
        for copy in &r.servers {
            let Some(name) = copy.copy_of() else { continue };
            let Some(first) = r.servers.iter().find(|s| s.name == name) else {
                continue;
            };
            for st in first.steps.iter().filter(|s| s.valid) {
                let Some(second) = same(copy, st) else {
                    continue;
                };
                for (label, figure) in figures {
                    let Some(p) = Pair::of(st, second, figure) else {
                        continue;
                    };
                    t.row(vec![
                        r.experiment.clone(),
                        format!("{name} / {}", copy.name),
                        format!("{} {}", st.endpoint, st.step),
                        label.into(),
                        p.rounds.to_string(),
                        f3(Some(p.per_run)),
                        f3(Some(p.per_round)),
                        f3(Some(p.total)),
                    ]);
                }
            }
        }
    }
    t
}

/// Two runs of one experiment (`old`, `new`): per server and step, the log of the medians'
/// ratio (requests/s) beside what the two sets of rounds alone would give it (the pooled
/// between-repeat log-sd × √(1/n₁ + 1/n₂)).
pub fn sittings(old: &[Results], new: &[Results]) -> Table {
    let mut t = Table::new(&[
        "experiment",
        "server",
        "step",
        "rounds",
        "moved (log)",
        "rounds alone (log-sd)",
    ]);
    for a in old {
        let Some(b) = new.iter().find(|b| b.experiment == a.experiment) else {
            continue;
        };
        for sa in &a.servers {
            let Some(sb) = b.servers.iter().find(|s| s.name == sa.name) else {
                continue;
            };
            for x in sa.steps.iter().filter(|s| s.valid) {
                let Some(y) = same(sb, x) else { continue };
                let v = |s: &StepResult| -> Vec<f64> {
                    s.repeats
                        .iter()
                        .map(|m| m.requests_per_s)
                        .filter(|x| *x > 0.0)
                        .collect()
                };
                let (va, vb) = (v(x), v(y));
                let (Some(ma), Some(mb), Some(da), Some(db)) = (
                    median(va.clone()),
                    median(vb.clone()),
                    log_sd(&va),
                    log_sd(&vb),
                ) else {
                    continue;
                };
                let (na, nb) = (va.len() as f64, vb.len() as f64);
                let pooled =
                    (((na - 1.0) * da * da + (nb - 1.0) * db * db) / (na + nb - 2.0)).sqrt();
                t.row(vec![
                    a.experiment.clone(),
                    sa.name.clone(),
                    format!("{} {}", x.endpoint, x.step),
                    format!("{} + {}", va.len(), vb.len()),
                    format!("{:+.3}", (mb / ma).ln()),
                    f3(Some(pooled * (1.0 / na + 1.0 / nb).sqrt())),
                ]);
            }
        }
    }
    t
}
