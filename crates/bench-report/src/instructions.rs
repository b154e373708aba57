//! The markdown report of a `bench instructions` results file: one row per server and
//! target, one column per mode, and the notes on what callgrind counts.

use crate::model::{self, Block, Cell, Document, blocks_markdown_tight};
use crate::model_html::table_html;
use crate::read::{dirty, revision};
use bench_model::results::instructions::{InstructionResults, Mode};

/// The table of `r` in the document model: one row per server and target, one column per
/// mode, `–` where a server was not measured in a mode.
fn model_table(r: &InstructionResults) -> model::Table {
    let modes: Vec<Mode> = Mode::ALL
        .into_iter()
        .filter(|md| r.measurements.iter().any(|m| m.mode == *md))
        .collect();
    let mut rows: Vec<(&str, &str)> = Vec::new();
    for m in &r.measurements {
        if !rows.contains(&(m.server.as_str(), m.target.as_str())) {
            rows.push((&m.server, &m.target));
        }
    }
    let mut t = model::Table::of(&["server", "target"], &[]);
    t.columns
        .extend(modes.iter().map(|md| model::Column::figure(md.name())));
    for (server, target) in rows {
        let mut cells = vec![Cell::text(server), Cell::text(format!("`{target}`"))];
        cells.extend(modes.iter().map(|md| {
            let cell = r
                .measurements
                .iter()
                .find(|m| m.server == server && m.target == target && m.mode == *md)
                .map_or("–".to_string(), |m| {
                    bench_chart::format::thousands(m.per_request)
                });
            Cell::text(cell)
        }));
        t.push(server, cells);
    }
    t
}

/// The table's blocks: the table, then the servers not measured and why.
fn table_blocks(r: &InstructionResults) -> Vec<Block> {
    let mut blocks = vec![Block::Table(model_table(r))];
    if !r.not_measured.is_empty() {
        let why = r.not_measured.iter();
        blocks.push(Block::List(
            why.map(|(s, why)| format!("{s}: not measured: {why}"))
                .collect(),
        ));
    }
    blocks
}

/// The markdown table of `r`: one row per server and target, one column per mode.
pub fn markdown(r: &InstructionResults) -> String {
    blocks_markdown_tight(&table_blocks(r))
}

/// The whole report of `r`: provenance, the table, the notes.
pub(crate) fn document(r: &InstructionResults) -> Document {
    let mut blocks = vec![
        Block::Para(format!(
            "{} to {} on {} ({} CPUs, {}), git {}{}, {}, {} and {} requests over {} connections per run.",
            r.header.started_utc,
            r.header.finished_utc,
            r.header.machine.hostname,
            r.header.machine.cpus,
            r.header.machine.kernel,
            revision(&r.header),
            dirty(&r.header, " (dirty)"),
            r.valgrind,
            r.counts.small,
            r.counts.large,
            r.counts.connections,
        )),
        Block::Para(format!("Command: `{}`", r.header.command.join(" "))),
    ];
    blocks.extend(table_blocks(r));
    blocks.push(Block::Heading("How to read it".to_string()));
    blocks.push(Block::List(r.notes.clone()));
    Document {
        title: "Instructions per request under callgrind".to_string(),
        blocks,
        ..Document::default()
    }
}

/// The whole markdown report of `r`: provenance, the table, the notes.
pub fn markdown_report(r: &InstructionResults) -> String {
    document(r).markdown_tight()
}

