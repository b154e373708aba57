//! E7's answer, read from its rungs: the highest offered rate a server **sustains** on an
//! endpoint (kept up with, [`rules::saturated`], in the majority of the rounds it was owed),
//! the bracket it was found in, and where the search goes next ([`next_probe`]).
//!
//! A ladder of offered rates (10k, 20k, 40k, 80k requests/s) knows the answer to within 2×:
//! a server that holds 40k and not 80k may fail at 41k or at 79k. `bench run` therefore
//! searches between the last rate held and the first not held, or the first at which the load
//! tool was the limit, halving the bracket (on a log scale) until its two ends are within
//! [`BRACKET`] of each other; each rate it adds is
//! a rung like the ladder's, owed [`search_rounds`] rounds
//! ([`StepResult::searched_rounds`]).
//!
//! Reading the rungs lowest first, a rung counts as
//! - **held** when more than half of the rounds it was owed kept up with it (a round whose
//!   ladder stopped below it did not: that round could not hold a lower rate);
//! - **the tool's** when the load tool was the limit there ([`rules::tool_bound`], or the
//!   generator left requests unsent): it says nothing of the server, and the answer is a
//!   lower bound;
//! - **not held** otherwise.
//!
//! The sustainable rate is the last rung held before the first that is not.

use crate::results::StepResult;
use crate::rules;

/// The search stops when the first rate not held is within this factor of the last held:
/// the sustainable rate is then known to within 5 %.
pub const BRACKET: f64 = 1.05;

/// The most rates the search adds per server and endpoint, whatever the bracket: a bracket
/// of 2× (a ladder of doubling rates) needs 4 to come within [`BRACKET`], one of 10× needs 6.
pub const MAX_PROBES: usize = 6;

/// The p99 latency, µs, that a user notices: E7 also reports the highest rate held at or under it.
pub const NOTICED_P99_US: u64 = 10_000;

/// The rounds each searched rate is owed: 3 (held by 2 of them) when the run has 3 rounds or
/// more, else the run's own (`repeat`).
pub fn search_rounds(repeat: u32) -> u32 {
    repeat.min(3)
}

/// What one rung says of the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// Kept up with in the majority of its rounds.
    Held,
    /// Not kept up with in the majority of its rounds.
    NotHeld,
    /// The load tool was the limit there: says nothing of the server.
    Tool,
    /// No valid run (failed requests, a server gone): says nothing either.
    Unknown,
}

/// What `st`, a rung of a run of `repeat` rounds, says: see the [module](self) docs.
pub fn held(st: &StepResult, repeat: u32) -> Held {
    let owed = st.searched_rounds.unwrap_or(repeat).max(1) as usize;
    if st.repeats.iter().chain(&st.median).any(|r| r.tool_bound) {
        return Held::Tool;
    }
    if !st.valid {
        return Held::Unknown;
    }
    if kept(st) * 2 > owed {
        Held::Held
    } else {
        Held::NotHeld
    }
}

/// The rounds of `st` that kept up with its rate ([`rules::saturated`]).
fn kept(st: &StepResult) -> usize {
    st.repeats
        .iter()
        .filter(|r| rules::saturated(r).is_none())
        .count()
}

/// Whether `st`'s held or not held is settled before all its rounds ran: a majority of the
/// rounds it is owed already agrees (the search runs no more rounds of it then).
pub fn decided(st: &StepResult, repeat: u32) -> bool {
    let owed = st.searched_rounds.unwrap_or(repeat).max(1) as usize;
    let kept = kept(st);
    let failed = st.repeats.len() - kept;
    !st.valid || kept * 2 > owed || failed * 2 >= owed
}

/// What bounds the sustainable rate from above.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Above {
    /// The first rate above it not held: the answer is known to within `not_held / rate`.
    NotHeld(f64),
    /// The load tool was the limit at this rate: the answer is a lower bound.
    Tool(f64),
    /// The rung at this rate gave no valid run: the answer is a lower bound.
    Unknown(f64),
    /// Every rung was held: the answer is a lower bound, the ladder's top.
    Top,
}

