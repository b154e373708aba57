//! The client loop: one OS thread per `-t`, each with a current-thread tokio runtime that
//! drives its share of the connections.
//!
//! There is one loop, [`connection`], for every mode and load model. Each turn it asks the
//! load model when the next request may go (now for the closed model, the thread's [`Pacer`]
//! for the open one, its activation window for stages), checks the stop condition (the
//! thread's share of `-n`, or the end of `-d`), then writes one pre-serialised request or
//! pipelined batch and frames the responses. Connections of a thread share its
//! [`ThreadStats`] through an `Rc`: nothing is shared between threads on the hot path but
//! a per-thread progress counter that only the progress bar reads.
//!
//! The open model (`-R`) is one schedule per thread, not one per connection: request `j` of
//! thread `t` is intended at `start + (j + t / threads) / rate_t`, `rate_t` the thread's share
//! of the rate. A connection that finishes an exchange takes a request already due at once
//! (no timer, no wake-up); otherwise it parks as idle with the thread's [`Pacer`], whose task
//! wakes at the next request's intended time (a timerfd, [`Timer`]) and hands every request
//! due by then, or within the next [`TICK`], to an idle connection. A due request with no
//! idle connection waits for the next connection that frees up. Its latency runs from its
//! intended time however late it is sent (from the send for one sent up to a `TICK` early);
//! requests due in the measured window but never sent are counted as `unsent`.
//!
//! Latency runs between two turns of the thread's event loop, as in wrk, not between two
//! moments that depend on where in its turn a connection's task happens to run: see
//! [`Turn`].

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::time::{sleep_until, timeout_at};

use crate::config::{Config, Load, Stage};
use crate::framing::{self, Parse};
use crate::request;
use crate::stats::{ErrorKind, ThreadStats};
use crate::timeline::ThreadTimeline;

mod timer;

use timer::Timer;

/// Bytes reserved in a connection's read buffer before each read.
const READ_CHUNK: usize = 8 * 1024;

/// What every thread shares, read-only: the request bytes, the clock marks, the model.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The request repeated `pipeline` times.
    batch: Vec<u8>,
    req_len: usize,
    head_request: bool,
    persistent: bool,
    pipeline: usize,
    timeout: Duration,
    addr: SocketAddr,
    /// All connections, all threads (the maximum for stages).
    total_connections: usize,
    threads: usize,
    pub(crate) start: Instant,
    /// Results before this are discarded.
    pub(crate) warm_end: Instant,
    /// No request starts after this; requests in flight then are unfinished.
    pub(crate) end: Option<Instant>,
    /// The open model's rate, requests/s, all threads together.
    rate: Option<f64>,
    stages: Option<Vec<Stage>>,
    /// The timeline's interval (`--interval`), if any.
    interval: Option<Duration>,
}

impl Plan {
    /// Serialises the request and fixes the clock marks, starting now.
    pub(crate) fn new(config: &Config) -> Plan {
        let one = request::serialise(config);
        let total_connections = config.max_connections();
        let start = Instant::now();
        let warm_end = start + config.warmup;
        let end = match &config.load {
            Load::Stages { .. } => config.run_duration().map(|d| start + d),
            _ => config.duration.map(|d| warm_end + d),
        };
        Plan {
            batch: one.repeat(config.pipeline),
            req_len: one.len(),
            head_request: config.method.eq_ignore_ascii_case("HEAD"),
            persistent: config.mode.persistent(),
            pipeline: config.pipeline,
            timeout: config.timeout,
            addr: config.target.addr,
            total_connections,
            threads: config.threads,
            start,
            warm_end,
            end,
            rate: match config.load {
                Load::Open { rate } => Some(rate),
                _ => None,
            },
            stages: match &config.load {
                Load::Stages { stages } => Some(stages.clone()),
                _ => None,
            },
            interval: config.interval,
        }
    }

    fn share(&self, total: u64, thread: usize) -> u64 {
        let t = self.threads as u64;
        total / t + u64::from((thread as u64) < total % t)
    }
}

/// A counter on its own cache line, written by one worker and read by the progress bar.
#[derive(Debug, Default)]
#[repr(align(64))]
pub(crate) struct Progress(pub(crate) AtomicU64);

