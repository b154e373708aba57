//! One self-contained HTML page of many results files: no request of any kind leaves it (the
//! styles, the sorting script and the charts are inline, and its Content-Security-Policy
//! forbids loading anything), so it opens the same from a `file://` URL, offline.
//!
//! Layout: a header that says what the page is from before any figure (`html/header.rs`: the
//! commit, machine, kernel, dates, rounds and disturbed runs of its files, which servers'
//! code changed since, that the absolute figures are that day's, links to the newest dated
//! note and docs/reading-results.md, the one key of the marks and brackets, the contents);
//! then the findings (per experiment, its sentences and its headline chart: see
//! [`findings`](super::findings)), each figure of a sentence marked with the table cell it is
//! read from (`data-fig`); then one section per experiment (E1 … E7, then any other), titled
//! by what its runs measured ([`measured_title`]), with the article's question and load, and
//! its runs newest first; then the sections of `bench instructions`, `bench tools compare`
//! and `bench idle` files. Each run: which of its servers' code changed since it (given the
//! workspace to ask git; [`stale`](super::stale)), its provenance folded in a `<details>`,
//! the article's reported figures beside this run's, the charts of [`chart`](super::chart)
//! (and in the section's newest run with timelines, its one timeline chart),
//! the report's tables (the same [model](super::model) the markdown is written from;
//! sortable: see `html/page.js`), and the fairness table.
//!
//! Each chart is drawn twice ([`Layout`]): wide, and narrow (its panels stacked, the
//! one a finding reads first), and the stylesheet shows the one that fits the window (below
//! 700 px the narrow one). A table keeps its first column while its figures scroll sideways,
//! with a hint when it overflows; on a wide window it may be wider than the text.
//!
//! Nothing on the page names a machine path or a local port ([`findings::public`](bench_chart::format::public)):
//! a machine path becomes its file name, `http://127.0.0.1:PORT` becomes `http://SERVER`.
//!
//! Files: this one (the page and its parts), `html/header.rs` (the top of the page),
//! `model_html.rs` (the report's model as HTML, which the other reports' sections use too),
//! `html/page.css` and `html/page.js` (inlined).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use bench_model::experiment::{self, Reported};
use bench_model::results::idle::IdleResults;
use bench_model::results::instructions::InstructionResults;
use bench_model::results::tools::ToolResults;
use bench_model::results::{Results, ServerResult};

use super::build::{analogue, document, figure};
use bench_chart::draw::{Layout, draw_timeline};
use bench_chart::svg;

use super::chart::{Kind, drawn, paired, timeline};
use super::model::{Document, partial};
use super::other::OtherResults;
use crate::error::ReportError;
use crate::findings;
use crate::model_html::{body, separated};
use crate::read::{endpoints, find, measured_title};
use crate::stale::{staleness, staleness_named};
use bench_chart::format::{date, escape, grouped, inline};

mod header;

use header::Links;

const CSS: &str = include_str!("html/page.css");
const JS: &str = include_str!("html/page.js");

/// One results document for the page.
pub struct Doc {
    /// The results.
    pub results: Results,
    /// The results file's path relative to the page, when the page can link to it (and to
    /// the `.md` and `.svg` beside it).
    pub href: Option<String>,
}

/// The results files of the other kinds a page holds.
#[derive(Default)]
struct Others {
    instructions: Vec<InstructionResults>,
    tools: Vec<ToolResults>,
    idle: Vec<IdleResults>,
}

