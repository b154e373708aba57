//! `bench calibrate`: the error rates of `bench compare`'s verdicts, measured on seeded
//! simulations ([`bench_model::verdict::calibrate`]) and printed as four tables, then the
//! coverage and cost of the rounds by the width needed ([`sequential`]); the same
//! seed prints the same tables, which docs/reading-results.md quotes.

use bench_model::verdict::calibrate::{self, Noise};
use bench_model::verdict::sequential;
use bench_report::table::Table;

use crate::cli::CalibrateArgs;
use crate::say;

/// The per-round spread the two publishes of 2026-12-03 and 12-04 measured (the median
/// figure's log-sd: 0.14–0.18), and the dips the 2026-12-04 timelines showed.
const NOISES: [Noise; 2] = [
    Noise::LogNormal(0.15),
    Noise::Dips {
        floor: 0.02,
        share: 0.3,
    },
];

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

/// Runs `bench calibrate`.
pub fn run(a: &CalibrateArgs) -> anyhow::Result<()> {
    let (trials, seed) = (a.trials as usize, a.seed);
    say!(
        "Seeded simulations (seed {seed}, {trials} trials a cell; E7 {} a cell). Every call at 5 %; \"same\" within ±10 %.",
        trials / 10
    );
    for noise in NOISES {
        say!(
            "\nOne figure alone, by rounds a side ({}): how often it is called moved (or the same)",
            noise.name()
        );
        let mut t = Table::new(&[
            "true move",
            "6: moved",
            "6: old rule",
            "10: moved",
            "20: moved",
            "20: same",
        ]);
        for shift in [0.0, 0.1, 0.2, 0.3, 0.5] {
            let p6 = calibrate::power(6, noise, shift, trials, seed);
            let p10 = calibrate::power(10, noise, shift, trials, seed + 1);
            let p20 = calibrate::power(20, noise, shift, trials, seed + 2);
            t.row(vec![
                format!("{:+.0} %", shift * 100.0),
                pct(p6.rank),
                pct(p6.overlap),
                pct(p10.rank),
                pct(p20.rank),
                pct(p20.same),
            ]);
        }
        crate::term::out::text(t);
    }
    say!(
        "\nClean comparisons shaped like a publish (190 figures at 6 rounds, 60 of them in the gate's family, and 40 E7 rungs at 3): nothing truly moved"
    );
    let mut t = Table::new(&[
        "noise",
        "drift between sittings",
        "any moved",
        "moved per comparison",
        "same",
        "gate fails",
    ]);
    for (noise, drift) in [
        (NOISES[0], 0.0),
        (NOISES[1], 0.0),
        (Noise::LogNormal(0.05), 0.03),
    ] {
        let shape = calibrate::publish_shape(190, 40, 3, noise, 60);
        let c = calibrate::clean(&shape, drift, trials / 4, seed);
        t.row(vec![
            noise.name(),
            format!("log-sd {drift:.2}"),
            pct(c.any_moved),
            format!("{:.2}", c.mean_moved),
            pct(c.same),
            pct(c.gate_fails),
        ]);
    }
    crate::term::out::text(t);
    say!(
        "\nWith real moves (100 figures at 6 rounds, log-sd 0.08; every 5th moved): the report's false discoveries"
    );
    let mut t = Table::new(&[
        "true move",
        "false among moved",
        "moved among same",
        "moves found",
    ]);
    for shift in [0.2, 0.5] {
        let shape = calibrate::publish_shape(100, 0, 3, Noise::LogNormal(0.08), 0);
        let m = calibrate::mixed(&shape, 5, shift, trials / 4, seed);
        t.row(vec![
            format!("{:+.0} %", shift * 100.0),
            pct(m.false_moved),
            pct(m.false_same),
            pct(m.found),
        ]);
    }
    crate::term::out::text(t);
    say!(
        "\nE7's capacity (true capacity 30,000 requests/s; ladder 10k, 40k, 80k in 6 rounds, then the search), by how much a run's capacity scatters"
    );
    let mut t = Table::new(&[
        "run-to-run log-sd",
        "95 % interval holds it",
        "open (a bound)",
        "median width",
        "two searches called moved",
        "the search's bracket held it",
    ]);
    for noise in [0.05, 0.10, 0.15, 0.20] {
        let c = calibrate::capacity(30_000.0, noise, 6, (trials / 10).max(50), seed);
        t.row(vec![
            format!("{noise:.2}"),
            pct(c.coverage),
            pct(1.0 - c.closed),
            format!("×{:.3}", c.width),
            pct(c.aa_moved),
            pct(c.bracket_held),
        ]);
    }
    crate::term::out::text(t);
    say!(
        "\nRounds by the width needed (bench run --until-width): from 6 rounds, one more while the interval one rank wider than the printed one is wider than the target, 60 at most; two identical servers, each side's runs with the VM's dips"
    );
    let mut t = Table::new(&[
        "ratio's per-round log-sd",
        "target",
        "printed 95 % interval holds it",
        "target reached",
        "mean rounds",
    ]);
    for (sd, target) in sequential::TABLE {
        let c = sequential::coverage(
            target,
            sequential::side_noise(sd),
            60,
            trials as u64 / 2,
            seed,
        );
        t.row(vec![
            format!("{sd:.2}"),
            format!("±{:.0} %", target * 100.0),
            pct(c.held),
            pct(c.reached),
            format!("{:.0}", c.rounds),
        ]);
    }
    crate::term::out::text(t);
    Ok(())
}