/// What one thread hands back: its stats, CPU seconds (user, system) and when it finished.
pub(crate) struct ThreadOutcome {
    pub(crate) stats: ThreadStats,
    pub(crate) cpu: (f64, f64),
    pub(crate) finished: Instant,
}

/// Runs worker `thread` to completion on the calling OS thread.
pub(crate) fn run_thread(
    plan: Arc<Plan>,
    thread: usize,
    requests: Option<u64>,
    progress: Arc<Progress>,
) -> io::Result<ThreadOutcome> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let connections = plan.share(plan.total_connections as u64, thread) as usize;
    let pacer = plan
        .rate
        .map(|rate| Pacer::new(&plan, rate, thread, connections));
    let mut stats = ThreadStats::new(plan.timeout);
    if let (Some(step), Some(end)) = (plan.interval, plan.end) {
        let window = end.saturating_duration_since(plan.warm_end);
        stats.timeline = Some(ThreadTimeline::new(
            plan.warm_end,
            step,
            window,
            plan.timeout,
        ));
    }
    let ctx = Rc::new(Ctx {
        stats: RefCell::new(stats),
        cpu_mark: Cell::new(None),
        tickets: Cell::new(requests.map(|n| plan.share(n, thread))),
        done: Notify::new(),
        progress,
        pacer,
        plan,
    });
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async {
        let pacer = ctx
            .pacer
            .is_some()
            .then(|| tokio::task::spawn_local(pace(Rc::clone(&ctx), Timer::new())));
        let tasks: Vec<_> = (0..connections)
            // Global indices interleave threads, so stages activate connections evenly.
            .map(|j| {
                tokio::task::spawn_local(connection(Rc::clone(&ctx), j * ctx.plan.threads + thread))
            })
            .collect();
        let sampler = tokio::task::spawn_local(sample_rate(Rc::clone(&ctx)));
        // Not awaited: it ends with the window, or is dropped with the thread's tasks.
        if let Some(step) = ctx.plan.interval {
            tokio::task::spawn_local(sample_cpu(Rc::clone(&ctx), step));
        }
        for t in tasks {
            let _ = t.await;
        }
        if let (Some(p), Some(task)) = (&ctx.pacer, pacer) {
            p.stop();
            let _ = task.await;
        }
        ctx.done.notify_one();
        let _ = sampler.await;
    });
    let finished = Instant::now();
    let cpu = crate::cpu::thread_times();
    drop(local);
    let mut st = ctx.stats.borrow_mut();
    if let (Some(t), Some((i, mark))) = (&mut st.timeline, ctx.cpu_mark.get()) {
        // The thread finished within interval `i`, whose end was not sampled.
        t.add_cpu(i, cpu.0 + cpu.1 - mark);
    }
    if let Some(p) = &ctx.pacer {
        let all_sent = ctx.tickets.get() == Some(0);
        st.intended = match ctx.plan.end {
            // The thread's share of `-n` was sent: nothing more was wanted.
            Some(end) if !all_sent => p.due(ctx.plan.warm_end, end),
            _ => p.started.get(),
        };
        st.unsent = st.intended.saturating_sub(p.started.get());
        if let Some(t) = &mut st.timeline {
            if all_sent {
                t.due_as_started();
            } else {
                for i in 0..t.len() {
                    let (from, to) = t.bounds(i);
                    t.set_due(i, p.due(from, to));
                }
            }
        }
    }
    drop(st);
    let stats = match Rc::try_unwrap(ctx) {
        Ok(ctx) => ctx.stats.into_inner(),
        Err(ctx) => ctx.stats.replace(ThreadStats::new(Duration::from_secs(1))),
    };
    Ok(ThreadOutcome {
        stats,
        cpu,
        finished,
    })
}

/// One thread's state, shared by its connections.
struct Ctx {
    plan: Arc<Plan>,
    stats: RefCell<ThreadStats>,
    /// The timeline's last CPU sample: the interval it opened, and the thread's CPU seconds
    /// then (`None` before the window or without a timeline).
    cpu_mark: Cell<Option<(usize, f64)>>,
    /// Requests this thread may still start (`None`: unbounded).
    tickets: Cell<Option<u64>>,
    /// Notified once every connection has finished.
    done: Notify,
    progress: Arc<Progress>,
    /// The open model's schedule (`None` for the other models).
    pacer: Option<Pacer>,
}

