//! The top of the page, which says what a reader is looking at before any figure: what the
//! page holds; the commit, machine, kernel, dates and times, rounds and disturbed runs of
//! every results file it is made of; in one line, which measured servers' code changed since
//! ([`stale`](crate::stale)); that the absolute figures are that day's on that machine, and
//! which figures compare across days, with links to the newest dated note and to
//! docs/reading-results.md; then the one key of every mark and bracket the page uses
//! (`†`, `‡`, `§`, `≥`, `[a–b]`, `[a–b; 3 rounds, 75 %]`), and the contents.

use std::fmt::Write as _;
use std::path::Path;

use bench_model::results::Header;

use super::Doc;
use crate::model::{MACHINE_MARK, ROUND_TRIP_MARK, TOOL_MARK};
use crate::read::{measured_title, relative};
use crate::stale::Staleness;
use bench_chart::draw;
use bench_chart::format::{escape, grouped, inline, listed, short, thousands};

/// Where the page links to for what its figures mean: relative to the page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Links {
    /// docs/reading-results.md.
    pub reading: Option<String>,
    /// The newest dated note of docs/notes (`2026-12-04-two-publishes.md`) and its title.
    pub note: Option<(String, String)>,
}

impl Links {
    /// The links from a page in the directory `page_dir` to the documents of the workspace
    /// at `root` (none that does not exist).
    pub fn from(page_dir: &Path, root: &Path) -> Links {
        let reading = root.join("docs/reading-results.md");
        let note = newest_note(&root.join("docs/notes"));
        Links {
            reading: reading
                .is_file()
                .then(|| relative(page_dir, &reading))
                .flatten(),
            note: note.and_then(|(path, title)| Some((relative(page_dir, &path)?, title))),
        }
    }
}

/// The newest dated note of `dir` (`YYYY-MM-DD-….md`, the latest date, then the latest name)
/// that its README lists (every file of the folder without a README), and its title (its
/// first `# ` line): a note still being written, not listed yet, is not linked.
fn newest_note(dir: &Path) -> Option<(std::path::PathBuf, String)> {
    let dated = |name: &str| {
        let b = name.as_bytes();
        name.ends_with(".md")
            && b.len() > 11
            && b[..10].iter().enumerate().all(|(i, c)| {
                if i == 4 || i == 7 {
                    *c == b'-'
                } else {
                    c.is_ascii_digit()
                }
            })
            && b[10] == b'-'
    };
    let names: Vec<String> = match std::fs::read_to_string(dir.join("README.md")) {
        Ok(readme) => readme
            .split("](")
            .skip(1)
            .filter_map(|rest| rest.split(')').next())
            .map(str::to_string)
            .collect(),
        Err(_) => std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect(),
    };
    let newest = names
        .into_iter()
        .filter(|n| dated(n) && dir.join(n).is_file())
        .max()?;
    let path = dir.join(&newest);
    let text = std::fs::read_to_string(&path).ok()?;
    let title = text
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .unwrap_or(&newest)
        .to_string();
    Some((path, title))
}

/// One results file, as the header counts it: what it is (`E3`, `instructions`), its header,
/// and whether its measured servers' code changed since (`None`: not asked).
pub(super) struct Source<'a> {
    pub label: String,
    pub header: &'a Header,
    pub stale: Option<Staleness>,
}

