//! The JSON Schema of each kind of results file, committed in `schemas/` beside this crate (one
//! file per kind, as oha publishes its own output's), generated from the types by this module's
//! test, and `check` (the `schema` feature), which validates a document against the schema its
//! `schema` tag names.
//!
//! What that holds a change to: the test regenerates every schema from the types and fails when
//! the committed file differs (regenerate with `BENCH_WRITE_SCHEMAS=1 cargo test -p bench-model
//! schema`, and the diff shows the change); then every results file committed in the workspace,
//! the oldest ones included, must validate against the new schema. A field added without
//! `#[serde(default)]` is required, the old files lack it, and the test says which: "adding a
//! field keeps the version" is checked, not promised. The crates whose tests write results
//! files validate those too (the `schema` feature).

use std::path::Path;

#[cfg(any(test, feature = "schema"))]
use serde_json::Value;

use crate::results::{self, idle, instructions, tools};

/// The committed schema of each kind: its `schema` tag, the schema's file name in `schemas/`,
/// and the schema's text.
pub const SCHEMAS: [(&str, &str, &str); 4] = [
    (
        results::SCHEMA,
        "bench.results-1.json",
        include_str!("../schemas/bench.results-1.json"),
    ),
    (
        instructions::SCHEMA,
        "bench.instructions-1.json",
        include_str!("../schemas/bench.instructions-1.json"),
    ),
    (
        tools::SCHEMA,
        "bench.tools-1.json",
        include_str!("../schemas/bench.tools-1.json"),
    ),
    (
        idle::SCHEMA,
        "bench.idle-1.json",
        include_str!("../schemas/bench.idle-1.json"),
    ),
];

/// The committed schema of the kind tagged `tag`.
pub fn schema_for(tag: &str) -> Option<&'static str> {
    SCHEMAS
        .iter()
        .find(|(t, _, _)| *t == tag)
        .map(|(_, _, s)| *s)
}

/// Checks `doc`, a results document of any kind, against the committed schema its `schema` tag
/// names: `Err` with what is wrong, one line each (at most ten), or with the unknown tag.
#[cfg(any(test, feature = "schema"))]
pub fn check(doc: &Value) -> Result<(), String> {
    let tag = doc["schema"]
        .as_str()
        .ok_or("the document has no `schema` tag")?;
    let schema = schema_for(tag).ok_or_else(|| format!("no committed schema for {tag:?}"))?;
    check_with(doc, tag, schema)
}

/// [`check`] against the schema `schema` (JSON text) of the kind `tag`.
#[cfg(any(test, feature = "schema"))]
fn check_with(doc: &Value, tag: &str, schema: &str) -> Result<(), String> {
    let schema: Value = serde_json::from_str(schema).map_err(|e| format!("{tag}: {e}"))?;
    let validator = jsonschema::validator_for(&schema).map_err(|e| format!("{tag}: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .take(10)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// [`check`] of the JSON file at `path`; the error names the file.
#[cfg(any(test, feature = "schema"))]
pub fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    check(&doc).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether the JSON file at `path` is a results file of one of the committed kinds (by its
/// `schema` tag).
pub fn is_results_file(path: &Path) -> bool {
    results::schema_of(path).is_some_and(|t| schema_for(&t).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Results;
    use crate::results::idle::IdleResults;
    use crate::results::instructions::InstructionResults;
    use crate::results::tools::ToolResults;
    use std::path::PathBuf;

    fn generated() -> [(&'static str, String); 4] {
        let pretty = |s: schemars::Schema| serde_json::to_string_pretty(&s).unwrap() + "\n";
        [
            (SCHEMAS[0].1, pretty(schemars::schema_for!(Results))),
            (
                SCHEMAS[1].1,
                pretty(schemars::schema_for!(InstructionResults)),
            ),
            (SCHEMAS[2].1, pretty(schemars::schema_for!(ToolResults))),
            (SCHEMAS[3].1, pretty(schemars::schema_for!(IdleResults))),
        ]
    }

    fn dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")
    }

    #[test]
    fn the_committed_schemas_are_the_types() {
        let write = std::env::var_os("BENCH_WRITE_SCHEMAS").is_some();
        for (name, text) in generated() {
            let path = dir().join(name);
            if write {
                std::fs::write(&path, &text).unwrap();
            }
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                committed == text,
                "{} is not what the types generate: regenerate it with BENCH_WRITE_SCHEMAS=1 cargo test -p bench-model schema, and read the diff",
                path.display()
            );
        }
    }

    /// Every JSON file under `dir`, recursively.
    fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                json_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }

    #[test]
    fn every_committed_results_file_validates() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        json_files(&root.join("docs/results"), &mut files);
        for krate in ["bench", "bench-model", "bench-report", "bench-tools"] {
            json_files(
                &root.join("crates").join(krate).join("tests/data"),
                &mut files,
            );
        }
        let results: Vec<&PathBuf> = files.iter().filter(|p| is_results_file(p)).collect();
        // docs/results holds one file of each kind, the frozen runs ten more.
        assert!(results.len() >= 14, "{results:?}");
        for kind in SCHEMAS.map(|(t, _, _)| t) {
            assert!(
                results
                    .iter()
                    .any(|p| results::schema_of(p).as_deref() == Some(kind)),
                "no committed {kind} file"
            );
        }
        // Against the schemas the types generate now, so that a field added without a
        // default fails here in the same run that regenerates the committed files.
        let now = generated();
        let failed: Vec<String> = results
            .iter()
            .filter_map(|p| {
                let doc: Value = serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()?;
                let tag = doc["schema"].as_str()?.to_string();
                let i = SCHEMAS.iter().position(|(t, _, _)| *t == tag)?;
                check_with(&doc, &tag, &now[i].1)
                    .err()
                    .map(|e| format!("{}: {e}", p.display()))
            })
            .collect();
        assert!(failed.is_empty(), "{}", failed.join("\n"));
        // And the committed schemas, as other crates' tests read them.
        let failed: Vec<String> = results.iter().filter_map(|p| check_file(p).err()).collect();
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }

    #[test]
    fn a_file_missing_a_required_field_or_of_another_shape_fails() {
        let doc: Value = serde_json::from_str(include_str!(
            "../../bench-report/tests/data/runs-2026-12-01/e3-20261201T192631Z.json"
        ))
        .unwrap();
        check(&doc).unwrap();
        let mut no_servers = doc.clone();
        no_servers.as_object_mut().unwrap().remove("servers");
        let e = check(&no_servers).unwrap_err();
        assert!(e.contains("servers"), "{e}");
        let mut wrong = doc.clone();
        wrong["servers"][0]["steps"][0]["repeats"][0]["requests_per_s"] = "fast".into();
        let e = check(&wrong).unwrap_err();
        assert!(e.contains("requests_per_s"), "{e}");
        let mut other = doc;
        other["schema"] = "bench.results/2".into();
        assert_eq!(
            check(&other).unwrap_err(),
            "no committed schema for \"bench.results/2\""
        );
    }
}
