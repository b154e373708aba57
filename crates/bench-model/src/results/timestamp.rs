//! The timestamps of a results document: `YYYY-MM-DDTHH:MM:SSZ` in UTC (RFC 3339, whole
//! seconds), formatted by the `time` crate, and the compact `YYYYMMDDTHHMMSSZ` form of the
//! file names.

use std::time::SystemTime;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Now, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    utc_iso(SystemTime::now())
}

/// `t` as `YYYY-MM-DDTHH:MM:SSZ` (whole seconds, cut, not rounded; times before 1970 print as
/// 1970-01-01).
pub fn utc_iso(t: SystemTime) -> String {
    let t = OffsetDateTime::from(t.max(SystemTime::UNIX_EPOCH));
    t.replace_nanosecond(0)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_string())
}

/// `YYYY-MM-DDTHH:MM:SSZ` as `YYYYMMDDTHHMMSSZ` (the file-name form); `None` for anything
/// else.
pub fn compact_stamp(iso: &str) -> Option<String> {
    let b = iso.as_bytes();
    let shape = b.len() == 20
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'Z',
            _ => c.is_ascii_digit(),
        });
    shape.then(|| iso.chars().filter(|&c| c != '-' && c != ':').collect())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(utc_iso(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day in a century year divisible by 400) 12:34:56.
        let t = UNIX_EPOCH + Duration::from_secs(951_827_696);
        assert_eq!(utc_iso(t), "2000-02-29T12:34:56Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_992_000);
        assert_eq!(utc_iso(t), "2026-11-29T22:40:00Z");
        assert_eq!(
            compact_stamp("2026-11-29T22:40:00Z").as_deref(),
            Some("20261129T224000Z")
        );
        assert_eq!(compact_stamp("2026-11-29 22:40:00"), None);
        assert_eq!(compact_stamp("2026-11-29T22:40:00Zx"), None);
        // Values from `date -u -d @SECS +%FT%TZ`.
        for (secs, want) in [
            (4_102_444_799, "2099-12-31T23:59:59Z"),
            (1_709_251_199, "2024-02-29T23:59:59Z"),
        ] {
            assert_eq!(utc_iso(UNIX_EPOCH + Duration::from_secs(secs)), want);
        }
    }

    #[test]
    fn subseconds_are_cut_and_before_1970_is_1970() {
        let t = UNIX_EPOCH + Duration::from_millis(1_795_992_000_999);
        assert_eq!(utc_iso(t), "2026-11-29T22:40:00Z");
        assert_eq!(
            utc_iso(UNIX_EPOCH - Duration::from_secs(5)),
            "1970-01-01T00:00:00Z"
        );
    }
}
