//! `bench tools list`: every load tool, whether it is installed (and where), its version and
//! how this workspace installs it.
//!
//! `bench tools compare`: one server driven by several load tools at the same load, the
//! tools alternating round by round, so that what differs between their figures is the
//! tool, not the server or a slow phase of the machine. For each round and tool it prints
//! requests/s, p50 and p99, the server's CPU per request, the tool's own CPU (its whole
//! process tree) and whether that made it the bottleneck (`†`), the 1-minute load average,
//! and the requests/s and p50 ratios to the first tool of the same round; then the medians
//! over the rounds. It writes the same as `tools-<UTC>.json` (schema `bench.tools/1`,
//! [`bench_model::results::tools`]) with its markdown report beside it ([`bench_report::tools`]).
//!
//! Nothing here is a copy of `bench run`: the server is started by [`server::start`] (pinned
//! to the server CPUs, stopped by its guard), every run is one [`step::run`] (warm-up,
//! measured run, /proc sampling of the server, the tool's output parsed by its adapter in
//! [`bench_tools`]), and the tools are refused before anything starts by the same
//! check as `bench run`'s. Another tool is one more [`Tool`] adapter; another figure per
//! tool is one more field of [`Run`] and one more column.

use bench_model::results::Header;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::cli::CompareArgs;
use crate::error::bad;
use crate::plan::{refuse_unless_applicable, serving};
use crate::provenance;
use crate::session::{Partial, tools_table};
use crate::step::server::{self, Env};
use crate::step::{self, Load, Spawn, Subject, signals};
use crate::term::progress::Progress;
use bench_model::experiment::{Step, TOKEN, Warmup};
use bench_model::results::tools::{
    CompareLoad, CompareServer, Round, SCHEMA, ToolMedian, ToolResults, ToolVersion,
};
use bench_model::results::{Pinning, Run, StepResult, timestamp};
use bench_model::stats::median;
use bench_report::table::Table;
use bench_report::tools as report;
use bench_tools::{Mode, Tool};

/// One tool's run in one round.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// The round, from 1.
    pub round: u32,
    /// The tool.
    pub tool: Tool,
    /// What it measured (`None` when the run was invalid).
    pub run: Option<Run>,
    /// Why the run is invalid, if it is.
    pub invalid: Option<String>,
    /// The 1-minute load average after the run (other work on the machine shows in it).
    pub load1: Option<f64>,
    /// The tool's exact argv.
    pub tool_command: Vec<String>,
}

/// Prints `bench tools list`: one row per tool (installed or not, where, version, how to
/// install it).
pub fn list(env: &Env) {
    crate::term::out::text(tools_table(env));
}

/// Runs `bench tools compare` as `args` says, `command` being how the harness was invoked,
/// and writes `tools-<UTC>.json` and its markdown report (`.md`) in `--results-dir`.
/// Returns the JSON's path.
///
/// The file is written whatever happened once the first run finished: with the problems of
/// runs that could not be measured (then the error names the file), or, after a signal or
/// an error, with the runs so far and `"complete": false` (the error then carries a
/// [`Partial`] naming the file).
pub fn compare(env: &Env, args: &CompareArgs) -> anyhow::Result<PathBuf> {
    let mut command = vec!["bench".to_string()];
    command.extend(std::env::args().skip(1));
    compare_as(env, args, command)
}

/// [`compare`] with the invocation recorded in the results given.
pub fn compare_as(env: &Env, args: &CompareArgs, command: Vec<String>) -> anyhow::Result<PathBuf> {
    let (path, problems) = compare_measured(env, args, command)?;
    match problems.as_slice() {
        [] => Ok(path),
        [one] => bail!(
            "results written to {}, but a run could not be measured: {one}",
            path.display()
        ),
        [first, rest @ ..] => bail!(
            "results written to {}, but {} runs could not be measured: {first} (and {} more)",
            path.display(),
            rest.len() + 1,
            rest.len()
        ),
    }
}

