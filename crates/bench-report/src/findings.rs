//! What a run found, in a sentence per comparison its experiment declares
//! ([`Experiment::findings`]): `a`'s figure over `b`'s, computed from the run's medians, beside
//! the same ratio of the article's figures ([`Reported`]) when it reported both
//! (`` `express` serves 0.42× `node-http`'s requests/s here (`/api?…`, 100 connections: 7,051
//! vs 16,928 requests/s); the article: 0.47×. ``). A comparison whose step is missing, invalid or unmeasured says
//! nothing. Requests/s the load tool set (`†`) are its limit, so that side is a bound and the
//! ratio says so (`at least`, `at most`; two such sides give no ratio); another figure the
//! tool or the machine may have set says so (`(tool-bound)`, `(machine-disturbed)`). A run
//! measured in rounds compares round by round: the ratio is the median of each round's ratio
//! of the two figures, with its 95 % interval and the rounds it is over (below 6 rounds, the
//! lowest and highest ratio with its real coverage, [`Interval::label`]), and an interval that
//! holds 1.00 says that no difference was shown. E4's probe p99 counts a round whose probe got
//! no answer at its lower bound ([`Run::probe_p99_or_censored`]), so the figure and the ratio
//! are bounds, and the sentence says how many rounds got an answer. The markdown report opens with its run's sentences, and the page
//! with each experiment's (the newest run that has each), its headline chart and a link down
//! to its details.
//!

use bench_model::sustainable::{self, Sustained};
use bench_model::verdict::capacity::{self, Capacity, Curve};
use std::fmt::Write as _;

use bench_model::experiment::{self, Experiment, Finding, Measure, Pick, Quantity, Reported, Side};
use bench_model::results::{Interval, ProbeP99, Results, Run, ServerResult, StepResult};

use super::model::{MACHINE_MARK, Marks, ROUND_TRIP_MARK, TOOL_MARK};
use crate::read::find;
use bench_chart::format::thousands;

/// The sentences of `r`'s findings, in its experiment's order (none for a file of no known
/// experiment).
pub fn sentences(r: &Results) -> Vec<String> {
    let Some(e) = experiment::find(&r.experiment) else {
        return Vec::new();
    };
    e.findings
        .iter()
        .filter_map(|f| sentence(r, e, f))
        .collect()
}

/// The sentence of finding `f` of experiment `e` in run `r`; `None` when either figure is
/// missing (a server or step not run, an invalid step, a figure not measured). A comparison of
/// requests/s whose both sides the load tool set gives no ratio of them: it compares the two
/// servers' CPU per request instead, and says why.
pub fn sentence(r: &Results, e: &Experiment, f: &Finding) -> Option<String> {
    said(r, e, f, &|_, text| text.to_string())
}

/// Where a figure of a sentence is in its run's tables: `server|endpoint|step|quantity`, the
/// key the page gives both the figure in the finding and the table cell it is read from
/// (`data-fig`), so that a reader, and the browser test, can find one from the other.
pub(crate) fn key(server: &str, endpoint: &str, step: &str, q: Quantity) -> String {
    let quantity = match q {
        Quantity::RequestsPerS => "rps",
        Quantity::CpuUsPerRequest => "cpu",
        Quantity::P99Ms => "p99",
        Quantity::ProbeP99Ms => "probe-p99",
        Quantity::KeptUp => "capacity",
    };
    format!("{server}|{endpoint}|{step}|{quantity}")
}

