//! The results files that are not `bench run`'s: `bench instructions`, `bench tools compare`
//! and `bench idle`. Each kind is told by its `schema`, has its own markdown report beside the
//! file (`instructions.rs`, `tools.rs`, `idle.rs` make them) and its own
//! section of the page; this module is the one place that tells the kinds apart.

use std::path::{Path, PathBuf};

use bench_model::results::idle::{self, IdleResults};
use bench_model::results::instructions::{self, InstructionResults};
use bench_model::results::tools::{self, ToolResults};

use crate::error::ReportError;
use crate::model::Document;

/// One results file of `bench instructions`, `bench tools compare` or `bench idle`.
#[derive(Debug)]
pub enum OtherResults {
    /// `bench instructions` (`bench.instructions/1`).
    Instructions(InstructionResults),
    /// `bench tools compare` (`bench.tools/1`; boxed: it is the largest by far).
    Tools(Box<ToolResults>),
    /// `bench idle` (`bench.idle/1`).
    Idle(IdleResults),
}

/// The schemas of the kinds.
const SCHEMAS: [&str; 3] = [instructions::SCHEMA, tools::SCHEMA, idle::SCHEMA];

impl OtherResults {
    /// Reads the JSON file at `path` when its `schema` is one of these kinds; `Ok(None)` for
    /// any other file (a `bench run` results file among them); an error when it is of one of
    /// these kinds but does not read as one.
    pub fn load(path: &Path) -> Result<Option<OtherResults>, ReportError> {
        let Some(schema) = bench_model::results::schema_of(path) else {
            return Ok(None);
        };
        Ok(Some(match schema.as_str() {
            instructions::SCHEMA => OtherResults::Instructions(InstructionResults::load(path)?),
            tools::SCHEMA => OtherResults::Tools(Box::new(ToolResults::load(path)?)),
            idle::SCHEMA => OtherResults::Idle(IdleResults::load(path)?),
            _ => return Ok(None),
        }))
    }

    /// Its whole report, in the document model every report goes through.
    pub(crate) fn document(&self) -> Document {
        match self {
            OtherResults::Instructions(r) => super::instructions::document(r),
            OtherResults::Tools(r) => super::tools::document(r),
            OtherResults::Idle(r) => super::idle::document(r),
        }
    }

    /// Its whole markdown report (ending on one newline, as these reports always have).
    pub fn markdown(&self) -> String {
        self.document().markdown_tight()
    }
}

/// Whether the JSON file at `path` is a results file of `bench instructions`, `bench tools
/// compare` or `bench idle` (by its `schema`), not of `bench run`.
pub fn is_other_results_file(path: &Path) -> bool {
    bench_model::results::schema_of(path).is_some_and(|s| SCHEMAS.contains(&s.as_str()))
}

/// Writes `markdown`, the report of the results file at `path`, beside it (`.md`).
pub fn write_markdown_beside(markdown: &str, path: &Path) -> Result<PathBuf, ReportError> {
    let md = path.with_extension("md");
    std::fs::write(&md, markdown).map_err(|source| ReportError::Io {
        path: md.clone(),
        source,
    })?;
    Ok(md)
}

/// Writes the markdown report of the results file `path` beside it when it is one of these
/// kinds (`Ok(None)` for any other file).
pub fn write_report_beside(path: &Path) -> Result<Option<PathBuf>, ReportError> {
    match OtherResults::load(path)? {
        Some(r) => write_markdown_beside(&r.markdown(), path).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_file_is_not_one_of_these_and_a_broken_one_is_an_error() {
        let run = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/runs-2026-12-01/e3-20261201T192631Z.json");
        assert!(!is_other_results_file(&run));
        assert!(OtherResults::load(&run).unwrap().is_none());
        assert!(write_report_beside(&run).unwrap().is_none());
        assert!(
            !run.with_extension("md").exists(),
            "a report written beside a run file"
        );

        let dir = std::env::temp_dir().join(format!("bench-other-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for schema in SCHEMAS {
            let broken = dir.join("broken.json");
            std::fs::write(
                &broken,
                format!("{{\"schema\": \"{schema}\", \"servers\": 3}}"),
            )
            .unwrap();
            assert!(is_other_results_file(&broken), "{schema}");
            let e = OtherResults::load(&broken).unwrap_err();
            assert!(format!("{e:#}").contains("broken.json"), "{schema}: {e:#}");
            assert!(write_report_beside(&broken).is_err(), "{schema}");
        }
        let missing = dir.join("missing.json");
        assert!(!is_other_results_file(&missing));
        assert!(OtherResults::load(&missing).unwrap().is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
