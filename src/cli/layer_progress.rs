//! Progress of `enumerate` on standard error, on a terminal only: a bar over the known total
//! (tile puzzles: `N!/2` states) with an ETA, or a running count of states and layers.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Shows the layers of an enumeration as they are counted.
pub struct LayerProgress {
    bar: Option<ProgressBar>,
}

impl LayerProgress {
    /// Starts a display for an enumeration of `total` states (when known); shows nothing when
    /// standard error is not a terminal or `quiet` is set (e.g. `--trace` prints its own lines).
    pub fn new(total: Option<u64>, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let (bar, template) = match total {
                Some(n) => (
                    ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
                    "{elapsed_precise} [{bar:40}] {human_pos}/{human_len} states  {msg}  ETA {eta}",
                ),
                None => (
                    ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
                    "{elapsed_precise} {spinner} {human_pos} states  {msg}",
                ),
            };
            let style = ProgressStyle::with_template(template)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
            bar.set_style(style);
            bar
        });
        LayerProgress { bar }
    }

    /// Records layer `depth` with `states` states.
    pub fn layer(&mut self, depth: usize, states: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(states);
            bar.set_message(format!("depth {depth}: {states}"));
        }
    }

    /// Removes the display.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
