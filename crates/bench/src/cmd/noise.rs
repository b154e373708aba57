//! `bench noise FILE… [--against FILE…]`: where each step's noise is, read from the repeats'
//! timelines of results files (`bench_model::noise` measures, `bench_report::noise` writes the
//! tables): within a repeat, between repeats, shared by a round (the A/A pairs) and, with
//! `--against`, between two sittings of the same experiments.

use crate::cli::NoiseArgs;
use bench_model::results::Results;
use bench_report::noise;
use bench_report::table::Table;

fn load(paths: &[std::path::PathBuf]) -> anyhow::Result<Vec<Results>> {
    let mut out = Vec::new();
    for p in paths {
        out.extend(bench_report::compare::load(p)?);
    }
    Ok(out)
}

/// Runs `bench noise`.
pub fn run(a: &NoiseArgs) -> anyhow::Result<()> {
    let runs = load(&a.files)?;
    let mut tables: Vec<(&str, Table)> = vec![
        (
            "Levels (log-sd of requests/s or the loopback's bytes)",
            noise::levels(&runs),
        ),
        (
            "A/A pairs: what a round shares and what a run has alone",
            noise::pairs(&runs),
        ),
    ];
    if !a.against.is_empty() {
        let other = load(&a.against)?;
        tables.push((
            "Between sittings (requests/s medians)",
            noise::sittings(&other, &runs),
        ));
    }
    if tables.iter().all(|(_, t)| t.is_empty()) {
        anyhow::bail!(
            "nothing to read in {}: no step has timelines of two repeats or more, no A/A pair has 3 rounds{}",
            a.files
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if a.against.is_empty() {
                ""
            } else {
                ", and no step is in both sittings"
            }
        );
    }
    let mut md = String::new();
    for (title, t) in tables.iter().filter(|(_, t)| !t.is_empty()) {
        crate::say!("{title}");
        crate::term::out::text(format_args!("{t}\n"));
        md.push_str(&format!("### {title}\n\n{}\n", t.markdown()));
    }
    if let Some(path) = &a.markdown {
        std::fs::write(path, md)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        crate::say!("markdown: {}", path.display());
    }
    Ok(())
}
