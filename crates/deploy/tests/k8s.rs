//! The Kubernetes example is generated, never hand-edited: `scripts/k8s.sh --out TMP`
//! regenerates `deploy/k8s` byte for byte, and every Rust variant of servers.toml (as the
//! manifest crate reads it) has its Deployment and Service there, with the contract's
//! settings. When this fails after servers.toml changed, run `scripts/k8s.sh` and commit
//! `deploy/k8s`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use deploy::{TempDir, output, root};

/// The `*.yaml` files of `dir`, by name.
fn yaml_files(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| {
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, text)
        })
        .collect()
}

#[test]
fn the_committed_example_is_what_the_script_generates() {
    let tmp = TempDir::new("deploy-k8s-");
    output(
        Command::new(root().join("scripts/k8s.sh"))
            .arg("--out")
            .arg(tmp.path()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let fresh = yaml_files(tmp.path());
    let committed = yaml_files(&root().join("deploy/k8s"));
    assert_eq!(
        fresh.keys().collect::<Vec<_>>(),
        committed.keys().collect::<Vec<_>>(),
        "deploy/k8s has other files than scripts/k8s.sh writes: run scripts/k8s.sh"
    );
    for (name, text) in &fresh {
        assert!(
            committed[name] == *text,
            "deploy/k8s/{name} differs from what scripts/k8s.sh generates: run scripts/k8s.sh"
        );
    }
}

#[test]
fn every_rust_variant_has_its_deployment_and_service() {
    let manifest = manifest::Manifest::load_default().unwrap_or_else(|e| panic!("{e}"));
    let files = yaml_files(&root().join("deploy/k8s"));
    let mut variants = 0;
    for package in manifest.servers.iter().filter_map(|s| s.package.as_deref()) {
        variants += 1;
        let text = files
            .get(&format!("{package}.yaml"))
            .unwrap_or_else(|| panic!("deploy/k8s/{package}.yaml is missing: run scripts/k8s.sh"));
        for want in [
            format!("kind: Deployment\nmetadata:\n  name: {package}\n"),
            format!("kind: Service\nmetadata:\n  name: {package}\n"),
            format!("image: {package}:latest\n"),
            "- name: ADDR\n              value: \"0.0.0.0:8080\"\n".to_string(),
            "containerPort: 8080\n".to_string(),
            "httpGet:\n              path: /hello\n".to_string(),
            "runAsNonRoot: true\n".to_string(),
            "resources:\n".to_string(),
            "port: 8080\n".to_string(),
        ] {
            assert!(
                text.contains(&want),
                "deploy/k8s/{package}.yaml lacks {want:?}"
            );
        }
    }
    assert!(variants > 0, "servers.toml lists no Rust variant");
    let job = &files["loadgen-job.yaml"];
    assert!(job.contains("kind: Job\n") && job.contains("image: loadgen:latest\n"));
}

/// E1's k6 ramp for the k6 operator: a ConfigMap holding `scripts/k6/e1.js` byte for byte (a
/// literal block, indented four spaces) and a TestRun that runs it from there, split over
/// several runners, against a variant's Service that deploy/k8s defines.
#[test]
fn the_k6_testrun_runs_e1s_script_against_a_variants_service() {
    let files = yaml_files(&root().join("deploy/k8s"));
    let text = files
        .get("k6-e1-testrun.yaml")
        .expect("deploy/k8s/k6-e1-testrun.yaml is missing: run scripts/k8s.sh");
    let (config_map, test_run) = text
        .split_once("\n---\n")
        .expect("two documents: the ConfigMap, then the TestRun");
    assert!(config_map.contains("kind: ConfigMap\nmetadata:\n  name: k6-e1\n"));
    let block = config_map
        .split_once("  e1.js: |\n")
        .expect("the script as a literal block")
        .1;
    let script: String = block
        .lines()
        .map(|l| format!("{}\n", l.strip_prefix("    ").unwrap_or(l)))
        .collect();
    let want = std::fs::read_to_string(root().join("scripts/k6/e1.js")).expect("scripts/k6/e1.js");
    assert_eq!(
        script, want,
        "the ConfigMap's e1.js is not scripts/k6/e1.js"
    );
    for want in [
        "apiVersion: k6.io/v1alpha1\nkind: TestRun\n",
        "  parallelism: 4\n",
        "  script:\n    configMap:\n      name: k6-e1\n      file: e1.js\n",
        "  arguments: -e TARGET=http://server-prebuilt:8080\n",
        "    image: grafana/k6:1.1.0\n",
    ] {
        assert!(
            test_run.contains(want),
            "the TestRun lacks {want:?}:\n{test_run}"
        );
    }
    assert!(
        files["server-prebuilt.yaml"]
            .contains("kind: Service\nmetadata:\n  name: server-prebuilt\n"),
        "the TestRun's target has no Service"
    );
}

/// `scripts/images.sh --list` (an awk reading of servers.toml) agrees with the manifest crate
/// on the Rust variants and their analogues.
#[test]
fn the_scripts_read_the_same_variants_as_the_manifest() {
    let manifest = manifest::Manifest::load_default().unwrap_or_else(|e| panic!("{e}"));
    let want: Vec<String> = manifest
        .servers
        .iter()
        .filter_map(|s| {
            Some(format!(
                "{}\t{}",
                s.package.as_ref()?,
                s.analogue.join(", ")
            ))
        })
        .collect();
    let list = output(Command::new(root().join("scripts/images.sh")).arg("--list"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(list.lines().collect::<Vec<_>>(), want);
}

/// Bad input to the scripts: exit status 2 and one line on stderr, before anything is built.
#[test]
fn the_scripts_reject_bad_input_in_one_line() {
    for (script, args) in [
        ("images.sh", &["--only", "server-nonesuch"][..]),
        ("images.sh", &["--engine", "lxc"]),
        ("images.sh", &["--tag-prefix", "Upper/"]),
        ("images.sh", &["--bogus"]),
        ("images.sh", &["--only"]),
        ("k8s.sh", &["--job-target", "server-nonesuch"]),
        ("k8s.sh", &["--bogus"]),
        ("k8s.sh", &["--k6-parallelism", "0"]),
        ("k8s.sh", &["--k6-parallelism", "many"]),
    ] {
        let out = Command::new(root().join("scripts").join(script))
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{script}: {e}"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{script} {args:?}: {err}");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{script} {args:?}: {err}"
        );
    }
}
