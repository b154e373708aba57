//! What else may have set a run's figures: the ratios to the C ceiling measured in the same
//! rounds (which carry across days), the load tool's limit and the machine's.

use super::*;

/// Every server's requests/s and CPU per request over the ceiling's in the same round, per
/// step (`0.94 [0.90–0.98]`, or `0.94 [0.90–0.98; 3 rounds, 75 %]` where too few rounds pair
/// up for 95 %): the figures that carry across runs and days. At an offered rate
/// (E7), where the rate sets the requests/s of every server that keeps up, CPU per request,
/// p99 and p99.9 instead. Nothing for a run without the ceiling in its rounds.
pub(super) fn against_ceiling(d: &mut Document, r: &Results) {
    type Figure = fn(&Run) -> Option<f64>;
    let ratio = |x: f64| format!("{x:.2}");
    let text = |p: Option<(f64, Interval)>| {
        p.map_or("—".to_string(), |(x, i)| {
            format!("{} {}", ratio(x), i.bracket(ratio))
        })
    };
    // A ladder of offered rates, as the report decides it everywhere.
    let offered = shown(r).charts == Charts::Rates;
    let figures: &[(&str, Figure)] = if offered {
        &[
            ("CPU/request", |m| m.cpu_us_per_request),
            ("p99", |m| m.latency_us.p99.map(|v| v as f64)),
            ("p99.9", |m| m.latency_us.p999.map(|v| v as f64)),
        ]
    } else {
        &[
            ("requests/s", |m| Some(m.requests_per_s)),
            ("CPU/request", |m| m.cpu_us_per_request),
        ]
    };
    let mut any = false;
    // Whether a ratio's interval is below 95 % (too few rounds pair up).
    let mut below = false;
    let mut tables = Vec::new();
    for endpoint in endpoints(r) {
        let steps: Vec<String> = step_ids(r, &endpoint)
            .into_iter()
            .filter(|s| r.ceiling_step(&endpoint, s).is_some())
            .collect();
        if steps.is_empty() {
            continue;
        }
        let heads: Vec<String> = steps
            .iter()
            .flat_map(|s| figures.iter().map(move |(name, _)| format!("{name} {s}")))
            .collect();
        let heads: Vec<&str> = heads.iter().map(String::as_str).collect();
        let mut t = Table::of(&["Server"], &heads);
        for s in r.servers.iter().filter(|s| s.name != CEILING) {
            let mut cells = vec![Cell::text(&s.name)];
            for step in &steps {
                let st = find(s, &endpoint, step).filter(|st| st.valid);
                for (_, figure) in figures {
                    let x = st.and_then(|st| r.to_ceiling(st, figure));
                    any |= x.is_some();
                    below |= x.is_some_and(|(_, i)| !i.at_level());
                    cells.push(Cell::text(text(x)));
                }
            }
            t.push(&s.name, cells);
        }
        tables.push((endpoint, t));
    }
    if !any {
        return;
    }
    d.push(Block::Heading("Against the ceiling".to_string()));
    let interval = if below {
        "its 95 % interval; where fewer than 6 rounds pair up, the lowest and the highest ratio, with its rounds and the chance it holds the median: `[low–high; 3 rounds, 75 %]`"
    } else {
        "its 95 % interval"
    };
    let what = if offered {
        format!(
            "Each server's CPU per request, p99 and p99.9 latency at each offered rate over the C ceiling's at the same rate in the same round (the median of the rounds' ratios, with {interval}; the offered rate sets every server's requests/s while it keeps up, so those are not compared): above 1.00 it spent more CPU per request, or made its users wait longer, than the loopback's yardstick did under the same load at the same moment."
        )
    } else {
        format!(
            "Each server's requests/s and CPU per request over the C ceiling's in the same round (the median of the rounds' ratios, with {interval}): above 1.00 it served more, or spent more CPU per request, than the loopback's yardstick did under the same load at the same moment."
        )
    };
    d.push(Block::Para(format!(
        "{what} These ratios, not the figures themselves, are what can be compared across runs, days and machines: the VM's speed moves both sides alike."
    )));
    for (endpoint, t) in tables {
        d.push(Block::Subheading(format!("`{endpoint}`")));
        d.push(Block::Table(t));
    }
}

