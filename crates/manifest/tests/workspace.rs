//! The real `servers.toml` against the real workspace: every server crate is listed, and
//! every listed package exists with a binary of the same name.

use std::collections::BTreeMap;
use std::path::PathBuf;

use manifest::{Manifest, workspace_root};

/// Package name → crate folder, for every crate under `crates/`.
fn workspace_packages() -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let crates = workspace_root().join("crates");
    for entry in std::fs::read_dir(&crates).expect("crates/ exists") {
        let dir = entry.expect("readable entry").path();
        let toml_path = dir.join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&toml_path) else {
            continue;
        };
        let value: toml::Table = toml::from_str(&text).expect("a crate's Cargo.toml parses");
        let name = value["package"]["name"]
            .as_str()
            .expect("package.name")
            .to_string();
        out.insert(name, dir);
    }
    out
}

#[test]
fn every_server_crate_is_listed() {
    let m = Manifest::load_default().unwrap_or_else(|e| panic!("{e}"));
    let packages = workspace_packages();
    assert!(packages.contains_key("contract"), "{packages:?}");
    let missing: Vec<&String> = packages
        .keys()
        .filter(|p| p.starts_with("server-") && m.by_package(p).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "server crates missing from servers.toml: {missing:?}"
    );
}

#[test]
fn every_listed_package_exists_with_its_binary() {
    let m = Manifest::load_default().unwrap_or_else(|e| panic!("{e}"));
    let packages = workspace_packages();
    for s in &m.servers {
        let Some(p) = &s.package else { continue };
        let dir = packages
            .get(p)
            .unwrap_or_else(|| panic!("servers.toml names package {p:?}, which is not in crates/"));
        assert!(
            dir.join("src/main.rs").exists(),
            "{p} has no binary (src/main.rs)"
        );
        assert!(
            dir.join("tests").is_dir(),
            "{p} has no tests/ folder running the conformance suite"
        );
    }
}

#[test]
fn the_manifest_names_at_least_one_rust_variant() {
    let m = Manifest::load_default().unwrap_or_else(|e| panic!("{e}"));
    assert!(m.servers.iter().any(|s| s.package.is_some()));
}

/// Every file a peer's command names that is part of the repository (its script, its
/// launcher) exists; what `scripts/install-peers.sh` builds or installs (peers/bin, a venv,
/// node_modules) is checked at run time by `Server::missing` instead.
#[test]
fn every_peer_names_committed_files_that_exist() {
    let m = Manifest::load_default().unwrap_or_else(|e| panic!("{e}"));
    let root = workspace_root();
    let built = ["peers/bin/", "/.venv/", "/node_modules/"];
    let mut peers = 0;
    for s in m.servers.iter().filter(|s| s.is_peer()) {
        peers += 1;
        let argv = s.argv(&root, "127.0.0.1:0").expect("a peer has a command");
        for arg in argv.iter().filter(|a| a.starts_with("peers/")) {
            if built.iter().any(|b| arg.contains(b)) {
                continue;
            }
            assert!(root.join(arg).is_file(), "{}: {arg} does not exist", s.name);
        }
        for a in &s.analogue {
            assert!(
                m.get(a).is_some_and(|v| v.package.is_some()),
                "{}: analogue {a}",
                s.name
            );
        }
    }
    assert!(peers > 0, "servers.toml lists no peer");
}
