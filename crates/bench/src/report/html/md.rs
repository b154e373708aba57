//! The markdown report as HTML, so the page's tables are the markdown's by construction and
//! the two never disagree (a column or mark added to the markdown shows up here too).
//!
//! It reads only the subset [`markdown`](super::super::markdown) writes: `#`/`##` headings,
//! `- ` lists, tables (`|`-rows, a rule whose `---:` marks a figure column, `\|` inside a
//! cell), inline code in backticks, and paragraphs. The header list (`- Date: …`) becomes a
//! definition list ([`Doc::header`]); every table becomes sortable, its rows put in pair
//! order (each Rust variant, then its peers; a rule between pairs), figures of four digits
//! and more get thousands separators, an invalid step's cells are marked with the reason as
//! their title, and a tool-bound step gets its `†` on its requests/s (or, in a table of rows
//! per step, on the step's name), only where the markdown has none.

use std::fmt::Write as _;

use crate::results::{Results, StepResult};

use super::super::chart::paired;
use super::super::{disturbed, escape, grouped, step_ids, tool_bound};

/// The markdown report of one results file, as HTML pieces.
pub(super) struct Doc {
    /// The header list, as `(key, value)` with the value already HTML.
    pub header: Vec<(String, String)>,
    /// The rest (tables, lists), HTML, headings at `<h5>`.
    pub body: String,
}

/// Converts `md`, the markdown report of `r`.
pub(super) fn convert(md: &str, r: &Results) -> Doc {
    let mut header = Vec::new();
    let mut body = String::new();
    let mut endpoint: Option<String> = None;
    let mut heading = String::new();
    let mut seen_section = false;
    let lines: Vec<&str> = md.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("# ") {
            i += 1;
        } else if let Some(h) = line.strip_prefix("## ") {
            seen_section = true;
            heading = h.to_string();
            // "## `/api/hello`" (or "## `/hello`: …", E7's): the tables below are that
            // endpoint's.
            endpoint = h
                .strip_prefix('`')
                .and_then(|h| h.split_once('`'))
                .map(|(e, _)| e.to_string());
            let _ = writeln!(body, "<h5>{}</h5>", inline(h));
            i += 1;
        } else if line.starts_with('|') {
            let start = i;
            while i < lines.len() && lines[i].starts_with('|') {
                i += 1;
            }
            table(
                &mut body,
                &lines[start..i],
                r,
                &heading,
                endpoint.as_deref(),
            );
        } else if line.starts_with("- ") {
            let start = i;
            while i < lines.len() && lines[i].starts_with("- ") {
                i += 1;
            }
            let items = lines[start..i].iter().map(|l| &l[2..]);
            if seen_section {
                body.push_str("<ul>\n");
                for item in items {
                    let _ = writeln!(body, "<li>{}</li>", inline(item));
                }
                body.push_str("</ul>\n");
            } else {
                for item in items {
                    let (k, v) = item.split_once(": ").unwrap_or(("", item));
                    header.push((k.to_string(), inline(v)));
                }
            }
        } else if line.trim().is_empty() {
            i += 1;
        } else {
            let _ = writeln!(body, "<p>{}</p>", inline(line));
            i += 1;
        }
    }
    Doc { header, body }
}

/// Escapes `text` and turns `` `code` `` into `<code>code</code>`.
pub(super) fn inline(text: &str) -> String {
    let mut out = String::new();
    for (k, part) in text.split('`').enumerate() {
        if k % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", escape(part));
        } else {
            out.push_str(&escape(part));
        }
    }
    out
}

/// The cells of a table row, `\|` unescaped.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push('|');
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Where a cell's figure comes from: the step of the row's server it belongs to.
enum Locate {
    /// Each column is one step (`req/s c100`): by column, the step of `(endpoint, id)`.
    Columns(Vec<Option<(Option<String>, String)>>),
    /// The row names its step (`Server | Endpoint | Step | …`): the columns of endpoint and
    /// step.
    Rows(usize, usize),
}