/// [`compare_as`], with the runs that could not be measured (they are in the file) returned
/// beside its path instead of as an error: `bench publish` goes on after them.
pub fn compare_measured(
    env: &Env,
    args: &CompareArgs,
    command: Vec<String>,
) -> anyhow::Result<(PathBuf, Vec<String>)> {
    let tools = parse_tools(&args.tools)?;
    let step = step_of(args)?;
    let manifest = env.manifest()?;
    let entry = crate::session::choose(
        env,
        &manifest,
        std::slice::from_ref(&args.server),
        |_| true,
        |s| serving(s, std::slice::from_ref(&step), "tools compare", None),
    )?
    .servers[0];
    let loadgen = env.binary("loadgen");
    for &tool in &tools {
        refuse_unless_applicable(tool, std::slice::from_ref(&step), &loadgen, "")?;
    }
    let extra: &[&str] = if tools.contains(&Tool::Builtin) {
        &["loadgen"]
    } else {
        &[]
    };
    crate::session::build(env, &[entry], extra, true)?;
    let ready = crate::session::ready(args.start.allow_busy, args.start.no_pin)?;
    if let Some(why) = &ready.unpinned {
        crate::say!("{why}");
    }
    let cpus = ready.cpus;
    let started = timestamp::utc_now();

    let mut running = server::start(
        entry,
        env,
        args.start.port,
        cpus.as_ref().map(|c| &c.server),
    )?;
    let addr = running.addr;
    crate::say!(
        "{} at {addr}, pinned to {}; tools pinned to {}; {} {} connections on {} for {} s after a {} s warm-up, {} round(s)",
        entry.name,
        cpus.as_ref()
            .map_or("-".to_string(), |c| format!("CPU(s) {:?}", c.server.0)),
        cpus.as_ref()
            .map_or("-".to_string(), |c| format!("CPU(s) {:?}", c.load.0)),
        step.connections,
        step.mode.name(),
        step.endpoint,
        args.duration.as_secs_f64(),
        args.warmup.as_secs_f64(),
        args.rounds
    );
    let mut versions = Vec::new();
    for &tool in &tools {
        let version = tool.version(&loadgen);
        crate::say!(
            "{}: {}",
            tool.name(),
            version.as_deref().unwrap_or("version unknown")
        );
        versions.push(ToolVersion {
            name: tool.name().to_string(),
            version,
        });
    }
    let given = cpus
        .as_ref()
        .map_or_else(step::cpus_allowed, |c| c.load.0.len().max(1));
    let mut doc = ToolResults {
        header: Header {
            versions: provenance::versions(),
            ..provenance::header(SCHEMA, started, command, &env.root)
        },
        complete: false,
        incomplete_reason: None,
        tools: versions,
        server: CompareServer {
            name: entry.name.clone(),
            command: running.command.clone(),
        },
        load: CompareLoad {
            connections: args.connections,
            mode: step.mode.name().to_string(),
            endpoint: step.endpoint.clone(),
            duration_s: args.duration.as_secs_f64(),
            warmup_s: args.warmup.as_secs_f64(),
            rounds: args.rounds,
        },
        pinning: cpus.as_ref().map(|c| Pinning {
            server_cpus: c.server.0.clone(),
            load_cpus: c.load.0.clone(),
        }),
        tool_cpus_given: given,
        rounds: Vec::new(),
        medians: Vec::new(),
        problems: Vec::new(),
    };
    let mut spawn = Spawn {
        cwd: &env.root,
        cpus: cpus.as_ref().map(|c| &c.load),
    };
    let mut progress = Progress::new();
    progress.run_length((args.duration + args.warmup) * args.rounds * tools.len() as u32);
    let mut subject = Subject::new(addr, Some(&mut running));
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    let total = args.rounds as usize * tools.len();
    let ran = (|| -> anyhow::Result<()> {
        for round in 1..=args.rounds {
            for &tool in &tools {
                signals::check()?;
                let mut load = Load {
                    tool,
                    loadgen: &loadgen,
                    quick: false,
                    cpus: given,
                    retries: args.start.retries,
                    settle: step::SETTLE_LIMIT,
                    launch: &mut spawn,
                };
                let mut result = step::results_for(std::slice::from_ref(&step)).remove(0);
                let what = format!("round {round}/{}: {}", args.rounds, tool.name());
                let failed = step::run(
                    &mut load,
                    &mut subject,
                    &step,
                    &mut result,
                    &mut progress,
                    &what,
                )?;
                problems.extend(failed.into_iter().map(|f| format!("{}: {f}", tool.name())));
                rows.push(measured(round, tool, result));
            }
        }
        Ok(())
    })();
    progress.finish();
    drop(subject);
    if let Err(e) = ran {
        // The runs that finished are kept, marked incomplete; the guard stops the server.
        if rows.is_empty() {
            return Err(e);
        }
        let why = match crate::error::interrupted(&e) {
            Some(i) => i.to_string(),
            None => format!("stopped by an error ({})", e.root_cause()),
        };
        doc.incomplete_reason = Some(format!("{why} after {} of {total} runs", rows.len()));
        return match finish(&mut doc, &rows, &tools, problems, env, &args.results_dir) {
            Ok(path) => Err(e.context(Partial {
                path,
                done: rows.len(),
                total,
            })),
            Err(w) => Err(e.context(format!("and the results could not be written: {w}"))),
        };
    }
    let left = running.stop();
    doc.complete = true;
    let path = finish(&mut doc, &rows, &tools, problems, env, &args.results_dir)?;
    crate::term::out::text(report::rounds_table(&doc.rounds));
    crate::say!(
        "\nmedians over the rounds (ratios: per round, to {}):",
        tools[0]
    );
    crate::term::out::text(report::medians_table(&doc.medians));
    crate::say!("{}", report::tool_bound_note(given));
    if !left.is_empty() {
        bail!(
            "results written to {}, but {} left processes behind after stopping: {left:?}",
            path.display(),
            entry.name
        );
    }
    Ok((path, doc.problems.clone()))
}

