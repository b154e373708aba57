//! What the report tests share: the recorded results documents, the markdown tables read
//! back, the SVG's texts and its well-formedness, a run cut to its first rounds, the charts of a
//! page and of an SVG file as drawings to check.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use bench_chart::draw::Drawn;
use bench_model::results::Results;
use bench_model::results::timeline::Timeline;

pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

pub fn load(name: &str) -> Results {
    Results::load(&data(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// `r` cut to its first round, as a run of one round would be.
pub fn first_round(r: &Results) -> Results {
    let mut one = r.clone();
    for s in &mut one.servers {
        for st in &mut s.steps {
            st.repeats.retain(|run| run.round == Some(1));
            st.finish();
        }
    }
    one
}

/// The first table after the line `heading`: header cells, then rows of cells.
pub fn table(md: &str, heading: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = md.lines().skip_while(|l| *l != heading);
    assert!(lines.next().is_some(), "no heading {heading:?} in:\n{md}");
    let rows: Vec<Vec<String>> = lines
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect();
    assert!(rows.len() >= 2, "no table under {heading:?}");
    let mut it = rows.into_iter();
    let head = it.next().unwrap_or_default();
    let body: Vec<Vec<String>> = it.skip(1).collect(); // the rule
    for r in &body {
        assert_eq!(r.len(), head.len(), "ragged row {r:?} under {head:?}");
    }
    (head, body)
}

pub fn cell<'a>(t: &'a (Vec<String>, Vec<Vec<String>>), row: &str, col: &str) -> &'a str {
    let c =
        t.0.iter()
            .position(|h| h == col)
            .unwrap_or_else(|| panic!("no column {col:?} in {:?}", t.0));
    let r =
        t.1.iter()
            .find(|r| r[0] == row)
            .unwrap_or_else(|| panic!("no row {row:?}"));
    &r[c]
}

/// A small well-formedness check: tags balance, attributes are quoted, text has no `<`.
pub fn well_formed(xml: &str) -> Result<(), String> {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = xml.trim_start();
    if let Some(r) = rest.strip_prefix("<?xml") {
        rest = &r[r.find("?>").ok_or("unclosed declaration")? + 2..];
    }
    let mut root_seen = false;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        if let Some(r) = rest.strip_prefix("<!--") {
            rest = &r[r.find("-->").ok_or("unclosed comment")? + 3..];
            continue;
        }
        let end = rest.find('>').ok_or("unclosed tag")?;
        let tag = &rest[1..end];
        if !tag.matches('"').count().is_multiple_of(2) {
            return Err(format!("unbalanced quotes in <{tag}>"));
        }
        if let Some(name) = tag.strip_prefix('/') {
            match stack.pop() {
                Some(open) if open == name.trim() => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
        } else {
            let name = tag
                .split_whitespace()
                .next()
                .ok_or("empty tag")?
                .trim_end_matches('/')
                .to_string();
            if stack.is_empty() && root_seen {
                return Err("two root elements".into());
            }
            root_seen = true;
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        rest = &rest[end + 1..];
        let text_end = rest.find('<').unwrap_or(rest.len());
        if rest[..text_end].contains('>') {
            return Err("a raw > in text".into());
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed {stack:?}"));
    }
    if !root_seen {
        return Err("no root element".into());
    }
    Ok(())
}

/// The trimmed contents of the `<text>` elements.
pub fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let start = t.find('>')? + 1;
            let end = t.find("</text>")?;
            Some(t.get(start..end)?.trim().to_string())
        })
        .collect()
}

/// `r` with the steps of `server` (every server's with `None`) cut to their first `k` rounds,
/// as a run of fewer rounds would be.
pub fn first_rounds(r: &Results, k: u32, server: Option<&str>) -> Results {
    let mut cut = r.clone();
    for s in cut
        .servers
        .iter_mut()
        .filter(|s| server.is_none_or(|n| s.name == n))
    {
        for st in &mut s.steps {
            st.repeats.retain(|run| run.round.is_some_and(|n| n <= k));
            st.finish();
        }
    }
    cut
}

/// The value of attribute `name` in the opening tag `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    Some(&tag[at..at + tag[at..].find('"')?])
}

