//! The headline table of the workspace README: one row per server, a few figures from the
//! newest results file of each experiment, and one line per results file it read.
//!
//! `bench report docs/results --readme README.md` rewrites the text between [`BEGIN`] and
//! [`END`] in the README and leaves every other byte of it alone; run twice, the second run
//! changes nothing. The columns are the experiments' own ([`columns`], declared in `experiment.rs` beside
//! their steps); a column whose experiment has no
//! results file, or whose step no server measured validly, is left out, so E7's column
//! appears once an `e7` results file is there.
//!
//! A cell is a step's median run, only from a valid step, with the marks every report uses
//! ([`marks`]: `†` the load tool set the pace, `‡` the machine did; a CPU time per request
//! takes only `‡`, as in the reports' resources tables); `invalid` for a step that failed,
//! `—` for one the server did not run.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::ReportError;
use crate::model::MACHINE_MARK;
use crate::read::{find, marks, relative};
use bench_chart::format::thousands;
use bench_model::results::{Results, Run, ServerKind, ServerResult, StepResult};

/// The line before the generated table.
pub const BEGIN: &str = "<!-- bench:headline -->";
/// The line after it.
pub const END: &str = "<!-- /bench:headline -->";

pub use bench_model::experiment::{Figure, Headline, Pick};

/// One column of the headline table: a [`Headline`] an experiment declares in
/// `experiment.rs`, with that experiment's id.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// The experiment (`e3`).
    pub experiment: &'static str,
    /// The column it declares.
    pub headline: &'static Headline,
}

impl std::ops::Deref for Column {
    type Target = Headline;

    fn deref(&self) -> &Headline {
        self.headline
    }
}

/// Every experiment's headline columns, in the experiments' order.
pub fn columns() -> Vec<Column> {
    bench_model::experiment::ALL
        .iter()
        .flat_map(|e| {
            e.headline.iter().map(move |h| Column {
                experiment: e.id,
                headline: h,
            })
        })
        .collect()
}

/// The experiments' ids in the order their servers take rows
/// ([`bench_model::experiment::Experiment::headline_rank`]).
fn row_order() -> Vec<&'static str> {
    let mut all: Vec<_> = bench_model::experiment::ALL.iter().collect();
    all.sort_by_key(|e| e.headline_rank);
    all.iter().map(|e| e.id).collect()
}

fn io_error(path: &Path, source: io::Error) -> ReportError {
    ReportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A results file the table reads: where it is, and what it holds.
#[derive(Clone, Debug)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// Its results.
    pub results: Results,
}

/// The newest results file of each experiment among `paths` (a directory stands for the
/// `.json` files in it; `bench instructions`, `tools compare` and `idle` files are passed
/// over). Newest by start time; a
/// `--quick` run only when the experiment has no other. Sorted by experiment.
pub fn newest(paths: &[PathBuf]) -> Result<Vec<Source>, ReportError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let entries = fs::read_dir(p).map_err(|e| io_error(p, e))?;
            let mut inner = Vec::new();
            for entry in entries {
                let path = entry.map_err(|e| io_error(p, e))?.path();
                if path.extension().is_some_and(|x| x == "json") {
                    inner.push(path);
                }
            }
            inner.sort();
            files.extend(inner);
        } else {
            files.push(p.clone());
        }
    }
    let mut best: Vec<Source> = Vec::new();
    for path in files {
        if crate::other::is_other_results_file(&path) {
            continue;
        }
        let results = Results::load(&path).map_err(ReportError::from)?;
        let key = |r: &Results| (!r.quick, r.header.started_utc.clone());
        match best
            .iter_mut()
            .find(|s| s.results.experiment == results.experiment)
        {
            Some(s) if key(&results) > key(&s.results) => *s = Source { path, results },
            Some(_) => {}
            None => best.push(Source { path, results }),
        }
    }
    best.sort_by(|a, b| a.results.experiment.cmp(&b.results.experiment));
    Ok(best)
}