/// [`sentence`], each of its two measured figures (with its marks) written through `mark`
/// with its [`key`]: the page wraps them so that each can be found in its table.
pub(crate) fn said(
    r: &Results,
    e: &Experiment,
    f: &Finding,
    mark: &dyn Fn(&str, &str) -> String,
) -> Option<String> {
    if f.quantity == Quantity::RequestsPerS && both_tool_bound(r, f) {
        let cpu = Finding {
            quantity: Quantity::CpuUsPerRequest,
            says: "{a} uses {x} {b}'s CPU per request",
            article: None,
            ..*f
        };
        let said = said(r, e, &cpu, mark)?;
        return Some(format!(
            "The load tool set both `{}`'s and `{}`'s requests/s, so they give no ratio; instead, {said}",
            f.a.server, f.b.server
        ));
    }
    let Compared {
        a,
        b,
        bound,
        paired,
        x,
    } = compared(r, f)?;
    let mut text = f
        .says
        .replace("{a}", &format!("`{}`", f.a.server))
        .replace("{b}", &format!("`{}`", f.b.server))
        .replace("{x}", &format!("{bound}{}", ratio(x)));
    // Where, then the two figures, each with its marks as its table cell has them:
    // ` here (`/`, 100 connections: 154,877 ‡ vs 78,798 requests/s)`.
    let shown = |side: &Side, read: &Read, unit: bool| {
        let k = key(side.server, side.endpoint, &read.step, f.quantity);
        let figure = mark(&k, &read.shown(f.quantity));
        let unit = if unit { read.unit(f.quantity) } else { "" };
        format!("{figure}{unit}")
    };
    let figures = format!("{} vs {}", shown(&f.a, &a, false), shown(&f.b, &b, true));
    let at = if f.a.endpoint == f.b.endpoint && f.a.pick == f.b.pick {
        match f.a.pick {
            Pick::Step(_) => format!(
                "`{}`, {} connection{}: ",
                f.a.endpoint,
                thousands(a.connections as f64),
                if a.connections == 1 { "" } else { "s" }
            ),
            Pick::Best if a.step == b.step => format!(
                "`{}`, the best of its steps, {} connections for both: ",
                f.a.endpoint,
                thousands(a.connections as f64)
            ),
            Pick::Best => format!(
                "`{}`, the best of its steps ({} vs {}): ",
                f.a.endpoint, a.step, b.step
            ),
            Pick::KeptUp => format!("`{}`: ", f.a.endpoint),
        }
    } else {
        String::new()
    };
    let sure = match paired {
        Some((x, i)) => how_sure(f, bound, x, &i),
        None => no_interval(r, f, &a, &b),
    };
    let censored = if f.quantity == Quantity::ProbeP99Ms {
        [(&f.a, &a), (&f.b, &b)]
            .into_iter()
            .filter_map(|(side, read)| read.unanswered.as_ref().map(|u| unanswered(side, u)))
            .collect::<Vec<_>>()
            .join("; ")
    } else {
        String::new()
    };
    let censored = if censored.is_empty() {
        censored
    } else {
        format!("; {censored}")
    };
    let _ = write!(text, " here ({at}{figures}{sure}{censored})");
    let marked = marks_said(f, &a, &b);
    if !marked.is_empty() {
        let _ = write!(text, " ({marked})");
    }
    if let Some(y) = article(e, f) {
        let _ = write!(text, "; the article: {}", ratio(y.0));
        if let Some((sa, sb)) = y.1 {
            let _ = write!(text, " ({sa} vs {sb})");
        }
    }
    text.push('.');
    Some(text)
}

/// What a sentence says of its ratio's interval `i`: `; 95 % CI 1.85–2.01, 7 rounds`, below
/// the level its rounds and real coverage; a ratio that is a bound (`at least`) says how the
/// two relate: each round's ratio is a bound, so the interval's low end (high end, for `at
/// most`) is the bound at 95 %.
fn how_sure(f: &Finding, bound: &str, x: f64, i: &Interval) -> String {
    let end = |x: f64| {
        if x.is_finite() && x > 0.0 {
            plain_ratio(x)
        } else if x > 0.0 {
            "∞".to_string()
        } else {
            "0".to_string()
        }
    };
    let range = format!("{}–{}", end(i.low), end(i.high));
    let mut said = if f.quantity == Quantity::KeptUp {
        format!(
            "; {} {range}, from the {} runs of both servers' rates",
            i.label(),
            i.n
        )
    } else if i.at_level() {
        format!("; {} {range}, {} rounds", i.label(), i.n)
    } else {
        format!("; {range}, {}, too few for a 95 % interval", i.label())
    };
    if bound.is_empty() && i.holds(1.0) {
        said.push_str(": no difference shown at this run's precision");
    }
    said.push_str(&too_wide(f, bound, x, i));
    let level = if i.at_level() {
        "at 95 %".to_string()
    } else {
        format!("{} of the time", bench_model::stats::coverage(i.confidence))
    };
    match bound {
        "at least " if f.quantity == Quantity::KeptUp => said.push_str(&format!(
            ": a capacity beyond the rates tried makes the ratio a lower bound, {level} at least {}",
            end(i.low)
        )),
        "at least " => said.push_str(&format!(
            ": each round's ratio is a lower bound{}, so the ratio is, {level}, at least {}",
            why_bound(f.quantity),
            end(i.low)
        )),
        "at most " if f.quantity == Quantity::KeptUp => said.push_str(&format!(
            ": a capacity beyond the rates tried makes the ratio an upper bound, {level} at most {}",
            end(i.high)
        )),
        "at most " => said.push_str(&format!(
            ": each round's ratio is an upper bound{}, so the ratio is, {level}, at most {}",
            why_bound(f.quantity),
            end(i.high)
        )),
        _ => {}
    }
    said
}

/// `; its size undecided at ±23 %: about 40 more rounds would bring it within ±10 %` for a ratio (not a
/// bound, not a capacity) whose 95 % interval is wider than
/// [`FINDING_WIDTH`](sequential::FINDING_WIDTH) on either side of it; else nothing.
fn too_wide(f: &Finding, bound: &str, x: f64, i: &Interval) -> String {
    use bench_model::verdict::sequential;
    if !bound.is_empty() || f.quantity == Quantity::KeptUp || !i.at_level() {
        return String::new();
    }
    if !(x > 0.0 && i.low > 0.0 && i.high.is_finite()) {
        return String::new();
    }
    let h = sequential::log_half_width(x, i.low, i.high);
    let target = sequential::FINDING_WIDTH;
    if h <= target {
        return String::new();
    }
    let more = sequential::rounds_for(i.n, h, target) - i.n;
    format!(
        "; its size undecided at ±{:.0} %: about {} more rounds would bring it within ±{:.0} %",
        (h.exp() - 1.0) * 100.0,
        thousands(more as f64),
        (target.exp() - 1.0) * 100.0
    )
}

