//! The table of a `bench idle` results file, on the terminal and as the markdown report beside
//! the file: one row per server, its RSS once ready and with the idle connections.

use crate::model::{self, Block, Cell, Document};
use crate::model_html::table_html;
use crate::read::{dirty, provenance, revision};
use bench_chart::table::Table;
use bench_model::results::idle::{IdleResults, IdleServer};

/// The table's columns.
pub const HEADER: [&str; 5] = [
    "server",
    "RSS at start MB",
    "RSS with idle MB",
    "connections",
    "bytes per connection",
];

/// The cells of one server's row.
pub fn cells(s: &IdleServer, connections: usize) -> Vec<String> {
    vec![
        s.name.clone(),
        bench_chart::format::mb(s.before_kb as f64),
        bench_chart::format::mb(s.with_kb as f64),
        bench_chart::format::thousands(connections as f64),
        bench_chart::format::thousands(s.bytes_per_connection as f64),
    ]
}

/// The table for the terminal.
pub fn table(r: &IdleResults) -> Table {
    let mut t = Table::new(&HEADER);
    r.servers
        .iter()
        .for_each(|s| t.row(cells(s, r.connections)));
    t
}

/// The table in the document model: text in the first column, figures after.
fn model_table(r: &IdleResults) -> model::Table {
    let mut t = model::Table::of(&HEADER[..1], &HEADER[1..]);
    for s in &r.servers {
        let cells = cells(s, r.connections)
            .into_iter()
            .map(Cell::text)
            .collect();
        t.push(&s.name, cells);
    }
    t
}

/// The whole report of `r`: title, provenance, what was measured, the table.
pub(crate) fn document(r: &IdleResults) -> Document {
    let versions: Vec<String> = r
        .header
        .versions
        .iter()
        .map(|(k, v)| super::tools::version_text(k, v))
        .collect();
    let mut header = provenance(&r.header, &versions);
    header.push((
        "Command".to_string(),
        format!("`{}`", r.header.command.join(" ")),
    ));
    Document {
        title: format!(
            "Memory of {} idle keep-alive connections",
            bench_chart::format::thousands(r.connections as f64)
        ),
        header,
        blocks: vec![
            Block::Para(format!(
                "Each server was started alone, its process tree's RSS read once it was ready, then {} connections each answered one `GET /hello` and stayed open without another byte, and the RSS was read again. MB are MiB; bytes per connection is the growth over the connections.",
                bench_chart::format::thousands(r.connections as f64)
            )),
            Block::Table(model_table(r)),
        ],
        ..Document::default()
    }
}

/// The whole markdown report of `r`: title, provenance, the table.
pub fn markdown_report(r: &IdleResults) -> String {
    document(r).markdown_tight()
}

/// The page's section of `bench idle` results files, newest first: per file its provenance
/// and its table.
pub(super) fn html_section(docs: &[IdleResults], root: Option<&std::path::Path>) -> String {
    use std::fmt::Write as _;
    let esc = bench_chart::format::escape;
    let mut out = String::from(
        "<section class=\"experiment\" id=\"idle\">\n<h2>Memory of idle connections</h2>\n<p class=\"question\">What does a connection that sends nothing cost each server in memory?</p>\n",
    );
    let mut docs: Vec<&IdleResults> = docs.iter().collect();
    docs.sort_by(|a, b| b.header.started_utc.cmp(&a.header.started_utc));
    for r in docs {
        let _ = writeln!(
            out,
            "<article class=\"run\">\n<h3>{} idle connections · {}</h3>\n<p>{} to {} on {} ({} CPUs, {}), git {}{}. Each server alone: its process tree's RSS once ready, then with the connections open, each after one answered <code>GET /hello</code>. Command: <code>{}</code></p>",
            bench_chart::format::thousands(r.connections as f64),
            esc(&r.header.started_utc),
            esc(&r.header.started_utc),
            esc(&r.header.finished_utc),
            esc(&r.header.machine.hostname),
            r.header.machine.cpus,
            esc(&r.header.machine.kernel),
            esc(revision(&r.header)),
            dirty(&r.header, " (dirty)"),
            esc(&r.header.command.join(" "))
        );
        out.push_str(&crate::stale::stale_box(
            &r.header,
            &r.servers
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>(),
            root,
        ));
        out.push_str(&table_html(&model_table(r)));
        out.push_str("</article>\n");
    }
    out.push_str("</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::other::OtherResults;
    use bench_model::results::idle::SCHEMA;
    use bench_model::results::{Git, Header, Machine};

    #[test]
    fn written_read_back_and_reported() {
        let r = IdleResults {
            header: Header {
                schema: SCHEMA.into(),
                started_utc: "2026-12-02T00:00:00Z".into(),
                finished_utc: "2026-12-02T00:00:05Z".into(),
                command: vec!["bench".into(), "idle".into()],
                machine: Machine::default(),
                git: Git::default(),
                versions: [("rustc".to_string(), "rustc 1.95.0".to_string())].into(),
            },
            connections: 10_000,
            servers: vec![IdleServer {
                name: "server-prebuilt".into(),
                before_kb: 4096,
                with_kb: 14336,
                bytes_per_connection: 1048,
            }],
        };
        let md = markdown_report(&r);
        assert!(md.starts_with("# Memory of 10,000 idle keep-alive connections\n"));
        assert!(md.contains("- Versions: rustc 1.95.0\n"), "{md}");
        assert!(
            md.contains("| server-prebuilt | 4.0 | 14.0 | 10,000 | 1,048 |"),
            "{md}"
        );
        let dir = std::env::temp_dir().join(format!("bench-idle-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = r.write(&dir).unwrap();
        assert!(path.ends_with("idle-20261202T000000Z.json"));
        assert!(crate::other::is_other_results_file(&path));
        assert!(
            matches!(OtherResults::load(&path).unwrap(), Some(OtherResults::Idle(ref read)) if *read == r)
        );
        assert_eq!(IdleResults::load(&path).unwrap(), r);
        assert!(bench_model::results::tools::ToolResults::load(&path).is_err());
        let html = html_section(std::slice::from_ref(&r), None);
        assert!(
            html.contains("<td>server-prebuilt</td><td class=\"num\">4.0</td>"),
            "{html}"
        );
        let written = crate::other::write_report_beside(&path).unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(written).unwrap(), md);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
