//! What pacing costs the generator: `loadgen::run` with `-t1 -c100` on `/hello` against the C
//! ceiling server, closed loop and paced (`-R`) at 40k to 120k requests/s, in rounds of a
//! shuffled order, and one table of the medians (see the README's "Paced against closed
//! loop").
//!
//! `cargo bench -p loadgen --bench paced_vs_closed`. The ceiling is `peers/bin/ceiling` under
//! the workspace root (`scripts/install-peers.sh` builds it), or `CEILING=path`; it runs
//! pinned to CPU 0 and this process to CPU 1. `LOADGEN_BENCH_SECONDS` (default 5) is each
//! run's measured length, after a 1 s warm-up; `LOADGEN_BENCH_ROUNDS` (default 3) the rounds.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Duration;

use loadgen::{Config, Load, RunResult};

const NAME: &str = "paced_vs_closed";
/// The paced rates, requests/s.
const RATES: [f64; 5] = [40_000.0, 60_000.0, 80_000.0, 100_000.0, 120_000.0];

/// The ceiling server this bench started; killed (by its PID) when dropped, also on a panic.
struct Ceiling(Child);

impl Drop for Ceiling {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

/// Pins process or thread `pid` (0: the calling thread) to `cpu`; false when it cannot.
fn pin(pid: libc::pid_t, cpu: usize) -> bool {
    // SAFETY: all-zero is an empty CPU set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu` is below CPU_SETSIZE (checked by the caller against the CPUs online).
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid cpu_set_t of the size passed.
    unsafe { libc::sched_setaffinity(pid, std::mem::size_of_val(&set), &set) == 0 }
}

fn start_ceiling(path: &PathBuf) -> Result<(Ceiling, String), String> {
    let child = Command::new(path)
        .args(["127.0.0.1", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", path.display()))?;
    let mut ceiling = Ceiling(child);
    let pid = libc::pid_t::try_from(ceiling.0.id()).map_err(|e| e.to_string())?;
    if !pin(pid, 0) {
        eprintln!("{NAME}: could not pin the ceiling to CPU 0; it runs unpinned");
    }
    let out = ceiling.0.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    BufReader::new(out)
        .read_line(&mut line)
        .map_err(|e| format!("reading the ceiling's first line: {e}"))?;
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .ok_or_else(|| format!("unexpected first line from the ceiling: {line:?}"))?;
    Ok((ceiling, format!("{url}/hello")))
}

/// One run's figures.
#[derive(Clone, Copy, Debug)]
struct Figures {
    rate: f64,
    /// The worker thread's CPU time over its wall time (warm-up included: the same load).
    cpu: f64,
    unsent: f64,
}

impl Figures {
    fn of(r: &RunResult) -> Figures {
        Figures {
            rate: r.requests_per_s,
            cpu: r.cpu.max_thread_utilisation,
            unsent: r.unsent as f64,
        }
    }

    /// CPU µs per response.
    fn us_per_response(&self) -> f64 {
        self.cpu * 1e6 / self.rate.max(1e-9)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (ceiling_path, named) = match std::env::var_os("CEILING") {
        Some(p) => (PathBuf::from(p), true),
        None => (root.join("peers/bin/ceiling"), false),
    };
    if !ceiling_path.is_file() {
        if named {
            eprintln!("{NAME}: CEILING={} is missing", ceiling_path.display());
        } else {
            eprintln!("{NAME}: peers/bin/ceiling is missing: run scripts/install-peers.sh first");
        }
        return ExitCode::FAILURE;
    }
    let seconds = env_number("LOADGEN_BENCH_SECONDS", 5);
    let rounds = env_number("LOADGEN_BENCH_ROUNDS", 3);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (_ceiling, url) = match start_ceiling(&ceiling_path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{NAME}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The worker threads loadgen starts inherit this thread's CPU.
    if cpus < 2 || !pin(0, 1) {
        eprintln!("{NAME}: could not pin the generator to CPU 1; it runs unpinned");
    }
    // Mode 0 is the closed loop, mode i the paced RATES[i - 1].
    let modes = RATES.len() + 1;
    let mut results: Vec<Vec<Figures>> = vec![Vec::new(); modes];
    let seed = fastrand::u64(..);
    let mut rng = fastrand::Rng::with_seed(seed);
    eprintln!(
        "{NAME}: {rounds} round(s) of {} runs, {seconds} s each after a 1 s warm-up, order seed {seed}",
        modes
    );
    for round in 1..=rounds {
        let mut order: Vec<usize> = (0..modes).collect();
        rng.shuffle(&mut order);
        for &m in &order {
            let mut config = match Config::new(&url) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("{NAME}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            config.connections = 100;
            config.threads = 1;
            config.duration = Some(Duration::from_secs(seconds));
            config.warmup = Duration::from_secs(1);
            if m > 0 {
                config.load = Load::Open { rate: RATES[m - 1] };
            }
            let r = match loadgen::run(&config) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("{NAME}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            if r.errors.total() > 0 {
                eprintln!("{NAME}: round {round}, {}: errors {:?}", label(m), r.errors);
            }
            results[m].push(Figures::of(&r));
        }
    }
    let med = |m: usize, f: fn(&Figures) -> f64| median(results[m].iter().map(f).collect());
    let closed_rate = med(0, |f| f.rate);
    let closed_us = med(0, Figures::us_per_response);
    println!(
        "{:<12} {:>12} {:>8} {:>10} {:>11} {:>10}",
        "mode", "requests/s", "CPU %", "CPU µs/r", "vs closed", "unsent"
    );
    for m in 0..modes {
        let rate = med(m, |f| f.rate);
        let us = med(m, Figures::us_per_response);
        let ratio = if m == 0 {
            "-".to_string()
        } else {
            let same = (rate / closed_rate - 1.0).abs() <= 0.1;
            format!("{:.2}{}", us / closed_us, if same { "*" } else { "" })
        };
        println!(
            "{:<12} {:>12.0} {:>8.1} {:>10.2} {:>11} {:>10.0}",
            label(m),
            rate,
            med(m, |f| f.cpu) * 100.0,
            us,
            ratio,
            med(m, |f| f.unsent)
        );
    }
    println!(
        "medians of {rounds} round(s); vs closed: CPU µs per response, paced over closed \
         (* where the paced run achieved within 10 % of the closed loop's requests/s)"
    );
    ExitCode::SUCCESS
}

fn label(mode: usize) -> String {
    match mode {
        0 => "closed".into(),
        m => format!("-R {}k", RATES[m - 1] / 1000.0),
    }
}