/// Why a ratio of `q` is a bound: ` (the load tool's limit)` for requests/s, ` (a round
/// without an answer counts at the least it waited)` for the probe's p99.
fn why_bound(q: Quantity) -> &'static str {
    match q {
        Quantity::ProbeP99Ms => " (a round without an answer counts at the least it waited)",
        Quantity::RequestsPerS => " (the load tool's limit)",
        _ => "",
    }
}

/// Why a sentence of a run in rounds has no interval (nothing for a run not in rounds, whose
/// sentences have none).
fn no_interval(r: &Results, f: &Finding, a: &Read, b: &Read) -> String {
    if r.seed.is_none() {
        return String::new();
    }
    let why = match (f.a.pick, f.b.pick) {
        (Pick::Best, _) | (_, Pick::Best) if a.step != b.step => format!(
            "the two best steps differ ({} and {}), so no round measured both",
            a.step, b.step
        ),
        _ if r.repeat < 2 => "a run of one round".to_string(),
        _ => "fewer than 2 rounds measured both".to_string(),
    };
    format!("; no interval: {why}")
}

/// What a sentence says of its figures' marks, naming the side each is on: `‡ the machine was
/// busy while `fastify` was measured, so it may have set that figure`; requests/s the load
/// tool set are said as a bound (`≥`, `at least`), not here.
fn marks_said(f: &Finding, a: &Read, b: &Read) -> String {
    let sides = |of: fn(&Marks) -> bool| -> Vec<&str> {
        [(&f.a, a), (&f.b, b)]
            .into_iter()
            .filter(|(_, read)| of(&read.marks))
            .map(|(side, _)| side.server)
            .collect()
    };
    let named = |servers: &[&str]| -> (String, &'static str) {
        let list: Vec<String> = servers.iter().map(|s| format!("`{s}`")).collect();
        match list.len() {
            1 => (list[0].clone(), "that figure"),
            _ => (list.join(" and "), "those figures"),
        }
    };
    let mut out = Vec::new();
    let tool = sides(|m| m.tool);
    if !tool.is_empty()
        && !matches!(
            f.quantity,
            Quantity::RequestsPerS | Quantity::CpuUsPerRequest
        )
    {
        let (who, what) = named(&tool);
        out.push(format!(
            "{TOOL_MARK} the load tool was ≥ 90 % busy while {who} {} measured, so it may have set {what}",
            if tool.len() == 1 { "was" } else { "were" }
        ));
    }
    let machine = sides(|m| m.machine);
    if !machine.is_empty() {
        let (who, what) = named(&machine);
        out.push(format!(
            "{MACHINE_MARK} the machine was busy while {who} {} measured, so it may have set {what}",
            if machine.len() == 1 { "was" } else { "were" }
        ));
    }
    let trips = sides(|m| m.round_trips);
    if !trips.is_empty() {
        let (who, what) = named(&trips);
        out.push(format!(
            "{ROUND_TRIP_MARK} the connections' round trips set {what}, {who}'s"
        ));
    }
    out.join("; ")
}

/// What finding `f` compares in `r`: both sides' figures, whether the ratio is a bound, the
/// paired comparison when the run was measured in rounds, and the ratio itself (the median
/// of the rounds' ratios when paired, else the ratio of the medians).
pub(crate) struct Compared {
    a: Read,
    b: Read,
    /// `at least `, `at most ` or nothing.
    pub bound: &'static str,
    /// The median of the rounds' ratios and its interval.
    pub paired: Option<(f64, Interval)>,
    /// The ratio.
    pub x: f64,
}