/// A server's sustainable rate on one endpoint, read from its rungs.
#[derive(Clone, Debug, PartialEq)]
pub struct Sustained<'a> {
    /// The highest offered rate held before the first not held, requests/s, and its rung;
    /// `None` when the lowest rung was not held.
    pub held: Option<(f64, &'a StepResult)>,
    /// What bounds it from above.
    pub above: Above,
    /// The lowest rung's rate, requests/s.
    pub lowest: f64,
    /// The highest rate held with a median p99 at or under [`NOTICED_P99_US`], and its rung.
    pub noticed: Option<(f64, &'a StepResult)>,
}

impl Sustained<'_> {
    /// The sustainable rate, when one rung was held.
    pub fn rate(&self) -> Option<f64> {
        self.held.map(|(r, _)| r)
    }

    /// Whether the rate is exact (to within the bracket) rather than a lower bound.
    pub fn exact(&self) -> bool {
        matches!(self.above, Above::NotHeld(_))
    }

    /// The first rate not held above the sustainable one, when there is one.
    pub fn not_held(&self) -> Option<f64> {
        match self.above {
            Above::NotHeld(x) => Some(x),
            _ => None,
        }
    }

    /// The top of the bracket the search narrows: the first rate not held, or the first at
    /// which the load tool was the limit (the search then finds the highest rate the tool
    /// can offer that the server holds: still a lower bound, but the tightest one).
    pub fn upper(&self) -> Option<f64> {
        match self.above {
            Above::NotHeld(x) | Above::Tool(x) => Some(x),
            _ => None,
        }
    }

    /// Whether the bracket is within [`BRACKET`]: the search is done.
    pub fn narrow(&self) -> bool {
        match (self.rate(), self.upper()) {
            (Some(lo), Some(hi)) => hi <= lo * BRACKET,
            // Nothing held: not narrow while there is a lower rate to try.
            (None, Some(hi)) => hi < 2.0,
            (_, None) => true,
        }
    }

    /// How the answer reads: `61,000`, `≥ 80,000`, `< 10,000`; `n/a` when the lowest rung
    /// said nothing of the server (the tool's limit, or no valid run).
    pub fn text(&self) -> String {
        let t = crate::stats::thousands;
        match (self.rate(), self.above) {
            (None, Above::NotHeld(_)) => format!("< {}", t(self.lowest)),
            (None, _) => "n/a".to_string(),
            (Some(r), Above::NotHeld(_)) => t(r),
            (Some(r), _) => format!("≥ {}", t(r)),
        }
    }

    /// The bracket, as a reader needs it: `between 56,600 and 59,500 (not held)`,
    /// `the load tool's limit at 120,000`, `the ladder's top`.
    pub fn bracket(&self) -> String {
        let t = crate::stats::thousands;
        match self.above {
            Above::NotHeld(hi) => match self.rate() {
                Some(lo) => format!("held {}, not held {}", t(lo), t(hi)),
                None => format!("not held at {}, the lowest rate", t(hi)),
            },
            Above::Tool(hi) => match self.rate() {
                Some(lo) => format!("held {}, the load tool's limit at {}", t(lo), t(hi)),
                None => format!("the load tool's limit at {}", t(hi)),
            },
            Above::Unknown(hi) => format!("no valid run at {}", t(hi)),
            Above::Top => "held at the ladder's top".to_string(),
        }
    }
}

/// The offered rate of a rung, requests/s.
pub fn rate_of(st: &StepResult) -> Option<f64> {
    st.offered_requests_per_s
        .or_else(|| st.median.as_ref()?.offered_requests_per_s)
}

/// The rounds the ladder's own rungs among `rungs` were owed: the highest round any of them
/// ran in (every round climbs from the lowest rung), or, in a file from before rounds, the
/// most repeats of one.
pub fn ladder_rounds<'a>(rungs: impl Iterator<Item = &'a StepResult>) -> u32 {
    rungs
        .filter(|st| st.searched_rounds.is_none())
        .map(|st| {
            st.repeats
                .iter()
                .filter_map(|r| r.round)
                .max()
                .unwrap_or(st.repeats.len() as u32)
        })
        .max()
        .unwrap_or(1)
}

