//! `--until-width PCT`: after the planned rounds, rounds of only the cells whose paired ratio
//! still has a 95 % interval wider than ±PCT % (the rule and what it does to coverage:
//! [`bench_model::verdict::sequential`]): the experiment's findings and the A/A pairs, or with
//! `--until-of cells` also every server's step over the ceiling. Each such cell runs with the
//! cell it is paired with in the same round, in a fresh random order, until every ratio is
//! within the width, `--max-rounds` is reached or `--until-minutes` are spent. The results are
//! written after every cell, as in the planned rounds.

use bench_model::experiment::Step;
use bench_model::results::{Results, copy_number};
use bench_model::verdict::sequential;

use super::{Checkpoint, Run};
use crate::step::signals;

impl Run<'_> {
    /// The rounds by the width needed, after the planned ones; `cell` measures one step of
    /// server `i` once, as round `round`.
    pub(super) fn until_width(
        &self,
        results: &mut Results,
        ckpt: &mut Checkpoint,
        rng: &mut fastrand::Rng,
        cell: &mut dyn FnMut(usize, &Step, u32, &mut Results) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let p = self.plan;
        let Some(until) = p.until else {
            return Ok(());
        };
        let mut round = p.repeat;
        let started = std::time::Instant::now();
        loop {
            let wanting = if until.cells {
                sequential::wanting(results, until.half_width())
            } else {
                sequential::wanting_findings(
                    results,
                    p.exp.findings,
                    until.half_width(),
                    until.aa_half_width(),
                )
            };
            if wanting.is_empty() {
                crate::say!(
                    "every ratio is within {} after {round} rounds",
                    until.asked()
                );
                return Ok(());
            }
            let spent = until.budget.filter(|b| started.elapsed() >= *b);
            if round >= until.max_rounds || spent.is_some() {
                let names: Vec<String> = wanting
                    .iter()
                    .map(|w| {
                        let width = w.half_width.map_or("below 6 rounds".into(), |h| {
                            format!("±{:.1} %", (h.exp() - 1.0) * 100.0)
                        });
                        format!(
                            "{} {} {} ({width})",
                            results.servers[w.server].name, w.endpoint, w.step
                        )
                    })
                    .collect();
                let stop = match spent {
                    Some(b) => format!("--until-minutes {}", b.as_secs() / 60),
                    None => format!("--max-rounds {}", until.max_rounds),
                };
                crate::say!(
                    "{stop}: {} ratio(s) still wider than {}: {}",
                    names.len(),
                    until.asked(),
                    names.join(", ")
                );
                return Ok(());
            }
            round += 1;
            // Each wanting cell and its partner, once, in the plan's step.
            let mut cells: Vec<(usize, Step)> = Vec::new();
            for w in &wanting {
                let Some(step) = p
                    .steps
                    .iter()
                    .find(|s| s.endpoint == w.endpoint && s.id == w.step)
                else {
                    continue;
                };
                for i in [Some(w.server), w.against].into_iter().flatten() {
                    if !cells
                        .iter()
                        .any(|(j, s)| *j == i && super::same_step(s, step))
                    {
                        cells.push((i, step.clone()));
                    }
                }
            }
            if cells.is_empty() {
                return Ok(());
            }
            crate::say!(
                "round {round}: {} cell(s) for {} ratio(s) wider than {}",
                cells.len(),
                wanting.len(),
                until.asked()
            );
            ckpt.more(cells.len());
            rng.shuffle(&mut cells);
            crate::plan::alternate_copies(&mut cells, round, |(i, step)| {
                let (first, copy) = copy_number(&results.servers[*i].name);
                (
                    (first.to_string(), step.endpoint.clone(), step.id.clone()),
                    copy,
                )
            });
            for (i, step) in &cells {
                signals::check()?;
                cell(*i, step, round, results)?;
                ckpt.step_done(results)?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::path::PathBuf;

    use bench_model::experiment;
    use bench_tools::Tool;

    use crate::plan::{Plan, Subjects, Until};
    use crate::step::fake::{Fakes, Recorded, exited, report};

    /// E3's first quick step on `/` (c100) on `servers`, 6 planned rounds, each
    /// run's requests/s drawn around 100,000 with a log-sd of 0.1 (a seeded stream of
    /// answers, warm-ups included), until ±`percent` (the A/A pairs ±`aa_percent`) or `max`
    /// rounds. `NAME#2` is a copy of `NAME`, as `--aa NAME` makes it.
    fn run(
        (percent, aa_percent): (f64, f64),
        max: u32,
        servers: &[&str],
        cells: bool,
    ) -> (bench_model::results::Results, Vec<Vec<String>>) {
        let exp = experiment::find(experiment::E3.id).unwrap();
        let step = exp
            .steps_at(true, None, None)
            .into_iter()
            .find(|s| s.endpoint == "/")
            .unwrap();
        let manifest = manifest::Manifest::load_default().unwrap();
        let chosen: Vec<_> = servers
            .iter()
            .map(|n| {
                let mut s = manifest.get(n.split('#').next().unwrap()).unwrap().clone();
                s.name = n.to_string();
                (s, vec![step.clone()])
            })
            .collect();
        let plan = Plan {
            exp,
            steps: vec![step],
            tool: Tool::Builtin,
            repeat: 6,
            quick: true,
            loadgen: PathBuf::from("/x/loadgen"),
            subjects: Subjects::Local(chosen.clone()),
            until: Some(Until {
                percent,
                aa_percent,
                max_rounds: max,
                cells,
                budget: None,
            }),
        };
        let argv = ["bench", "run", "e3", "--quick", "--rounds", "6"];
        let args = match <crate::cli::Cli as clap::Parser>::try_parse_from(argv)
            .unwrap()
            .command
        {
            crate::cli::Cmd::Run(a) => a,
            other => panic!("{other:?}"),
        };
        let mut rng = fastrand::Rng::with_seed(11);
        let answers: VecDeque<_> = (0..200)
            .map(|_| {
                let mut doc: serde_json::Value = serde_json::from_str(&report()).unwrap();
                let z: f64 = (0..12).map(|_| rng.f64()).sum::<f64>() - 6.0;
                let rps = 100_000.0 * (0.1 * z).exp();
                let d = doc["result"]["duration_s"].as_f64().unwrap();
                let n = (rps * d) as u64;
                let res = &mut doc["result"];
                for k in ["requests", "responses", "ok"] {
                    res[k] = n.into();
                }
                res["requests_per_s"] = rps.into();
                res["status"]["s2xx"] = n.into();
                res["latency"]["count"] = n.into();
                exited(0, &doc.to_string(), "")
            })
            .collect();
        let mut fakes = Fakes {
            alive: usize::MAX,
            ..Default::default()
        };
        let mut launch = Recorded {
            answers,
            ..Default::default()
        };
        // A folder of its own per call: the tests run in parallel.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("bench-until-{}-{call}", std::process::id()));
        let (got, results, _) =
            super::super::tests::measured(&plan, &chosen, &args, &mut fakes, &mut launch, &dir, 3);
        let _ = std::fs::remove_dir_all(&dir);
        got.unwrap();
        (results, launch.argvs)
    }

    fn rounds(r: &bench_model::results::Results, server: &str) -> Vec<u32> {
        r.servers.iter().find(|s| s.name == server).unwrap().steps[0]
            .repeats
            .iter()
            .filter_map(|m| m.round)
            .collect()
    }

    #[test]
    fn a_ratio_wider_than_the_width_gets_rounds_with_its_partner_up_to_the_budget() {
        let (r, argvs) = run((1.0, 1.0), 9, &["server-prebuilt", "ceiling"], true);
        // ±1 % is out of reach at 10 % noise: three more rounds of both cells, numbered on.
        assert_eq!(rounds(&r, "server-prebuilt"), (1..=9).collect::<Vec<_>>());
        assert_eq!(rounds(&r, "ceiling"), (1..=9).collect::<Vec<_>>());
        // A warm-up and a measured run per cell.
        assert_eq!(argvs.len(), 2 * 2 * 9);
    }

    #[test]
    fn a_ratio_within_the_width_after_the_planned_rounds_gets_none() {
        let (r, argvs) = run((99.0, 99.0), 9, &["server-prebuilt", "ceiling"], true);
        assert_eq!(rounds(&r, "server-prebuilt"), (1..=6).collect::<Vec<_>>());
        assert_eq!(argvs.len(), 2 * 2 * 6);
    }

    #[test]
    fn by_default_only_a_findings_two_servers_get_rounds() {
        // E3's finding at / c100: server-prebuilt over node-http. The ceiling, measured in the
        // planned rounds, is not one of its sides.
        let (r, _) = run(
            (1.0, 1.0),
            8,
            &["server-prebuilt", "node-http", "ceiling"],
            false,
        );
        assert_eq!(rounds(&r, "server-prebuilt"), (1..=8).collect::<Vec<_>>());
        assert_eq!(rounds(&r, "node-http"), (1..=8).collect::<Vec<_>>());
        assert_eq!(rounds(&r, "ceiling"), (1..=6).collect::<Vec<_>>());
    }

    #[test]
    fn the_pairs_asked_narrower_than_the_findings_get_rounds_alone() {
        // An A/A pair asked ±1 % while findings are asked ±99 %: the pair gets rounds (the
        // split between a run's findings and its pairs, on a recorded run:
        // `sequential`'s tests).
        let servers = ["server-prebuilt", "server-prebuilt#2"];
        let (r, _) = run((99.0, 1.0), 8, &servers, false);
        assert_eq!(rounds(&r, "server-prebuilt"), (1..=8).collect::<Vec<_>>());
        assert_eq!(rounds(&r, "server-prebuilt#2"), (1..=8).collect::<Vec<_>>());
        // Asked ±99 % of both, it gets none; asked ±1 % of findings only, none either.
        for widths in [(99.0, 99.0), (1.0, 99.0)] {
            let (r, _) = run(widths, 8, &servers, false);
            assert_eq!(
                rounds(&r, "server-prebuilt#2"),
                (1..=6).collect::<Vec<_>>(),
                "{widths:?}"
            );
        }
    }
}