/// [`Compared`] of finding `f` in `r`; `None` when either figure is missing (a server or
/// step not run, an invalid step, a figure not measured) or both are lower bounds.
pub(crate) fn compared(r: &Results, f: &Finding) -> Option<Compared> {
    let server = |name: &str| r.servers.iter().find(|s| s.name == name);
    let (sa, sb) = (server(f.a.server)?, server(f.b.server)?);
    let mut a = read(sa, &f.a, f.quantity)?;
    let mut b = read(sb, &f.b, f.quantity)?;
    if !(b.x > 0.0 && a.x.is_finite()) {
        return None;
    }
    // Requests/s the load tool set is the tool's limit: the server could serve at least as
    // many, so that side is a lower bound.
    if f.quantity == Quantity::RequestsPerS {
        a.at_least |= a.marks.tool;
        b.at_least |= b.marks.tool;
    }
    // A lower bound over an exact figure is a lower bound; the other way round, an upper one;
    // two lower bounds give no ratio at all.
    let bound = match (a.at_least, b.at_least) {
        (false, false) => "",
        (true, false) => "at least ",
        (false, true) => "at most ",
        (true, true) => return None,
    };
    // E7: the ratio of the two capacities, with its likelihood interval from every run of
    // both servers' rungs.
    if f.quantity == Quantity::KeptUp {
        let curve = |s: &ServerResult, endpoint: &str| {
            let t = capacity::trials(&s.steps, endpoint);
            Some((Curve::of(&t)?, t.len()))
        };
        let ((ca, ta), (cb, tb)) = (curve(sa, f.a.endpoint)?, curve(sb, f.b.endpoint)?);
        let c = Capacity::from_curve(&Curve::difference(&ca, &cb), ta + tb);
        let bound = match (c.at_least(), c.at_most()) {
            (false, false) => "",
            (true, false) => "at least ",
            (false, true) => "at most ",
            (true, true) => return None,
        };
        let paired = Some((
            c.rate,
            Interval {
                low: c.low,
                high: c.high,
                confidence: bench_model::stats::LEVEL,
                n: c.trials,
            },
        ));
        return Some(Compared {
            a,
            b,
            bound,
            paired,
            x: c.rate,
        });
    }
    // Measured in rounds: the ratio of each round's two figures, their median and interval.
    let paired = paired(sa, sb, f, (&a.step, &b.step));
    let x = paired.as_ref().map_or(a.x / b.x, |p| p.0);
    Some(Compared {
        a,
        b,
        bound,
        paired,
        x,
    })
}

/// Whether the load tool set both sides' requests/s in finding `f` (each a lower bound, so no
/// ratio of them).
fn both_tool_bound(r: &Results, f: &Finding) -> bool {
    let side = |side: &Side| {
        let s = r.servers.iter().find(|s| s.name == side.server)?;
        read(s, side, Quantity::RequestsPerS).map(|x| x.marks.tool)
    };
    side(&f.a) == Some(true) && side(&f.b) == Some(true)
}

/// One side's figure: its value, whether it is a lower bound (a ladder that ended before the
/// server fell behind; a probe that got no answer in a round), its marks and its step's
/// connections.
struct Read {
    x: f64,
    at_least: bool,
    marks: Marks,
    connections: usize,
    /// The step it was read from (the best one, for [`Pick::Best`]); `capacity` for
    /// [`Pick::KeptUp`], which is read from every rung.
    step: String,
    /// The probe's rounds when one got no answer ([`ProbeP99`]).
    unanswered: Option<ProbeP99>,
}

/// What a sentence says of a probe whose p99 counts rounds without an answer at their lower
/// bound: `` `node-http`'s probe beside `/api/sync` got an answer in 3 of its 6 rounds (…),
/// … : so its p99 is a lower bound `` ([`probe_answers`]).
fn unanswered(side: &Side, p: &ProbeP99) -> String {
    format!(
        "`{}`'s probe beside `{}` {}: so its p99 is a lower bound",
        side.server,
        side.endpoint,
        probe_answers(p)
    )
}

/// How a probe's rounds were answered, when a round got no answer (a sentence's and the
/// probe table's words): `got an answer in 3 of its 6 rounds (0, 0, 1, 0, 1, 1 requests
/// answered in each 1 s window, one at a time on 1 connection, so it sent at most one more
/// each), and a round without one counts as half its window, 500 ms, the least it waited`.
pub(crate) fn probe_answers(p: &ProbeP99) -> String {
    let answered: Vec<String> = p.rounds.iter().map(|r| r.answered.to_string()).collect();
    let windows: Vec<f64> = p.rounds.iter().map(|r| r.window_s).collect();
    let window = if windows.iter().all(|w| (w - windows[0]).abs() < 1e-9) {
        format!("each {} s window", trim(windows[0]))
    } else {
        "each window".to_string()
    };
    let bound = p
        .rounds
        .iter()
        .find(|r| r.censored)
        .map_or(0.0, |r| r.p99_us);
    let n = p.rounds.len();
    let got = n - p.censored();
    format!(
        "got an answer in {got} of its {n} rounds ({} requests answered in {window}, one at a time on {} connection, so it sent at most one more each), and a round without one counts as half its window, {}, the least it waited",
        answered.join(", "),
        experiment::probe(std::time::Duration::ZERO, false).connections,
        bench_chart::format::us_label(bound)
    )
}

