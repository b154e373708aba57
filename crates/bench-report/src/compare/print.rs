//! The comparison for the terminal (a table and a summary line), the gate's lines, and the
//! comparison as a markdown report.

use bench_model::verdict::{ALPHA, Bound, Gate, Judgement};

use super::{Change, Comparison, Estimate, Family, Marks};
use crate::model::{Block, Cell, Column, Document, Table};
use bench_chart::table::Table as TextTable;

/// A figure as the comparison writes it: `≥ ` for a bound, three significant figures or so,
/// thousands grouped.
fn number(x: f64) -> String {
    if !x.is_finite() {
        return "∞".into();
    }
    if x.abs() >= 1000.0 {
        bench_chart::format::thousands(x)
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

/// `0.981 [0.95–1.01]`, `11.45 [11.15–11.75; 2 rounds, 50 %]`, `≥ 61,200 [61,200–∞]`.
pub(super) fn shown(e: &Estimate) -> String {
    let value = format!("{}{}", e.bound.sign(), number(e.median));
    match e.interval {
        Some(i) if e.bound == Bound::AtLeast && i.high.is_infinite() => value,
        Some(i) => format!("{value} {}", i.bracket(number)),
        None => value,
    }
}

/// The new run's figure over the old's with its interval: `×1.12 [1.04–1.21]`.
fn ratio(j: &Option<Judgement>) -> String {
    let Some(j) = j else {
        return "—".into();
    };
    let r = j.ratio;
    if !(r.high.is_finite() || r.low > 0.0) {
        return "—".into();
    }
    let f = |x: f64| {
        if x.is_finite() {
            format!("{x:.3}")
        } else {
            "∞".into()
        }
    };
    let below = r.coverage < bench_model::stats::LEVEL - 1e-9;
    format!(
        "×{} [{}–{}{}]",
        f(r.x),
        f(r.low),
        f(r.high),
        if below {
            format!("; {}", bench_model::stats::coverage(r.coverage))
        } else {
            String::new()
        }
    )
}

/// `† 6/6 → 5/6, ‡ 0/6 → 1/6`; empty when no round of either side was marked.
fn marks((a, b): &(Marks, Marks)) -> String {
    let mut parts = Vec::new();
    if a.tool + b.tool > 0 {
        parts.push(format!("† {}/{} → {}/{}", a.tool, a.n, b.tool, b.n));
    }
    if a.machine + b.machine > 0 {
        parts.push(format!("‡ {}/{} → {}/{}", a.machine, a.n, b.machine, b.n));
    }
    parts.join(", ")
}

const HEADER: [&str; 8] = [
    "experiment",
    "what",
    "figure",
    "old",
    "new",
    "new ÷ old",
    "verdict",
    "marks",
];

pub(super) fn row(c: &Change) -> Vec<String> {
    vec![
        c.experiment.clone(),
        c.what.clone(),
        c.figure.clone(),
        shown(&c.old),
        shown(&c.new),
        ratio(&c.judgement),
        c.verdict.text(),
        marks(&c.marks),
    ]
}

/// The comparison for the terminal: every figure that moved, or every one with `all`.
pub fn table(c: &Comparison, all: bool) -> TextTable {
    let mut t = TextTable::new(&HEADER);
    for ch in c.changes.iter().filter(|ch| all || ch.verdict.moved()) {
        t.row(row(ch));
    }
    t
}

/// One line: how many figures were compared and what each got.
pub fn summary(c: &Comparison) -> String {
    let [moved, same, undecided, unjudged] = c.counts();
    format!(
        "{} figures compared, each at a {:.0} % false discovery rate: {moved} moved, {same} the same within ±{:.0} %, {undecided} undecided, {unjudged} not judged (a side with fewer than 2 rounds, or bounds that allow no verdict){}",
        c.changes.len(),
        ALPHA * 100.0,
        c.margin * 100.0,
        if c.unmatched.is_empty() {
            String::new()
        } else {
            format!("; not compared: {}", c.unmatched.join(", "))
        }
    )
}

/// The gate's lines: what it tested, whether it passed, the members that failed it, and
/// what its family asks of the rounds when some members cannot reach Holm's threshold.
pub fn gate_text(c: &Comparison, family: &[Family], members: &[usize], g: &Gate) -> Vec<String> {
    let names: Vec<&str> = family.iter().map(|f| f.name()).collect();
    let mut out = vec![format!(
        "gate: {} figure(s) of {} ({} tested; the others have fewer than 2 rounds a side or are bound against bound), a move beyond ±{:.0} % with Holm's family-wise {:.0} %: {}",
        members.len(),
        names.join(", "),
        g.judged,
        c.margin * 100.0,
        ALPHA * 100.0,
        if g.fails() { "FAILED" } else { "passed" }
    )];
    for (k, &i) in members.iter().enumerate() {
        if g.failed[k] == Some(true) {
            let ch = &c.changes[i];
            out.push(format!(
                "  moved beyond ±{:.0} %: {} {} {}: {} → {}, {}",
                c.margin * 100.0,
                ch.experiment,
                ch.what,
                ch.figure,
                shown(&ch.old),
                shown(&ch.new),
                ratio(&ch.judgement)
            ));
        }
    }
    if g.unreachable > 0 {
        out.push(format!(
            "  {} of the {} tested cannot fail it with the rounds they have: Holm's first threshold for {} figures is {:.5}, below the smallest p-value their rounds can give; {} rounds a side can reach it",
            g.unreachable, g.judged, g.judged, g.first_threshold, g.rounds_for_family
        ));
    }
    out
}

/// The comparison as a markdown report: the summary, the method, every figure.
pub fn markdown(c: &Comparison, old: &str, new: &str, gate: Option<Vec<String>>) -> String {
    let mut t = Table::of(&HEADER[..3], &HEADER[3..6]);
    for h in &HEADER[6..] {
        t.columns.push(Column {
            header: h.to_string(),
            figure: false,
        });
    }
    for ch in &c.changes {
        t.push(&ch.what, row(ch).into_iter().map(Cell::text).collect());
    }
    let mut blocks = vec![
        Block::Para(summary(c)),
        Block::Para(format!(
            "Each figure is compared on its per-round values in the two runs (a ratio to the ceiling, or a finding, on the ratios of the same rounds), by an exact rank test (Mann–Whitney), with the new run's figure over the old's as the Hodges–Lehmann shift and its exact interval (its real coverage said when under 95 %). **Moved**: the test, adjusted by Benjamini–Hochberg over all {} figures, at 5 %. **Same within ±{:.0} %**: two one-sided tests against the margin, adjusted the same way. Otherwise **undecided**, with about the rounds a side would need. Requests/s the load tool set (`†` in any round) is a lower bound: it can only be shown to have been beaten from below, never the same. An E7 capacity is compared by the likelihood of its runs. The method and its measured error rates: docs/reading-results.md.",
            c.changes.len(),
            c.margin * 100.0
        )),
    ];
    if let Some(lines) = gate {
        blocks.push(Block::Para(lines.join(" ")));
    }
    blocks.push(Block::Table(t));
    Document {
        title: "Two runs compared".to_string(),
        header: vec![
            ("Old".to_string(), format!("`{old}`")),
            ("New".to_string(), format!("`{new}`")),
        ],
        blocks,
        ..Document::default()
    }
    .markdown_tight()
}
