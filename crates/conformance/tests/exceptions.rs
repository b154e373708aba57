//! `servers.toml` writes an exception as one reason and the checks it excuses (names, or
//! patterns with `*`), or takes another server's with `exceptions_from`. Before, it wrote one
//! block per check: 162 blocks, 48 distinct reasons. This test holds the grouped file to the
//! old one, kept as `tests/data/servers-3d8d593.toml` (`git show 3d8d593:servers.toml`, blob
//! a573a20, verbatim but for one comment line, which named a file outside the repository and
//! now names `docs/experiments.md`), server by server and check by check:
//!
//! - every server excuses exactly the checks it excused before, no more, no fewer (as
//!   [`suite::options_for`] expands them, the one rule every test and `bench verify` use);
//! - checks that shared a reason before share one now (reasons were shortened and some
//!   merged, never split), so no check got a story of its own on the way.

use std::collections::{BTreeMap, BTreeSet};

use conformance::Group;
use conformance::suite::{self, check_names};

/// The old file: per server, `check → reason`.
fn before() -> BTreeMap<String, BTreeMap<String, String>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/servers-3d8d593.toml"
    );
    let text = std::fs::read_to_string(path).expect("the old servers.toml");
    let table: toml::Table = toml::from_str(&text).expect("it parses");
    let mut out = BTreeMap::new();
    for server in table["server"].as_array().expect("[[server]]") {
        let name = server["name"].as_str().expect("name").to_owned();
        let mut excused = BTreeMap::new();
        for e in server
            .get("exception")
            .and_then(|e| e.as_array())
            .into_iter()
            .flatten()
        {
            let check = e["check"].as_str().expect("check").to_owned();
            let reason = e["reason"].as_str().expect("reason").to_owned();
            assert!(
                excused.insert(check.clone(), reason).is_none(),
                "{name}: {check} twice in the old file"
            );
        }
        out.insert(name, excused);
    }
    out
}

/// The grouped file as the tests and `bench verify` read it: per server, `check → reason`.
fn now(manifest: &manifest::Manifest) -> BTreeMap<String, BTreeMap<String, String>> {
    manifest
        .servers
        .iter()
        .map(|s| {
            let options = suite::options_for(s, &Group::ALL).unwrap_or_else(|e| panic!("{e}"));
            (s.name.clone(), options.skip.into_iter().collect())
        })
        .collect()
}

/// What differs between `old` and `new`, one line each (empty: the same).
fn differences(
    old: &BTreeMap<String, BTreeMap<String, String>>,
    new: &BTreeMap<String, BTreeMap<String, String>>,
) -> Vec<String> {
    let mut out = Vec::new();
    let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let empty = BTreeMap::new();
    for name in names {
        let (was, is) = (
            old.get(name).unwrap_or(&empty),
            new.get(name).unwrap_or(&empty),
        );
        for check in was.keys().filter(|c| !is.contains_key(*c)) {
            out.push(format!("{name}: {check} was excused, is not now"));
        }
        for check in is.keys().filter(|c| !was.contains_key(*c)) {
            out.push(format!("{name}: {check} is excused now, was not before"));
        }
        // Checks that shared a reason before share one now.
        let mut by_old_reason: BTreeMap<&String, BTreeSet<&String>> = BTreeMap::new();
        for (check, reason) in was {
            if let Some(new_reason) = is.get(check) {
                by_old_reason.entry(reason).or_default().insert(new_reason);
            }
        }
        for (reason, now) in by_old_reason.into_iter().filter(|(_, n)| n.len() > 1) {
            let checks: Vec<&String> = was
                .iter()
                .filter(|(_, r)| *r == reason)
                .map(|(c, _)| c)
                .collect();
            out.push(format!(
                "{name}: {checks:?} shared one reason before, now {} different ones",
                now.len()
            ));
        }
    }
    out
}

#[test]
fn grouped_exceptions_excuse_exactly_the_checks_excused_one_by_one_before() {
    let old = before();
    let new = now(&suite::workspace_manifest());
    let (checks_before, checks_now): (usize, usize) = (
        old.values().map(BTreeMap::len).sum(),
        new.values().map(BTreeMap::len).sum(),
    );
    for (name, excused) in &new {
        let reasons: BTreeSet<&String> = excused.values().collect();
        let was: BTreeSet<&String> = old.get(name).into_iter().flat_map(|e| e.values()).collect();
        println!(
            "{name}: {} checks excused ({} before), {} reasons ({} before)",
            excused.len(),
            old.get(name).map_or(0, BTreeMap::len),
            reasons.len(),
            was.len()
        );
    }
    let diff = differences(&old, &new);
    assert!(diff.is_empty(), "{}", diff.join("\n"));
    assert_eq!((checks_before, checks_now), (162, 162));
}

/// The comparison can fail: one check fewer, one more, and a reason split in two are each
/// named.
#[test]
fn the_comparison_names_a_check_lost_gained_or_given_its_own_reason() {
    let old = before();
    let good = now(&suite::workspace_manifest());
    assert!(differences(&old, &good).is_empty());

    let mut lost = good.clone();
    lost.get_mut("server-may")
        .unwrap()
        .remove("bad.slowloris")
        .unwrap();
    assert_eq!(
        differences(&old, &lost),
        ["server-may: bad.slowloris was excused, is not now"]
    );

    let mut gained = good.clone();
    gained
        .get_mut("tornado")
        .unwrap()
        .insert("core.hello.get".into(), "x".into());
    assert_eq!(
        differences(&old, &gained),
        ["tornado: core.hello.get is excused now, was not before"]
    );

    let mut split = good;
    *split
        .get_mut("server-may")
        .unwrap()
        .get_mut("core.root.get")
        .unwrap() = "a reason of its own".into();
    let diff = differences(&old, &split);
    assert_eq!(diff.len(), 1, "{diff:?}");
    assert!(
        diff[0].starts_with("server-may: [\"bad.alive-after\", ")
            && diff[0].contains("\"core.root.get\"")
            && diff[0].ends_with("shared one reason before, now 2 different ones"),
        "{diff:?}"
    );
}

/// Every name and pattern of servers.toml matches a check, and no check of a server is
/// excused twice (what `suite::load_manifest` refuses, shown on a broken copy).
#[test]
fn every_pattern_matches_a_check_and_a_bad_one_is_named() {
    let m = suite::workspace_manifest();
    assert!(m.check_exceptions(&check_names()).is_ok());
    let text = std::fs::read_to_string(manifest::default_path()).unwrap();
    let broken = text.replacen("\"bad.version-*\"", "\"bad.versoin-*\"", 1);
    assert_ne!(
        broken, text,
        "servers.toml no longer has the pattern this test breaks"
    );
    let e = manifest::Manifest::parse(&broken)
        .unwrap()
        .check_exceptions(&check_names())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "servers.toml: server \"server-may\": exception `checks` entry \"bad.versoin-*\" matches no conformance check"
    );
}
