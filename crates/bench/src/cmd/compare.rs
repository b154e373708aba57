//! `bench compare OLD NEW`: what moved between two runs, cell by cell and finding by finding
//! (`bench_report::compare` decides, on the runs' own 95 % intervals), on the terminal and,
//! with `--markdown`, as a report; `--fail-on-change` makes a move the exit status.

use anyhow::bail;

use crate::cli::CompareRunsArgs;
use bench_report::compare;

/// Runs `bench compare`.
pub fn run(a: &CompareRunsArgs) -> anyhow::Result<()> {
    let old = compare::load(&a.old)?;
    let new = compare::load(&a.new)?;
    let c = compare::compare(&old, &new);
    if c.changes.is_empty() {
        bail!(
            "nothing to compare: {} and {} share no experiment with a server and step in both",
            a.old.display(),
            a.new.display()
        );
    }
    crate::term::out::text(compare::table(&c, a.all));
    crate::say!("{}", compare::summary(&c));
    if let Some(md) = &a.markdown {
        let text = compare::markdown(
            &c,
            &a.old.display().to_string(),
            &a.new.display().to_string(),
        );
        std::fs::write(md, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", md.display()))?;
        crate::say!("markdown: {}", md.display());
    }
    let moved = c.moved().count();
    if a.fail_on_change && moved > 0 {
        bail!("{moved} figure(s) moved beyond their 95 % intervals (--fail-on-change)");
    }
    Ok(())
}