/// Reads each results file and writes the page of them all to `out`; with the workspace
/// `root`, each run says which of its servers' code changed since, and the header links the
/// workspace's docs/reading-results.md and newest dated note, relative to `out`.
pub fn write_html(files: &[PathBuf], out: &Path, root: Option<&Path>) -> Result<(), ReportError> {
    let out_dir = out.parent().map(Path::to_path_buf).unwrap_or_default();
    let same_dir = |f: &Path| {
        let dir = f.parent().map(Path::to_path_buf).unwrap_or_default();
        match (
            fs::canonicalize(absent_as_dot(&dir)),
            fs::canonicalize(absent_as_dot(&out_dir)),
        ) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    };
    let mut docs = Vec::new();
    let mut others = Others::default();
    for f in files {
        if let Some(other) = OtherResults::load(f)? {
            match other {
                OtherResults::Instructions(r) => others.instructions.push(r),
                OtherResults::Tools(r) => others.tools.push(*r),
                OtherResults::Idle(r) => others.idle.push(r),
            }
            continue;
        }
        let results = Results::load(f)?;
        let href = same_dir(f)
            .then(|| f.file_name().map(|n| n.to_string_lossy().into_owned()))
            .flatten();
        docs.push(Doc { results, href });
    }
    let links = root.map_or_else(Links::default, |root| {
        Links::from(absent_as_dot(&out_dir), root)
    });
    let page = render(&docs, &others, root, &links);
    fs::write(out, page).map_err(|source| ReportError::Io {
        path: out.to_path_buf(),
        source,
    })
}

fn absent_as_dot(p: &Path) -> &Path {
    if p.as_os_str().is_empty() {
        Path::new(".")
    } else {
        p
    }
}

/// The page of `docs`, made without a repository to ask whether their servers' code changed
/// since (as [`html_at`] with `None`).
pub fn html(docs: &[Doc]) -> String {
    html_at(docs, None)
}

/// The page of `docs`: grouped by experiment (E1 … E5, then others by id), each group's runs
/// newest first; with the workspace `root`, each run opens with the servers whose code
/// changed since it, and the header links the workspace's documents as the page in
/// docs/results would.
pub fn html_at(docs: &[Doc], root: Option<&Path>) -> String {
    let links = root.map_or_else(Links::default, |root| {
        Links::from(&root.join("docs/results"), root)
    });
    render(docs, &Others::default(), root, &links)
}

/// The page of `docs` and `others`.
fn render(docs: &[Doc], others: &Others, root: Option<&Path>, links: &Links) -> String {
    let mut groups: Vec<(String, Vec<&Doc>)> = Vec::new();
    for d in docs {
        let id = d.results.experiment.to_lowercase();
        match groups.iter_mut().find(|(g, _)| *g == id) {
            Some((_, v)) => v.push(d),
            None => groups.push((id, vec![d])),
        }
    }
    let rank = |id: &str| {
        experiment::ALL
            .iter()
            .position(|e| e.id == id)
            .unwrap_or(usize::MAX)
    };
    groups.sort_by(|a, b| rank(&a.0).cmp(&rank(&b.0)).then(a.0.cmp(&b.0)));
    for (_, v) in &mut groups {
        v.sort_by(|a, b| {
            b.results
                .header
                .started_utc
                .cmp(&a.results.header.started_utc)
        });
    }

    // Every file, for the header: its label, its provenance and its staleness.
    fn names<'a>(it: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
        let mut v: Vec<&str> = Vec::new();
        for n in it {
            if !v.contains(&n) {
                v.push(n);
            }
        }
        v
    }
    let mut sources: Vec<header::Source<'_>> = Vec::new();
    for (id, runs) in &groups {
        for d in runs {
            sources.push(header::Source {
                label: id.to_uppercase(),
                header: &d.results.header,
                stale: root.map(|root| staleness(&d.results, root)),
            });
        }
    }
    let named = |h: &bench_model::results::Header, servers: Vec<&str>| {
        root.map(|root| staleness_named(h.git.revision.as_deref(), &servers, root))
    };
    for r in &others.instructions {
        let servers = names(r.measurements.iter().map(|m| m.server.as_str()));
        sources.push(header::Source {
            label: "instructions".into(),
            header: &r.header,
            stale: named(&r.header, servers),
        });
    }
    for r in &others.tools {
        sources.push(header::Source {
            label: "tools".into(),
            header: &r.header,
            stale: named(&r.header, vec![r.server.name.as_str()]),
        });
    }
    for r in &others.idle {
        let servers = names(r.servers.iter().map(|s| s.name.as_str()));
        sources.push(header::Source {
            label: "idle".into(),
            header: &r.header,
            stale: named(&r.header, servers),
        });
    }
    let mut sections: Vec<(&str, &str)> = Vec::new();
    if !others.instructions.is_empty() {
        sections.push((
            "instructions",
            "Instructions per request: the servers' cost under callgrind",
        ));
    }
    if !others.tools.is_empty() {
        sections.push((
            "tools",
            "Load tools compared: one server, several tools, the same load",
        ));
    }
    if !others.idle.is_empty() {
        sections.push((
            "idle",
            "Idle connections: each server's memory with many open",
        ));
    }

    let mut body = String::new();
    header::header(&mut body, &groups, &sources, links, &sections);
    let results: Vec<(String, Vec<&Results>)> = groups
        .iter()
        .map(|(id, runs)| (id.clone(), runs.iter().map(|d| &d.results).collect()))
        .collect();
    // Each experiment's headline chart: its newest run's first.
    let headline = |r: &Results| {
        charts_html(r)
            .into_iter()
            .next()
            .map(|c| c.replace("<svg class=\"chart ", "<svg class=\"headline-chart "))
    };
    page_section(&mut body, &results, &headline);
    for (id, runs) in &groups {
        section(&mut body, id, runs, root);
    }
    if !others.instructions.is_empty() {
        body.push_str(&super::instructions::html_section(
            &others.instructions,
            root,
        ));
    }
    if !others.tools.is_empty() {
        body.push_str(&super::tools::html_section(&others.tools, root));
    }
    if !others.idle.is_empty() {
        body.push_str(&super::idle::html_section(&others.idle, root));
    }
    body.push_str("</main>\n");
    // No machine paths, no local ports (see `findings::public`).
    bench_chart::format::public(&format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bench: the experiments side by side</title>
<style>
{CSS}</style>
</head>
<body>
{body}<script>
{JS}</script>
</body>
</html>
"#
    ))
}

