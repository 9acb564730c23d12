//! Progress of a batch run on standard error: an indicatif bar on a terminal, a plain line every
//! few seconds otherwise, nothing with `--quiet`.

use super::record::Row;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// A bar when standard error is a terminal, else plain periodic lines.
    Auto,
    /// Plain periodic lines.
    Lines,
    /// Nothing.
    Quiet,
}

/// Counts finished puzzles and failures, and shows them.
pub struct Progress {
    bar: Option<ProgressBar>,
    state: Mutex<State>,
    every: Duration,
}

struct State {
    total: u64,
    done: u64,
    failed: u64,
    start: Instant,
    last_line: Instant,
}

impl Progress {
    /// Starts showing progress of `total` puzzles.
    pub fn new(total: u64, mode: ProgressMode) -> Self {
        let bar_wanted = mode == ProgressMode::Auto && std::io::stderr().is_terminal();
        let bar = bar_wanted.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} puzzles  {per_sec}  ETA {eta}  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_message("0 failures");
            bar
        });
        let now = Instant::now();
        let every = if mode == ProgressMode::Quiet { Duration::MAX } else { Duration::from_secs(5) };
        Progress { bar, state: Mutex::new(State { total, done: 0, failed: 0, start: now, last_line: now }), every }
    }

    /// Records one finished puzzle (a failure unless solved or proven unsolvable).
    pub fn record(&self, row: &Row) {
        let mut s = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        s.done += 1;
        if row.status != "solved" && row.status != "unsolvable" {
            s.failed += 1;
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(format!("{} failures", s.failed));
        } else if s.last_line.elapsed() >= self.every {
            s.last_line = Instant::now();
            crate::traceln!("{}", s.line());
        }
    }

    /// Clears the bar (or prints a last line).
    pub fn finish(&self) {
        let s = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match &self.bar {
            Some(bar) => bar.finish_and_clear(),
            None if self.every != Duration::MAX && s.total > 0 => crate::traceln!("{}", s.line()),
            None => {}
        }
    }
}

impl State {
    fn line(&self) -> String {
        let secs = self.start.elapsed().as_secs_f64();
        let rate = self.done as f64 / secs.max(1e-9);
        let eta = if rate > 0.0 { (self.total - self.done) as f64 / rate } else { 0.0 };
        format!("batch: {}/{} puzzles, {rate:.1}/s, ETA {eta:.0} s, {} failures", self.done, self.total, self.failed)
    }
}