/// The text between the markers (both included) for `sources`, with each source's link
/// relative to `readme_dir`.
pub fn block(sources: &[Source], readme_dir: &Path) -> String {
    let source = |exp: &str| sources.iter().find(|s| s.results.experiment == exp);
    // The columns that have a source and at least one figure in it.
    let columns: Vec<Column> = columns()
        .into_iter()
        .filter(|c| {
            source(c.experiment).is_some_and(|s| {
                s.results
                    .servers
                    .iter()
                    .any(|srv| matches!(cell(srv, c), Cell::Figure(..)))
            })
        })
        .collect();
    let mut rows: Vec<&ServerResult> = Vec::new();
    for kind in [ServerKind::Rust, ServerKind::Peer] {
        for exp in row_order() {
            let Some(src) = source(exp) else { continue };
            // An A/A copy (`NAME#2`) measures the run's precision, not a server: its
            // experiment's report says what the pair found.
            let servers = src.results.servers.iter();
            for s in servers.filter(|s| s.kind == kind && s.copy_of().is_none()) {
                let shown = columns
                    .iter()
                    .any(|c| c.experiment == exp && !matches!(cell(s, c), Cell::NotRun));
                if shown && !rows.iter().any(|r| r.name == s.name) {
                    rows.push(s);
                }
            }
        }
    }

    let mut out = format!(
        "{BEGIN}\n<!-- Written by `bench report docs/results --readme README.md` from the newest results file of each experiment; edit the generator (crates/bench-report/src/headline.rs), not this table. -->\n\n"
    );
    if columns.is_empty() {
        out.push_str("No results files with a headline figure yet.\n\n");
        out.push_str(END);
        return out;
    }
    let mut head = vec!["Server".to_string(), "Analogue of".to_string()];
    head.extend(columns.iter().map(|c| c.head.to_string()));
    out.push_str(&format!("| {} |\n", head.join(" | ")));
    let mut rule = vec!["---", "---"];
    rule.extend(columns.iter().map(|_| "---:"));
    out.push_str(&format!("|{}|\n", rule.join("|")));
    for s in &rows {
        let mut row = vec![s.name.clone(), super::build::analogue(s)];
        for c in &columns {
            let in_source = source(c.experiment)
                .and_then(|src| src.results.servers.iter().find(|x| x.name == s.name));
            row.push(match in_source {
                None => "—".to_string(),
                Some(x) => cell(x, c).to_string(),
            });
        }
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    let says: Vec<&str> = columns.iter().map(|c| c.says).collect();
    out.push_str(&format!(
        "\nColumns: {}. Each figure is the median of a valid step's repeats; † the load tool set its pace (the server may be faster), ‡ the machine did (other work, steal or CPU waits); `invalid`: the step failed; `—`: not run.\n\nFrom:\n\n",
        says.join("; ")
    ));
    let mut used: Vec<&str> = columns.iter().map(|c| c.experiment).collect();
    used.dedup();
    for exp in used {
        if let Some(src) = source(exp) {
            out.push_str(&format!("- {}\n", provenance(src, readme_dir)));
        }
    }
    out.push('\n');
    out.push_str(END);
    out
}

/// One line of where a source came from: experiment, its report, date, commit, machine.
fn provenance(src: &Source, readme_dir: &Path) -> String {
    let r = &src.results;
    let md = src.path.with_extension("md");
    let shown = if md.is_file() { &md } else { &src.path };
    let name = shown
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let link = relative(readme_dir, shown).map_or(name.clone(), |rel| format!("[{name}]({rel})"));
    let date = r
        .header
        .started_utc
        .get(..16)
        .map_or(r.header.started_utc.clone(), |d| {
            format!("{} UTC", d.replace('T', " "))
        });
    let commit = match (&r.header.git.revision, r.header.git.dirty) {
        (Some(rev), Some(true)) => {
            format!(
                "commit {} with local changes",
                bench_chart::format::short(rev)
            )
        }
        (Some(rev), _) => format!("commit {}", bench_chart::format::short(rev)),
        (None, _) => "commit unknown".to_string(),
    };
    let m = &r.header.machine;
    let kernel: Vec<&str> = m.kernel.split_whitespace().take(2).collect();
    let mut machine = vec![
        if m.cpu_model.is_empty() {
            "CPU unknown".to_string()
        } else {
            m.cpu_model.clone()
        },
        format!("{} CPUs", m.cpus),
        format!("{:.1} GiB", m.mem_total_kb as f64 / 1024.0 / 1024.0),
    ];
    if !kernel.is_empty() {
        machine.push(kernel.join(" "));
    }
    let mut how = vec![format!("tool {}", r.tool)];
    if r.repeat > 1 {
        how.push(format!("median of {} repeats", r.repeat));
    }
    if r.quick {
        how.push("--quick".to_string());
    }
    if r.target.is_some() {
        how.push("a server started elsewhere".to_string());
    }
    if !r.complete {
        how.push("incomplete".to_string());
    }
    format!(
        "{}: {link}, {date}, {commit}, {}; {}",
        r.experiment.to_uppercase(),
        machine.join(", "),
        how.join(", ")
    )
}

/// What one cell shows.
enum Cell {
    /// The server did not run the step (or the experiment).
    NotRun,
    /// The step failed.
    Invalid,
    /// The step has no such figure (a remote target's CPU, no repeats).
    NotMeasured,
    /// The figure and its marks.
    Figure(String, String),
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::NotRun => f.write_str("—"),
            Cell::Invalid => f.write_str("invalid"),
            Cell::NotMeasured => f.write_str("n/a"),
            Cell::Figure(x, m) => write!(f, "{x}{m}"),
        }
    }
}