fn section(out: &mut String, id: &str, runs: &[&Doc], root: Option<&Path>) {
    let e = experiment::find(id);
    let results: Vec<&Results> = runs.iter().map(|d| &d.results).collect();
    let _ = writeln!(
        out,
        r#"<section class="experiment" id="{}">
<h2>{}: {}</h2>"#,
        escape(id),
        escape(&id.to_uppercase()),
        escape(&measured_title(&results))
    );
    if let Some(e) = e {
        let _ = writeln!(
            out,
            r#"<p class="question">{}</p>
<p class="load">The article's load: <code>{}</code>. {} run{} here, newest first.</p>"#,
            escape(e.question),
            escape(e.article_load),
            runs.len(),
            if runs.len() == 1 { "" } else { "s" }
        );
    }
    // One timeline chart in the section: its newest run's that has one.
    let timed = runs.iter().position(|d| timeline(&d.results).is_some());
    for (i, d) in runs.iter().enumerate() {
        run(out, d, e, root, timed == Some(i));
    }
    out.push_str("</section>\n");
}

/// The id of a run's `<article>`: the results file's stem.
fn run_id(r: &Results) -> String {
    r.file_name().trim_end_matches(".json").to_string()
}

/// One run's `<article>`; with `timed`, its timeline chart after its other charts.
fn run(
    out: &mut String,
    d: &Doc,
    e: Option<&experiment::Experiment>,
    root: Option<&Path>,
    timed: bool,
) {
    let r = &d.results;
    let _ = writeln!(
        out,
        r#"<article class="run" id="{}">
<h3>Run of {} · {} · {}, {} {}{}</h3>"#,
        escape(&run_id(r)),
        escape(&r.header.started_utc),
        escape(&r.tool),
        if r.quick { "quick" } else { "full length" },
        r.repeat,
        if r.seed.is_some() { "round" } else { "repeat" },
        if r.repeat == 1 { "" } else { "s" }
    );
    let doc = document(r, root);
    if let Some(changed) = &doc.changed {
        let _ = writeln!(out, "<p class=\"stale\">{}</p>", inline(changed));
    }
    if let Some(why) = &doc.partial {
        let _ = writeln!(out, "<p class=\"partial\">{}</p>", inline(&partial(why)));
    }
    // An A/A pair that differed: this run's precision, before its figures.
    if let Some(flag) = &doc.notice {
        let _ = writeln!(out, "<p class=\"precision\">{}</p>", inline(flag));
    }
    provenance(out, d, &doc);
    if let Some(e) = e {
        reported(out, r, e);
    }
    out.push_str("<h4>Charts</h4>\n");
    for c in charts_html(r) {
        out.push_str(&c);
        out.push('\n');
    }
    if let Some(t) = timeline(r).filter(|_| timed) {
        let (wide, narrow) = (
            draw_timeline(&t, &Layout::WIDE),
            draw_timeline(&t, &Layout::NARROW),
        );
        out.push_str(&svg::figure("timeline", &t.title, &wide, &narrow));
        out.push('\n');
    }
    out.push_str("<h4>Tables</h4>\n");
    body(out, &doc, &paired(r));
    fairness(out, r);
    out.push_str("</article>\n");
}