fn table(out: &mut String, lines: &[&str], r: &Results, heading: &str, endpoint: Option<&str>) {
    // A table of requests/s only (E4's), whose every figure is a rate.
    let rates = heading.starts_with("Requests/s");
    let Some(head) = lines.first().map(|l| cells(l)) else {
        return;
    };
    let numeric: Vec<bool> = lines
        .get(1)
        .map(|l| cells(l).iter().map(|c| c.ends_with(':')).collect())
        .unwrap_or_default();
    let rows: Vec<Vec<String>> = lines.iter().skip(2).map(|l| cells(l)).collect();
    let col = |name: &str| head.iter().position(|h| h == name);
    let locate = match (col("Server"), col("Endpoint"), col("Step")) {
        (Some(_), Some(e), Some(st)) => Locate::Rows(e, st),
        _ => Locate::Columns(head.iter().map(|h| step_of(h, r, endpoint)).collect()),
    };
    let server_col = col("Server");

    // Pair order: the rank of each row's server in `paired`, stable within one server.
    let order = paired(r);
    let rank = |row: &[String]| {
        server_col
            .and_then(|c| row.get(c))
            .and_then(|name| order.iter().position(|(s, _)| &s.name == name))
            .unwrap_or(usize::MAX)
    };
    let mut sorted: Vec<&Vec<String>> = rows.iter().collect();
    sorted.sort_by_key(|row| rank(row));

    out.push_str("<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr>");
    for (j, h) in head.iter().enumerate() {
        let num = numeric.get(j).copied().unwrap_or(false);
        let _ = write!(
            out,
            "<th{}><button type=\"button\">{}</button></th>",
            if num { " class=\"num\"" } else { "" },
            inline(h)
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let mut last_pair: Option<usize> = None;
    for row in sorted {
        let server = server_col.and_then(|c| row.get(c)).map(String::as_str);
        // A rule above the first row of each pair.
        let pair = server.and_then(|name| {
            let k = order.iter().position(|(s, _)| s.name == name)?;
            Some(order[..=k].iter().filter(|(_, row)| row.gap_before).count())
        });
        let starts = pair.is_some() && last_pair.is_some() && pair != last_pair;
        last_pair = pair.or(last_pair);
        out.push_str(if starts {
            "<tr class=\"pair\">"
        } else {
            "<tr>"
        });
        for (j, c) in row.iter().enumerate() {
            let num = numeric.get(j).copied().unwrap_or(false);
            let step = server.and_then(|s| match &locate {
                Locate::Columns(steps) if num => {
                    let (e, id) = steps.get(j)?.as_ref()?;
                    find_step(r, s, e.as_deref(), id)
                }
                Locate::Rows(e, st) if num || j == *st => {
                    find_step(r, s, row.get(*e).map(String::as_str), row.get(*st)?)
                }
                _ => None,
            });
            // The `†` goes where the tool's cap is the figure: requests/s, or (a table of
            // rows per step) the step's name.
            let mark_bound = match &locate {
                Locate::Columns(_) => rates || head[j].contains("req/s"),
                Locate::Rows(_, st) => j == *st,
            };
            cell(out, c, num, step, mark_bound);
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// Writes one `<td>`: figures right-aligned with thousands separators; an invalid step's
/// cell marked, and with `mark_bound` a tool-bound one given its `†` (unless the markdown
/// has one).
fn cell(out: &mut String, text: &str, num: bool, step: Option<&StepResult>, mark_bound: bool) {
    let mut class: Vec<&str> = Vec::new();
    let mut title = None;
    let mut shown = if num {
        separated(text)
    } else {
        text.to_string()
    };
    if num {
        class.push("num");
    }
    if let Some(st) = step {
        if !st.valid && text == "invalid" {
            class.push("invalid");
            title = st.invalid_reason.clone();
        } else if mark_bound && st.valid && (tool_bound(st) || disturbed(st)) {
            class.push("bound");
            let mut why = Vec::new();
            if tool_bound(st) {
                why.push("the load generator was ≥ 90 % busy: it may have set the pace");
                if !shown.contains('†') {
                    shown.push_str(" †");
                }
            }
            if disturbed(st) {
                why.push("the machine was busy (other work, steal or CPU waits): it may have set the figure");
                if !shown.contains('‡') {
                    shown.push_str(if shown.ends_with('†') {
                        "‡"
                    } else {
                        " ‡"
                    });
                }
            }
            title = Some(why.join("; "));
        }
    }
    out.push_str("<td");
    if !class.is_empty() {
        let _ = write!(out, " class=\"{}\"", class.join(" "));
    }
    if let Some(t) = title {
        let _ = write!(out, " title=\"{}\"", escape(&t));
    }
    let _ = write!(out, ">{}</td>", inline(&shown));
}

/// A plain number of four or more integer digits with thousands separators (`2500.61` →
/// `2,500.61`); anything else as it is.
fn separated(text: &str) -> String {
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

/// The step a column header names: its last word when that is a step id of `endpoint` (or,
/// without one, of any endpoint); else, when `endpoint` has a single step, that one.
fn step_of(header: &str, r: &Results, endpoint: Option<&str>) -> Option<(Option<String>, String)> {
    let last = header.rsplit(' ').next().unwrap_or(header);
    match endpoint {
        Some(e) => {
            let ids = step_ids(r, e);
            if ids.iter().any(|s| s == last) {
                Some((Some(e.to_string()), last.to_string()))
            } else if ids.len() == 1 {
                Some((Some(e.to_string()), ids[0].clone()))
            } else {
                None
            }
        }
        None => r
            .servers
            .iter()
            .flat_map(|s| &s.steps)
            .any(|st| st.step == last)
            .then(|| (None, last.to_string())),
    }
}

fn find_step<'a>(
    r: &'a Results,
    server: &str,
    endpoint: Option<&str>,
    step: &str,
) -> Option<&'a StepResult> {
    r.servers
        .iter()
        .find(|s| s.name == server)?
        .steps
        .iter()
        .find(|st| st.step == step && endpoint.is_none_or(|e| st.endpoint == e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_numbers() {
        assert_eq!(cells("| a | b \\| c | 1 |"), ["a", "b | c", "1"]);
        assert_eq!(separated("2500.61"), "2,500.61");
        assert_eq!(separated("1143"), "1,143");
        assert_eq!(separated("81,103"), "81,103");
        assert_eq!(separated("999.5"), "999.5");
        assert_eq!(separated("47 (timeout 47)"), "47 (timeout 47)");
        assert_eq!(separated("12345 (read 3)"), "12,345 (read 3)");
        assert_eq!(separated("invalid"), "invalid");
        assert_eq!(inline("a `<b>` c"), "a <code>&lt;b&gt;</code> c");
    }
}
