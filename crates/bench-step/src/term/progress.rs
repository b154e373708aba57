//! The progress display of a run (indicatif): the server, the step, and the time left in the
//! step and in the run. Drawn on stderr only when stderr is a terminal; hidden otherwise, so
//! logs and tests see only the harness's own lines.
//!
//! Inside a [`Whole`] (`bench publish`: several runs in one sitting) every display starts with
//! the whole's figures instead of its own run's: steps done of the total, time elapsed and
//! time left, so the one bar on the screen always speaks of the whole.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The display; every method is a no-op when it is hidden.
pub struct Progress {
    bar: ProgressBar,
    label: String,
    step_started: Instant,
    step_length: Option<Duration>,
    run_end: Option<Instant>,
}

impl Progress {
    /// A display on stderr when it is a terminal, hidden otherwise.
    pub fn new() -> Progress {
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(1000), target);
        if let Ok(style) = ProgressStyle::with_template("{spinner} [{bar:12}] {wide_msg}") {
            bar.set_style(style.progress_chars("=> "));
        }
        Progress {
            bar,
            label: String::new(),
            step_started: Instant::now(),
            step_length: None,
            run_end: None,
        }
    }

    /// Sets the expected end of the whole run (for "left in the run").
    pub fn run_length(&mut self, total: Duration) {
        self.run_end = Some(Instant::now() + total);
    }

    /// A new phase: `label` (server and step), expected to last `length` (unknown: `None`).
    pub fn phase(&mut self, label: String, length: Option<Duration>) {
        self.label = label;
        self.step_started = Instant::now();
        self.step_length = length;
        self.tick();
    }

    /// Redraws with the current times.
    pub fn tick(&self) {
        if self.bar.is_hidden() {
            return;
        }
        // Times first: a narrow terminal cuts the end of the line, not them.
        let elapsed = self.step_started.elapsed();
        let mut times = Vec::new();
        if let Some(len) = self.step_length {
            let left = len.saturating_sub(elapsed);
            times.push(format!("{} s left", left.as_secs()));
            let frac = elapsed.as_secs_f64() / len.as_secs_f64().max(1e-3);
            self.bar.set_position((frac.min(1.0) * 1000.0) as u64);
        } else {
            self.bar.set_position(0);
        }
        if let Some(whole) = Whole::line() {
            times.push(whole);
        } else if let Some(end) = self.run_end {
            let left = end.saturating_duration_since(Instant::now());
            times.push(format!("run ~{} left", mmss(left)));
        }
        let msg = if times.is_empty() {
            self.label.clone()
        } else {
            format!("{} | {}", times.join(", "), self.label)
        };
        self.bar.set_message(msg);
        self.bar.tick();
    }

    /// Clears the display.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Default for Progress {
    fn default() -> Progress {
        Progress::new()
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// Several runs as one (`bench publish`): how many steps they make in all, how many are done,
/// and how long they were expected to take. One at a time per process.
#[derive(Clone, Debug)]
pub struct Whole {
    started: Instant,
    /// Steps done before this sitting (a resumed whole), not timed here.
    done_before: usize,
    /// Steps done in this sitting.
    done: usize,
    total: usize,
    /// What the steps not yet done were expected to take when the sitting began.
    expected: Duration,
}

static WHOLE: Mutex<Option<Whole>> = Mutex::new(None);

impl Whole {
    /// Begins a whole of `total` steps of which `done_before` were done in an earlier sitting,
    /// the rest expected to take `expected`; every display shows it until [`Whole::end`].
    pub fn begin(total: usize, done_before: usize, expected: Duration) {
        *lock() = Some(Whole {
            started: Instant::now(),
            done_before,
            done: 0,
            total,
            expected,
        });
    }

    /// One more step done (a no-op outside a whole).
    pub fn step_done() {
        if let Some(w) = lock().as_mut() {
            w.done += 1;
        }
    }

    /// A step that will not run after all (a ladder stopped below it).
    pub fn step_dropped() {
        if let Some(w) = lock().as_mut() {
            w.total = w.total.saturating_sub(1);
        }
    }

    /// `n` steps that were not in the plan (the rates E7's search adds), so that the count
    /// and the time left stay true (a no-op outside a whole).
    pub fn steps_added(n: usize) {
        if let Some(w) = lock().as_mut() {
            w.add(n);
        }
    }

    /// Ends the whole.
    pub fn end() {
        *lock() = None;
    }

    /// The whole's figures as one line ("12 of 340 steps, 4:10 elapsed, ~41:00 left"), or
    /// `None` outside a whole.
    pub fn line() -> Option<String> {
        lock().as_ref().map(Whole::describe)
    }

    fn add(&mut self, n: usize) {
        self.total += n;
    }

    fn describe(&self) -> String {
        let elapsed = self.started.elapsed();
        let done = self.done_before + self.done;
        let left_steps = self.total.saturating_sub(done);
        // Once steps are done, their pace says more than the estimate (start-ups, settling).
        let left = if self.done > 0 {
            elapsed.mul_f64(left_steps as f64 / self.done as f64)
        } else {
            self.expected.saturating_sub(elapsed)
        };
        format!(
            "{done} of {} steps, {} elapsed, ~{} left",
            self.total,
            mmss(elapsed),
            mmss(left)
        )
    }
}

fn lock() -> std::sync::MutexGuard<'static, Option<Whole>> {
    WHOLE.lock().unwrap_or_else(|p| p.into_inner())
}

fn mmss(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_counts_its_steps_and_estimates_what_is_left_from_its_pace() {
        let w = Whole {
            started: Instant::now() - Duration::from_secs(60),
            done_before: 10,
            done: 0,
            total: 40,
            expected: Duration::from_millis(600_500),
        };
        // No step done in this sitting: the estimate, less the time gone.
        assert_eq!(w.describe(), "10 of 40 steps, 1:00 elapsed, ~9:00 left");
        // 10 steps in 60 s: the 20 left take 120 s.
        let w = Whole { done: 10, ..w };
        assert_eq!(w.describe(), "20 of 40 steps, 1:00 elapsed, ~2:00 left");
    }

    /// The publish of 2026-12-03 counted "990 of 926 steps": the searched rates ran but were
    /// never added to the whole's total. (On a whole of its own: the global one is shared by
    /// every test thread that runs a step.)
    #[test]
    fn steps_a_search_adds_count_in_the_total() {
        let mut w = Whole {
            started: Instant::now() - Duration::from_secs(60),
            done_before: 0,
            done: 30,
            total: 40,
            expected: Duration::from_secs(60),
        };
        w.total -= 1; // a rung above where a ladder stopped (step_dropped)
        w.add(3); // three searched rates (steps_added)
        w.done += 12;
        assert_eq!(w.describe(), "42 of 42 steps, 1:00 elapsed, ~0:00 left");
    }
}