/// Seconds without trailing zeros (`1`, `0.5`).
fn trim(s: f64) -> String {
    let t = format!("{s:.2}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl Read {
    /// The figure as a sentence shows it, written as its table cell is (the same function,
    /// from the same value) with its marks; requests/s the load tool set read `≥` instead of
    /// `†`.
    fn shown(&self, q: Quantity) -> String {
        let x = match q {
            Quantity::RequestsPerS | Quantity::KeptUp => thousands(self.x),
            Quantity::CpuUsPerRequest => bench_chart::format::cpu(self.x),
            Quantity::P99Ms | Quantity::ProbeP99Ms => bench_chart::format::grouped(self.x, 2),
        };
        // Requests/s the tool set read `≥`; a CPU time per request is the server's own.
        let marks = Marks {
            tool: self.marks.tool
                && !matches!(q, Quantity::RequestsPerS | Quantity::CpuUsPerRequest),
            ..self.marks
        };
        format!(
            "{}{x}{}",
            if self.at_least { "≥ " } else { "" },
            marks.suffix()
        )
    }

    /// The figure's unit, as a sentence gives it after the second figure.
    fn unit(&self, q: Quantity) -> &'static str {
        match q {
            Quantity::RequestsPerS | Quantity::KeptUp => " requests/s",
            Quantity::CpuUsPerRequest => " µs",
            Quantity::P99Ms | Quantity::ProbeP99Ms => " ms",
        }
    }
}

/// A ratio as a sentence shows it: `0.42×`, `1.97×`, `19.2×`, `1,297×`.
fn ratio(x: f64) -> String {
    if x >= 100.0 {
        format!("{}×", thousands(x))
    } else if x >= 10.0 {
        format!("{x:.1}×")
    } else {
        format!("{x:.2}×")
    }
}

/// A ratio's bound as a sentence shows it, without the `×`.
fn plain_ratio(x: f64) -> String {
    ratio(x).trim_end_matches('×').to_string()
}

/// The paired comparison of finding `f` when both sides are one step measured in rounds
/// (`steps`: the steps read, the best one of each for [`Pick::Best`]): each round's figure of
/// `a` over the same round's figure of `b`, their median and its interval
/// ([`StepResult::paired_ratio`]). `None` for a run without rounds, fewer than two paired
/// rounds, a side read from every rung ([`Pick::KeptUp`]), or two best steps that differ.
fn paired(
    a: &ServerResult,
    b: &ServerResult,
    f: &Finding,
    (ia, ib): (&str, &str),
) -> Option<(f64, Interval)> {
    match (f.a.pick, f.b.pick) {
        (Pick::Step(_), Pick::Step(_)) => {}
        (Pick::Best, Pick::Best) if ia == ib => {}
        _ => return None,
    }
    let (sta, stb) = (find(a, f.a.endpoint, ia)?, find(b, f.b.endpoint, ib)?);
    if !(sta.valid && stb.valid) {
        return None;
    }
    // A round whose probe got no answer counts at its lower bound, never left out.
    sta.paired_ratio(stb, |run: &Run| f.quantity.of(run))
}

/// `s`'s figure at `side`.
fn read(s: &ServerResult, side: &Side, q: Quantity) -> Option<Read> {
    let at = |st: &StepResult, m: &Run| -> Option<Read> {
        // The probe's p99 over the rounds, one without an answer at its lower bound; a step
        // of no rounds with probes (files from before rounds), its median run's.
        let probe = (q == Quantity::ProbeP99Ms)
            .then(|| st.probe_p99())
            .flatten();
        let x = match q {
            Quantity::RequestsPerS => m.requests_per_s,
            Quantity::CpuUsPerRequest => m.cpu_us_per_request?,
            Quantity::P99Ms => m.latency_us.p99? as f64 / 1000.0,
            Quantity::ProbeP99Ms => match &probe {
                Some(p) => p.median_us / 1000.0,
                None => m.probe.as_ref()?.latency_us.p99? as f64 / 1000.0,
            },
            Quantity::KeptUp => return None,
        };
        let unanswered = probe.filter(ProbeP99::at_least);
        Some(Read {
            x,
            at_least: unanswered.is_some(),
            marks: Marks::of(m),
            connections: st.connections,
            step: st.step.clone(),
            unanswered,
        })
    };
    match side.pick {
        Pick::Step(id) => {
            let st = find(s, side.endpoint, id)?;
            at(st, valid(st)?)
        }
        Pick::Best => {
            let (st, m) = s
                .steps
                .iter()
                .filter(|st| st.endpoint == side.endpoint)
                .filter_map(|st| Some((st, valid(st)?)))
                .max_by(|a, b| a.1.requests_per_s.total_cmp(&b.1.requests_per_s))?;
            at(st, m)
        }
        Pick::KeptUp => kept_up(s, side.endpoint),
    }
}

/// The median run of `st` when it is valid.
fn valid(st: &StepResult) -> Option<&Run> {
    st.median.as_ref().filter(|_| st.valid)
}

