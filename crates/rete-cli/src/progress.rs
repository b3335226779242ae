//! indicatif progress bars for long builds (hidden automatically when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Mutex;

pub struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    /// Set by the Ctrl-C/SIGTERM handler; the build polls it and stops.
    pub cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Bars {
    pub fn new() -> Self {
        Self {
            bar: Mutex::new(None),
            cancel: Default::default(),
        }
    }
}

impl rete_build::Progress for Bars {
    fn start(&self, phase: &str, total: Option<u64>) {
        let bar = match total {
            // "parse" counts bytes read against the input size (its `inc` counts quads).
            Some(n) if phase == "parse" => ProgressBar::new(n).with_style(
                ProgressStyle::with_template(
                    "{msg:>24} [{bar:30}] {bytes}/{total_bytes} {elapsed} (eta {eta})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
            Some(n) => ProgressBar::new(n).with_style(
                ProgressStyle::with_template("{msg:>24} [{bar:30}] {pos}/{len} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
            None => ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{msg:>24} {spinner} {pos} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        };
        bar.set_message(phase.to_owned());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        if let Ok(mut b) = self.bar.lock() {
            *b = Some(bar);
        }
    }
    fn inc(&self, n: u64) {
        if let Ok(b) = self.bar.lock() {
            if let Some(b) = b.as_ref() {
                if b.message() != "parse" || b.length().is_none() {
                    b.inc(n);
                }
            }
        }
    }
    fn parsed_bytes(&self, bytes: u64) {
        if let Ok(b) = self.bar.lock() {
            if let Some(b) = b.as_ref() {
                if b.length().is_some() {
                    b.set_position(bytes);
                }
            }
        }
    }
    fn cancelled(&self) -> bool {
        self.cancel.load(std::sync::atomic::Ordering::Relaxed)
    }
    fn finish(&self) {
        if let Ok(mut b) = self.bar.lock() {
            if let Some(b) = b.take() {
                b.finish_and_clear();
            }
        }
    }
}