/// Fills `doc` with the rows, their medians and the problems, and writes it and its markdown
/// report in `dir`, paths under the workspace root relative to it.
fn finish(
    doc: &mut ToolResults,
    rows: &[Measured],
    tools: &[Tool],
    problems: Vec<String>,
    env: &Env,
    dir: &Path,
) -> anyhow::Result<PathBuf> {
    doc.rounds = rounds_of(rows, tools);
    doc.medians = medians_of(rows, tools);
    doc.problems = problems;
    doc.header.finished_utc = timestamp::utc_now();
    doc.relative_to(&env.root);
    let path = doc.write(dir).context("cannot write the results")?;
    bench_report::other::write_markdown_beside(&report::markdown_report(doc), &path)?;
    Ok(path)
}

/// The `--tools` names as tools: at least two, none twice.
fn parse_tools(names: &[String]) -> anyhow::Result<Vec<Tool>> {
    let mut tools: Vec<Tool> = Vec::new();
    for name in names {
        let tool: Tool = name.parse().map_err(bad)?;
        if tools.contains(&tool) {
            return Err(bad(format!("{tool} is named twice in --tools")));
        }
        tools.push(tool);
    }
    if tools.len() < 2 {
        return Err(bad("--tools needs at least two tools to compare"));
    }
    Ok(tools)
}

