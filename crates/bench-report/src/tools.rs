//! The tables of a `bench tools compare` results file, on the terminal and as the markdown
//! report beside the file: one row per round and tool, then one row per tool of the medians
//! over the rounds. The terminal's tables and the markdown's have the same columns and cells.

use crate::model::{self, Block, Cell, Document};
use crate::model_html::table_html;
use crate::read::{dirty, provenance, revision};
use bench_chart::table::Table;
use bench_model::results::Run;
use bench_model::results::tools::{Round, ToolMedian, ToolResults};

/// The columns of the rounds' table.
pub const ROUNDS_HEADER: [&str; 11] = [
    "round",
    "tool",
    "req/s",
    "p50 µs",
    "p99 µs",
    "server CPU µs/req",
    "tool CPU %",
    "load1",
    "req/s ratio",
    "p50 ratio",
    "note",
];

/// The columns of the medians' table.
pub const MEDIANS_HEADER: [&str; 8] = [
    "tool",
    "rounds",
    "req/s",
    "p50 µs",
    "tool CPU %",
    "tool-bound",
    "req/s ratio",
    "p50 ratio",
];

/// Requests/s, with `†` when the tool was the bottleneck.
fn rps_cell(run: Option<&Run>) -> String {
    match run {
        Some(r) if r.tool_bound => {
            format!("{}†", bench_chart::format::grouped(r.requests_per_s, 0))
        }
        Some(r) => bench_chart::format::grouped(r.requests_per_s, 0),
        None => "-".into(),
    }
}

fn fixed(v: Option<f64>, decimals: usize) -> String {
    v.map_or("-".to_string(), |v| {
        bench_chart::format::grouped(v, decimals)
    })
}

/// The cells of one round's row.
pub fn round_cells(r: &Round) -> Vec<String> {
    let run = r.run.as_ref();
    vec![
        r.round.to_string(),
        r.tool.clone(),
        rps_cell(run),
        fixed(run.and_then(|r| r.latency_us.p50.map(|v| v as f64)), 0),
        fixed(run.and_then(|r| r.latency_us.p99.map(|v| v as f64)), 0),
        fixed(run.and_then(|r| r.cpu_us_per_request), 2),
        fixed(run.and_then(|r| r.tool_cpu_percent), 0),
        fixed(r.load1, 2),
        fixed(r.requests_per_s_ratio, 3),
        fixed(r.p50_ratio, 3),
        r.invalid_reason.clone().unwrap_or_default(),
    ]
}

/// The cells of one tool's medians' row.
pub fn median_cells(m: &ToolMedian) -> Vec<String> {
    vec![
        m.tool.clone(),
        format!("{}/{}", m.rounds_valid, m.rounds),
        fixed(m.requests_per_s, 0),
        fixed(m.p50_us, 0),
        fixed(m.tool_cpu_percent, 0),
        format!("{}/{}", m.tool_bound_rounds, m.rounds_valid),
        fixed(m.requests_per_s_ratio, 3),
        fixed(m.p50_ratio, 3),
    ]
}

/// The rounds' table for the terminal.
pub fn rounds_table(rounds: &[Round]) -> Table {
    let mut t = Table::new(&ROUNDS_HEADER);
    rounds.iter().for_each(|r| t.row(round_cells(r)));
    t
}

/// The medians' table for the terminal.
pub fn medians_table(medians: &[ToolMedian]) -> Table {
    let mut t = Table::new(&MEDIANS_HEADER);
    medians.iter().for_each(|m| t.row(median_cells(m)));
    t
}

/// `name version`, or the version line alone when it names the program (`rustc 1.95.0 …`).
pub(crate) fn version_text(name: &str, version: &str) -> String {
    if version.starts_with(name) {
        version.to_string()
    } else {
        format!("{name} {version}")
    }
}

/// The footnote of the `†` mark.
pub fn tool_bound_note(given: usize) -> String {
    format!(
        "† tool-bound: the tool used at least 90 % of the CPUs it could use ({given} given; 1 for wrk -t1, ab and autocannon), so its req/s is its own limit"
    )
}

