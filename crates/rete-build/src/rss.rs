//! Peak resident memory per phase for the build report: a thread samples the process's `VmRSS`
//! (Linux) every few milliseconds and keeps the largest value since the last phase ended.
//! (`VmHWM` only gives the peak of the whole process, and resetting it would hide that peak from
//! `/usr/bin/time`.) Elsewhere the values are 0.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the resident size is read.
const PERIOD: Duration = Duration::from_millis(5);

/// Samples the resident size until dropped.
pub(crate) struct RssSampler {
    max: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl RssSampler {
    pub(crate) fn start() -> Self {
        let max = Arc::new(AtomicU64::new(current()));
        let stop = Arc::new(AtomicBool::new(false));
        let (m, s) = (max.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("rete-build-rss".into())
            .spawn(move || {
                while !s.load(Ordering::Relaxed) {
                    m.fetch_max(current(), Ordering::Relaxed);
                    std::thread::sleep(PERIOD);
                }
            })
            .ok();
        Self { max, stop, thread }
    }

    /// The largest resident size since the last call (or the start), in bytes; starts the next
    /// phase from the current size.
    pub(crate) fn take(&self) -> u64 {
        let now = current();
        self.max.swap(now, Ordering::Relaxed).max(now)
    }
}

impl Drop for RssSampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The process's resident size in bytes (0 where unknown).
fn current() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib << 10)
        })
        .unwrap_or(0)
}