/// The one step every tool runs: `--mode` connections (keep-alive HTTP/1.1 by default) on
/// the endpoint for the duration, after a warm-up of the same load (`/api/private` with the
/// token it accepts).
fn step_of(args: &CompareArgs) -> anyhow::Result<Step> {
    let mode = Mode::parse(&args.mode).ok_or_else(|| {
        bad(format!(
            "unknown --mode {:?}: keep-alive, close, http1.0 or http1.0-keep-alive",
            args.mode
        ))
    })?;
    let path = args.endpoint.split('?').next().unwrap_or_default();
    let headers = if path == "/api/private" {
        vec![("Authorization".to_string(), format!("Bearer {TOKEN}"))]
    } else {
        Vec::new()
    };
    Ok(Step {
        id: format!("c{}", args.connections),
        endpoint: args.endpoint.clone(),
        connections: usize::try_from(args.connections).unwrap_or(usize::MAX),
        duration: Some(args.duration),
        requests: None,
        mode,
        pipeline: 1,
        timeout: std::time::Duration::from_secs(60),
        headers,
        warmup: Warmup::For(args.warmup),
        probe: None,
        rate: None,
    })
}

fn measured(round: u32, tool: Tool, result: StepResult) -> Measured {
    Measured {
        round,
        tool,
        tool_command: result.tool_command.clone(),
        run: result
            .valid
            .then(|| result.repeats.into_iter().next())
            .flatten(),
        invalid: result.invalid_reason,
        load1: load1(),
    }
}

fn load1() -> Option<f64> {
    use procfs::Current;
    procfs::LoadAverage::current()
        .ok()
        .map(|l| f64::from(l.one))
}

/// `run`'s figure over the first tool's in the same round.
fn ratio(
    rows: &[Measured],
    tools: &[Tool],
    row: &Measured,
    get: fn(&Run) -> Option<f64>,
) -> Option<f64> {
    let first = rows
        .iter()
        .find(|r| r.round == row.round && Some(&r.tool) == tools.first())?;
    let (a, b) = (get(row.run.as_ref()?)?, get(first.run.as_ref()?)?);
    (b > 0.0).then(|| a / b)
}

fn rps(run: &Run) -> Option<f64> {
    Some(run.requests_per_s)
}

fn p50(run: &Run) -> Option<f64> {
    run.latency_us.p50.map(|v| v as f64)
}

/// The rows as the results file holds them: each with its ratios to the first tool's run of
/// the same round.
pub fn rounds_of(rows: &[Measured], tools: &[Tool]) -> Vec<Round> {
    rows.iter()
        .map(|row| Round {
            round: row.round,
            tool: row.tool.name().to_string(),
            run: row.run.clone(),
            invalid_reason: row.invalid.clone(),
            load1: row.load1,
            requests_per_s_ratio: ratio(rows, tools, row, rps),
            p50_ratio: ratio(rows, tools, row, p50),
            tool_command: row.tool_command.clone(),
        })
        .collect()
}

/// One entry per tool: the medians of its figures and of its per-round ratios.
pub fn medians_of(rows: &[Measured], tools: &[Tool]) -> Vec<ToolMedian> {
    tools
        .iter()
        .map(|&tool| {
            let mine: Vec<&Measured> = rows.iter().filter(|r| r.tool == tool).collect();
            let valid: Vec<&Run> = mine.iter().filter_map(|r| r.run.as_ref()).collect();
            let of = |f: &dyn Fn(&Measured) -> Option<f64>| {
                median(mine.iter().filter_map(|r| f(r)).collect())
            };
            ToolMedian {
                tool: tool.name().to_string(),
                rounds: mine.len(),
                rounds_valid: valid.len(),
                requests_per_s: median(valid.iter().map(|r| r.requests_per_s).collect()),
                p50_us: median(valid.iter().filter_map(|r| p50(r)).collect()),
                tool_cpu_percent: median(valid.iter().filter_map(|r| r.tool_cpu_percent).collect()),
                tool_bound_rounds: valid.iter().filter(|r| r.tool_bound).count(),
                requests_per_s_ratio: of(&|r| ratio(rows, tools, r, rps)),
                p50_ratio: of(&|r| ratio(rows, tools, r, p50)),
            }
        })
        .collect()
}

/// One row per round and tool.
pub fn rounds_table(rows: &[Measured], tools: &[Tool]) -> Table {
    report::rounds_table(&rounds_of(rows, tools))
}

