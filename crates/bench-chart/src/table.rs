//! A plain-text table for the terminal: columns padded to their widest cell, a header row and
//! a rule under it. Used by `list`, `verify` and the summary of `run`.

use std::fmt;

/// Rows of cells under a header.
#[derive(Clone, Debug, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column names.
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row (missing cells print empty, extra cells are dropped).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Whether it has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as markdown: a header, its rule, a line per row (a `|` in a cell escaped).
    pub fn markdown(&self) -> String {
        let n = self.header.len();
        let line = |cells: &[String]| {
            let cells: Vec<String> = (0..n)
                .map(|i| {
                    cells
                        .get(i)
                        .map_or(String::new(), |c| c.replace('|', "\\|"))
                })
                .collect();
            format!("| {} |\n", cells.join(" | "))
        };
        let mut out = line(&self.header);
        out.push_str(&format!("|{}\n", "---|".repeat(n)));
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.header.len();
        let mut width: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().take(n).enumerate() {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let line = |f: &mut fmt::Formatter<'_>, cells: &[String]| -> fmt::Result {
            let mut out = String::new();
            for (i, w) in width.iter().enumerate() {
                let c = cells.get(i).map_or("", String::as_str);
                out.push_str(c);
                if i + 1 < n {
                    out.extend(std::iter::repeat_n(' ', w - c.chars().count() + 2));
                }
            }
            writeln!(f, "{}", out.trim_end())
        };
        line(f, &self.header)?;
        let rule: Vec<String> = width.iter().map(|&w| "-".repeat(w)).collect();
        line(f, &rule)?;
        for r in &self.rows {
            line(f, r)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_columns() {
        let mut t = Table::new(&["a", "bb"]);
        t.row(vec!["xxx".into(), "y".into()]);
        assert_eq!(t.to_string(), "a    bb\n---  --\nxxx  y\n");
        t.row(vec!["a|b".into()]);
        assert_eq!(
            t.markdown(),
            "| a | bb |\n|---|---|\n| xxx | y |\n| a\\|b |  |\n"
        );
    }
}