/// `s`'s cell in column `c`.
fn cell(s: &ServerResult, c: &Column) -> Cell {
    let figure = |st: &StepResult| -> Cell {
        if !st.valid {
            return Cell::Invalid;
        }
        let Some(m) = &st.median else {
            return Cell::NotMeasured;
        };
        // The server's own CPU per request is not the tool's limit, but the machine may
        // have set it too.
        let (x, mark) = match c.figure {
            Figure::RequestsPerS => (Some(thousands(m.requests_per_s)), marks(m)),
            Figure::CpuUsPerRequest => (
                m.cpu_us_per_request.map(bench_chart::format::cpu),
                if m.disturbed {
                    format!(" {MACHINE_MARK}")
                } else {
                    String::new()
                },
            ),
            Figure::OfferedRate => (offered(st, m).map(thousands), marks(m)),
        };
        x.map_or(Cell::NotMeasured, |x| Cell::Figure(x, mark))
    };
    match c.pick {
        Pick::Step(id) => find(s, c.endpoint, id).map_or(Cell::NotRun, figure),
        Pick::Best => {
            let steps: Vec<&StepResult> = s
                .steps
                .iter()
                .filter(|st| st.endpoint == c.endpoint)
                .collect();
            let best = steps
                .iter()
                .filter(|st| st.valid)
                .filter_map(|st| Some((*st, st.median.as_ref()?)))
                .max_by(|a, b| a.1.requests_per_s.total_cmp(&b.1.requests_per_s));
            match best {
                Some((st, _)) => figure(st),
                None if steps.is_empty() => Cell::NotRun,
                None => Cell::Invalid,
            }
        }
        Pick::KeptUp => kept_up(s, c.endpoint),
    }
}

fn offered(st: &StepResult, m: &Run) -> Option<f64> {
    st.offered_requests_per_s.or(m.offered_requests_per_s)
}

/// The rate `s` sustains on `endpoint` ([`bench_model::sustainable`]): `61,000` when a rate
/// above it was not held (the search narrows that to 5 %), `≥ 80,000` when its rungs ended
/// otherwise (the top rung, the tool's limit, or an invalid one), `< 10,000` when it did not
/// hold the lowest.
fn kept_up(s: &ServerResult, endpoint: &str) -> Cell {
    match crate::findings::capacity_read(s, endpoint, false) {
        None if s.steps.iter().any(|st| st.endpoint == endpoint) => Cell::NotMeasured,
        None => Cell::NotRun,
        Some((text, m)) => Cell::Figure(text, m.suffix()),
    }
}