/// The page's section of `bench instructions` results files, newest first: per file its
/// provenance line, a sortable table (one row per server and target, a column per mode) and
/// the notes on what callgrind counts.
pub(super) fn html_section(docs: &[InstructionResults], root: Option<&std::path::Path>) -> String {
    use std::fmt::Write as _;
    let esc = bench_chart::format::escape;
    let mut out = String::from(
        "<section class=\"experiment\" id=\"instructions\">\n<h2>Instructions per request under callgrind</h2>\n<p class=\"question\">What does a request cost each server in CPU instructions, counted rather than timed, so that the figure does not move with the machine's speed?</p>\n<p>Every figure is instructions per request (fewer is cheaper), per mode of sending: keep-alive, 16 pipelined, a new HTTP/1.0 connection per request.</p>\n",
    );
    let mut docs: Vec<&InstructionResults> = docs.iter().collect();
    docs.sort_by(|a, b| b.header.started_utc.cmp(&a.header.started_utc));
    for r in docs {
        let _ = writeln!(
            out,
            "<article class=\"run\">\n<h3>Run of {} · {}</h3>\n<p>{} to {} on {} ({} CPUs, {}), git {}{}; {} and {} requests over {} connections per run. Command: <code>{}</code></p>",
            esc(&r.header.started_utc),
            esc(&r.valgrind),
            esc(&r.header.started_utc),
            esc(&r.header.finished_utc),
            esc(&r.header.machine.hostname),
            r.header.machine.cpus,
            esc(&r.header.machine.kernel),
            esc(revision(&r.header)),
            dirty(&r.header, " (dirty)"),
            r.counts.small,
            r.counts.large,
            r.counts.connections,
            esc(&r.header.command.join(" "))
        );
        out.push_str(&crate::stale::stale_box(
            &r.header,
            &{
                let mut v: Vec<&str> = Vec::new();
                for m in &r.measurements {
                    if !v.contains(&m.server.as_str()) {
                        v.push(&m.server);
                    }
                }
                v
            },
            root,
        ));
        out.push_str(&table_html(&model_table(r)));
        out.push_str("<ul class=\"notes\">");
        for (s, why) in &r.not_measured {
            let _ = write!(out, "<li>{}: not measured: {}</li>", esc(s), esc(why));
        }
        for n in &r.notes {
            let _ = write!(out, "<li>{}</li>", esc(n));
        }
        out.push_str("</ul>\n</article>\n");
    }
    out.push_str("</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A results file `bench instructions` wrote on this machine (2026-12-01, the Rust variants
    /// and the C ceiling, every target and mode).
    const RECORDED: &str = include_str!("../tests/data/instructions-rust-and-ceiling.json");

    fn recorded() -> InstructionResults {
        serde_json::from_str(RECORDED).unwrap()
    }

    #[test]
    fn the_table_has_a_row_per_server_and_target_and_a_column_per_mode() {
        let r = recorded();
        let md = markdown(&r);
        let head = md.lines().next().unwrap();
        assert_eq!(
            head,
            "| server | target | keep-alive | pipelined-16 | http1.0-new-connection |"
        );
        let row = md
            .lines()
            .find(|l| l.starts_with("| server-prebuilt | `/` |"))
            .unwrap();
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let keep_alive = r
            .measurements
            .iter()
            .find(|m| m.server == "server-prebuilt" && m.target == "/" && m.mode == Mode::KeepAlive)
            .unwrap();
        assert_eq!(
            cells[3],
            bench_chart::format::thousands(keep_alive.per_request)
        );
        // The ceiling serves `/` only: one row, no `/api/hello`.
        assert!(md.contains("| ceiling | `/` |"));
        assert!(!md.contains("| ceiling | `/api/hello` |"));
        assert!(md.contains("- server-reuseport: not measured: "));
        let report = markdown_report(&r);
        assert!(report.contains("valgrind-3.19.0") && report.contains("## How to read it"));
    }

    #[test]
    fn the_page_section_is_a_sortable_table_with_no_outside_resource() {
        let html = html_section(&[recorded()], None);
        assert!(html.contains("<table class=\"sortable\">"));
        assert!(html.contains("<td>server-prebuilt</td><td><code>/</code></td>"));
        assert_eq!(html.matches("<th class=\"num\">").count(), 3);
        assert!(!html.contains("http://") && !html.contains("https://"));
    }
}
