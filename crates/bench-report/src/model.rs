//! The report of one results file as data: a title, the line saying which measured servers'
//! code changed since the run (see [`stale`](super::stale)), a header of `(key, value)` lines,
//! then blocks (headings, paragraphs, lists, tables). [`build`](super::build) makes it from the
//! results and the experiment's declared [`Shown`](bench_model::experiment::Shown);
//! [`Document::markdown`] writes it as markdown and the page ([`html`](super::html)) as HTML,
//! so the two say the same by construction.
//!
//! Text may hold two inline marks, which both renderers understand: `` `code` `` and a
//! `**bold**` lead.

use std::fmt::Write as _;

pub use bench_chart::marks::{MACHINE_MARK, Marks, ROUND_TRIP_MARK, TOOL_MARK};

/// A report.
#[derive(Clone, Debug, Default)]
pub(crate) struct Document {
    /// `E3: Blazeio vs …`.
    pub title: String,
    /// Which measured servers' code changed since the run, when any did or it cannot be told
    /// ([`Staleness::line`](super::stale::Staleness::line)); `None` also when the report was
    /// made without a repository to ask.
    pub changed: Option<String>,
    /// Why the run is partial, when it is.
    pub partial: Option<String>,
    /// A paragraph before the header, when there is one (a tools comparison that stopped
    /// early says so there).
    pub notice: Option<String>,
    /// The provenance, as `(key, value)` (`("Date", "…")`), notes last (`("Note", …)`).
    pub header: Vec<(String, String)>,
    /// The rest, in order.
    pub blocks: Vec<Block>,
}

/// A part of a report's body.
#[derive(Clone, Debug)]
pub(crate) enum Block {
    /// A section's heading (`##` in markdown).
    Heading(String),
    /// A heading within a section (`###`).
    Subheading(String),
    /// A paragraph.
    Para(String),
    /// A list.
    List(Vec<String>),
    /// A table.
    Table(Table),
}

/// A table: its columns and its rows (a cell per column).
#[derive(Clone, Debug, Default)]
pub(crate) struct Table {
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// The rows, in order.
    pub rows: Vec<Row>,
}

/// A column: its header, and whether it holds figures (right-aligned, sorted as numbers).
#[derive(Clone, Debug)]
pub(crate) struct Column {
    /// The header.
    pub header: String,
    /// Figures (`---:`), not text.
    pub figure: bool,
}

/// A row: its cells, and the server it is of (the page groups a Rust variant's rows with
/// its peers').
#[derive(Clone, Debug)]
pub(crate) struct Row {
    /// The server whose figures the row holds.
    pub server: String,
    /// A cell per column.
    pub cells: Vec<Cell>,
}

/// A cell: its text, the marks shown after it, and whether it stands for an invalid step.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Cell {
    /// The text (figure or words).
    pub text: String,
    /// The marks after the text (` †`, ` ‡`).
    pub marks: Marks,
    /// The step it reads was invalid: `Some(reason)` (the page shows the reason on hover).
    pub invalid: Option<Option<String>>,
    /// Which figure of a finding it holds, when one is read from it
    /// ([`findings::key`](crate::findings::key)): the page marks the cell with it.
    pub key: Option<String>,
}

impl Cell {
    /// A cell of `text` alone.
    pub fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            ..Cell::default()
        }
    }

    /// `text` followed by `marks`.
    pub fn marked(text: impl Into<String>, marks: Marks) -> Cell {
        Cell {
            marks,
            ..Cell::text(text)
        }
    }

    /// `invalid`, for a step that was invalid for `reason`.
    pub fn invalid(reason: Option<&str>) -> Cell {
        Cell {
            invalid: Some(reason.map(str::to_string)),
            ..Cell::text("invalid")
        }
    }

    /// The cell marked as holding the figure `key` names.
    pub fn keyed(self, key: String) -> Cell {
        Cell {
            key: Some(key),
            ..self
        }
    }

    /// The text with its marks, as both renderers show it.
    pub fn shown(&self) -> String {
        format!("{}{}", self.text, self.marks.suffix())
    }
}

