//! A fast path for the request heads load tools send: a complete head of plain, valid shape
//! (a method token, one space, a target of visible ASCII, one space, `HTTP/1.0` or `HTTP/1.1`,
//! CRLF; fields `name: value` each ending in CRLF; a CRLF) is parsed here in one pass; any
//! other input — incomplete, a bare LF, leading empty lines, obs-fold, non-ASCII in the target,
//! any byte httparse would refuse, more fields than there is room for — makes [`parse`]
//! return `None`, and httparse decides as before.
//!
//! For every head it accepts, the result is the one httparse gives (the same method, target,
//! version, field names and values with the same trimming, and the same length): a property
//! test in `tests/head.rs` holds the two side by side on generated and mutated heads. httparse
//! costs about 500 instructions for `GET / HTTP/1.1` with one `Host` field (measured under
//! callgrind: its SIMD dispatch and per-field set-up dominate a short head); this path about a
//! quarter of that.

use std::mem::MaybeUninit;

use httparse::{Header, Request};

/// `tchar` of RFC 9110 §5.6.2: the bytes of a method and of a field name.
static TCHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'.'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'|'
                    | b'~'
            );
        i += 1;
    }
    t
};

/// The target bytes taken here: visible ASCII (httparse also takes obs-text, then checks
/// UTF-8; those targets go to it).
static TARGET: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0x21;
    while i <= 0x7E {
        t[i] = true;
        i += 1;
    }
    t
};

/// Field-value bytes (httparse's): HTAB, SP, visible ASCII, obs-text.
static VALUE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i == 0x09 || (i >= 0x20 && i <= 0x7E) || i >= 0x80;
        i += 1;
    }
    t
};

/// The end of a run of bytes in `table`, from `i`.
#[inline(always)]
fn run(buf: &[u8], mut i: usize, table: &[bool; 256]) -> usize {
    while let Some(&b) = buf.get(i) {
        if !table[b as usize] {
            break;
        }
        i += 1;
    }
    i
}

/// Eight bytes from `i` as a little-endian word (byte `i` lowest), if there are eight.
#[inline(always)]
fn word(buf: &[u8], i: usize) -> Option<u64> {
    let bytes = buf.get(i..)?.first_chunk::<8>()?;
    Some(u64::from_le_bytes(*bytes))
}

/// Every byte of a word equal to `b`.
const fn splat(b: u8) -> u64 {
    0x0101_0101_0101_0101 * b as u64
}

/// `b` in each of the low `n` bytes of a word (`n` < 8).
const fn splat_low(b: u8, n: u32) -> u64 {
    splat(b) & mask_low(n)
}

/// The low `n` bytes of a word set (`n` < 8).
const fn mask_low(n: u32) -> u64 {
    (1 << (8 * n)) - 1
}

/// `host:` as the low five bytes of a word ([`word`]); a name's first four bytes with 0x20
/// set are `host` only if they are `Host` in some case, since only the letters among bytes
/// turn into letters so.
const HOST: u64 = u64::from_le_bytes(*b"host:\0\0\0");

/// The high bit of every byte of `w` below `n` (`n` ≤ 0x80). Only the lowest bit set is
/// exact (a borrow runs upwards from the first hit), which is all the scans below use.
#[inline(always)]
fn below(w: u64, n: u8) -> u64 {
    w.wrapping_sub(splat(n)) & !w & splat(0x80)
}

/// The high bit of every byte of `w` equal to `b`; only the lowest bit set is exact.
#[inline(always)]
fn equal(w: u64, b: u8) -> u64 {
    below(w ^ splat(b), 1)
}

/// The position of the first byte flagged in `mask` (some bit set) of the word at `i`.
#[inline(always)]
fn first(i: usize, mask: u64) -> usize {
    i + (mask.trailing_zeros() / 8) as usize
}

/// The end of a request target from `i`: the first byte that is not visible ASCII, eight
/// bytes at a time (the same bytes as [`TARGET`]).
#[inline(always)]
fn target_end(buf: &[u8], mut i: usize) -> usize {
    while let Some(w) = word(buf, i) {
        // Below 0x21, or 0x7F and up (0x7F turns 0x80 when one is added; a carry out of a
        // byte comes only from 0xFF, itself a hit).
        let mask = below(w, 0x21) | ((w.wrapping_add(splat(1)) | w) & splat(0x80));
        if mask != 0 {
            return first(i, mask);
        }
        i += 8;
    }
    run(buf, i, &TARGET)
}

