//! `bench compare OLD NEW`: what moved between two runs, cell by cell, capacity by capacity and
//! finding by finding (`bench_report::compare` reads the figures, `bench_model::verdict`
//! judges them), on the terminal and, with `--markdown`, as a report; `--fail-on-change`
//! makes the gate's verdict the exit status.

use anyhow::bail;

use crate::cli::CompareRunsArgs;
use bench_report::compare::{self, Family};

/// Runs `bench compare`.
pub fn run(a: &CompareRunsArgs) -> anyhow::Result<()> {
    let mut family: Vec<Family> = Vec::new();
    for name in &a.figures {
        let Some(f) = Family::parse(name) else {
            let known: Vec<&str> = Family::ALL.iter().map(|f| f.0).collect();
            bail!(
                "--figures: {name:?} is not a family of figures (one of {}, or all)",
                known.join(", ")
            );
        };
        for f in f {
            if !family.contains(&f) {
                family.push(f);
            }
        }
    }
    let old = compare::load(&a.old)?;
    let new = compare::load(&a.new)?;
    let c = compare::compare(&old, &new, a.margin / 100.0);
    if c.changes.is_empty() {
        bail!(
            "nothing to compare: {} and {} share no experiment with a server and step in both",
            a.old.display(),
            a.new.display()
        );
    }
    crate::term::out::text(compare::table(&c, a.all));
    crate::say!("{}", compare::summary(&c));
    let (members, gate) = c.gate(&family);
    let lines = compare::gate_text(&c, &family, &members, &gate);
    if a.fail_on_change {
        for l in &lines {
            crate::say!("{l}");
        }
    }
    if let Some(md) = &a.markdown {
        let text = compare::markdown(
            &c,
            &a.old.display().to_string(),
            &a.new.display().to_string(),
            a.fail_on_change.then(|| lines.clone()),
        );
        std::fs::write(md, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", md.display()))?;
        crate::say!("markdown: {}", md.display());
    }
    if a.fail_on_change && gate.fails() {
        let failed = gate.failed.iter().filter(|f| **f == Some(true)).count();
        bail!(
            "{failed} figure(s) of the gate's family moved beyond ±{} % (--fail-on-change)",
            a.margin
        );
    }
    Ok(())
}