/// The reference tool's name (the first given).
pub fn reference(r: &ToolResults) -> &str {
    r.tools.first().map_or("-", |t| t.name.as_str())
}

/// Whether a column of the rounds' table holds figures (round, req/s … p50 ratio).
fn rounds_figure(i: usize) -> bool {
    (2..10).contains(&i) || i == 0
}

/// A table of the document model with `header`'s columns (figures where `figure` holds) and
/// `rows`, each row of the tool named in its column `tool`.
fn model_table(
    header: &[&str],
    figure: impl Fn(usize) -> bool,
    tool: usize,
    rows: Vec<Vec<String>>,
) -> model::Table {
    let mut t = model::Table::new(
        header
            .iter()
            .enumerate()
            .map(|(i, h)| (h.to_string(), figure(i))),
    );
    for cells in rows {
        let name = cells[tool].clone();
        t.push(&name, cells.into_iter().map(Cell::text).collect());
    }
    t
}

/// The rounds' table in the document model.
fn rounds_model(r: &ToolResults) -> model::Table {
    let rows = r.rounds.iter().map(round_cells).collect();
    model_table(&ROUNDS_HEADER, rounds_figure, 1, rows)
}

/// The medians' table in the document model.
fn medians_model(r: &ToolResults) -> model::Table {
    let rows = r.medians.iter().map(median_cells).collect();
    model_table(&MEDIANS_HEADER, |i| i >= 1, 0, rows)
}

/// The whole report of `r`: title, provenance, the two tables, the problems.
pub(crate) fn document(r: &ToolResults) -> Document {
    let load = &r.load;
    let versions: Vec<String> = r
        .header
        .versions
        .iter()
        .map(|(k, v)| version_text(k, v))
        .chain(r.tools.iter().map(|t| {
            format!(
                "{}: {}",
                t.name,
                t.version.as_deref().unwrap_or("version unknown")
            )
        }))
        .collect();
    let mut header = provenance(&r.header, &versions);
    let more = [
        (
            "Server",
            format!(
                "{} (`{}`){}",
                r.server.name,
                r.server.command.join(" "),
                r.pinning
                    .as_ref()
                    .map_or(", not pinned".to_string(), |p| format!(
                        ", pinned to CPU(s) {:?}; the tools to CPU(s) {:?}",
                        p.server_cpus, p.load_cpus
                    ))
            ),
        ),
        (
            "Load",
            format!(
                "{} {} connections on `{}`, {} s measured after a {} s warm-up, {} round(s), the tools alternating in each",
                load.connections,
                load.mode,
                load.endpoint,
                load.duration_s,
                load.warmup_s,
                load.rounds
            ),
        ),
        ("Command", format!("`{}`", r.header.command.join(" "))),
    ];
    header.extend(more.into_iter().map(|(k, v)| (k.to_string(), v)));
    let mut blocks = vec![
        Block::Para(format!(
            "The reference tool is {}: every ratio is a tool's figure over {}'s in the same round, and a median ratio is the median of those.",
            reference(r),
            reference(r)
        )),
        Block::Heading("Rounds".to_string()),
        Block::Table(rounds_model(r)),
        Block::Heading("Medians over the rounds".to_string()),
        Block::Table(medians_model(r)),
        Block::Para(tool_bound_note(r.tool_cpus_given)),
    ];
    if !r.problems.is_empty() {
        blocks.push(Block::Heading("Problems".to_string()));
        blocks.push(Block::List(r.problems.clone()));
    }
    Document {
        title: format!("Load tools compared on {}", r.server.name),
        notice: (!r.complete).then(|| {
            format!(
                "**Incomplete: {}.** The rounds below are those that finished.",
                r.incomplete_reason.as_deref().unwrap_or("stopped early")
            )
        }),
        header,
        blocks,
        ..Document::default()
    }
}