impl Ctx {
    /// Takes up to `want` requests from the thread's budget.
    fn claim(&self, want: usize) -> usize {
        match self.tickets.get() {
            None => want,
            Some(left) => {
                let k = left.min(want as u64);
                self.tickets.set(Some(left - k));
                k as usize
            }
        }
    }

    #[cold]
    fn fail(&self, kind: ErrorKind, n: usize, measured: bool) {
        if measured && n > 0 {
            let mut s = self.stats.borrow_mut();
            let now = Instant::now();
            s.fail_at(now, kind, n as u64);
            s.last = Some(now);
            self.progress.0.fetch_add(n as u64, Ordering::Relaxed);
        }
    }

    #[cold]
    fn unfinished(&self, n: usize, measured: bool) {
        if measured {
            self.stats.borrow_mut().unfinished += n as u64;
        }
    }
}

/// How often a thread samples its own request rate (wrk's `Req/Sec` row).
const RATE_SAMPLE: Duration = Duration::from_millis(100);

/// Records the thread's responses per second over each [`RATE_SAMPLE`] of the measured
/// window, off the hot path.
async fn sample_rate(ctx: Rc<Ctx>) {
    let plan = &ctx.plan;
    let mut at = plan.warm_end;
    let mut before = 0;
    loop {
        at += RATE_SAMPLE;
        if plan.end.is_some_and(|e| at > e) {
            break;
        }
        tokio::select! {
            _ = sleep_until(at.into()) => {}
            _ = ctx.done.notified() => break,
        }
        let mut st = ctx.stats.borrow_mut();
        let now = st.responses;
        let rate = (now - before) as f64 / RATE_SAMPLE.as_secs_f64();
        st.rate.saturating_record(rate.round() as u64);
        before = now;
    }
}

/// Samples the thread's CPU time (getrusage, `cpu`) at each interval boundary of the
/// measured window into the timeline, off the hot path; `run_thread` closes the interval the
/// thread finished in. A boundary sampled late (tokio's timer and a busy event loop allow a
/// few ms) moves that CPU time into the interval before it.
async fn sample_cpu(ctx: Rc<Ctx>, step: Duration) {
    let plan = &ctx.plan;
    let Some(end) = plan.end else { return };
    let cpu = || {
        let (user, system) = crate::cpu::thread_times();
        user + system
    };
    sleep_until(plan.warm_end.into()).await;
    let mut before = cpu();
    ctx.cpu_mark.set(Some((0, before)));
    for i in 0.. {
        let at = (plan.warm_end + step * (i + 1)).min(end);
        sleep_until(at.into()).await;
        let now = cpu();
        if let Some(t) = &mut ctx.stats.borrow_mut().timeline {
            t.add_cpu(i as usize, now - before);
        }
        before = now;
        if at >= end {
            ctx.cpu_mark.set(None);
            return;
        }
        ctx.cpu_mark.set(Some((i as usize + 1, now)));
    }
}