/// The capacity of `s` on `endpoint` ([`Capacity`]: the rate it keeps up with in half its
/// runs, from every run of every rung), as the findings read it: a lower bound when the
/// load tool was the limit above every rate it held; `None` without rungs, or when it held
/// none. A disturbed rung above the rate it held carries its ‡ to the capacity.
fn kept_up(s: &ServerResult, endpoint: &str) -> Option<Read> {
    let sus = sustainable::sustained(&s.steps, endpoint)?;
    let c = Capacity::of(&s.steps, endpoint).filter(|c| !c.at_most())?;
    let marks = match sus.held {
        Some((_, st)) => Marks::of(st.median.as_ref()?),
        None => Marks::default(),
    };
    Some(Read {
        x: if c.at_least() { c.low } else { c.rate },
        at_least: c.at_least(),
        marks: above_marks(&sus, s, endpoint, marks),
        connections: sus.held.map_or(0, |(_, st)| st.connections),
        step: "capacity".to_string(),
        unanswered: None,
    })
}

/// `marks`, with ‡ when the rung above the sustainable rate was disturbed.
fn above_marks(sus: &Sustained<'_>, s: &ServerResult, endpoint: &str, marks: Marks) -> Marks {
    let disturbed = sus.not_held().is_some_and(|hi| {
        s.steps.iter().any(|st| {
            st.endpoint == endpoint
                && sustainable::rate_of(st) == Some(hi)
                && st.median.as_ref().is_some_and(|m| m.disturbed)
        })
    });
    Marks {
        machine: marks.machine || disturbed,
        ..marks
    }
}

/// The headline's and the tables' text of `s`'s capacity on `endpoint` ([`Capacity`]:
/// `29,300 [27,100–31,500]` with `interval`, else `29,300`; `≥ 61,200`, `≤ 1,000`), with the
/// marks of the rung it held last; `None` without rungs.
pub(crate) fn capacity_read(
    s: &ServerResult,
    endpoint: &str,
    interval: bool,
) -> Option<(String, Marks)> {
    let sus = sustainable::sustained(&s.steps, endpoint)?;
    let marks = match sus.held {
        Some((_, st)) => st
            .median
            .as_ref()
            .map(|m| above_marks(&sus, s, endpoint, Marks::of(m)))
            .unwrap_or_default(),
        None => Marks::default(),
    };
    let text = match Capacity::of(&s.steps, endpoint) {
        None => "n/a".to_string(),
        Some(c) if interval => c.text(thousands),
        Some(c) if c.at_least() => format!("≥ {}", thousands(c.low)),
        Some(c) if c.at_most() => format!("≤ {}", thousands(c.high)),
        Some(c) => thousands(c.rate),
    };
    Some((text, marks))
}

/// The article's ratio for `f` (from the two figures it reported, never typed), and the
/// systems it is of when they are not the servers compared here.
fn article(e: &Experiment, f: &Finding) -> Option<(f64, Option<(&'static str, &'static str)>)> {
    let (ra, rb) = f.article?;
    let measure = match f.quantity {
        Quantity::RequestsPerS => Measure::RequestsPerS,
        Quantity::P99Ms => Measure::P99Ms,
        _ => return None,
    };
    let figure = |server: &str, side: &Side| -> Option<&'static Reported> {
        let Pick::Step(step) = side.pick else {
            return None;
        };
        e.reported.iter().find(|r| {
            r.server == server
                && r.endpoint == side.endpoint
                && r.step == step
                && r.measure == measure
        })
    };
    let (fa, fb) = (figure(ra, &f.a)?, figure(rb, &f.b)?);
    let (xa, xb) = (number(fa.figure)?, number(fb.figure)?);
    if xb <= 0.0 {
        return None;
    }
    let systems = ((ra, rb) != (f.a.server, f.b.server)).then_some((fa.system, fb.system));
    Some((xa / xb, systems))
}