/// The end of a field value from `i`: the first byte that is not [`VALUE`], eight bytes at a
/// time (a control byte other than HTAB, or DEL; HTAB itself is looked at alone).
#[inline(always)]
fn value_end(buf: &[u8], mut i: usize) -> usize {
    while let Some(w) = word(buf, i) {
        let mask = below(w, 0x20) | equal(w, 0x7F);
        if mask != 0 {
            let j = first(i, mask);
            if buf[j] != b'\t' {
                return j;
            }
            i = j + 1;
            continue;
        }
        i += 8;
    }
    run(buf, i, &VALUE)
}

/// ASCII bytes as `&str`.
#[inline(always)]
fn ascii(bytes: &[u8]) -> &str {
    debug_assert!(bytes.is_ascii());
    // SAFETY: every caller passes bytes it has checked against TCHAR or TARGET, whose bytes
    // are all ASCII, and ASCII is valid UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// Parses the complete head at the start of `buf` into `fields` if it has the plain shape
/// this module takes; returns its length and the request, or `None` (httparse then decides).
#[inline(always)]
pub fn parse<'h, 'b>(
    buf: &'b [u8],
    fields: &'h mut [MaybeUninit<Header<'b>>],
) -> Option<(usize, Request<'h, 'b>)> {
    let method_end = if buf.starts_with(b"GET ") {
        3
    } else {
        run(buf, 0, &TCHAR)
    };
    if method_end == 0 || buf.get(method_end) != Some(&b' ') {
        return None;
    }
    let target_start = method_end + 1;
    let target_end = target_end(buf, target_start);
    if target_end == target_start || buf.get(target_end) != Some(&b' ') {
        return None;
    }
    let mut i = target_end + 1;
    // `HTTP/1.` and a minor version of 0 or 1, then CRLF.
    let w = word(buf, i)?;
    let version = match w ^ u64::from_le_bytes(*b"HTTP/1.0") {
        0 => 0,
        0x0100_0000_0000_0000 => 1,
        _ => return None,
    };
    if buf.get(i + 8..i + 10)? != b"\r\n" {
        return None;
    }
    i += 10;
    let mut n = 0;
    loop {
        if *buf.get(i)? == b'\r' {
            if buf.get(i + 1) != Some(&b'\n') {
                return None;
            }
            i += 2;
            break;
        }
        let name_start = i;
        let name_end = match word(buf, i) {
            // `Host`, in any case (every HTTP/1.1 request has one): its letters are tchars and
            // `:` follows, all seen in one word.
            Some(w) if (w | splat_low(0x20, 4)) & mask_low(5) == HOST => i + 4,
            _ => run(buf, i, &TCHAR),
        };
        if name_end == name_start || buf.get(name_end) != Some(&b':') {
            return None;
        }
        i = name_end + 1;
        // Leading whitespace: most often one space, looked at alone before the loop.
        if buf.get(i) == Some(&b' ') {
            i += 1;
        }
        while matches!(buf.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        let value_start = i;
        i = value_end(buf, i);
        if buf.get(i..i + 2)? != b"\r\n" {
            return None;
        }
        let mut end = i;
        // Trailing whitespace is rare: one look at the last byte (a visible byte or obs-text
        // ends the value) before the trimming loop.
        if end > value_start && buf[end - 1] <= b' ' {
            while end > value_start && matches!(buf[end - 1], b' ' | b'\t') {
                end -= 1;
            }
        }
        i += 2;
        fields.get_mut(n)?.write(Header {
            name: ascii(&buf[name_start..name_end]),
            value: &buf[value_start..end],
        });
        n += 1;
    }
    // SAFETY: the first `n` elements of `fields` were each written just above (`write`), and
    // `MaybeUninit<Header>` has the layout of `Header`.
    let headers = unsafe { std::slice::from_raw_parts_mut(fields.as_mut_ptr().cast(), n) };
    Some((
        i,
        Request {
            method: Some(ascii(&buf[..method_end])),
            path: Some(ascii(&buf[target_start..target_end])),
            version: Some(version),
            headers,
        },
    ))
}