/// The sustainable rate of a server's rungs on `endpoint` among its `steps`; `None` without a
/// rung of an offered rate there.
pub fn sustained<'a>(steps: &'a [StepResult], endpoint: &str) -> Option<Sustained<'a>> {
    let mut rungs: Vec<(f64, &StepResult)> = steps
        .iter()
        .filter(|st| st.endpoint == endpoint)
        .filter_map(|st| Some((rate_of(st)?, st)))
        .collect();
    let repeat = ladder_rounds(rungs.iter().map(|(_, st)| *st));
    rungs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let lowest = rungs.first()?.0;
    let mut held = None;
    let mut noticed = None;
    let mut above = Above::Top;
    for (rate, st) in rungs {
        match self::held(st, repeat) {
            Held::Held => {
                held = Some((rate, st));
                let p99 = st.median.as_ref().and_then(|m| m.latency_us.p99);
                if p99.is_some_and(|p| p <= NOTICED_P99_US) {
                    noticed = Some((rate, st));
                }
            }
            Held::NotHeld => {
                above = Above::NotHeld(rate);
                break;
            }
            Held::Tool => {
                above = Above::Tool(rate);
                break;
            }
            Held::Unknown => {
                above = Above::Unknown(rate);
                break;
            }
        }
    }
    Some(Sustained {
        held,
        above,
        lowest,
        noticed,
    })
}

/// The next rate to try between the last held and the first not held (or the tool's limit:
/// [`Sustained::upper`]), on a log scale (rounded to three significant figures), or `None`
/// when the bracket is within [`BRACKET`], the answer is a lower bound for another reason (no
/// valid run, the ladder's top), or the rate would repeat one already run. With no rate held,
/// the next is half the lowest not held.
pub fn next_probe(s: &Sustained<'_>) -> Option<f64> {
    if s.narrow() {
        return None;
    }
    let hi = s.upper()?;
    let x = match s.rate() {
        Some(lo) => (lo * hi).sqrt(),
        None => hi / 2.0,
    };
    let x = round3(x);
    let lo = s.rate().unwrap_or(0.0);
    (x > lo && x < hi && x >= 1.0).then_some(x)
}

