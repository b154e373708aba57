//! `bench report FILE…`: the markdown and SVG beside each results file, or (`--html`) one
//! page of them all, or (`--readme`) the README's headline table; every page and table is
//! `bench-report`'s, this is the command around it.

use crate::cli::ReportArgs;
use crate::say;

/// Runs `bench report` as `args` says.
pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    if let Some(readme) = &args.readme {
        let changed = bench_report::headline::write_readme(&args.files, readme)?;
        let what = if changed {
            "rewritten"
        } else {
            "already current"
        };
        say!("{}: headline table {what}", readme.display());
        return Ok(());
    }
    // The reports say which servers' code changed since each run: git asked here.
    let root = manifest::workspace_root();
    if let Some(out) = &args.html {
        bench_report::write_html(&args.files, out, Some(&root))?;
        say!("{}: {} results file(s)", out.display(), args.files.len());
        return Ok(());
    }
    for file in &args.files {
        if let Some(md) = bench_report::other::write_report_beside(file)? {
            say!("{}: {}", file.display(), md.display());
            continue;
        }
        let (md, svg) = bench_report::write_beside(file, Some(&root))?;
        say!("{}: {} and {}", file.display(), md.display(), svg.display());
    }
    Ok(())
}
