//! A ladder of offered rates (E7) in the report: its tables of rungs, achieved rates and
//! tails, and where the load generator was the limit.

use super::*;

/// A ladder of offered rates (E7), per endpoint: the table of rungs (`p99 ms · CPU µs per
/// request` at each offered rate, a row per server, its saturation beside its name), then the
/// achieved rate at each rung, then the tail (p99.9) from the intended send time beside the
/// one from the actual send, which a tool that omits the requests a stall delayed would show.
pub(super) fn ladder(d: &mut Document, r: &Results, endpoints: &[String]) {
    let limit = bench_model::rules::KEEP_UP_P99.as_millis();
    let share = bench_model::rules::KEEP_UP_SHARE * 100.0;
    let opt_ms = |us: Option<u64>| us.map_or("n/a".to_string(), ms);
    for endpoint in endpoints {
        // The ladder's own rates; a searched rate is one server's, told in its Sustains cell.
        let rungs: Vec<String> = step_ids(r, endpoint)
            .into_iter()
            .filter(|id| {
                !r.servers
                    .iter()
                    .any(|s| find(s, endpoint, id).is_some_and(|st| st.searched_rounds.is_some()))
            })
            .collect();
        let served: Vec<&ServerResult> = r
            .servers
            .iter()
            .filter(|s| s.steps.iter().any(|st| &st.endpoint == endpoint))
            .collect();
        // The first table says why each ladder stopped; the others where.
        let table = |show: &dyn Fn(&Run) -> String, why: bool| {
            // The capacity and the rate held with a low p99 are figures: they sort as
            // numbers, a bound (`≥ 61,200`) by its value.
            let head: &[(&str, bool)] = if why {
                &[
                    ("Server", false),
                    ("Analogue of", false),
                    ("Capacity, req/s", true),
                    ("Searched between", false),
                    ("p99 ≤ 10 ms up to", true),
                ]
            } else {
                &[
                    ("Server", false),
                    ("Analogue of", false),
                    ("Capacity, req/s", true),
                ]
            };
            let mut t = Table::new(
                head.iter()
                    .map(|(h, f)| (h.to_string(), *f))
                    .chain(rungs.iter().map(|r| (r.clone(), true))),
            );
            for s in &served {
                let sus = sustainable::sustained(&s.steps, endpoint);
                let mut row = vec![
                    Cell::text(&s.name),
                    Cell::text(analogue(s)),
                    match crate::findings::capacity_read(s, endpoint, true) {
                        // The first table's cell is the one a finding is read from.
                        Some((text, marks)) if why => Cell::marked(text, marks).keyed(key(
                            &s.name,
                            endpoint,
                            "capacity",
                            Quantity::KeptUp,
                        )),
                        Some((text, marks)) => Cell::marked(text, marks),
                        None => Cell::text("n/a"),
                    },
                ];
                if why {
                    row.push(Cell::text(
                        sus.as_ref().map_or("n/a".into(), |x| x.bracket()),
                    ));
                    row.push(Cell::text(
                        sus.as_ref()
                            .and_then(|x| x.noticed)
                            .map_or("none".into(), |(rate, _)| thousands(rate)),
                    ));
                }
                row.extend(rungs.iter().map(|id| {
                    step_cell(s, endpoint, id, |_, m| Cell::marked(show(m), Marks::of(m)))
                }));
                t.push(&s.name, row);
            }
            Block::Table(t)
        };
        d.push(Block::Heading(format!(
            "`{endpoint}`: p99 ms · server CPU µs per request, at each offered rate"
        )));
        d.push(Block::Para(format!(
            "`rK` is an offered rate of K thousand requests/s. Each cell is the p99 latency, from \
             each request's intended send time, then the server's CPU time per request. A server \
             keeps up with a rate when it achieves at least {share:.0} % of it with a p99 of at \
             most {limit} ms, and holds it when it keeps up in the majority of its rounds; each \
             round's ladder stops at the first rate it cannot keep up with, so `—` is a rate no \
             round reached. **Capacity** is the rate the server keeps up with in half its runs, \
             with its 95 % interval: a probit fit of every run of every rung (kept up or not, \
             against the log of the rate), `≥` where the load tool was the limit above every \
             rate it held (docs/reading-results.md). Between the last ladder rate held (in \
             most rounds) and the first not held, `bench run` searches (halving the bracket, \
             each rate its own {search} rounds) until the two were within {bracket:.0} %, to \
             put runs where the capacity is; **Searched between** says that bracket, or why \
             the search stopped (held at the ladder's top, or the load tool's limit above it). \
             **p99 ≤ 10 ms up to**: the highest rate held with a p99 a user does not notice.",
            search = sustainable::search_rounds(r.repeat),
            bracket = (sustainable::BRACKET - 1.0) * 100.0,
        )));
        d.push(table(
            &|m| {
                format!(
                    "{} · {}",
                    opt_ms(m.latency_us.p99),
                    m.cpu_us_per_request
                        .map_or("n/a".to_string(), bench_chart::format::cpu)
                )
            },
            true,
        ));
        d.push(Block::Heading(format!(
            "`{endpoint}`: requests/s achieved at each offered rate"
        )));
        d.push(Block::Para(
            "The responses per second of the measured window, and their share of the rate \
             offered."
                .to_string(),
        ));
        d.push(table(
            &|m| match m.offered_requests_per_s {
                Some(o) if o > 0.0 => {
                    format!("{} ({:.0} %)", rps(m), m.requests_per_s / o * 100.0)
                }
                _ => rps(m),
            },
            false,
        ));
        d.push(Block::Heading(format!(
            "`{endpoint}`: p99.9 ms from the intended send time · from the actual send"
        )));
        d.push(Block::Para(
            "The first figure counts a request from when it was due, so a stall weighs in every \
             request it held back; the second from when it was sent, the figure of a tool that \
             waits for an answer before the next request (coordinated omission). `n/a`: the tool \
             reports no second figure (k6, oha)."
                .to_string(),
        ));
        d.push(table(
            &|m| {
                format!(
                    "{} · {}",
                    opt_ms(m.latency_us.p999),
                    opt_ms(m.latency_uncorrected_us.as_ref().and_then(|l| l.p999))
                )
            },
            false,
        ));
    }
    if let Some(rate) = generator_limit(r) {
        d.push(Block::Para(format!(
            "The load generator itself was the limit from {} requests/s (†: its thread busy, or \
             requests due that it never sent): no rung at or above that rate says anything of \
             a server, so a rate held up to it is a lower bound (`≥`). `cargo bench -p loadgen` \
             measures where that limit lies on a machine (crates/loadgen/README.md).",
            thousands(rate)
        )));
    }
    d.push(Block::Para(
        "† the load tool set the pace of this figure; ‡ the machine did (other work, steal or CPU waits).".to_string(),
    ));
}

/// The lowest offered rate at which a rung of any server was the load tool's
/// ([`sustainable::Held::Tool`]), if any.
pub(super) fn generator_limit(r: &Results) -> Option<f64> {
    r.servers
        .iter()
        .flat_map(|s| {
            let rounds = sustainable::ladder_rounds(s.steps.iter());
            s.steps
                .iter()
                .filter(move |st| sustainable::held(st, rounds) == sustainable::Held::Tool)
        })
        .filter_map(sustainable::rate_of)
        .min_by(f64::total_cmp)
}