/// `x` to three significant figures.
fn round3(x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let scale = 10f64.powi(x.log10().floor() as i32 - 2);
    (x / scale).round() * scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Run;

    /// A rung at `rate` whose rounds achieved `achieved` of it (1.0: kept up).
    fn rung(rate: f64, achieved: &[f64]) -> StepResult {
        let repeats: Vec<Run> = achieved
            .iter()
            .enumerate()
            .map(|(k, a)| Run {
                offered_requests_per_s: Some(rate),
                requests_per_s: rate * a,
                round: Some(k as u32 + 1),
                ..Run::default()
            })
            .collect();
        let mut st = StepResult {
            step: crate::experiment::rate_id(rate as u64),
            endpoint: "/hello".into(),
            connections: 100,
            requests: None,
            duration_s: Some(2.0),
            offered_requests_per_s: Some(rate),
            tool_command: Vec::new(),
            valid: true,
            invalid_reason: None,
            repeats,
            median: None,
            spread: None,
            intervals: None,
            saturation: None,
            searched_rounds: None,
        };
        st.finish();
        st
    }

    #[test]
    fn a_rate_is_held_in_the_majority_of_the_rounds_it_was_owed() {
        // 4 of 6 rounds kept up: held; 3 of 6 is no majority.
        assert_eq!(
            held(&rung(1e4, &[1.0, 1.0, 1.0, 1.0, 0.5, 0.5]), 6),
            Held::Held
        );
        assert_eq!(
            held(&rung(1e4, &[1.0, 1.0, 1.0, 0.5, 0.5, 0.5]), 6),
            Held::NotHeld
        );
        // Rounds whose ladder stopped below never ran it: they did not hold it.
        assert_eq!(held(&rung(1e4, &[1.0, 1.0, 1.0]), 6), Held::NotHeld);
        // A searched rate is owed its own rounds: 2 of 3.
        let mut s = rung(1e4, &[1.0, 1.0]);
        s.searched_rounds = Some(3);
        assert_eq!(held(&s, 6), Held::Held);
        assert!(decided(&s, 6));
        let mut s = rung(1e4, &[1.0, 0.5]);
        s.searched_rounds = Some(3);
        assert!(!decided(&s, 6), "one each way: the third round decides");
        let mut t = rung(1e4, &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
        t.repeats[2].tool_bound = true;
        assert_eq!(held(&t, 6), Held::Tool);
    }

    #[test]
    fn the_sustainable_rate_is_the_last_held_before_the_first_not_held_and_the_search_narrows_it() {
        let ok = [1.0; 3];
        let bad = [0.6; 3];
        let mut steps = vec![
            rung(10_000.0, &ok),
            rung(20_000.0, &ok),
            rung(40_000.0, &bad),
        ];
        let s = sustained(&steps, "/hello").unwrap();
        assert_eq!(
            (s.rate(), s.above),
            (Some(20_000.0), Above::NotHeld(40_000.0))
        );
        assert_eq!(s.text(), "20,000");
        assert!(!s.narrow());
        // Geometric halves, three significant figures: 28,300, then 23,800 …
        assert_eq!(next_probe(&s), Some(28_300.0));
        steps.push(rung(28_300.0, &bad));
        let s = sustained(&steps, "/hello").unwrap();
        assert_eq!(next_probe(&s), Some(23_800.0));
        let mut probes = 1;
        let truth_fails_above = 25_000.0;
        loop {
            let s = sustained(&steps, "/hello").unwrap();
            let Some(x) = next_probe(&s) else { break };
            probes += 1;
            steps.push(rung(x, if x <= truth_fails_above { &ok } else { &bad }));
        }
        let s = sustained(&steps, "/hello").unwrap();
        assert!(s.narrow() && s.exact(), "{s:?}");
        let (lo, hi) = (s.rate().unwrap(), s.not_held().unwrap());
        assert!(lo <= truth_fails_above && truth_fails_above < hi && hi <= lo * BRACKET);
        assert!(
            probes <= 4,
            "a 2× bracket narrows to 5 % in 4 probes, took {probes}"
        );
        assert_eq!(
            s.bracket(),
            format!(
                "held {}, not held {}",
                crate::stats::thousands(lo),
                crate::stats::thousands(hi)
            )
        );
    }

    #[test]
    fn a_lower_bound_is_said_as_one_and_searched_only_up_to_the_tools_limit() {
        let ok = [1.0; 3];
        // Held at the top: ≥.
        let steps = vec![rung(10_000.0, &ok), rung(80_000.0, &ok)];
        let s = sustained(&steps, "/hello").unwrap();
        assert_eq!((s.text(), s.above), ("≥ 80,000".to_string(), Above::Top));
        assert_eq!(next_probe(&s), None);
        // The tool's limit above: ≥, and searched up to the tool's limit (the highest rate the
        // tool can offer that the server holds is the tightest lower bound).
        let tool = |rate| {
            let mut t = rung(rate, &ok);
            t.repeats[0].tool_bound = true;
            t
        };
        let steps = vec![rung(80_000.0, &ok), tool(120_000.0)];
        let s = sustained(&steps, "/hello").unwrap();
        assert_eq!(s.text(), "≥ 80,000");
        assert_eq!(next_probe(&s), Some(98_000.0));
        assert_eq!(s.bracket(), "held 80,000, the load tool's limit at 120,000");
        // … until within 5 % of it, still a lower bound.
        let steps = vec![rung(80_000.0, &ok), rung(98_000.0, &ok), tool(102_000.0)];
        let s = sustained(&steps, "/hello").unwrap();
        assert_eq!((s.text(), next_probe(&s)), ("≥ 98,000".to_string(), None));
        // Only the tool's, from the lowest rung: nothing known of the server.
        let steps = vec![tool(10_000.0)];
        let s = sustained(&steps, "/hello").unwrap();
        assert_eq!(s.text(), "n/a");
        assert_eq!(s.bracket(), "the load tool's limit at 10,000");
        // An invalid rung above: ≥, not searched.
        let mut bad = rung(120_000.0, &ok);
        bad.valid = false;
        let steps = vec![rung(80_000.0, &ok), bad];
        let s = sustained(&steps, "/hello").unwrap();
        assert_eq!((s.text(), next_probe(&s)), ("≥ 80,000".to_string(), None));
        // Nothing held: below the lowest, and the search halves it.
        let steps = vec![rung(10_000.0, &[0.4; 3])];
        let s = sustained(&steps, "/hello").unwrap();
        assert_eq!(s.text(), "< 10,000");
        assert_eq!(next_probe(&s), Some(5_000.0));
    }

    #[test]
    fn the_rate_a_user_notices_is_the_highest_held_at_a_p99_of_10_ms() {
        let mut a = rung(10_000.0, &[1.0; 3]);
        let mut b = rung(20_000.0, &[1.0; 3]);
        for (st, p99) in [(&mut a, 900), (&mut b, 40_000)] {
            for r in &mut st.repeats {
                r.latency_us.p99 = Some(p99);
            }
            st.finish();
        }
        let steps = vec![a, b];
        let s = sustained(&steps, "/hello").unwrap();
        assert_eq!(s.rate(), Some(20_000.0));
        assert_eq!(s.noticed.map(|n| n.0), Some(10_000.0));
    }
}