/// Every chart drawing of a page: each `<svg>` of class `chart` or `headline-chart`, named by
/// its class, `data-chart` and label, with its elements and its viewBox's size.
pub fn page_drawings(html: &str) -> Vec<(String, Drawn)> {
    let mut out = Vec::new();
    for piece in html.split("<svg ").skip(1) {
        let end = piece.find('>').unwrap();
        let open = &format!(" {}", &piece[..end]);
        let class = attr(open, "class").unwrap_or_default();
        if !class.starts_with("chart ") && !class.starts_with("headline-chart ") {
            continue;
        }
        let size: Vec<f64> = attr(open, "viewBox")
            .unwrap()
            .split(' ')
            .map(|v| v.parse().unwrap())
            .collect();
        let body = &piece[end + 1..piece.find("</svg>").unwrap()];
        let name = format!(
            "{class} {} {}",
            attr(open, "data-chart").unwrap_or_default(),
            attr(open, "aria-label").unwrap_or_default()
        );
        out.push((
            name,
            Drawn {
                body: body.to_string(),
                width: size[2],
                height: size[3],
            },
        ));
    }
    out
}

/// The charts of an SVG file (`bench_report::svg_string`): each `<g transform="translate(0,Y)">`
/// at the top level, as tall as the room to the next one (or the file's end) less the 16 px
/// between them.
pub fn file_drawings(svg: &str) -> Vec<Drawn> {
    let width: f64 = attr(svg, "width").unwrap().parse().unwrap();
    let height: f64 = attr(svg, "height").unwrap().parse().unwrap();
    // (y, body) of each top-level group, found by counting the groups' depth.
    let mut groups: Vec<(f64, String)> = Vec::new();
    let (mut depth, mut start) = (0, None);
    let mut at = 0;
    while let Some(i) = svg[at..].find('<') {
        let i = at + i;
        let end = i + svg[i..].find('>').unwrap();
        let tag = &svg[i..=end];
        if tag.starts_with("<g") && !tag.ends_with("/>") {
            if depth == 0 {
                let y = attr(tag, "transform")
                    .and_then(|t| t.strip_prefix("translate(0,"))
                    .and_then(|t| t.strip_suffix(')'))
                    .map(|y| y.parse().unwrap())
                    .unwrap();
                start = Some((y, end + 1));
            }
            depth += 1;
        } else if tag == "</g>" {
            depth -= 1;
            if depth == 0 {
                let (y, from) = start.take().unwrap();
                groups.push((y, svg[from..i].to_string()));
            }
        }
        at = end + 1;
    }
    let tops: Vec<f64> = groups
        .iter()
        .map(|(y, _)| *y)
        .skip(1)
        .chain([height])
        .collect();
    groups
        .into_iter()
        .zip(tops)
        .map(|((y, body), next)| Drawn {
            body,
            width,
            height: next - y - 16.0,
        })
        .collect()
}

/// `r` with a timeline in every repeat of `server`'s `endpoint` `step`: 8 half-second
/// intervals at 10,000 answers/s within 1 %, steal 1 %; in round `dip` (when given) the fifth
/// interval 20 % down while steal was 30 %.
pub fn with_timelines(
    mut r: Results,
    server: &str,
    endpoint: &str,
    step: &str,
    dip: Option<u32>,
) -> Results {
    let st = r
        .servers
        .iter_mut()
        .find(|s| s.name == server)
        .and_then(|s| {
            s.steps
                .iter_mut()
                .find(|st| st.endpoint == endpoint && st.step == step)
        })
        .unwrap_or_else(|| panic!("no {server} {endpoint} {step}"));
    for run in &mut st.repeats {
        let mut rates = [
            10_000.0, 10_100.0, 9_900.0, 10_000.0, 10_050.0, 9_950.0, 10_000.0, 9_980.0,
        ];
        let mut steal = [1.0; 8];
        if run.round == dip {
            rates[4] = 8_000.0;
            steal[4] = 30.0;
        }
        run.timeline = Some(Timeline {
            interval_s: 0.5,
            duration_s: vec![0.5; 8],
            loopback_mb_per_s: rates.iter().map(|x| x / 1000.0).collect(),
            responses_per_s: Some(rates.to_vec()),
            steal_percent: steal.to_vec(),
            other_percent: vec![1.0; 8],
            server_wait_percent: vec![0.5; 8],
            ..Timeline::default()
        });
    }
    r
}