/// The one worker loop: a connection's life, for every mode and model.
async fn connection(ctx: Rc<Ctx>, index: usize) {
    let plan = Arc::clone(&ctx.plan);
    let mut stream: Option<TcpStream> = None;
    let mut buf: Vec<u8> = Vec::with_capacity(READ_CHUNK);
    let turn = Arc::new(Turn::default());
    // Where the pacer hands this connection a request while it is idle (open model).
    let slot = Rc::new(Slot::default());
    loop {
        if let Some(stages) = &plan.stages {
            let elapsed = Instant::now().saturating_duration_since(plan.start);
            if !active(stages, index, elapsed) {
                stream = None;
                match next_active(stages, index, elapsed) {
                    Some(at) if plan.end.is_none_or(|e| plan.start + at < e) => {
                        sleep_until((plan.start + at).into()).await;
                        continue;
                    }
                    _ => break,
                }
            }
        }
        // The open model: the intended send time of the request this connection sends next.
        let intended = match &ctx.pacer {
            Some(p) => match p.next(&slot).await {
                Some(at) => Some(at),
                None => break,
            },
            None => None,
        };
        let now = Instant::now();
        if plan.end.is_some_and(|e| now >= e) {
            break;
        }
        let measured = intended.unwrap_or(now) >= plan.warm_end;
        let k = if measured {
            ctx.claim(plan.pipeline)
        } else {
            plan.pipeline
        };
        if k == 0 {
            break;
        }
        if let (Some(p), true) = (&ctx.pacer, measured) {
            p.started.set(p.started.get() + 1);
            if plan.interval.is_some()
                && let (Some(at), Some(t)) = (intended, &mut ctx.stats.borrow_mut().timeline)
            {
                t.started(at);
            }
        }
        let reused = stream.is_some();
        // Latency counts from the intended time in the open model (whatever held the request
        // up: the server, a busy connection or this generator; from the send for a request
        // handed out ahead of its time, see `TICK`), from before the connect for a
        // new connection (as ab does), else from the event-loop turn that lets the request go
        // (below).
        let mut from = match intended {
            Some(at) => Some(at),
            None if !reused => Some(now),
            None => None,
        };
        if stream.is_none() {
            let expiry = Instant::now() + plan.timeout;
            let cut = plan.end.map_or(expiry, |e| e.min(expiry));
            match timeout_at(cut.into(), TcpStream::connect(plan.addr)).await {
                Ok(Ok(s)) => {
                    let _ = s.set_nodelay(true);
                    ctx.stats.borrow_mut().connections += 1;
                    stream = Some(s);
                }
                Ok(Err(_)) => {
                    ctx.fail(ErrorKind::Connect, k, measured);
                    continue;
                }
                Err(_) if cut < expiry => {
                    ctx.unfinished(k, measured);
                    break;
                }
                Err(_) => {
                    ctx.fail(ErrorKind::Connect, k, measured);
                    continue;
                }
            }
        }
        let Some(s) = stream.as_mut() else { continue };
        if reused && from.is_none() {
            // Write in the event loop's next turn, as wrk does: every connection whose
            // response is already in records it first. Without it a response waits in its
            // socket behind the sends of other connections, and the median latency on
            // loopback came out twice wrk's (docs/notes/crate-loadgen-latency-clock.md).
            // The request is due from the turn that lets it go. (The open model's latency
            // runs from the intended time, which no order of the turn moves.)
            let (_, due) = turn.wait(tokio::task::yield_now()).await;
            from = due;
        }
        if !exchange(&ctx, s, &mut buf, k, from, measured, &turn).await {
            stream = None;
            buf.clear();
        }
    }
}

/// The open model's schedule for one worker thread, and the hand-out of its requests to the
/// thread's connections: request `j` is intended at `base + (j + phase) * per` seconds.
///
/// A free connection asks [`Pacer::next`]: a request already due is taken at once; otherwise
/// the connection parks in `idle` until [`pace`], the thread's one pacer task, hands it one.
/// `next` only moves forward, so a request waits (a backlog) until some connection takes it,
/// however late, and keeps its intended time.
struct Pacer {
    base: Instant,
    /// The thread's offset within the rate's interval, in intervals (`thread / threads`).
    phase: f64,
    /// Seconds between two of the thread's requests.
    per: f64,
    end: Option<Instant>,
    /// The next request to hand out, and its intended time.
    next: Cell<u64>,
    next_at: Cell<Instant>,
    /// Connections waiting for a request, oldest first.
    idle: RefCell<VecDeque<Rc<Slot>>>,
    /// The pacer task's waker, woken when a connection parks into an empty `idle` and on stop.
    waker: RefCell<Option<Waker>>,
    stopped: Cell<bool>,
    /// Measured requests the connections started.
    started: Cell<u64>,
}

