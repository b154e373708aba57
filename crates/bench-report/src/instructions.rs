//! The markdown report of a `bench instructions` results file: one row per server and
//! target, one column per mode, and the notes on what callgrind counts.

use bench_model::results::instructions::{InstructionResults, Mode};

/// The markdown table of `r`: one row per server and target, one column per mode.
pub fn markdown(r: &InstructionResults) -> String {
    let mut modes: Vec<Mode> = Mode::ALL
        .into_iter()
        .filter(|md| r.measurements.iter().any(|m| m.mode == *md))
        .collect();
    modes.dedup();
    let mut rows: Vec<(&str, &str)> = Vec::new();
    for m in &r.measurements {
        if !rows.contains(&(m.server.as_str(), m.target.as_str())) {
            rows.push((&m.server, &m.target));
        }
    }
    let mut out = String::from("| server | target |");
    for md in &modes {
        out.push_str(&format!(" {} |", md.name()));
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---:|".repeat(modes.len()));
    out.push('\n');
    for (server, target) in rows {
        out.push_str(&format!("| {server} | `{target}` |"));
        for md in &modes {
            let cell = r
                .measurements
                .iter()
                .find(|m| m.server == server && m.target == target && m.mode == *md)
                .map_or("–".to_string(), |m| crate::thousands(m.per_request));
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    if !r.not_measured.is_empty() {
        out.push('\n');
        for (s, why) in &r.not_measured {
            out.push_str(&format!("- {s}: not measured: {why}\n"));
        }
    }
    out
}

/// The whole markdown report of `r`: provenance, the table, the notes.
pub fn markdown_report(r: &InstructionResults) -> String {
    let mut out = format!(
        "# Instructions per request under callgrind\n\n{} to {} on {} ({} CPUs, {}), git {}{}, {}, {} and {} requests over {} connections per run.\n\nCommand: `{}`\n\n",
        r.header.started_utc,
        r.header.finished_utc,
        r.header.machine.hostname,
        r.header.machine.cpus,
        r.header.machine.kernel,
        r.header.git.revision.as_deref().unwrap_or("unknown"),
        if r.header.git.dirty == Some(true) {
            " (dirty)"
        } else {
            ""
        },
        r.valgrind,
        r.counts.small,
        r.counts.large,
        r.counts.connections,
        r.header.command.join(" ")
    );
    out.push_str(&markdown(r));
    out.push_str("\n## How to read it\n\n");
    for n in &r.notes {
        out.push_str(&format!("- {n}\n"));
    }
    out
}

/// The page's section of `bench instructions` results files, newest first: per file its
/// provenance line, a sortable table (one row per server and target, a column per mode) and
/// the notes on what callgrind counts.
pub(super) fn html_section(docs: &[InstructionResults]) -> String {
    use std::fmt::Write as _;
    let esc = super::escape;
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
            esc(r.header.git.revision.as_deref().unwrap_or("unknown")),
            if r.header.git.dirty == Some(true) {
                " (dirty)"
            } else {
                ""
            },
            r.counts.small,
            r.counts.large,
            r.counts.connections,
            esc(&r.header.command.join(" "))
        );
        let modes: Vec<Mode> = Mode::ALL
            .into_iter()
            .filter(|md| r.measurements.iter().any(|m| m.mode == *md))
            .collect();
        out.push_str("<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th><button type=\"button\">server</button></th><th><button type=\"button\">target</button></th>");
        for md in &modes {
            let _ = write!(
                out,
                "<th class=\"num\"><button type=\"button\">{}</button></th>",
                esc(md.name())
            );
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        let mut rows: Vec<(&str, &str)> = Vec::new();
        for m in &r.measurements {
            if !rows.contains(&(m.server.as_str(), m.target.as_str())) {
                rows.push((&m.server, &m.target));
            }
        }
        for (server, target) in rows {
            let _ = write!(
                out,
                "<tr><td>{}</td><td><code>{}</code></td>",
                esc(server),
                esc(target)
            );
            for md in &modes {
                let cell = r
                    .measurements
                    .iter()
                    .find(|m| m.server == server && m.target == target && m.mode == *md)
                    .map_or("—".to_string(), |m| crate::thousands(m.per_request));
                let _ = write!(out, "<td class=\"num\">{cell}</td>");
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table></div>\n<ul class=\"notes\">");
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
        assert_eq!(cells[3], crate::thousands(keep_alive.per_request));
        // The ceiling serves `/` only: one row, no `/api/hello`.
        assert!(md.contains("| ceiling | `/` |"));
        assert!(!md.contains("| ceiling | `/api/hello` |"));
        assert!(md.contains("- server-reuseport: not measured: "));
        let report = markdown_report(&r);
        assert!(report.contains("valgrind-3.19.0") && report.contains("## How to read it"));
    }

    #[test]
    fn the_page_section_is_a_sortable_table_with_no_outside_resource() {
        let html = html_section(&[recorded()]);
        assert!(html.contains("<table class=\"sortable\">"));
        assert!(html.contains("<td>server-prebuilt</td><td><code>/</code></td>"));
        assert_eq!(html.matches("<th class=\"num\">").count(), 3);
        assert!(!html.contains("http://") && !html.contains("https://"));
    }
}