/// One row per tool: the medians of its figures and of its per-round ratios.
pub fn medians_table(rows: &[Measured], tools: &[Tool]) -> Table {
    report::medians_table(&medians_of(rows, tools))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::results::Latency;

    fn row(round: u32, tool: Tool, rps: f64, p50: u64) -> Measured {
        Measured {
            round,
            tool,
            run: Some(Run {
                requests_per_s: rps,
                latency_us: Latency {
                    p50: Some(p50),
                    ..Latency::default()
                },
                ..Run::default()
            }),
            invalid: None,
            load1: Some(0.5),
            tool_command: Vec::new(),
        }
    }

    #[test]
    fn ratios_are_to_the_first_tool_of_the_same_round() {
        let tools = [Tool::Wrk, Tool::Builtin];
        let rows = vec![
            row(1, Tool::Wrk, 100.0, 300),
            row(1, Tool::Builtin, 120.0, 330),
            row(2, Tool::Wrk, 50.0, 600),
            row(2, Tool::Builtin, 55.0, 600),
            Measured {
                run: None,
                invalid: Some("wrk failed".into()),
                ..row(3, Tool::Wrk, 0.0, 0)
            },
            row(3, Tool::Builtin, 130.0, 300),
        ];
        let mut rows = rows;
        // Round 2's wrk was tool-bound.
        if let Some(r) = rows[2].run.as_mut() {
            r.tool_cpu_percent = Some(99.0);
            r.tool_bound = true;
        }
        let ratio = |i: usize, get| super::ratio(&rows, &tools, &rows[i], get);
        assert_eq!(ratio(0, rps), Some(1.0));
        assert_eq!(ratio(1, rps), Some(1.2));
        assert_eq!(ratio(1, p50), Some(1.1));
        assert_eq!(ratio(3, rps), Some(1.1));
        assert_eq!(ratio(5, rps), None, "no reference in round 3");
        let text = rounds_table(&rows, &tools).to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2 + 6);
        let cells: Vec<&str> = lines[3].split_whitespace().collect();
        assert_eq!(
            cells,
            [
                "1", "builtin", "120", "330", "-", "-", "-", "0.50", "1.200", "1.100"
            ],
            "{text}"
        );
        let cells: Vec<&str> = lines[4].split_whitespace().collect();
        assert_eq!(&cells[..3], ["2", "wrk", "50†"], "{text}");
        assert_eq!(cells[6], "99", "{text}");
        assert!(lines[6].ends_with("wrk failed"), "{text}");
        let m = medians_table(&rows, &tools).to_string();
        let builtin = m.lines().find(|l| l.starts_with("builtin")).unwrap();
        let cells: Vec<&str> = builtin.split_whitespace().collect();
        // Medians of 120/55/130 and of the ratios 1.2 and 1.1 (round 3 has none).
        assert_eq!(
            cells,
            ["builtin", "3/3", "120", "330", "-", "0/3", "1.150", "1.050"],
            "{m}"
        );
        let wrk = m.lines().find(|l| l.starts_with("wrk")).unwrap();
        let cells: Vec<&str> = wrk.split_whitespace().collect();
        assert_eq!(
            cells,
            ["wrk", "2/3", "75", "450", "99", "1/2", "1.000", "1.000"],
            "{m}"
        );
    }

    #[test]
    fn tools_are_checked() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse_tools(&names(&["builtin", "wrk"])).unwrap(),
            [Tool::Builtin, Tool::Wrk]
        );
        let e = |v: &[&str]| parse_tools(&names(v)).unwrap_err().to_string();
        assert!(e(&["builtin"]).contains("at least two"));
        assert!(e(&["wrk", "wrk"]).contains("named twice"));
        assert!(e(&["builtin", "siege"]).contains("unknown tool \"siege\""));
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![3.0, 1.0]), Some(2.0));
    }
}