/// The number an article's figure quotes: `1,240` → 1240, `≈ 10,900` → 10900, a range
/// `5,000–5,250` → its middle, 5125; `None` for anything else (`< 0.5 %`, `read 256`).
pub fn number(figure: &str) -> Option<f64> {
    let plain: String = figure
        .trim()
        .trim_start_matches('≈')
        .chars()
        .filter(|c| *c != ',' && !c.is_whitespace())
        .collect();
    match plain.split_once('–') {
        Some((lo, hi)) => Some((lo.parse::<f64>().ok()? + hi.parse::<f64>().ok()?) / 2.0),
        None => plain.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e3() -> Results {
        serde_json::from_str(include_str!("../tests/data/results-e3.json")).unwrap()
    }

    fn rps<'a>(r: &'a mut Results, server: &str, endpoint: &str, step: &str) -> &'a mut StepResult {
        r.servers
            .iter_mut()
            .find(|s| s.name == server)
            .unwrap()
            .steps
            .iter_mut()
            .find(|st| st.endpoint == endpoint && st.step == step)
            .unwrap()
    }

    #[test]
    fn the_articles_figures_are_read_as_numbers() {
        assert_eq!(number("1,240"), Some(1240.0));
        assert_eq!(number("≈ 10,900"), Some(10_900.0));
        assert_eq!(number("5,000–5,250"), Some(5125.0));
        assert_eq!(number("9.8"), Some(9.8));
        assert_eq!(number("< 0.5 %"), None);
        assert_eq!(number("read 256"), None);
        // E2's article ratio, computed from its two figures: 5,125 / 10,900.
        let e2 = &experiment::E2;
        let (y, systems) = article(e2, &e2.findings[0]).unwrap();
        assert_eq!((format!("{y:.2}"), systems), ("0.47".to_string(), None));
        assert_eq!(ratio(0.4165), "0.42×");
        assert_eq!(ratio(19.16), "19.2×");
        assert_eq!(ratio(1297.2), "1,297×");
    }

    #[test]
    fn e3s_sentences_come_from_its_figures() {
        let r = e3();
        let said = sentences(&r);
        // server-prebuilt 81,103, node-http 12,883 at `/` c100: 6.30×; the article's
        // Blazeio over node:http, 33,294 / 12,883: 2.58×. No blazeio in this file: no
        // second sentence.
        assert_eq!(
            said,
            [
                "`server-prebuilt` serves 6.30× `node-http`'s requests/s here (`/`, 100 connections: 81,103 vs 12,883 requests/s); the article: 2.58× (Blazeio vs node:http)."
            ],
            "{said:?}"
        );
    }

    /// Issue 26, point 4: change a figure in a results file and the sentence changes with it.
    #[test]
    fn a_changed_figure_changes_the_sentence() {
        let mut r = e3();
        let before = sentences(&r);
        assert!(before[0].contains(" 6.30× "), "{before:?}");
        let node = rps(&mut r, "node-http", "/", "c100");
        for run in &mut node.repeats {
            run.requests_per_s *= 2.0;
        }
        node.finish();
        let after = sentences(&r);
        assert!(after[0].contains(" 3.15× "), "{after:?}");
        // The article's ratio is the article's: it does not move.
        assert!(after[0].ends_with("; the article: 2.58× (Blazeio vs node:http)."));
        // An invalid step says nothing.
        let node = rps(&mut r, "node-http", "/", "c100");
        node.valid = false;
        assert!(sentences(&r).is_empty());
    }

    #[test]
    fn marks_and_bounds_are_said() {
        let mut r = e3();
        let st = rps(&mut r, "server-prebuilt", "/", "c100");
        for run in &mut st.repeats {
            run.disturbed = true;
        }
        st.finish();
        let said = sentences(&r);
        // The mark beside the figure it is on, and the side named.
        assert!(
            said[0].contains(": 81,103 ‡ vs 12,883 requests/s) (‡ the machine was busy while `server-prebuilt` was measured, so it may have set that figure); the article"),
            "{said:?}"
        );
        // The denominator's requests/s the tool set: node-http could serve at least that
        // many, so the ratio is an upper bound, said in words, not as a mark.
        let st = rps(&mut r, "node-http", "/", "c100");
        for run in &mut st.repeats {
            run.tool_bound = true;
        }
        st.finish();
        let said = sentences(&r);
        assert!(
            said[0].starts_with("`server-prebuilt` serves at most 6.30× `node-http`'s"),
            "{said:?}"
        );
        assert!(
            said[0].contains("(`/`, 100 connections: 81,103 ‡ vs ≥ 12,883 requests/s) (‡ the machine was busy while `server-prebuilt` was measured, so it may have set that figure); the article"),
            "{said:?}"
        );
        assert!(!said[0].contains("tool-bound"), "{said:?}");
        // The numerator's too: two lower bounds give no ratio of requests/s at all; the CPU
        // per request is compared instead, and the sentence says why.
        let st = rps(&mut r, "server-prebuilt", "/", "c100");
        for run in &mut st.repeats {
            run.tool_bound = true;
        }
        st.finish();
        assert_eq!(
            sentences(&r),
            [
                "The load tool set both `server-prebuilt`'s and `node-http`'s requests/s, so they give no ratio; instead, `server-prebuilt` uses 0.16× `node-http`'s CPU per request here (`/`, 100 connections: 12.22 ‡ vs 77.62 µs) (‡ the machine was busy while `server-prebuilt` was measured, so it may have set that figure)."
            ]
        );
        // The numerator's alone: a lower bound.
        let st = rps(&mut r, "node-http", "/", "c100");
        for run in &mut st.repeats {
            run.tool_bound = false;
        }
        st.finish();
        let said = sentences(&r);
        assert!(said[0].contains(" serves at least 6.30× "), "{said:?}");
        assert!(
            said[0].contains(": ≥ 81,103 ‡ vs 12,883 requests/s)"),
            "{said:?}"
        );
    }

    /// A run in rounds: the ratio is the median of the rounds' ratios, with its interval and
    /// the rounds it is over; an interval that holds 1.00 says no difference was shown.
    #[test]
    fn a_run_in_rounds_gives_the_paired_ratio_and_its_interval() {
        let mut r = e3();
        let rounds = |st: &mut StepResult, rps: &[f64]| {
            let one = st.repeats[0].clone();
            st.repeats = rps
                .iter()
                .enumerate()
                .map(|(i, &x)| Run {
                    requests_per_s: x,
                    round: Some(i as u32 + 1),
                    ..one.clone()
                })
                .collect();
            st.finish();
        };
        // Each round server-prebuilt serves 2× node-http's, whatever the round's speed.
        let speeds = [1.0, 0.8, 1.1, 0.9, 1.2, 0.7, 1.0];
        let node: Vec<f64> = speeds.iter().map(|s| 10_000.0 * s).collect();
        let pre: Vec<f64> = speeds.iter().map(|s| 20_000.0 * s).collect();
        rounds(rps(&mut r, "node-http", "/", "c100"), &node);
        rounds(rps(&mut r, "server-prebuilt", "/", "c100"), &pre);
        let said = sentences(&r);
        assert!(said[0].contains(" serves 2.00× "), "{said:?}");
        assert!(
            said[0].contains("; 95 % CI 2.00–2.00, 7 rounds)"),
            "{said:?}"
        );
        // The same server measured against itself: the ratio straddles 1.00.
        let wobble: Vec<f64> = node
            .iter()
            .zip([1.02, 0.97, 1.01, 0.99, 1.03, 0.98, 1.0])
            .map(|(x, w)| x * w)
            .collect();
        rounds(rps(&mut r, "server-prebuilt", "/", "c100"), &wobble);
        let said = sentences(&r);
        assert!(
            said[0].contains(" 7 rounds: no difference shown at this run's precision)"),
            "{said:?}"
        );
        // Three rounds: too few for a 95 % interval, and said so, with the rounds and the
        // interval's real coverage; never "95 %" of it.
        rounds(rps(&mut r, "node-http", "/", "c100"), &node[..3]);
        rounds(rps(&mut r, "server-prebuilt", "/", "c100"), &pre[..3]);
        let said = sentences(&r);
        assert!(
            said[0]
                .contains("; 2.00–2.00, min–max of 3 rounds, 75 %, too few for a 95 % interval)"),
            "{said:?}"
        );
        assert!(!said[0].contains("95 % CI"), "{said:?}");
    }

    /// The published E4 (node-http's steps of 2026-12-03, 6 rounds): beside `/api/sync` the
    /// probe got no answer in 3 rounds. They are kept at their lower bound, so the finding is
    /// over 6 rounds and says "at least" and how many rounds were answered; left out, it was
    /// "3,673×" over the 3 answered rounds (one request each), with no word of the others.
    #[test]
    fn a_probe_without_an_answer_is_a_lower_bound_and_said() {
        let r: Results =
            serde_json::from_str(include_str!("../tests/data/results-e4-rounds.json")).unwrap();
        let said = sentences(&r);
        assert_eq!(said.len(), 2, "{said:?}");
        assert_eq!(
            said[0],
            "While `/api/sync` blocks `node-http`'s event loop, its probe on `/api/hello` waits at least 3,307× its idle p99 here (≥ 500.00 vs 0.16 ms; 95 % CI 2,328–4,668, 6 rounds: each round's ratio is a lower bound (a round without an answer counts at the least it waited), so the ratio is, at 95 %, at least 2,328; `node-http`'s probe beside `/api/sync` got an answer in 3 of its 6 rounds (0, 0, 1, 0, 1, 1 requests answered in each 1 s window, one at a time on 1 connection, so it sent at most one more each), and a round without one counts as half its window, 500 ms, the least it waited: so its p99 is a lower bound)."
        );
        // The remedy's probe always answered: an exact figure, nothing more said.
        assert_eq!(
            said[1],
            "With the same work offloaded (`/api/sync-offload`), `node-http`'s probe p99 is 14.6× its idle one here (2.34 vs 0.16 ms; 95 % CI 11.0–18.3, 6 rounds; its size undecided at ±32 %: about 46 more rounds \
             would bring it within ±10 %)."
        );
    }

    #[test]
    fn the_frozen_runs_say_what_the_issue_expects() {
        // The runs measured 2026-11-29..12-01, frozen in tests/data (docs/results moves on
        // with every `bench publish`): always there, so nothing is skipped.
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/runs-2026-12-01");
        let load = |name: &str| {
            let path = root.join(name);
            Results::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        let e2 = load("e2-20261129T234559Z.json");
        assert_eq!(
            sentences(&e2),
            [
                "`express` serves 0.42× `node-http`'s requests/s here (`/api?name=John&lastname=Doe`, 100 connections: 7,051 vs 16,928 requests/s); the article: 0.47×."
            ]
        );
        let e7 = load("e7-20261201T220239Z.json");
        let said = sentences(&e7);
        assert!(
            said[0].starts_with("`server-prebuilt` keeps up with at least 1.77× the offered rate `node-http` does here (`/hello`: ≥ 32,533 vs 14,328 requests/s; 95 % CI 1.77–∞, from the 9 runs of both servers' rates: a capacity beyond the rates tried makes the ratio a lower bound, at 95 % at least 1.77)"),
            "{said:?}"
        );
    }
}
