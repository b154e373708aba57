//! Every relative link of the documentation resolves: README.md, every markdown file under
//! docs/, each crate's README and peers/README.md. A link's file (or directory) must exist
//! inside the repository, and its `#anchor`, in a markdown file, must be one of that file's
//! headings as GitHub names them. No file may mention the notes folder beside the repository
//! ([`OUTSIDE`]), which a clone does not have.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The markdown files whose links are checked, relative to `root`, sorted.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("README.md"), PathBuf::from("peers/README.md")];
    if let Ok(crates) = fs::read_dir(root.join("crates")) {
        for c in crates.flatten() {
            let readme = c.path().join("README.md");
            if readme.is_file() {
                out.push(readme.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out.retain(|p| root.join(p).is_file());
    out.sort();
    out.dedup();
    out
}

/// The anchors GitHub gives the headings of `text`: lowercase, letters, digits, `-` and `_`
/// kept, spaces to `-`, everything else dropped; a repeated one gets `-1`, `-2`, ….
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let h = heading.take().unwrap_or_default();
                let slug: String = h
                    .to_lowercase()
                    .chars()
                    .filter_map(|c| match c {
                        ' ' => Some('-'),
                        c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                        _ => None,
                    })
                    .collect();
                let n = seen.entry(slug.clone()).or_insert(0);
                out.push(if *n == 0 { slug } else { format!("{slug}-{n}") });
                *n += 1;
            }
            _ => {}
        }
    }
    out
}

/// Every link and image target of `text`.
fn links(text: &str) -> Vec<String> {
    Parser::new(text)
        .filter_map(|e| match e {
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => Some(dest_url.to_string()),
            _ => None,
        })
        .collect()
}

/// `path` with `.` and `..` resolved without touching the disk; `None` when it climbs above
/// its start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop()?;
            }
            c => out.push(c),
        }
    }
    Some(out.iter().collect())
}

/// The folder of notes beside the repository. Assembled, so that this file itself names no
/// path outside the repository.
const OUTSIDE: &str = concat!("..", "/", "shared");

/// What is wrong with the links of `doc` (relative to `root`), one line each.
fn broken(root: &Path, doc: &Path) -> Vec<String> {
    let text = fs::read_to_string(root.join(doc)).unwrap();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.contains(OUTSIDE) {
            out.push(format!(
                "{}:{}: mentions {OUTSIDE}, outside the repository",
                doc.display(),
                n + 1
            ));
        }
    }
    let dir = doc.parent().unwrap_or(Path::new(""));
    for link in links(&text) {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = match link.split_once('#') {
            Some((f, a)) => (f, Some(a)),
            None => (link.as_str(), None),
        };
        let target = if file.is_empty() {
            Some(doc.to_path_buf())
        } else if file.starts_with('/') {
            None
        } else {
            normalize(&dir.join(file))
        };
        let Some(target) = target else {
            out.push(format!(
                "{}: {link}: points outside the repository",
                doc.display()
            ));
            continue;
        };
        let full = root.join(&target);
        if !full.exists() {
            out.push(format!(
                "{}: {link}: {} does not exist",
                doc.display(),
                target.display()
            ));
            continue;
        }
        if let Some(anchor) = anchor
            && full.extension().is_some_and(|x| x == "md")
        {
            let have = anchors(&fs::read_to_string(&full).unwrap());
            if !have.iter().any(|a| a == anchor) {
                out.push(format!(
                    "{}: {link}: no heading #{anchor} in {}",
                    doc.display(),
                    target.display()
                ));
            }
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_documentation_resolves() {
    let root = root();
    let docs = documents(&root);
    assert!(docs.contains(&PathBuf::from("README.md")));
    assert!(docs.contains(&PathBuf::from("docs/contract.md")));
    assert!(docs.contains(&PathBuf::from("docs/results/README.md")));
    assert!(docs.contains(&PathBuf::from("crates/bench/README.md")));
    let problems: Vec<String> = docs.iter().flat_map(|d| broken(&root, d)).collect();
    assert!(
        problems.is_empty(),
        "{} broken link(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn a_broken_link_an_anchor_and_an_outside_path_are_each_named() {
    let dir = std::env::temp_dir().join(format!("links-{}", std::process::id()));
    fs::create_dir_all(dir.join("docs")).unwrap();
    fs::write(
        dir.join("docs/a.md"),
        "# A\n\n## The `b` part: it's here\n\n## A\n",
    )
    .unwrap();
    fs::write(
        dir.join("README.md"),
        format!(
            "See [a](docs/a.md), [b](docs/a.md#the-b-part-its-here), [a again](docs/a.md#a-1), \
         [top](#readme), [web](https://example.invalid/x), [dir](docs/).\n\n\
         Broken: [gone](docs/gone.md), [anchor](docs/a.md#nowhere), [up](../../etc/passwd), \
         and the rules in {OUTSIDE}/STYLE.md.\n\n# Readme\n"
        ),
    )
    .unwrap();
    let problems = broken(&dir, Path::new("README.md"));
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        problems,
        [
            format!("README.md:3: mentions {OUTSIDE}, outside the repository").as_str(),
            "README.md: docs/gone.md: docs/gone.md does not exist",
            "README.md: docs/a.md#nowhere: no heading #nowhere in docs/a.md",
            "README.md: ../../etc/passwd: points outside the repository",
        ],
        "{problems:#?}"
    );
}