/// Where the pacer leaves a parked connection's request.
#[derive(Default)]
struct Slot {
    given: Cell<Option<Given>>,
    waker: RefCell<Option<Waker>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Given {
    /// A request, with its intended send time.
    Request(Instant),
    /// The schedule is over.
    Stop,
}

impl Slot {
    fn give(&self, g: Given) {
        self.given.set(Some(g));
        if let Some(w) = self.waker.borrow_mut().take() {
            w.wake();
        }
    }
}

impl Pacer {
    /// Thread `thread`'s share of `rate`, in proportion to its `connections`.
    fn new(plan: &Plan, rate: f64, thread: usize, connections: usize) -> Pacer {
        let share = rate * connections as f64 / plan.total_connections.max(1) as f64;
        let mut p = Pacer {
            base: plan.start,
            phase: thread as f64 / plan.threads as f64,
            per: 1.0 / share,
            end: plan.end,
            next: Cell::new(0),
            next_at: Cell::new(plan.start),
            idle: RefCell::default(),
            waker: RefCell::default(),
            stopped: Cell::new(false),
            started: Cell::new(0),
        };
        p.next_at = Cell::new(p.at(0));
        p
    }

    /// The intended send time of request `j`.
    fn at(&self, j: u64) -> Instant {
        self.base + Duration::from_secs_f64((j as f64 + self.phase) * self.per)
    }

    fn before_end(&self, at: Instant) -> bool {
        self.end.is_none_or(|e| at < e)
    }

    /// Hands out the next request: its intended time.
    fn advance(&self) -> Instant {
        let at = self.next_at.get();
        let j = self.next.get() + 1;
        self.next.set(j);
        self.next_at.set(self.at(j));
        at
    }

    /// The next request for a free connection, with its intended send time: one already due
    /// at once, else the one the pacer hands it once due; `None` when the schedule is over.
    async fn next(&self, slot: &Rc<Slot>) -> Option<Instant> {
        if self.stopped.get() {
            return None;
        }
        let at = self.next_at.get();
        if self.before_end(at) && at <= Instant::now() {
            return Some(self.advance());
        }
        let first = {
            let mut idle = self.idle.borrow_mut();
            idle.push_back(Rc::clone(slot));
            idle.len() == 1
        };
        if first {
            // The pacer waits without a timer while no connection is idle.
            self.wake();
        }
        let given = poll_fn(|cx| match slot.given.take() {
            Some(g) => Poll::Ready(g),
            None => {
                let mut w = slot.waker.borrow_mut();
                if !w.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    *w = Some(cx.waker().clone());
                }
                Poll::Pending
            }
        })
        .await;
        match given {
            Given::Request(at) => Some(at),
            Given::Stop => None,
        }
    }

    fn wake(&self) {
        if let Some(w) = self.waker.borrow_mut().take() {
            w.wake();
        }
    }

    /// Ends the schedule: every idle connection, and every one that asks later, gets none.
    fn stop(&self) {
        self.stopped.set(true);
        let idle = std::mem::take(&mut *self.idle.borrow_mut());
        for slot in idle {
            slot.give(Given::Stop);
        }
        self.wake();
    }

    /// The number of requests intended in `[from, to)`.
    fn due(&self, from: Instant, to: Instant) -> u64 {
        self.first_at_or_after(to)
            .saturating_sub(self.first_at_or_after(from))
    }

    /// The first request intended at or after `t`.
    fn first_at_or_after(&self, t: Instant) -> u64 {
        let x = t.saturating_duration_since(self.base).as_secs_f64() / self.per - self.phase;
        // The estimate, then exactly by `at`, as the connections compare.
        let mut j = x.ceil().max(0.0) as u64;
        while j > 0 && self.at(j - 1) >= t {
            j -= 1;
        }
        while self.at(j) < t {
            j += 1;
        }
        j
    }
}

/// How far ahead of its intended time the pacer may hand out a request, so that one wake-up
/// serves every request due within it. Each wake-up is a timer interrupt and a turn of the
/// event loop: in short runs against the C ceiling on the project's 2-CPU VM, a wake-up per
/// request kept the generator thread busy nearly all the time at 40k requests/s, about twice
/// what the per-connection tokio timers it replaced used, and a 200 µs tick brought it back
/// to about theirs (single runs on a shared machine: the `paced_vs_closed` bench measures
/// it). A request sent early is timed from its send (never from a later intended time), so
/// no latency is understated; the load comes in bursts of at most `TICK` of the rate.
const TICK: Duration = Duration::from_micros(200);

