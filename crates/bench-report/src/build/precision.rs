//! How sure a run's figures are: the intervals over its rounds, those over too few rounds
//! for 95 %, and what its A/A pairs (a server measured twice) say of its precision.

use super::*;

/// The sentence that says how sure the figures are, when the run measured them in rounds
/// (files from before rounds have no intervals, and no such sentence); and, when any figure's
/// interval is over too few rounds for 95 % ([`few_rounds`]), how many are and what that means.
pub(super) fn how_sure(d: &mut Document, r: &Results) {
    let Some(n) = r
        .steps()
        .filter_map(|(_, st)| st.intervals?.requests_per_s.map(|i| i.n))
        .max()
    else {
        return;
    };
    let seed = r.seed.map_or(String::new(), |s| format!(" (seed {s})"));
    let few = few_rounds(r).map_or(String::new(), |few| format!(" {few}"));
    let precision = aa_pairs(r);
    let precision = if precision.is_empty() {
        String::new()
    } else {
        format!(
            " **This run's precision**, from a server measured twice as two copies (an A/A pair, which should differ by nothing; each ratio the median of the rounds' ratios of the two copies' figures, with its interval, CPU per request being the server's own figure even when the load tool set the pace; † and ‡ count each copy's rounds whose pace the load tool set, or that the machine disturbed: a pair the tool set measures the tool's variation more than the server's): {}.",
            precision.join("; ")
        )
    };
    d.push(Block::Para(format!(
        "**How sure:** each figure is the median over the run's rounds (up to {n}: every server once per step in each, in a fresh random order{seed}, each on a fresh process), and `[low–high]` beside it is its 95 % confidence interval: the order statistics of the rounds, which hold the true median at least 95 % of the time whatever the figures' distribution. A finding's ratio is the median of the ratios of the two servers' figures in the same round, with its interval; one that holds 1.00 shows no difference at this run's precision.{few}{precision}"
    )));
}

/// Every interval of a step's figures, those it has.
fn each_interval(iv: &Intervals) -> impl Iterator<Item = Interval> {
    [
        iv.requests_per_s,
        iv.cpu_us_per_request,
        iv.p99_us,
        iv.mean_us,
        iv.p50_us,
        iv.p95_us,
        iv.p999_us,
        iv.transfer_bytes_per_s,
    ]
    .into_iter()
    .flatten()
}

/// How many of the intervals of `r`'s valid steps are over too few rounds for 95 % (E7's
/// searched rates, of 2 or 3 rounds of their own; a run of fewer than 6 rounds), and what
/// that means; `None` when none is.
fn few_rounds(r: &Results) -> Option<String> {
    let steps: Vec<(&StepResult, Vec<Interval>)> = r
        .steps()
        .filter(|(_, st)| st.valid)
        .filter_map(|(_, st)| Some((st, each_interval(st.intervals.as_ref()?).collect())))
        .collect();
    let all: usize = steps.iter().map(|(_, v)| v.len()).sum();
    let below: Vec<(&StepResult, Vec<Interval>)> = steps
        .iter()
        .map(|(st, v)| (*st, v.iter().copied().filter(|i| !i.at_level()).collect()))
        .filter(|(_, v): &(_, Vec<Interval>)| !v.is_empty())
        .collect();
    let count: usize = below.iter().map(|(_, v)| v.len()).sum();
    if count == 0 {
        return None;
    }
    // By rounds: how many intervals, and the coverage of each.
    let mut by_n: BTreeMap<usize, (usize, f64)> = BTreeMap::new();
    for i in below.iter().flat_map(|(_, v)| v) {
        let e = by_n.entry(i.n).or_insert((0, i.confidence));
        e.0 += 1;
    }
    let rounds: Vec<String> = by_n
        .iter()
        .map(|(n, (k, c))| {
            format!(
                "{k} over {n} round{}, which hold the median {} of the time",
                if *n == 1 { "" } else { "s" },
                bench_model::stats::coverage(*c)
            )
        })
        .collect();
    let searched = below
        .iter()
        .filter(|(st, _)| st.searched_rounds.is_some())
        .count();
    let searched = match searched {
        0 => String::new(),
        k if k == below.len() => {
            "; all of them rates the search for the sustainable rate added, each measured in rounds of its own".to_string()
        }
        k => format!(
            "; {k} of them rates the search for the sustainable rate added, each measured in rounds of its own"
        ),
    };
    let example = below[0].1[0];
    Some(format!(
        "**Too few rounds for 95 %:** {count} of the run's {all} intervals (in {} of its {} steps{searched}) are over fewer than 6 rounds, too few for a 95 % interval: {}. Such an interval is the lowest and the highest round, and its brackets say its rounds and that chance (`{}`): it is the range its rounds spanned, which misses the true median as often as that chance says it may (half the time for 2 rounds), so read its figure as a rough one.",
        below.len(),
        steps.len(),
        rounds.join("; "),
        Interval {
            low: 0.0,
            high: 1.0,
            ..example
        }
        .bracket(|x| if x == 0.0 { "low" } else { "high" }.to_string())
    ))
}

