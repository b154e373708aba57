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