/// The page's header (see the module).
pub(super) fn header(
    out: &mut String,
    groups: &[(String, Vec<&Doc>)],
    sources: &[Source<'_>],
    links: &Links,
    sections: &[(&str, &str)],
) {
    let runs: usize = groups.iter().map(|(_, v)| v.len()).sum();
    let others = sources.len() - runs;
    let _ = write!(
        out,
        r#"<header>
<h1>HTTP servers side by side: the articles' experiments, TechEmpower's profile, the open-loop profile, instructions per request</h1>
<p class="lead">{runs} results file{} of <code>bench run</code>{}, made into this page by <code>bench report --html</code>. Each experiment mirrors a published benchmark: its own systems (the <em>peers</em>) run beside a Rust analogue of each. The articles' figures came from other machines: context, not targets.</p>
<section class="about" id="about" aria-label="What this page is from">
<dl class="facts">
"#,
        if runs == 1 { "" } else { "s" },
        if others == 0 {
            String::new()
        } else {
            format!(
                " and {others} of <code>bench instructions</code>, <code>bench tools compare</code> and <code>bench idle</code>"
            )
        }
    );
    facts(out, groups, sources);
    out.push_str("</dl>\n");
    absolute(out, links);
    out.push_str("</section>\n");
    key(out);
    out.push_str("<nav><ul>");
    for (id, runs) in groups {
        let results: Vec<_> = runs.iter().map(|d| &d.results).collect();
        let _ = write!(
            out,
            r##"<li><a href="#{}">{}</a>: {}</li>"##,
            escape(id),
            escape(&id.to_uppercase()),
            escape(&measured_title(&results))
        );
    }
    for (id, what) in sections {
        let _ = write!(out, r##"<li><a href="#{id}">{what}</a></li>"##);
    }
    out.push_str("</ul></nav>\n</header>\n<main>\n");
}

/// `vm: AMD EPYC, 2 CPUs, 23.5 GiB`.
fn machine(h: &Header) -> String {
    let m = &h.machine;
    let or = |s: &str| {
        if s.is_empty() {
            "unknown".to_string()
        } else {
            s.to_string()
        }
    };
    format!(
        "{}: {}, {} CPUs, {} GiB",
        or(&m.hostname),
        or(&m.cpu_model),
        m.cpus,
        grouped(m.mem_total_kb as f64 / 1024.0 / 1024.0, 1)
    )
}

/// Each distinct value `of` the sources gives, with the sources that give it (`every file`
/// when all do).
fn distinct(sources: &[Source<'_>], of: impl Fn(&Source<'_>) -> String) -> Vec<(String, String)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for s in sources {
        let v = of(s);
        match out.iter_mut().find(|(x, _)| *x == v) {
            Some((_, labels)) => {
                if !labels.contains(&s.label) {
                    labels.push(s.label.clone())
                }
            }
            None => out.push((v, vec![s.label.clone()])),
        }
    }
    let one = out.len() == 1;
    out.into_iter()
        .map(|(v, labels)| {
            let whose = if one {
                "every file".to_string()
            } else {
                listed(&labels)
            };
            (v, whose)
        })
        .collect()
}

/// The lines of facts: commit, machine, kernel, when, rounds, disturbed runs, changed since.
fn facts(out: &mut String, groups: &[(String, Vec<&Doc>)], sources: &[Source<'_>]) {
    let line = |out: &mut String, key: &str, class: &str, values: Vec<(String, String)>| {
        let shown: Vec<String> = if values.len() == 1 {
            vec![values[0].0.clone()]
        } else {
            values
                .into_iter()
                .map(|(v, whose)| format!("{v} ({whose})"))
                .collect()
        };
        let _ = writeln!(
            out,
            "<div class=\"{class}\"><dt>{key}</dt><dd>{}</dd></div>",
            shown.join("; ")
        );
    };
    let commits = distinct(sources, |s| {
        let g = &s.header.git;
        let rev = g.revision.as_deref().map_or("unknown".to_string(), |r| {
            format!("<code>{}</code>", escape(short(r)))
        });
        let when = g
            .committed_utc
            .as_deref()
            .map_or(String::new(), |c| format!(" of {}", escape(&minutes(c))));
        let dirty = if g.dirty == Some(true) {
            ", with uncommitted changes"
        } else {
            ""
        };
        format!("{rev}{when}{dirty}")
    });
    line(out, "Commit", "commit", commits);
    line(
        out,
        "Machine",
        "machine",
        distinct(sources, |s| escape(&machine(s.header))),
    );
    line(
        out,
        "Kernel",
        "kernel",
        distinct(sources, |s| escape(&s.header.machine.kernel)),
    );
    // When: from the first start to the last finish.
    let start = sources.iter().map(|s| s.header.started_utc.as_str()).min();
    let end = sources.iter().map(|s| s.header.finished_utc.as_str()).max();
    if let (Some(a), Some(b)) = (start, end) {
        let span = if a.get(..10) == b.get(..10) {
            format!(
                "{}, {}–{} UTC",
                bench_chart::format::date(a),
                a.get(11..16).unwrap_or(""),
                b.get(11..16).unwrap_or("")
            )
        } else {
            format!("{} to {}", minutes(a), minutes(b))
        };
        let _ = writeln!(
            out,
            "<div class=\"when\"><dt>Measured</dt><dd>{}</dd></div>",
            escape(&span)
        );
    }
    // Rounds, per experiment when they differ.
    let rounds = {
        let mut v: Vec<(String, Vec<String>)> = Vec::new();
        for (id, runs) in groups {
            for d in runs {
                let r = &d.results;
                let what = match (r.seed.is_some(), r.repeat) {
                    (true, n) => format!("{n} round{} per step", if n == 1 { "" } else { "s" }),
                    (false, n) => format!(
                        "{n} repeat{} per step, in turn (before rounds)",
                        if n == 1 { "" } else { "s" }
                    ),
                };
                match v.iter_mut().find(|(w, _)| *w == what) {
                    Some((_, ids)) if ids.contains(&id.to_uppercase()) => {}
                    Some((_, ids)) => ids.push(id.to_uppercase()),
                    None => v.push((what, vec![id.to_uppercase()])),
                }
            }
        }
        let one = v.len() == 1;
        v.into_iter()
            .map(|(w, ids)| {
                if one {
                    format!("{w}, every experiment")
                } else {
                    format!("{w} ({})", listed(&ids))
                }
            })
            .collect::<Vec<_>>()
    };
    if !rounds.is_empty() {
        let _ = writeln!(
            out,
            "<div class=\"rounds\"><dt>Rounds</dt><dd>{}: each round runs every server once per step, in a fresh random order, each on a fresh process; a figure is the median over them</dd></div>",
            rounds.join("; ")
        );
    }
    // Disturbed runs: every repeat the machine disturbed, and the medians so marked.
    let (mut runs, mut disturbed, mut steps, mut marked) = (0usize, 0usize, 0usize, 0usize);
    let mut by: Vec<String> = Vec::new();
    for (id, docs) in groups {
        let mut here = 0;
        for d in docs {
            for (_, st) in d.results.steps() {
                runs += st.repeats.len();
                disturbed += st.repeats.iter().filter(|m| m.disturbed).count();
                steps += 1;
                if st.valid && st.median.as_ref().is_some_and(|m| m.disturbed) {
                    marked += 1;
                    here += 1;
                }
            }
        }
        if here > 0 {
            by.push(format!("{} {here}", id.to_uppercase()));
        }
    }
    if runs > 0 {
        let _ = writeln!(
            out,
            "<div class=\"disturbed\"><dt>Disturbed</dt><dd>the machine disturbed {} of the {} runs (other work, steal or CPU waits past their limits even after retries); {} of the {} steps' figures are marked {MACHINE_MARK}{}</dd></div>",
            thousands(disturbed as f64),
            thousands(runs as f64),
            thousands(marked as f64),
            thousands(steps as f64),
            if by.is_empty() {
                String::new()
            } else {
                format!(" ({})", by.join(", "))
            }
        );
    }
    let _ = writeln!(
        out,
        "<div class=\"since\"><dt>Changed since</dt><dd>{}</dd></div>",
        since(sources)
    );
}

/// A timestamp to the minute: `2026-12-03 17:14 UTC`.
fn minutes(stamp: &str) -> String {
    stamp.get(..16).map_or(stamp.to_string(), |s| {
        format!("{} UTC", s.replace('T', " "))
    })
}

/// The staleness of every source in one line: the servers whose code changed since, the
/// most commits each, or that none did, or what could not be told.
fn since(sources: &[Source<'_>]) -> String {
    let asked: Vec<&Staleness> = sources.iter().filter_map(|s| s.stale.as_ref()).collect();
    if asked.is_empty() {
        return "not checked: the page was made without the workspace's git history".to_string();
    }
    let mut changed: Vec<(String, usize)> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for (s, st) in sources.iter().filter_map(|s| Some((s, s.stale.as_ref()?))) {
        match st {
            Staleness::Current => {}
            Staleness::Changed(list) => {
                for (name, n) in list {
                    match changed.iter_mut().find(|(x, _)| x == name) {
                        Some((_, m)) => *m = (*m).max(*n),
                        None => changed.push((name.clone(), *n)),
                    }
                }
            }
            Staleness::Unknown(why) => unknown.push(format!("{}: {why}", s.label)),
        }
    }
    let mut said = if changed.is_empty() {
        "<span class=\"current\">no measured server's code has changed since these runs</span> (the commits from each run's to this workspace's <code>HEAD</code> that touch a server's code)".to_string()
    } else {
        let list: Vec<String> = changed
            .iter()
            .map(|(name, n)| format!("{name} ({n} commit{})", if *n == 1 { "" } else { "s" }))
            .collect();
        format!(
            "<strong class=\"changed\">{}</strong>: commits since the runs touch their code, so their figures may not be what that code does now (the boxes atop the runs say which)",
            escape(&listed(&list))
        )
    };
    if !unknown.is_empty() {
        let _ = write!(said, "; unknown for {}", inline(&unknown.join("; ")));
    }
    said
}

/// What the absolute figures are, and where to read more.
fn absolute(out: &mut String, links: &Links) {
    let note = match &links.note {
        Some((href, title)) => format!(
            " (the newest dated analysis, <a href=\"{}\">{}</a>, and the others in docs/notes say by how much and why)",
            escape(href),
            escape(title)
        ),
        None => String::new(),
    };
    let reading = match &links.reading {
        Some(href) => format!(
            " How to read a figure, its marks and its intervals: <a href=\"{}\">docs/reading-results.md</a>.",
            escape(href)
        ),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "<p class=\"absolute\"><strong>The absolute figures are that day's, on this VM.</strong> Requests/s, µs and MB move with the machine from one day to the next{note}. What compares across days and machines is each server's ratio to the C ceiling measured in the same round (each experiment's <em>Against the ceiling</em> table) and the instructions per request.{reading}</p>"
    );
}

/// The one key of the page's colours, marks and brackets.
fn key(out: &mut String) {
    let _ = writeln!(
        out,
        r#"<section class="key" id="key" aria-label="Key">
<h2>Key</h2>
<dl>
<div><dt><span class="sw" style="background:{}"></span><span class="sw" style="background:{}"></span><span class="sw" style="background:{}"></span></dt><dd>a Rust variant, a peer (the article's system), a reference (the C ceiling, analogue of none)</dd></div>
<div><dt>{TOOL_MARK}</dt><dd>the load generator was ≥ 90 % busy: it may have set the pace, and the server may be faster (a lighter, dashed bar; its requests/s a lower bound, ≥)</dd></div>
<div><dt>{MACHINE_MARK}</dt><dd>the machine was busy (other work, steal or CPU waits past their limits even after retries): it may have set the figure</dd></div>
<div><dt>{ROUND_TRIP_MARK}</dt><dd>neither the server nor the load generator was busy: the connections' round trips set the pace, so it is not the server's capacity</dd></div>
<div><dt>≥ ≤</dt><dd>a bound, the figure is at least (at most) this: the load tool's limit; a probe that got no answer in a round, counted at the least it waited; a capacity beyond the rates tried</dd></div>
<div><dt>[a–b]</dt><dd>the 95 % confidence interval of the median over the rounds (of a ratio: of the median of the rounds' ratios)</dd></div>
<div><dt>[a–b; 3 rounds, 75 %]</dt><dd>fewer than 6 rounds, too few for 95 %: the lowest and the highest round, which hold the median only that often (here 75 %); read its figure as a rough one</dd></div>
<div><dt><span class="invalid-key">✕ invalid</span> — n/a</dt><dd>the step did not measure what it should (hover for why); the server did not run the step; not measured</dd></div>
</dl>
<p>Tables sort by a click on a column's head: figures by their value (a bound by its bound), the rest alphabetically. On a narrow screen a wide table keeps its first column and scrolls sideways.</p>
</section>"#,
        draw::RUST,
        draw::PEER,
        draw::REFERENCE,
    );
}