/// The sentence that says which figures are the load tool's limit rather than the server's.
pub(super) fn tool_limit(d: &mut Document, r: &Results) {
    let bound = r.tool_bound_steps();
    let tool = &r.tool;
    let medians = || {
        r.steps()
            .filter_map(|(s, st)| Some((s, st, st.median.as_ref()?)))
    };
    let busiest = medians()
        .filter_map(|(s, st, m)| {
            let share = m.tool_cpu_percent? / m.tool_cpus.unwrap_or(1).max(1) as f64;
            Some((share, s, st, m))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let sentence = if !bound.is_empty() {
        let list: Vec<String> = bound.iter().map(|b| b.describe()).collect();
        format!(
            "**The load tool's limit, not the server's:** {tool} used at least 90 % of the CPUs \
             it could use (of a CPU on its busiest thread, for a one-thread tool) in {} of the \
             steps below, so their requests/s (marked †) are the most {tool} could send on this \
             machine, and the server may do more: {}.",
            bound.len(),
            list.join("; ")
        )
    } else if let Some((share, s, st, m)) = busiest {
        format!(
            "**The load tool's limit:** no step was tool-bound; {tool} used at most {:.0} % of \
             the CPUs it could use ({} {} {}, {:.0} % of {} CPU{}), so the requests/s below are \
             the servers' own.",
            share,
            s.name,
            st.endpoint,
            st.step,
            m.tool_cpu_percent.unwrap_or(0.0),
            m.tool_cpus.unwrap_or(1),
            if m.tool_cpus.unwrap_or(1) == 1 {
                ""
            } else {
                "s"
            }
        )
    } else if medians().next().is_some() {
        format!(
            "**The load tool's limit:** this file does not record {tool}'s own CPU (it was written \
             before bench measured it), so it cannot say which figures {tool} capped."
        )
    } else {
        return;
    };
    d.push(Block::Para(sentence));
}

/// The sentence that says which figures the machine set (other work, steal, CPU waits)
/// rather than the server, or that it was quiet throughout.
pub(super) fn machine_limit(d: &mut Document, r: &Results) {
    let busy = disturbed_steps(r);
    let measured: Vec<&Interference> = r
        .steps()
        .filter_map(|(_, st)| st.median.as_ref()?.interference.as_ref())
        .collect();
    let most = |get: fn(&Interference) -> Option<f64>| {
        measured
            .iter()
            .filter_map(|i| get(i))
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
    };
    let sentence = if !busy.is_empty() {
        format!(
            "**The machine's figures, not the server's:** other work, steal or waits for a CPU \
             passed their limits in {} of the steps below even after their retries, so their \
             figures (marked ‡) say what the machine allowed: {}.",
            busy.len(),
            busy.join("; ")
        )
    } else if !measured.is_empty() {
        let pct = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.0} %"));
        format!(
            "**The machine:** quiet in every step: other work took at most {} of a CPU, steal \
             at most {}, and the server waited for a CPU at most {} of the time (limits: \
             {OTHER_CPU_LIMIT} %, {STEAL_LIMIT} %, and {SERVER_WAIT_LIMIT} % of waiting while other work ran).",
            pct(most(|i| i.other_cpu_percent)),
            pct(Some(
                measured.iter().map(|i| i.steal_percent).fold(0.0, f64::max)
            )),
            pct(most(|i| i.server_wait_percent))
        )
    } else if r.steps().any(|(_, st)| st.median.is_some()) {
        "**The machine:** this file does not record what else ran on the machine (written \
         before bench measured it, or its steps were too short to), so it cannot say which \
         figures the machine set."
            .to_string()
    } else {
        return;
    };
    d.push(Block::Para(sentence));
}
