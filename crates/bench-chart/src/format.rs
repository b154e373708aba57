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

/// `x` with thousands separators and `decimals` decimals (`2,500.61`), rounded half away
/// from zero as [`thousands`] is (`107,820.5` → `107,821` at no decimals): the one way every
/// figure is written, in the charts, the tables, the findings and the README, so that one
/// value never reads two ways.
pub fn grouped(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    let s = round_half_away(x.abs(), decimals);
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

/// An offered rate, short: `500`, `1k`, `2.5k`, `160k`, `1M`.
pub fn rate(rate: f64) -> String {
    let trim = |x: f64| {
        let s = grouped(x, 1);
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if rate >= 1_000_000.0 {
        format!("{}M", trim(rate / 1_000_000.0))
    } else if rate >= 1000.0 {
        format!("{}k", trim(rate / 1000.0))
    } else {
        trim(rate)
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn listed(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Microseconds as milliseconds with two decimals (`23,540` → `23.54`): every latency the
/// tables and findings give in ms.
pub fn ms(us: f64) -> String {
    grouped(us / 1000.0, 2)
}

/// Microseconds with two decimals (`15,426.19`): every CPU time per request.
pub fn cpu(us: f64) -> String {
    grouped(us, 2)
}

/// KiB as MB (MiB) with one decimal (`4096` → `4.0`): every RSS.
pub fn mb(kb: f64) -> String {
    grouped(kb / 1024.0, 1)
}

/// `x` (not negative) with `decimals` decimals, rounded half away from zero: the exact
/// decimal value of `x`, so that only a true tie (`107,820.5`, `0.125`) rounds up where
/// `format!` would round it to even; `8.395`, stored as 8.39499…, stays `8.39`.
fn round_half_away(x: f64, decimals: usize) -> String {
    // Every decimal digit of a double this side of 2^-60 is exact within 64 places past the
    // ones shown; a tie is a 5 followed by zeros only.
    const MORE: usize = 64;
    let long = format!("{:.*}", decimals + MORE, x);
    let (head, tail) = long.split_at(long.len() - MORE);
    let tie = tail.starts_with('5') && tail[1..].bytes().all(|b| b == b'0');
    if !tie {
        return format!("{:.*}", decimals, x);
    }
    // Up by one in the last place shown, carrying.
    let head = head.trim_end_matches('.');
    let mut digits: Vec<u8> = head.bytes().collect();
    let mut i = digits.len();
    loop {
        if i == 0 {
            digits.insert(0, b'1');
            break;
        }
        i -= 1;
        match digits[i] {
            b'.' => continue,
            b'9' => digits[i] = b'0',
            d => {
                digits[i] = d + 1;
                break;
            }
        }
    }
    String::from_utf8(digits).unwrap_or_default()
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
            grouped(x, 1)
        } else {
            grouped(x, 2)
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
        // Half away from zero, as `thousands`: one value, one text.
        assert_eq!(grouped(107_820.5, 0), "107,821");
        assert_eq!(grouped(107_820.5, 0), thousands(107_820.5));
        assert_eq!(grouped(0.125, 2), "0.13");
        assert_eq!(grouped(-2.5, 0), "-3");
        assert_eq!(grouped(8.395, 2), "8.39", "8.39499… is no tie");
        assert_eq!(grouped(9.995, 2), "9.99");
        assert_eq!(grouped(99.5, 0), "100");
        assert_eq!(grouped(0.5, 0), "1");
        assert_eq!(grouped(1_458.175, 2), "1,458.17");
        for x in [0.0, 1.0, 12.345, 1e6 + 0.5, 3.999_999, 1_234.567_8] {
            for d in 0..4 {
                let ours: f64 = grouped(x, d).replace(',', "").parse().unwrap();
                assert!(
                    (ours - x).abs() <= 0.5 * 10f64.powi(-(d as i32)) + 1e-9,
                    "{x} {d}"
                );
            }
        }
        assert_eq!(ms(23_540.0), "23.54");
        assert_eq!(cpu(15_426.186), "15,426.19");
        assert_eq!(mb(4096.0), "4.0");
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