/// One step of an A/A pair: the server's name, its copy, and the step of each.
struct AaStep<'r> {
    name: &'r str,
    copy: &'r ServerResult,
    first: &'r StepResult,
    second: &'r StepResult,
}

/// Every step of every A/A pair of `r` (a server and its copy `NAME#2`) that both copies
/// measured validly.
fn aa_steps(r: &Results) -> Vec<AaStep<'_>> {
    let mut out = Vec::new();
    for copy in &r.servers {
        let Some(name) = copy.copy_of() else {
            continue;
        };
        let Some(first) = r.servers.iter().find(|s| s.name == name) else {
            continue;
        };
        for st in first.steps.iter().filter(|st| st.valid) {
            if let Some(second) = find(copy, &st.endpoint, &st.step).filter(|c| c.valid) {
                out.push(AaStep {
                    name,
                    copy,
                    first: st,
                    second,
                });
            }
        }
    }
    out
}

/// A figure of a run, as an A/A pair reads it.
type AaFigure = fn(&Run) -> Option<f64>;

/// The two figures an A/A pair is read on: requests/s, and CPU per request (the server's own
/// figure even in a round whose pace the load tool set).
const AA_FIGURES: [(&str, AaFigure); 2] = [
    ("requests/s", |m| Some(m.requests_per_s)),
    ("CPU per request", |m| m.cpu_us_per_request),
];

impl AaStep<'_> {
    /// `` `server-prebuilt` over `server-prebuilt#2` at `/` c100 ``.
    fn what(&self) -> String {
        format!(
            "`{}` over `{}` at `{}` {}",
            self.name, self.copy.name, self.first.endpoint, self.first.step
        )
    }

    /// Each figure's ratio, those both copies have in two rounds or more.
    fn ratios(&self) -> Vec<AaRatio> {
        AA_FIGURES
            .iter()
            .filter_map(|&(label, figure)| {
                let (x, interval) = self.first.paired_ratio(self.second, figure)?;
                let side = bench_model::results::aa_one_sided(
                    &self.first.paired_ratios(self.second, figure),
                );
                Some(AaRatio {
                    label,
                    x,
                    interval,
                    side,
                })
            })
            .collect()
    }

    /// `6/6 and 5/6` of each copy's rounds that `mark` holds for.
    fn counted(&self, mark: fn(&Run) -> bool) -> String {
        let count = |st: &StepResult| {
            format!(
                "{}/{}",
                st.repeats.iter().filter(|m| mark(m)).count(),
                st.repeats.len()
            )
        };
        format!("{} and {}", count(self.first), count(self.second))
    }
}

/// An A/A pair's ratio of one figure on one step.
struct AaRatio {
    /// The figure (`requests/s`).
    label: &'static str,
    /// The median of the rounds' ratios.
    x: f64,
    /// Its interval.
    interval: Interval,
    /// Whether the pair differed on it
    /// ([`aa_one_sided`](bench_model::results::aa_one_sided)).
    side: Option<bench_model::results::OneSided>,
}