/// Each chart of `r` as a `<figure>` of two drawings, wide and narrow (the stylesheet shows
/// the one that fits), in order.
fn charts_html(r: &Results) -> Vec<String> {
    drawn(r, &Layout::WIDE)
        .into_iter()
        .zip(drawn(r, &Layout::NARROW))
        .map(|((id, label, wide), (_, _, narrow))| svg::figure(id, &label, &wide, &narrow))
        .collect()
}

fn provenance(out: &mut String, d: &Doc, doc: &Document) {
    let r = &d.results;
    // Folded: the commit (short) and the run's date show; the rest opens on a click.
    let _ = writeln!(
        out,
        "<details class=\"provenance\"><summary>How this run was made: commit <code>{}</code>{}{}, run of {} (command, machine, versions, notes)</summary>",
        escape(
            r.header
                .git
                .revision
                .as_deref()
                .map_or("unknown", bench_chart::format::short)
        ),
        r.header
            .git
            .committed_utc
            .as_deref()
            .map_or_else(String::new, |c| format!(
                " of {}",
                escape(bench_chart::format::date(c))
            )),
        if r.header.git.dirty == Some(true) {
            " with uncommitted changes"
        } else {
            ""
        },
        escape(bench_chart::format::date(&r.header.started_utc))
    );
    out.push_str("<dl class=\"provenance\">\n");
    if let Some(href) = &d.href {
        let stem = href.trim_end_matches(".json");
        let _ = writeln!(
            out,
            r#"<dt>Files</dt><dd><a href="{0}">{0}</a> · <a href="{1}.md">{1}.md</a> · <a href="{1}.svg">{1}.svg</a></dd>"#,
            escape(href),
            escape(stem)
        );
    }
    for (k, v) in &doc.header {
        let v = match (k.as_str(), &r.header.git.revision) {
            ("Git", Some(rev)) => v.replacen(rev.as_str(), bench_chart::format::short(rev), 1),
            _ => v.clone(),
        };
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), inline(&v));
    }
    let versions: Vec<String> = r
        .header
        .versions
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    if !versions.is_empty() {
        let _ = writeln!(
            out,
            "<dt>Versions</dt><dd>{}</dd>",
            inline(&versions.join("; "))
        );
    }
    // Every step's exact tool command (the markdown names the first).
    let mut cmds: Vec<(String, String)> = Vec::new();
    for st in r.servers.iter().flat_map(|s| &s.steps) {
        let key = format!("{} {}", st.endpoint, st.step);
        if !st.tool_command.is_empty() && !cmds.iter().any(|(k, _)| *k == key) {
            cmds.push((key, st.tool_command.join(" ")));
        }
    }
    if cmds.len() > 1 {
        let _ = write!(
            out,
            "<dt>Tool commands</dt><dd><details><summary>every step's ({}; `SERVER` stands for the server's local address and port)</summary><ul>",
            cmds.len()
        );
        for (k, c) in cmds {
            let _ = write!(
                out,
                "<li><code>{}</code>: <code>{}</code></li>",
                escape(&k),
                escape(&c)
            );
        }
        out.push_str("</ul></details></dd>\n");
    }
    out.push_str("</dl></details>\n");
}

