//! The generator's own CPU time, from getrusage.

/// User and system CPU seconds of the calling thread (of the process where per-thread
/// figures are not available).
pub(crate) fn thread_times() -> (f64, f64) {
    #[cfg(target_os = "linux")]
    let who = libc::RUSAGE_THREAD;
    #[cfg(not(target_os = "linux"))]
    let who = libc::RUSAGE_SELF;
    // SAFETY: all-zero is a valid `rusage` (plain integers and timevals).
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage for getrusage to fill.
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return (0.0, 0.0);
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(ru.ru_utime), secs(ru.ru_stime))
}

#[cfg(test)]
mod tests {
    #[test]
    fn burns_cpu() {
        let (u0, s0) = super::thread_times();
        let mut x = 0u64;
        let t = std::time::Instant::now();
        while t.elapsed().as_millis() < 50 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let (u1, s1) = super::thread_times();
        assert!(u1 + s1 - u0 - s0 > 0.01, "{u0} {u1} {s0} {s1}");
    }
}
