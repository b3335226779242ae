//! Disk used by spill files: bytes written (per phase, read by differences) and the peak of what
//! is on disk at once. Atomic, because the in-memory permutation sorts run in parallel.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Spill accounting of one `build_parts` run.
#[derive(Debug, Default)]
pub(crate) struct Spill {
    written: AtomicU64,
    current: AtomicU64,
    peak: AtomicU64,
    /// Sorted dictionary runs (one per spilled chunk of terms).
    pub(crate) dictionary_runs: AtomicUsize,
    /// Spilled chunks of parsed quads.
    pub(crate) quad_runs: AtomicUsize,
    /// Sorted runs of the six permutations.
    pub(crate) permutation_runs: AtomicUsize,
}

impl Spill {
    /// A spill file of `bytes` was written.
    pub(crate) fn wrote(&self, bytes: u64) {
        self.written.fetch_add(bytes, Ordering::Relaxed);
        let now = self.current.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    /// A spill file of `bytes` was removed.
    pub(crate) fn removed(&self, bytes: u64) {
        // Saturating: a failed removal is not counted twice.
        let _ = self
            .current
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
                Some(c.saturating_sub(bytes))
            });
    }

    /// Bytes written to spill files so far.
    pub(crate) fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// Largest number of spill bytes on disk at once.
    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }
}

/// Removes a spill file, telling `spill` how much disk it freed.
pub(crate) fn remove(path: &std::path::Path, spill: &Spill) {
    if let Ok(m) = std::fs::metadata(path) {
        if std::fs::remove_file(path).is_ok() {
            spill.removed(m.len());
        }
    }
}