/// The article's figures beside this run's: the peer's and its Rust analogues'. A profile
/// with no article (E6, E7) gets its note alone, not an empty table.
fn reported(out: &mut String, r: &Results, e: &experiment::Experiment) {
    if e.reported.is_empty() {
        if !e.reported_note.is_empty() {
            let _ = writeln!(
                out,
                "<h4>No article's figures</h4>\n<p class=\"note\">{}</p>",
                inline(e.reported_note)
            );
        }
        return;
    }
    let _ = writeln!(
        out,
        r#"<h4>The article's figures beside this run's</h4>
<div class="tbl"><div class="scroll"><table class="sortable reported">
<thead><tr><th><button type="button">System (article)</button></th><th><button type="button">Measure</button></th><th><button type="button">At (ours)</button></th><th class="num"><button type="button">Article</button></th><th class="num"><button type="button">Ours: the peer</button></th><th><button type="button">Ours: its Rust analogues</button></th></tr></thead>
<tbody>"#
    );
    for f in e.reported {
        let peer = r.servers.iter().find(|s| s.name == f.server);
        let rust: Vec<String> = peer
            .map(|p| {
                p.analogue
                    .iter()
                    .filter_map(|a| r.servers.iter().find(|s| &s.name == a))
                    .map(|s| format!("{} {}", s.name, ours(s, f).0))
                    .collect()
            })
            .unwrap_or_default();
        let (peer_cell, peer_class) = match peer {
            Some(p) => {
                let (v, class) = ours(p, f);
                (format!("{} {v}", p.name), class)
            }
            None => (format!("{}: not in this run", f.server), ""),
        };
        let _ = writeln!(
            out,
            r#"<tr><td>{}</td><td>{}</td><td><code>{}</code> {}</td><td class="num">{}</td><td class="num {peer_class}"{}>{}</td><td class="wrap">{}</td></tr>"#,
            escape(f.system),
            escape(f.measure.unit()),
            escape(f.endpoint),
            escape(f.step),
            escape(f.figure),
            // The cell starts with the peer's name: it sorts by its figure.
            peer.and_then(|p| ours(p, f)
                .0
                .replace(',', "")
                .split(' ')
                .next()?
                .parse::<f64>()
                .ok())
                .map_or(String::new(), |v| format!(" data-v=\"{v}\"")),
            escape(&peer_cell),
            escape(&if rust.is_empty() {
                "—".to_string()
            } else {
                rust.join("; ")
            })
        );
    }
    out.push_str("</tbody></table></div></div>\n");
    if !e.reported_note.is_empty() {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", inline(e.reported_note));
    }
}

/// Our figure for `f` from server `s`, and the cell's class (`bound`, `invalid` or none).
fn ours(s: &ServerResult, f: &Reported) -> (String, &'static str) {
    let Some(st) = find(s, f.endpoint, f.step) else {
        return ("—".into(), "");
    };
    if !st.valid {
        return ("invalid".into(), "invalid");
    }
    let Some(run) = &st.median else {
        return ("n/a".into(), "");
    };
    let v = figure(s, st, run, f.measure).map_or_else(|| "n/a".into(), |v| separated(&v));
    let marks = crate::model::Marks::of(run);
    if marks.tool || marks.machine {
        (format!("{v}{}", marks.suffix()), "bound")
    } else {
        (v, "")
    }
}

/// Per server: what it is, its analogues, bytes per response per endpoint, and the header
/// fields its library adds.
fn fairness(out: &mut String, r: &Results) {
    let eps = endpoints(r);
    out.push_str(
        "<h4>Fairness: the bytes each server sends</h4>\n<div class=\"tbl\"><div class=\"scroll\"><table class=\"sortable fairness\">\n<thead><tr><th><button type=\"button\">Server</button></th><th><button type=\"button\">Kind</button></th><th><button type=\"button\">Analogue of</button></th>",
    );
    for e in &eps {
        let _ = write!(
            out,
            "<th class=\"num\"><button type=\"button\">bytes/response <code>{}</code></button></th>",
            escape(e)
        );
    }
    out.push_str(
        "<th><button type=\"button\">Extra header fields</button></th></tr></thead>\n<tbody>\n",
    );
    for (s, row) in paired(r) {
        let _ = write!(
            out,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td>",
            if row.gap_before {
                " class=\"pair\""
            } else {
                ""
            },
            escape(&s.name),
            match row.kind {
                Kind::Rust => "Rust variant",
                Kind::Peer => "peer",
                Kind::Reference => "reference",
            },
            escape(&analogue(s))
        );
        for e in &eps {
            let bytes = s
                .steps
                .iter()
                .filter(|st| &st.endpoint == e && st.valid)
                .filter_map(|st| st.median.as_ref())
                .map(|m| m.bytes_per_response)
                .find(|b| *b > 0.0);
            let cell = match (bytes, s.steps.iter().any(|st| &st.endpoint == e)) {
                (Some(b), _) => grouped(b, 0),
                (None, true) => "n/a".into(),
                (None, false) => "—".into(),
            };
            let _ = write!(out, "<td class=\"num\">{cell}</td>");
        }
        let extra: Vec<String> = s
            .extra_headers
            .iter()
            .map(|h| format!("{} ({} B)", h.field, h.bytes))
            .collect();
        let _ = writeln!(
            out,
            "<td>{}</td></tr>",
            escape(&if extra.is_empty() {
                "none".to_string()
            } else {
                extra.join(", ")
            })
        );
    }
    out.push_str("</tbody></table></div></div>\n");
}