/// The pacer task of a thread in the open model: each time it wakes, it hands every request
/// due by now, or within [`TICK`], to an idle connection (each with its intended time), then
/// sleeps until the next one is due ([`Timer`]), or, while no connection is idle, until one
/// parks. It stops the schedule at the end of the run, or once the thread's share of `-n` is
/// taken.
async fn pace(ctx: Rc<Ctx>, mut timer: Timer) {
    let Some(p) = ctx.pacer.as_ref() else { return };
    loop {
        let now = Instant::now();
        if p.stopped.get() || p.end.is_some_and(|e| now >= e) || ctx.tickets.get() == Some(0) {
            p.stop();
            return;
        }
        loop {
            let at = p.next_at.get();
            if at > now + TICK || !p.before_end(at) {
                break;
            }
            let Some(slot) = p.idle.borrow_mut().pop_front() else {
                break;
            };
            slot.give(Given::Request(p.advance()));
        }
        let wake_at = if p.idle.borrow().is_empty() {
            None
        } else {
            let at = p.next_at.get();
            Some(p.end.map_or(at, |e| e.min(at)))
        };
        if let Some(at) = wake_at {
            timer.arm(at);
        }
        poll_fn(|cx| {
            if p.stopped.get() {
                return Poll::Ready(());
            }
            let mut w = p.waker.borrow_mut();
            if !w.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                *w = Some(cx.waker().clone());
            }
            drop(w);
            if wake_at.is_some() {
                timer.poll_expired(cx)
            } else if p.idle.borrow().is_empty() {
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await;
    }
}

/// Writes `k` requests and frames their `k` responses; false when the connection must not
/// be used again.
async fn exchange(
    ctx: &Ctx,
    s: &mut TcpStream,
    buf: &mut Vec<u8>,
    k: usize,
    from: Option<Instant>,
    measured: bool,
    turn: &Arc<Turn>,
) -> bool {
    let plan = &*ctx.plan;
    // When the event loop reported the bytes of the last read (it had to wait for them).
    let mut seen: Option<Instant> = None;
    let sent = Instant::now();
    if measured
        && plan.interval.is_some()
        && let Some(t) = &mut ctx.stats.borrow_mut().timeline
    {
        t.sent(sent, k as u64);
    }
    // Never after the send: an open-model request sent ahead of its intended time (within
    // the pacer's `TICK`) is timed from its send.
    let from = from.map_or(sent, |f| f.min(sent));
    let expiry = sent + plan.timeout;
    let cut = plan.end.map_or(expiry, |e| e.min(expiry));
    match timeout_at(cut.into(), s.write_all(&plan.batch[..k * plan.req_len])).await {
        Ok(Ok(())) => {}
        Ok(Err(_)) => {
            ctx.fail(ErrorKind::Write, k, measured);
            return false;
        }
        Err(_) => {
            expired(ctx, k, cut < expiry, measured);
            return false;
        }
    }
    let mut pos = 0;
    let mut done = 0;
    while done < k {
        match framing::parse(&buf[pos..], plan.head_request) {
            Parse::Complete { status, len, .. } if status < 200 && status != 101 => {
                // An interim response (100 Continue, 103 Early Hints): the real one follows.
                pos += len;
                continue;
            }
            Parse::Complete {
                status,
                len,
                keep_alive,
            } => {
                if measured {
                    let now = Instant::now();
                    let at = seen.unwrap_or(now);
                    let mut st = ctx.stats.borrow_mut();
                    st.response_at(at, status, len, at - from, at - sent);
                    st.last = Some(now);
                    ctx.progress.0.fetch_add(1, Ordering::Relaxed);
                }
                pos += len;
                done += 1;
                if !(keep_alive && plan.persistent) {
                    // The rest of a pipelined batch cannot be answered on a closing connection.
                    ctx.fail(ErrorKind::Read, k - done, measured);
                    return false;
                }
                continue;
            }
            Parse::Invalid => {
                ctx.fail(ErrorKind::Framing, k - done, measured);
                return false;
            }
            Parse::Partial | Parse::UntilClose { .. } => {}
        }
        if buf.capacity() - buf.len() < READ_CHUNK / 4 {
            buf.reserve(READ_CHUNK);
        }
        let (read, woken) = match timeout_at(cut.into(), turn.wait(s.read_buf(buf))).await {
            Ok((read, woken)) => (Ok(read), woken),
            Err(e) => (Err(e), None),
        };
        seen = woken;
        match read {
            Ok(Ok(0)) => {
                eof(ctx, &buf[pos..], k - done, from, sent, measured);
                return false;
            }
            Ok(Ok(n)) => ctx.stats.borrow_mut().bytes_read += n as u64,
            Ok(Err(_)) => {
                ctx.fail(ErrorKind::Read, k - done, measured);
                return false;
            }
            Err(_) => {
                expired(ctx, k - done, cut < expiry, measured);
                return false;
            }
        }
    }
    if pos == buf.len() {
        buf.clear();
    } else {
        buf.drain(..pos);
    }
    true
}

/// When the event loop last woke a connection's task: the end of the driver's poll that
/// reported its socket ready, or that released its deferred write.
///
/// wrk handles every ready connection once per turn of its event loop, reads and writes
/// interleaved in the order they became ready, so a request written in one turn and
/// answered in the next is timed over exactly one turn, whatever its place in the turn. The
/// tokio loop here runs the tasks woken by one poll in a fixed order, all reads before all
/// deferred writes, and polls every 61 tasks, so the moment a task runs, and a clock read
/// there, depends on its place in that order: the median swung from 0.5 to 0.75 of the
/// per-connection cycle from run to run. Timing between the turns instead (from the turn
/// that lets a request go to the turn that reports its response) is independent of that
/// order, as wrk's is.
#[derive(Debug, Default)]
struct Turn {
    state: Mutex<Woken>,
}

#[derive(Debug, Default)]
struct Woken {
    /// The task's own waker, woken in turn.
    task: Option<Waker>,
    at: Option<Instant>,
}

impl Wake for Turn {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let task = {
            let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            st.at = Some(Instant::now());
            st.task.take()
        };
        if let Some(w) = task {
            w.wake();
        }
    }
}

impl Turn {
    /// Runs `fut` to completion; with it, when the event loop last woke it, or `None` when
    /// it never had to wait.
    async fn wait<F: Future>(self: &Arc<Self>, fut: F) -> (F::Output, Option<Instant>) {
        let mut fut = pin!(fut);
        let waker = Waker::from(Arc::clone(self));
        let mut waited = false;
        self.state.lock().unwrap_or_else(PoisonError::into_inner).at = None;
        let out = std::future::poll_fn(|cx| {
            {
                let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                if !st.task.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    st.task = Some(cx.waker().clone());
                }
            }
            let poll = fut.as_mut().poll(&mut Context::from_waker(&waker));
            waited |= poll.is_pending();
            poll
        })
        .await;
        let at = if waited {
            self.state
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .at
                .take()
        } else {
            None
        };
        (out, at)
    }
}

