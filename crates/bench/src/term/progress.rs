//! The progress display of a run (indicatif): the server, the step, and the time left in the
//! step and in the run. Drawn on stderr only when stderr is a terminal; hidden otherwise, so
//! logs and tests see only the harness's own lines.

use std::io::IsTerminal;
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
        if let Some(end) = self.run_end {
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

fn mmss(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}
