//! The document model as HTML, for the page and for the sections of the other reports: a
//! report's [`Document`]: its headings, paragraphs, lists and tables, the tables
//! sortable (see `page.js`), their rows in pair order (each Rust variant, then its peers; a
//! rule between pairs), figures of four digits and more with thousands separators, a cell of
//! an invalid step marked with the reason as its title, and a cell the load tool or the
//! machine may have set marked with why.

use std::fmt::Write as _;

use crate::chart::Row as PairRow;
use crate::model::{Block, Cell, Document, Table};
use bench_chart::format::grouped;
use bench_chart::format::{escape, inline};
use bench_model::results::ServerResult;

/// The body of `d` (headings at `<h5>` and `<h6>`); `order` is the run's servers in pair
/// order.
pub(crate) fn body(out: &mut String, d: &Document, order: &[(&ServerResult, PairRow)]) {
    for b in &d.blocks {
        match b {
            Block::Heading(h) => {
                let _ = writeln!(out, "<h5>{}</h5>", inline(h));
            }
            Block::Subheading(h) => {
                let _ = writeln!(out, "<h6>{}</h6>", inline(h));
            }
            Block::Para(p) => {
                let _ = writeln!(out, "<p>{}</p>", inline(p));
            }
            Block::List(items) => {
                out.push_str("<ul>\n");
                for i in items {
                    let _ = writeln!(out, "<li>{}</li>", inline(i));
                }
                out.push_str("</ul>\n");
            }
            Block::Table(t) => table(out, t, order),
        }
    }
}

pub(crate) fn table(out: &mut String, t: &Table, order: &[(&ServerResult, PairRow)]) {
    // Pair order: the rank of each row's server, stable within one server.
    let rank = |server: &str| {
        order
            .iter()
            .position(|(s, _)| s.name == server)
            .unwrap_or(usize::MAX)
    };
    let mut rows: Vec<_> = t.rows.iter().collect();
    rows.sort_by_key(|row| rank(&row.server));

    out.push_str(
        "<div class=\"tbl\"><div class=\"scroll\"><table class=\"sortable\">\n<thead><tr>",
    );
    for c in &t.columns {
        let _ = write!(
            out,
            "<th{}><button type=\"button\">{}</button></th>",
            if c.figure { " class=\"num\"" } else { "" },
            inline(&c.header)
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let mut last_pair: Option<usize> = None;
    for row in rows {
        // A rule above the first row of each pair.
        let pair = order
            .iter()
            .position(|(s, _)| s.name == row.server)
            .map(|k| order[..=k].iter().filter(|(_, row)| row.gap_before).count());
        let starts = pair.is_some() && last_pair.is_some() && pair != last_pair;
        last_pair = pair.or(last_pair);
        out.push_str(if starts {
            "<tr class=\"pair\">"
        } else {
            "<tr>"
        });
        for (c, col) in row.cells.iter().zip(&t.columns) {
            cell(out, c, col.figure);
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div></div>\n");
}

/// Writes one `<td>`: a figure right-aligned with thousands separators; an invalid step's
/// cell marked with its reason, a marked one with why.
fn cell(out: &mut String, c: &Cell, figure: bool) {
    let mut class: Vec<&str> = Vec::new();
    let mut title = None;
    if figure {
        class.push("num");
    }
    if let Some(reason) = &c.invalid {
        class.push("invalid");
        title = reason.clone();
    } else if c.marks.any() {
        class.push("bound");
        let mut why = Vec::new();
        if c.marks.tool {
            why.push("the load generator was ≥ 90 % busy: it may have set the pace");
        }
        if c.marks.machine {
            why.push(
                "the machine was busy (other work, steal or CPU waits): it may have set the figure",
            );
        }
        if c.marks.round_trips {
            why.push(
                "neither the server nor the load generator was busy: the connections' round trips set the pace",
            );
        }
        title = Some(why.join("; "));
    }
    let text = if figure {
        separated(&c.text)
    } else {
        c.text.clone()
    };
    out.push_str("<td");
    if !class.is_empty() {
        let _ = write!(out, " class=\"{}\"", class.join(" "));
    }
    if let Some(t) = title {
        let _ = write!(out, " title=\"{}\"", escape(&t));
    }
    if let Some(k) = &c.key {
        let _ = write!(out, " data-fig=\"{}\"", escape(k));
    }
    let _ = write!(out, ">{}{}</td>", inline(&text), c.marks.suffix());
}

/// A plain number of four or more integer digits with thousands separators (`2500.61` →
/// `2,500.61`); anything else as it is.
pub(crate) fn separated(text: &str) -> String {
    let (num, rest) = match text.split_once(' ') {
        Some((n, rest)) => (n, format!(" {rest}")),
        None => (text, String::new()),
    };
    match num.parse::<f64>() {
        Ok(x) if x.abs() >= 1000.0 && !num.contains(',') => {
            let decimals = num.split_once('.').map_or(0, |(_, f)| f.len());
            format!("{}{rest}", grouped(x, decimals))
        }
        _ => text.to_string(),
    }
}

/// A table of the document model as the page shows it (sortable, figures with thousands
/// separators), its rows in the order given.
pub(crate) fn table_html(t: &Table) -> String {
    let mut out = String::new();
    table(&mut out, t, &[]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_inline_marks() {
        assert_eq!(separated("2500.61"), "2,500.61");
        assert_eq!(separated("1143"), "1,143");
        assert_eq!(separated("81,103"), "81,103");
        assert_eq!(separated("999.5"), "999.5");
        assert_eq!(separated("47 (timeout 47)"), "47 (timeout 47)");
        assert_eq!(separated("12345 (read 3)"), "12,345 (read 3)");
        assert_eq!(separated("invalid"), "invalid");
        assert_eq!(inline("a `<b>` c"), "a <code>&lt;b&gt;</code> c");
        assert_eq!(
            inline("**The machine:** quiet `**x**`"),
            "<strong>The machine:</strong> quiet <code>**x**</code>"
        );
    }
}