/// The server closed with `left` responses outstanding; a body delimited by the close is
/// whole now.
#[cold]
fn eof(ctx: &Ctx, rest: &[u8], left: usize, from: Instant, sent: Instant, measured: bool) {
    let mut left = left;
    if let Parse::UntilClose { status } = framing::parse(rest, ctx.plan.head_request) {
        if measured {
            let now = Instant::now();
            let mut st = ctx.stats.borrow_mut();
            st.response_at(now, status, rest.len(), now - from, now - sent);
            st.last = Some(now);
            ctx.progress.0.fetch_add(1, Ordering::Relaxed);
        }
        left -= 1;
    }
    ctx.fail(ErrorKind::Read, left, measured);
}

/// A timer fired: the run ended (`by_end`) or the request timed out.
#[cold]
fn expired(ctx: &Ctx, n: usize, by_end: bool, measured: bool) {
    if by_end {
        ctx.unfinished(n, measured);
    } else {
        ctx.fail(ErrorKind::Timeout, n, measured);
    }
}

/// The number of active connections `elapsed` into a staged run (linear ramps from 0).
pub(crate) fn target(stages: &[Stage], elapsed: Duration) -> f64 {
    let mut prev = 0.0;
    let mut at = Duration::ZERO;
    for s in stages {
        let c = s.connections as f64;
        if elapsed < at + s.duration {
            let f = (elapsed - at).as_secs_f64() / s.duration.as_secs_f64();
            return prev + (c - prev) * f;
        }
        prev = c;
        at += s.duration;
    }
    prev
}

