//! Progress on stderr once a command has run for about a second: nothing for quick runs, nothing
//! when stderr is not a terminal (pipes, logs, tests). Each stage of a long command (reading,
//! limiting, writing) shows its own bar or spinner while it runs.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// How long a command runs before progress appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// When the command started.
static STARTED: OnceLock<Instant> = OnceLock::new();

/// Marks the command's start, from which [`SHOW_AFTER`] counts (else the first progress marks it).
pub fn mark_start() {
    STARTED.get_or_init(Instant::now);
}

/// A progress bar (with a known amount of work) or spinner (without) that shows itself once the
/// command has run for [`SHOW_AFTER`], and disappears when dropped.
pub struct Progress {
    bar: ProgressBar,
    finished: Arc<AtomicBool>,
}

impl Progress {
    /// Progress through `total` steps of `unit` (for example frames), labelled `what`.
    pub fn bar(what: &str, total: u64, unit: &str) -> Progress {
        let template = format!("{what} {{bar:30}} {{pos}}/{{len}} {unit} {{msg}} ({{eta}} left)");
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Progress::start(bar)
    }

    /// A spinner for work of unknown length, labelled `what`.
    pub fn spinner(what: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(what.to_string());
        Progress::start(bar)
    }

    /// A watcher thread reveals the bar once the command has run for [`SHOW_AFTER`] and keeps it
    /// ticking.
    fn start(bar: ProgressBar) -> Progress {
        let finished = Arc::new(AtomicBool::new(false));
        let (watched, done) = (bar.clone(), finished.clone());
        let started = *STARTED.get_or_init(Instant::now);
        std::thread::spawn(move || {
            let mut shown = false;
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if !shown && started.elapsed() >= SHOW_AFTER {
                    watched.set_draw_target(ProgressDrawTarget::stderr());
                    shown = true;
                    if done.load(Ordering::Relaxed) {
                        // Finished meanwhile: clear what the new target may have drawn.
                        watched.finish_and_clear();
                    }
                }
                if shown {
                    watched.tick();
                }
            }
        });
        Progress { bar, finished }
    }

    /// One more step done.
    pub fn step(&self) {
        self.bar.inc(1);
    }

    /// Shows `message` beside the bar (for example the joint being fitted).
    pub fn say(&self, message: &str) {
        self.bar.set_message(message.to_string());
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finished.store(true, Ordering::Relaxed);
        self.bar.finish_and_clear();
    }
}
