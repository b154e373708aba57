//! How the reports write figures and text: numbers with thousands separators ([`thousands`],
//! [`grouped`]), microseconds with a short unit ([`us_label`]), dates and revisions ([`date`],
//! [`short`]), text escaped for HTML and SVG ([`escape`]) and with inline marks ([`inline`]),
//! and text fit for a public page ([`public`]). Every report formats through here.

use std::fmt::Write as _;

use bench_model::stats::Interval;

/// A rate with thousands separators and no decimals (`81,103`): the model's, so that the
/// rules' reasons and the reports write a rate alike.
pub use bench_model::stats::thousands;

/// An interval in words, where no key says what a bracket is (a chart's tooltip): `95 % CI:
/// 1.68 ms–73 ms` at 95 %, `min–max of 3 rounds, 75 %: 1.68 ms–73 ms` below it
/// ([`Interval::label`]), each end written by `f`.
pub fn interval_words(i: &Interval, f: impl Fn(f64) -> String) -> String {
    format!("{}: {}–{}", i.label(), f(i.low), f(i.high))
}

/// `x` with thousands separators and `decimals` decimals (`2,500.61`).
pub fn grouped(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    let s = format!("{:.*}", decimals, x.abs());
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    let mut out = thousands(int.parse::<f64>().unwrap_or(0.0));
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if x < 0.0 && s.bytes().any(|c| c.is_ascii_digit() && c != b'0') {
        out.insert(0, '-');
    }
    out
}

/// `s` with `&`, `<`, `>`, `"` and `'` escaped, for XML and HTML text and attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Microseconds with a unit that keeps the figure short: `350 µs`, `2.5 ms`, `1.2 s`.
pub fn us_label(us: f64) -> String {
    let trim = |x: f64| {
        let s = if x >= 100.0 {
            grouped(x, 0)
        } else if x >= 10.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.2}")
        };
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if us < 1000.0 {
        format!("{} µs", trim(us))
    } else if us < 1_000_000.0 {
        format!("{} ms", trim(us / 1000.0))
    } else {
        format!("{} s", trim(us / 1_000_000.0))
    }
}

/// Escapes `text`, turns `` `code` `` into `<code>code</code>` and `**bold**` into
/// `<strong>bold</strong>`.
pub fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut bold = false;
    for (k, part) in text.split('`').enumerate() {
        if k % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", escape(part));
            continue;
        }
        for (j, plain) in part.split("**").enumerate() {
            if j > 0 {
                out.push_str(if bold { "</strong>" } else { "<strong>" });
                bold = !bold;
            }
            out.push_str(&escape(plain));
        }
    }
    if bold {
        out.push_str("</strong>");
    }
    out
}

/// The date of a timestamp (`2026-11-29T23:45:59Z` → `2026-11-29`).
pub fn date(stamp: &str) -> &str {
    stamp.get(..10).unwrap_or(stamp)
}

/// A revision as seven hex digits.
pub fn short(rev: &str) -> &str {
    rev.get(..7).unwrap_or(rev)
}

/// Where a machine path can start.
const ROOTS: &[&str] = &[
    "/work/",
    "/home/",
    "/tmp/",
    "/root/",
    "/Users/",
    "/mnt/",
    "/opt/",
    "/srv/",
    "/var/",
    "/usr/",
    "/nix/",
    "/private/",
    "/run/",
];

/// `text` fit for a public page: a local server's address and port (`127.0.0.1:40123`,
/// `localhost:40123`) becomes `SERVER` (`http://SERVER/`), and a machine path (one starting
/// at `/work/`, `/home/`, `/tmp/`, … after a space, a quote or the start) its file name
/// (`/work/main/target/release/server-hyper` → `server-hyper`). Request targets (`/api/hello`)
/// are no machine paths and stay.
pub fn public(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let boundary = out
            .chars()
            .next_back()
            .is_none_or(|p| !(p.is_alphanumeric() || "._-/:".contains(p)));
        if let Some(after) = ["127.0.0.1:", "localhost:", "[::1]:"]
            .iter()
            .find_map(|h| rest.strip_prefix(h))
        {
            let port = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if port > 0 {
                out.push_str("SERVER");
                rest = &after[port..];
                continue;
            }
        }
        if boundary && ROOTS.iter().any(|r| rest.starts_with(r)) {
            let end = rest
                .find(|c: char| c.is_whitespace() || "\"'<>`)],;&|".contains(c))
                .unwrap_or(rest.len());
            let path = &rest[..end];
            let name = path.split('/').rfind(|p| !p.is_empty()).unwrap_or("");
            out.push_str(name);
            rest = &rest[end..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_and_escaped() {
        assert_eq!(grouped(2500.61, 2), "2,500.61");
        assert_eq!(grouped(999.96, 1), "1,000.0");
        assert_eq!(grouped(-1234.5, 1), "-1,234.5");
        assert_eq!(grouped(-0.001, 1), "0.0");
        assert_eq!(grouped(185_209.4, 0), "185,209");
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1000.0), "1,000");
        assert_eq!(thousands(81_102.92), "81,103");
        assert_eq!(thousands(1_234_567.0), "1,234,567");
        assert_eq!(thousands(-1500.0), "-1,500");
        assert_eq!(thousands(f64::NAN), "n/a");
    }

    #[test]
    fn machine_paths_and_ports_are_not_public() {
        assert_eq!(
            public("wrk -t1 http://127.0.0.1:40123/ and localhost:8080"),
            "wrk -t1 http://SERVER/ and SERVER"
        );
        assert_eq!(
            public("`/work/main/target/release/server-hyper --port 1` ran"),
            "`server-hyper --port 1` ran"
        );
        assert_eq!(
            public("<code>/tmp/bench-x/results/</code> GET /api/hello"),
            "<code>results</code> GET /api/hello"
        );
        assert_eq!(public("&quot;/home/me/a.json&quot;"), "&quot;a.json&quot;");
        // Request targets, URLs' paths and ratios stay.
        for same in [
            "/api/sync-offload",
            "http://x/tmp/y",
            "0.42× 127.0.0.1 alone",
            "a/tmp/b",
        ] {
            assert_eq!(public(same), same);
        }
    }
}