fn active(stages: &[Stage], index: usize, elapsed: Duration) -> bool {
    (index as f64) < target(stages, elapsed)
}

/// The first moment at or after `from` when connection `index` is active.
pub(crate) fn next_active(stages: &[Stage], index: usize, from: Duration) -> Option<Duration> {
    let g = index as f64;
    let mut prev = 0.0;
    let mut at = Duration::ZERO;
    for s in stages {
        let c = s.connections as f64;
        let end = at + s.duration;
        // Within this step the target runs linearly from `prev` to `c`.
        let begin = if prev > g {
            Some(at)
        } else if c > g {
            Some(at + s.duration.mul_f64((g - prev) / (c - prev)) + Duration::from_micros(1))
        } else {
            None
        };
        if let Some(b) = begin {
            let b = b.max(from);
            if b < end && (index as f64) < target(stages, b) {
                return Some(b);
            }
        }
        prev = c;
        at = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramps() {
        let s = |d: u64, c: usize| Stage {
            duration: Duration::from_secs(d),
            connections: c,
        };
        let st = [s(10, 100), s(10, 100), s(10, 0)];
        let t = |x: f64| target(&st, Duration::from_secs_f64(x));
        assert_eq!(
            (t(0.0), t(5.0), t(15.0), t(25.0), t(31.0)),
            (0.0, 50.0, 100.0, 50.0, 0.0)
        );
        let na = |i: usize, from: f64| {
            next_active(&st, i, Duration::from_secs_f64(from)).map(|d| d.as_secs_f64())
        };
        assert!((na(50, 0.0).unwrap() - 5.0).abs() < 0.01);
        assert_eq!(na(50, 12.0), Some(12.0));
        assert_eq!(na(50, 26.0), None);
        assert_eq!(na(100, 0.0), None);
    }

    #[test]
    fn a_threads_schedule_and_its_due_requests() {
        let mut config = Config::new("http://127.0.0.1:1/").unwrap();
        config.load = Load::Open { rate: 1000.0 };
        (config.threads, config.connections) = (2, 4);
        let plan = Plan::new(&config);
        // Thread 1 of 2, half the connections: 500 requests/s, half an interval late.
        let p = Pacer::new(&plan, 1000.0, 1, 2);
        let ms = |x: f64| plan.start + Duration::from_secs_f64(x / 1000.0);
        assert_eq!((p.at(0), p.at(1), p.at(10)), (ms(1.0), ms(3.0), ms(21.0)));
        assert_eq!(p.due(plan.start, ms(1000.0)), 500);
        // [1 ms, 3 ms): request 0 only, as the connections compare.
        assert_eq!(p.due(ms(1.0), ms(3.0)), 1);
        assert_eq!(p.due(ms(1.5), ms(3.0)), 0);
        assert_eq!(p.first_at_or_after(ms(3.0)), 1);
        assert_eq!(p.first_at_or_after(ms(3.000_001)), 2);
        // The hand-out: the next request, once, in order.
        assert_eq!(
            (p.advance(), p.advance(), p.next.get()),
            (ms(1.0), ms(3.0), 2)
        );
    }

    #[test]
    fn turn_times_the_wake_not_the_run() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let turn = Arc::new(Turn::default());
            assert_eq!(turn.wait(async { 7 }).await, (7, None));
            let before = Instant::now();
            let (_, at) = turn.wait(tokio::task::yield_now()).await;
            let at = at.expect("a yield waits for the next turn");
            assert!(before <= at && at <= Instant::now());

            // Woken, then kept waiting while the loop is busy: the wake counts.
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            let waiter = tokio::spawn(async move {
                let turn = Arc::new(Turn::default());
                let (_, at) = turn.wait(rx).await;
                (at, Instant::now())
            });
            tokio::task::yield_now().await;
            tx.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(20));
            let (at, ran) = waiter.await.unwrap();
            assert!(ran - at.unwrap() >= Duration::from_millis(20));
        });
    }
}