/// The delimiters of a figure in a sentence, between the page's marking of it and its
/// `<span>` (private-use characters, which no text has and escaping leaves alone).
const FIG_OPEN: char = '\u{E000}';
const FIG_KEY: char = '\u{E001}';
const FIG_CLOSE: char = '\u{E002}';

/// A figure of a sentence, marked with the key of its table cell ([`findings::key`]).
fn marked(key: &str, text: &str) -> String {
    format!("{FIG_OPEN}{key}{FIG_KEY}{text}{FIG_CLOSE}")
}

/// The marked figures of an escaped sentence as `<span class="fig" data-fig="KEY">`: a reader
/// (and the browser test) finds the cell of the same key in the run's tables.
fn figure_spans(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find(FIG_OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + FIG_OPEN.len_utf8()..];
        let (Some(k), Some(c)) = (after.find(FIG_KEY), after.find(FIG_CLOSE)) else {
            break;
        };
        let _ = write!(
            out,
            "<span class=\"fig\" data-fig=\"{}\">{}</span>",
            &after[..k],
            &after[k + FIG_KEY.len_utf8()..c]
        );
        rest = &after[c + FIG_CLOSE.len_utf8()..];
    }
    out.push_str(rest);
    out
}

/// One experiment's findings on the page: its id, title, the sentences (each with the run it
/// is read from: the newest of `runs`, newest first, that has it; each of its two figures a
/// `span` keyed to its table cell), and its headline chart.
pub(crate) fn page_section(
    out: &mut String,
    groups: &[(String, Vec<&Results>)],
    chart: &dyn Fn(&Results) -> Option<String>,
) {
    out.push_str(
        "<section id=\"findings\" class=\"findings\">\n<h2>Findings</h2>\n<p>Per experiment, what this machine's runs found beside what the article found, computed from the results (the figures' ratios, never typed), then its first chart. The details, and how each run was made, follow below.</p>\n",
    );
    for (id, runs) in groups {
        let e = experiment::find(id);
        let title = measured_title(runs);
        let _ = writeln!(
            out,
            "<div class=\"finding\"><h3><a href=\"#{}\">{}</a>{}</h3>",
            escape(id),
            escape(&id.to_uppercase()),
            if title.is_empty() {
                String::new()
            } else {
                format!(": {}", escape(&title))
            }
        );
        let said: Vec<(String, &Results)> = e
            .map(|e| {
                e.findings
                    .iter()
                    .filter_map(|f| {
                        runs.iter()
                            .find_map(|r| Some((findings::said(r, e, f, &marked)?, *r)))
                    })
                    .collect()
            })
            .unwrap_or_default();
        if !said.is_empty() {
            out.push_str("<ul>\n");
            for (text, r) in &said {
                let _ = writeln!(
                    out,
                    "<li>{} <a class=\"from\" href=\"#{}\">(run of {})</a></li>",
                    figure_spans(&inline(text)),
                    escape(r.file_name().trim_end_matches(".json")),
                    escape(date(&r.header.started_utc))
                );
            }
            out.push_str("</ul>\n");
        }
        if let Some(c) = runs.first().and_then(|r| chart(r)) {
            out.push_str(&c);
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "<p class=\"details\"><a href=\"#{}\">{} in detail ↓</a></p></div>",
            escape(id),
            escape(&id.to_uppercase())
        );
    }
    out.push_str("</section>\n");
}