/// The whole markdown report of `r`: title, provenance, the two tables, the problems.
pub fn markdown_report(r: &ToolResults) -> String {
    document(r).markdown_tight()
}

/// The page's section of `bench tools compare` results files, newest first: per file its
/// provenance, the medians' table and the rounds' table.
pub(super) fn html_section(docs: &[ToolResults], root: Option<&std::path::Path>) -> String {
    use std::fmt::Write as _;
    let esc = bench_chart::format::escape;
    let mut out = String::from(
        "<section class=\"experiment\" id=\"tools\">\n<h2>Load tools compared</h2>\n<p class=\"question\">How much of a figure is the load tool's? One server driven by several tools at the same load, the tools alternating round by round.</p>\n",
    );
    let mut docs: Vec<&ToolResults> = docs.iter().collect();
    docs.sort_by(|a, b| b.header.started_utc.cmp(&a.header.started_utc));
    for r in docs {
        let l = &r.load;
        let _ = writeln!(
            out,
            "<article class=\"run\">\n<h3>{} · {}</h3>\n<p>{}{} to {} on {} ({} CPUs, {}), git {}{}; {} {} connections on <code>{}</code>, {} s after a {} s warm-up, {} round(s). The reference tool is {}. Command: <code>{}</code></p>",
            esc(&r.server.name),
            esc(&r.header.started_utc),
            if r.complete {
                String::new()
            } else {
                format!(
                    "<strong>Incomplete: {}.</strong> ",
                    esc(r.incomplete_reason.as_deref().unwrap_or("stopped early"))
                )
            },
            esc(&r.header.started_utc),
            esc(&r.header.finished_utc),
            esc(&r.header.machine.hostname),
            r.header.machine.cpus,
            esc(&r.header.machine.kernel),
            esc(revision(&r.header)),
            dirty(&r.header, " (dirty)"),
            l.connections,
            esc(&l.mode),
            esc(&l.endpoint),
            l.duration_s,
            l.warmup_s,
            l.rounds,
            esc(reference(r)),
            esc(&r.header.command.join(" "))
        );
        out.push_str(&crate::stale::stale_box(
            &r.header,
            &[r.server.name.as_str()],
            root,
        ));
        out.push_str("<h4>Medians over the rounds</h4>\n");
        out.push_str(&table_html(&medians_model(r)));
        out.push_str("<h4>Rounds</h4>\n");
        out.push_str(&table_html(&rounds_model(r)));
        let _ = write!(
            out,
            "<ul class=\"notes\"><li>{}</li>",
            esc(&tool_bound_note(r.tool_cpus_given))
        );
        for p in &r.problems {
            let _ = write!(out, "<li>{}</li>", esc(p));
        }
        out.push_str("</ul>\n</article>\n");
    }
    out.push_str("</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    use crate::other::OtherResults;
    use bench_model::results::tools::{CompareLoad, CompareServer, SCHEMA, ToolVersion};
    use bench_model::results::{Git, Header, Latency, Machine};

    pub(crate) fn sample() -> ToolResults {
        let run = |rps: f64, p50: u64, bound: bool| Run {
            requests_per_s: rps,
            latency_us: Latency {
                p50: Some(p50),
                p99: Some(p50 * 3),
                ..Latency::default()
            },
            tool_cpu_percent: Some(if bound { 97.0 } else { 40.0 }),
            tool_bound: bound,
            cpu_us_per_request: Some(6.5),
            ..Run::default()
        };
        ToolResults {
            header: Header {
                schema: SCHEMA.into(),
                started_utc: "2026-12-02T00:00:00Z".into(),
                finished_utc: "2026-12-02T00:01:00Z".into(),
                command: vec!["bench".into(), "tools".into(), "compare".into()],
                machine: Machine::default(),
                git: Git::default(),
                versions: [("bench".to_string(), "0.1.0".to_string())].into(),
            },
            complete: false,
            incomplete_reason: Some("interrupted by SIGINT after 2 of 4 runs".into()),
            tools: vec![
                ToolVersion {
                    name: "builtin".into(),
                    version: Some("loadgen 0.1.0".into()),
                },
                ToolVersion {
                    name: "wrk".into(),
                    version: None,
                },
            ],
            server: CompareServer {
                name: "server-prebuilt".into(),
                command: vec!["target/release/server-prebuilt".into()],
            },
            load: CompareLoad {
                connections: 100,
                mode: "keep-alive".into(),
                endpoint: "/".into(),
                duration_s: 10.0,
                warmup_s: 2.0,
                rounds: 2,
            },
            pinning: None,
            tool_cpus_given: 1,
            rounds: vec![
                Round {
                    round: 1,
                    tool: "builtin".into(),
                    run: Some(run(1000.0, 300, true)),
                    invalid_reason: None,
                    load1: Some(0.5),
                    requests_per_s_ratio: Some(1.0),
                    p50_ratio: Some(1.0),
                    tool_command: vec!["target/release/loadgen".into()],
                },
                Round {
                    round: 1,
                    tool: "wrk".into(),
                    run: None,
                    invalid_reason: Some("wrk failed | exit 1".into()),
                    load1: None,
                    requests_per_s_ratio: None,
                    p50_ratio: None,
                    tool_command: vec![],
                },
            ],
            medians: vec![ToolMedian {
                tool: "builtin".into(),
                rounds: 1,
                rounds_valid: 1,
                requests_per_s: Some(1000.0),
                p50_us: Some(300.0),
                tool_cpu_percent: Some(97.0),
                tool_bound_rounds: 1,
                requests_per_s_ratio: Some(1.0),
                p50_ratio: Some(1.0),
            }],
            problems: vec!["wrk: wrk failed".into()],
        }
    }

    #[test]
    fn the_report_has_the_provenance_and_both_tables() {
        let md = markdown_report(&sample());
        assert!(
            md.starts_with("# Load tools compared on server-prebuilt\n"),
            "{md}"
        );
        assert!(md.contains("**Incomplete: interrupted by SIGINT after 2 of 4 runs.**"));
        assert!(md.contains("The reference tool is builtin"));
        assert!(
            md.contains("builtin: loadgen 0.1.0; wrk: version unknown"),
            "{md}"
        );
        assert!(md.contains(
            "| 1 | builtin | 1,000† | 300 | 900 | 6.50 | 97 | 0.50 | 1.000 | 1.000 |  |"
        ));
        assert!(md.contains("| 1 | wrk | - | - | - | - | - | - | - | - | wrk failed \\| exit 1 |"));
        assert!(md.contains("| builtin | 1/1 | 1,000 | 300 | 97 | 1/1 | 1.000 | 1.000 |"));
        assert!(md.contains("## Problems\n\n- wrk: wrk failed\n"));
    }

    #[test]
    fn the_page_section_has_both_tables() {
        let html = html_section(&[sample()], None);
        assert_eq!(html.matches("<table class=\"sortable\">").count(), 2);
        assert!(
            html.contains("<td>builtin</td><td class=\"num\">1/1</td>"),
            "{html}"
        );
        assert!(html.contains("<strong>Incomplete: "));
    }

    #[test]
    fn a_written_file_is_recognised_and_its_report_rewritten_the_same() {
        let dir = std::env::temp_dir().join(format!("bench-tools-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut r = sample();
        r.header.command.push("/ws/results".into());
        r.relative_to(Path::new("/ws"));
        assert_eq!(r.header.command[3], "results");
        let path = r.write(&dir).unwrap();
        assert!(path.ends_with("tools-20261202T000000Z.json"), "{path:?}");
        assert!(
            r.write(&dir)
                .unwrap()
                .ends_with("tools-20261202T000000Z-2.json")
        );
        assert!(crate::other::is_other_results_file(&path));
        assert!(
            matches!(OtherResults::load(&path).unwrap(), Some(OtherResults::Tools(ref read)) if **read == r)
        );
        let md = crate::other::write_report_beside(&path).unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(md).unwrap(), markdown_report(&r));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