/// `1.07× [1.01–1.24]`: a ratio and its interval ([`Interval::bracket`]).
fn times(x: f64, i: &Interval) -> String {
    format!("{x:.2}× {}", i.bracket(|v| format!("{v:.2}")))
}

/// What each A/A pair of `r` (a server and its copy `NAME#2`) says of the run's precision, a
/// line per step both measured in rounds: the copies' ratios of requests/s and of CPU per
/// request, each with its interval, the rounds, a figure on which every round (or enough of
/// them for the interval) fell on one side of 1.00, and how many of each copy's rounds the
/// load tool (`†`) and the machine (`‡`) set (`` `server-prebuilt` over `server-prebuilt#2`
/// at `/` c100: requests/s 1.07× [1.01–1.24] (all 6 rounds above 1), CPU per request 0.95×
/// [0.80–1.19], 6 rounds; † 6/6 and 6/6 rounds, ‡ 0/6 and 0/6 ``).
pub(crate) fn aa_pairs(r: &Results) -> Vec<String> {
    let mut out = Vec::new();
    for aa in aa_steps(r) {
        let ratios = aa.ratios();
        let Some(n) = ratios.first().map(|a| a.interval.n) else {
            continue;
        };
        let figures: Vec<String> = ratios
            .iter()
            .map(|a| {
                let side = a
                    .side
                    .map_or(String::new(), |s| format!(" ({})", s.rounds_text()));
                format!("{} {}{side}", a.label, times(a.x, &a.interval))
            })
            .collect();
        out.push(format!(
            "{}: {}, {n} rounds; {} {} rounds, {} {}",
            aa.what(),
            figures.join(", "),
            crate::model::TOOL_MARK,
            aa.counted(Run::tool_set_pace),
            crate::model::MACHINE_MARK,
            aa.counted(|m| m.disturbed),
        ));
    }
    out
}

/// The report's first words when an A/A pair of `r` differed (on some step, its requests/s
/// or CPU-per-request ratio's interval leaves out 1.00:
/// [`aa_one_sided`](bench_model::results::aa_one_sided)): a statement of this run's
/// precision, with the difference's size, since two copies of one binary should not differ.
/// `None` when every pair's intervals hold 1.00, or there is no pair. The markdown report
/// (right under its title), the page (atop the run's article) and `bench run`'s summary
/// (before its table) put it first. From the second publish's E3:
///
/// > **This run's own A/A pair differed:** `server-prebuilt` over `server-prebuilt#2` at `/`
/// > c100, requests/s 1.07× [1.01–1.24], all 6 rounds above 1 (the load tool set the pace,
/// > †, in 6/6 and 6/6 of their rounds): two copies of one binary differed by that much in
/// > this run, so differences of that size between servers in this run are not findings,
/// > whatever their intervals say.
pub fn aa_flag(r: &Results) -> Option<String> {
    let mut differed = Vec::new();
    let mut copies: Vec<&str> = Vec::new();
    for aa in aa_steps(r) {
        for a in aa.ratios() {
            let Some(side) = a.side else {
                continue;
            };
            let tool = if aa
                .first
                .repeats
                .iter()
                .chain(&aa.second.repeats)
                .any(Run::tool_set_pace)
            {
                format!(
                    " (the load tool set the pace, {}, in {} of their rounds)",
                    crate::model::TOOL_MARK,
                    aa.counted(Run::tool_set_pace)
                )
            } else {
                String::new()
            };
            differed.push(format!(
                "{}, {} {}, {}{tool}",
                aa.what(),
                a.label,
                times(a.x, &a.interval),
                side.rounds_text()
            ));
            if !copies.contains(&aa.copy.name.as_str()) {
                copies.push(&aa.copy.name);
            }
        }
    }
    if differed.is_empty() {
        return None;
    }
    let (pair, size) = match (copies.len(), differed.len()) {
        (1, 1) => ("pair", "that size"),
        (1, _) => ("pair", "those sizes"),
        _ => ("pairs", "those sizes"),
    };
    Some(format!(
        "**This run's own A/A {pair} differed:** {}: two copies of one binary differed by that much in this run, so differences of {size} between servers in this run are not findings, whatever their intervals say.",
        differed.join("; ")
    ))
}