impl Column {
    /// A column of figures headed `header`.
    pub fn figure(header: &str) -> Column {
        Column {
            header: header.to_string(),
            figure: true,
        }
    }
}

impl Table {
    /// A table of these columns (`figure` or not) and no rows yet.
    pub fn new(columns: impl IntoIterator<Item = (String, bool)>) -> Table {
        Table {
            columns: columns
                .into_iter()
                .map(|(header, figure)| Column { header, figure })
                .collect(),
            rows: Vec::new(),
        }
    }

    /// Text columns `text` then figure columns `figures`.
    pub fn of(text: &[&str], figures: &[&str]) -> Table {
        let text = text.iter().map(|h| (h.to_string(), false));
        Table::new(text.chain(figures.iter().map(|h| (h.to_string(), true))))
    }

    /// Adds a row of `server`'s.
    pub fn push(&mut self, server: &str, cells: Vec<Cell>) {
        self.rows.push(Row {
            server: server.to_string(),
            cells,
        });
    }

    /// The table as markdown: text columns left-aligned, figures right-aligned, `|` escaped.
    fn markdown(&self, out: &mut String) {
        let line = |out: &mut String, cells: &mut dyn Iterator<Item = String>| {
            let cells: Vec<String> = cells.map(|c| c.replace('|', "\\|")).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        };
        line(out, &mut self.columns.iter().map(|c| c.header.clone()));
        let rule: Vec<&str> = self
            .columns
            .iter()
            .map(|c| if c.figure { "---:" } else { "---" })
            .collect();
        let _ = writeln!(out, "|{}|", rule.join("|"));
        for row in &self.rows {
            line(out, &mut row.cells.iter().map(Cell::shown));
        }
        out.push('\n');
    }
}

impl Document {
    /// Adds a block.
    pub fn push(&mut self, b: Block) {
        self.blocks.push(b);
    }

    /// The report as markdown.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# {}\n", self.title);
        if let Some(changed) = &self.changed {
            let _ = writeln!(out, "> {changed}\n");
        }
        if let Some(why) = &self.partial {
            let _ = writeln!(out, "> {}\n", partial(why));
        }
        if let Some(notice) = &self.notice {
            let _ = writeln!(out, "{notice}\n");
        }
        for (k, v) in &self.header {
            let _ = writeln!(out, "- {k}: {v}");
        }
        if !self.header.is_empty() {
            out.push('\n');
        }
        out.push_str(&blocks_markdown(&self.blocks));
        out
    }

    /// The report as markdown that ends on one newline, as the reports of `bench tools
    /// compare`, `bench idle` and `bench instructions` always have (an experiment's report
    /// ends on a blank line).
    pub fn markdown_tight(&self) -> String {
        tight(self.markdown())
    }
}

/// `blocks` as markdown ending on one newline (a part of a report, for the terminal).
pub(crate) fn blocks_markdown_tight(blocks: &[Block]) -> String {
    tight(blocks_markdown(blocks))
}

/// `blocks` as markdown, each followed by a blank line.
pub(crate) fn blocks_markdown(blocks: &[Block]) -> String {
    let mut out = String::new();
    for b in blocks {
        match b {
            Block::Heading(h) => {
                let _ = writeln!(out, "## {h}\n");
            }
            Block::Subheading(h) => {
                let _ = writeln!(out, "### {h}\n");
            }
            Block::Para(p) => {
                let _ = writeln!(out, "{p}\n");
            }
            Block::List(items) => {
                for i in items {
                    let _ = writeln!(out, "- {i}");
                }
                out.push('\n');
            }
            Block::Table(t) => t.markdown(&mut out),
        }
    }
    out
}

/// `markdown` ending on one newline.
fn tight(mut markdown: String) -> String {
    while markdown.ends_with("\n\n") {
        markdown.pop();
    }
    markdown
}

/// The banner of a partial run, whose reason is `why`.
pub(crate) fn partial(why: &str) -> String {
    format!(
        "**Partial run: {why}.** This file was written after the last step that finished; \
         the steps that had not run read `n/a`, and a step's median is over the repeats it had."
    )
}