/// `text` with the part between [`BEGIN`] and [`END`] (both included) replaced by `block`;
/// every other byte as it was.
pub fn splice(text: &str, block: &str) -> Result<String, String> {
    let start = text
        .find(BEGIN)
        .ok_or_else(|| format!("no {BEGIN} line to write the headline table after"))?;
    if text[start + BEGIN.len()..].contains(BEGIN) {
        return Err(format!("{BEGIN} appears more than once"));
    }
    let end = text[start..]
        .find(END)
        .map(|i| start + i + END.len())
        .ok_or_else(|| format!("no {END} after {BEGIN}"))?;
    Ok(format!("{}{block}{}", &text[..start], &text[end..]))
}

/// The headline block of the README `readme` as the results among `paths` make it (what
/// [`write_readme`] would write there).
pub fn render(paths: &[PathBuf], readme: &Path) -> Result<String, ReportError> {
    let sources = newest(paths)?;
    let dir = match readme.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok(block(&sources, &dir))
}

/// Rewrites the headline table in `readme` from the newest results file of each experiment
/// among `paths`; returns whether the file changed (it is not written when it would not).
pub fn write_readme(paths: &[PathBuf], readme: &Path) -> Result<bool, ReportError> {
    let text = fs::read_to_string(readme).map_err(|e| io_error(readme, e))?;
    let new = splice(&text, &render(paths, readme)?).map_err(|why| ReportError::Markers {
        path: readme.to_path_buf(),
        why,
    })?;
    if new == text {
        return Ok(false);
    }
    fs::write(readme, new).map_err(|e| io_error(readme, e))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    /// What is committed in docs/results now: only the README-sync test reads it (its
    /// figures change with every `bench publish`).
    fn committed() -> Vec<PathBuf> {
        vec![root().join("docs/results")]
    }

    /// The runs measured 2026-11-29..12-01 (their JSON only), frozen in tests/data when the
    /// first `bench publish` replaced docs/results: the figures the tests below assert.
    fn frozen() -> Vec<PathBuf> {
        vec![root().join("crates/bench-report/tests/data/runs-2026-12-01")]
    }

    #[test]
    fn the_newest_file_of_each_experiment_is_read() {
        let sources = newest(&frozen()).unwrap();
        let names: Vec<String> = sources
            .iter()
            .map(|s| s.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        // Two E3, E4 and E5 runs are frozen; the later of each is read, and no
        // `bench instructions` file.
        for (exp, name) in sources.iter().map(|s| &s.results.experiment).zip(&names) {
            assert!(name.starts_with(&format!("{exp}-")), "{name}");
        }
        assert!(
            names.contains(&"e3-20261201T192631Z.json".to_string()),
            "{names:?}"
        );
        assert!(
            names.contains(&"e5-20261130T000659Z.json".to_string()),
            "{names:?}"
        );
        assert!(
            !names.iter().any(|n| n.starts_with("instructions")),
            "{names:?}"
        );
    }

    #[test]
    fn the_table_has_a_row_per_server_and_a_line_per_source() {
        // The README's folder stays the repository's root: the links lead into tests/data,
        // to the JSON (no markdown report was frozen beside it).
        let text = block(&newest(&frozen()).unwrap(), &root());
        assert!(text.starts_with(BEGIN) && text.ends_with(END), "{text}");
        let row = |name: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("| {name} |")))
                .unwrap_or_else(|| panic!("no row for {name}: {text}"))
                .to_string()
        };
        // E3's newest run (c100 only): server-prebuilt's figure was the generator's limit.
        assert!(
            row("server-prebuilt").contains("| 113,647 † | 7.51 |"),
            "{}",
            row("server-prebuilt")
        );
        // E5 at 100 connections and E6's best plaintext step.
        assert!(
            row("tornado").contains("| 8,973 | 111.47 |"),
            "{}",
            row("tornado")
        );
        assert!(row("server-reuseport").contains("| 790,923 |"));
        // Express is in E1 only; E3's blazeio and ceiling are only in the older run.
        assert!(row("express").starts_with("| express | server-axum, server-actix | 13,074 | — |"));
        assert!(!text.contains("| blazeio |") && !text.contains("| ceiling |"));
        // Rust variants first.
        let first_peer = text.find("| node-http |").unwrap();
        assert!(text.find("| server-axum |").unwrap() < first_peer);
        // E2 and E4 have no column; E7's is the capacity on /hello, `≥` where the load tool,
        // not the server, ended the ladder (server-prebuilt held 40,000 in its one round:
        // at least 32,533, the 95 % interval's lower end, in half the runs).
        assert!(!text.contains("E2 ") && !text.contains("E4 "), "{text}");
        assert!(
            row("server-prebuilt").ends_with("| ≥ 32,533 |"),
            "{}",
            row("server-prebuilt")
        );
        // tornado held 1,000 and not 5,000: between, on a log scale.
        assert!(row("tornado").ends_with("| 2,231 |"), "{}", row("tornado"));
        let sources: Vec<&str> = text.lines().filter(|l| l.starts_with("- E")).collect();
        assert_eq!(sources.len(), 5, "{sources:?}");
        assert_eq!(
            sources[1],
            "- E3: [e3-20261201T192631Z.json](crates/bench-report/tests/data/runs-2026-12-01/e3-20261201T192631Z.json), 2026-12-01 19:26 UTC, commit 6257b60, AMD EPYC, 2 CPUs, 23.5 GiB, Linux 6.18.44-fc-v1045; tool builtin, median of 2 repeats"
        );
        assert!(
            !text.contains("127.0.0.1") && !text.contains("/work/"),
            "{text}"
        );
    }

    /// An A/A copy (`server-prebuilt#2`, measured beside server-prebuilt in every round) is
    /// the run's precision, not a server: it has no row.
    #[test]
    fn an_aa_copy_has_no_row() {
        let path = root().join("crates/bench-report/tests/data/results-e3-rounds.json");
        let sources = newest(&[path]).unwrap();
        let names: Vec<&str> = sources[0]
            .results
            .servers
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert!(names.contains(&"server-prebuilt#2"), "{names:?}");
        let text = block(&sources, &root());
        assert!(text.contains("| server-prebuilt |"), "{text}");
        assert!(!text.contains("server-prebuilt#2"), "{text}");
    }

    /// A ladder that a disturbed rung ended may have been ended by the machine: the rate
    /// kept up with carries that rung's ‡, in the headline and in the finding.
    #[test]
    fn a_ladder_ended_by_a_disturbed_rung_carries_its_mark() {
        let data = root().join("crates/bench-report/tests/data/results-e7.json");
        let mut r = Results::load(&data).unwrap();
        let at = r
            .servers
            .iter()
            .position(|s| s.name == "server-hyper")
            .unwrap();
        // This quick fixture is disturbed throughout: quiet every rung first.
        for st in &mut r.servers[at].steps {
            st.median.as_mut().unwrap().disturbed = false;
        }
        let figure = |r: &Results| match kept_up(&r.servers[at], "/hello") {
            Cell::Figure(x, marks) => (x, marks),
            _ => panic!("no figure"),
        };
        let (x, before) = figure(&r);
        // Held 10k, not 40k: the capacity between, on a log scale.
        assert_eq!(x, "19,930");
        assert!(!before.contains('‡'), "{before:?}");
        let sat = r.servers[at]
            .steps
            .iter_mut()
            .find(|st| st.endpoint == "/hello" && st.saturation.is_some())
            .unwrap();
        sat.median.as_mut().unwrap().disturbed = true;
        let (x, after) = figure(&r);
        assert_eq!(x, "19,930");
        assert!(after.contains('‡'), "{after:?}");
    }

    #[test]
    fn an_e7_file_adds_its_column() {
        let dir = std::env::temp_dir().join(format!("headline-e7-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let data = root().join("crates/bench-report/tests/data");
        for f in ["results-e3.json", "results-e7.json"] {
            fs::copy(data.join(f), dir.join(f)).unwrap();
        }
        let text = block(&newest(std::slice::from_ref(&dir)).unwrap(), &dir);
        fs::remove_dir_all(&dir).unwrap();
        let row = |name: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("| {name} |")))
                .unwrap_or_else(|| panic!("no row for {name}: {text}"))
                .to_string()
        };
        assert!(text.contains("| E7 capacity, req/s |"), "{text}");
        // The last cell, without its marks.
        let kept = |name: &str| {
            let r = row(name);
            let cell = r.rsplit('|').nth(1).unwrap().trim();
            cell.trim_end_matches(['†', '‡', ' ']).to_string()
        };
        // The capacity, from one round a rung: kept up at 40k, fell behind at 120k (the
        // middle on a log scale); fell behind at the first rung (at most a little above
        // it); kept up at 10k, not at 40k.
        assert_eq!(kept("server-prebuilt"), "69,564", "{text}");
        assert_eq!(kept("go-http"), "≤ 1,313", "{text}");
        assert_eq!(kept("server-hyper"), "19,930", "{text}");
        // A disturbed rung keeps its mark.
        assert!(row("server-prebuilt").ends_with("| 69,564 ‡ |"), "{text}");
        // The fixture is a --quick run, and its link is beside the README.
        assert!(
            text.contains("- E7: [results-e7.json](results-e7.json), "),
            "{text}"
        );
        assert!(text.contains("--quick"), "{text}");
    }

    #[test]
    fn splicing_changes_only_the_marked_part_and_twice_is_once() {
        let readme = format!("# Title\n\nBefore.\n\n{BEGIN}\nold table\n{END}\n\nAfter: {END}.\n");
        let block = format!("{BEGIN}\n| a |\n|---|\n| 1 |\n{END}");
        let once = splice(&readme, &block).unwrap();
        assert_eq!(
            once,
            format!("# Title\n\nBefore.\n\n{block}\n\nAfter: {END}.\n")
        );
        assert_eq!(splice(&once, &block).unwrap(), once);
        assert!(
            splice("no markers", &block)
                .unwrap_err()
                .contains("no <!--")
        );
        assert!(
            splice(&format!("{BEGIN}\n{BEGIN}\n{END}"), &block)
                .unwrap_err()
                .contains("more than once")
        );
        assert!(
            splice(&format!("{END}\n{BEGIN}\n"), &block)
                .unwrap_err()
                .contains("no <!-- /bench:headline -->")
        );
    }

    #[test]
    fn write_readme_rewrites_once_and_then_leaves_the_file_alone() {
        let dir = std::env::temp_dir().join(format!("headline-write-{}", std::process::id()));
        let results = dir.join("results");
        fs::create_dir_all(&results).unwrap();
        let data = root().join("crates/bench-report/tests/data");
        for f in ["results-e1.json", "results-e3.json"] {
            fs::copy(data.join(f), results.join(f)).unwrap();
        }
        let readme = dir.join("README.md");
        let before = "# Servers\n\nText above.\n";
        let after = "\nText below, with a [link](x.md).\n";
        fs::write(&readme, format!("{before}{BEGIN}\n{END}{after}")).unwrap();
        assert!(write_readme(std::slice::from_ref(&results), &readme).unwrap());
        let first = fs::read_to_string(&readme).unwrap();
        assert!(!write_readme(std::slice::from_ref(&results), &readme).unwrap());
        let second = fs::read_to_string(&readme).unwrap();
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(first, second);
        assert!(first.starts_with(&format!("{before}{BEGIN}\n")), "{first}");
        assert!(first.ends_with(&format!("{END}{after}")), "{first}");
        assert!(first.contains("](results/results-e1.json)"), "{first}");
        assert!(
            first.contains("| E1 req/s | E3 req/s | E3 CPU µs/req |"),
            "{first}"
        );
    }

    #[test]
    fn the_readme_table_is_what_the_committed_results_make() {
        let readme = root().join("README.md");
        let text = fs::read_to_string(&readme).unwrap();
        let start = text
            .find(BEGIN)
            .expect("README.md has the headline markers");
        let end = text.find(END).expect("README.md has the headline markers") + END.len();
        assert_eq!(
            &text[start..end],
            render(&committed(), &readme).unwrap(),
            "README.md's headline table is stale: run `cargo run -p bench -- report docs/results --readme README.md`"
        );
    }
}
