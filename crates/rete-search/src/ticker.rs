//! Progress of an index build: work counted per phase, reported to the build's progress sink
//! now and then, which is also when a cancel is heard.

use crate::SearchError;
use rete_build::Progress;

/// Items (quads, documents) between two progress reports and cancel checks.
const TICK: u64 = 1 << 16;

/// Counts work done in a phase: reports it to the progress sink every [`TICK`] items and stops
/// the build with [`SearchError::Cancelled`] when the sink asks to.
pub(crate) struct Ticker<'a> {
    progress: &'a dyn Progress,
    n: u64,
}

impl<'a> Ticker<'a> {
    pub(crate) fn new(progress: &'a dyn Progress) -> Self {
        Self { progress, n: 0 }
    }

    pub(crate) fn start(&mut self, phase: &str, total: Option<u64>) -> Result<(), SearchError> {
        self.end();
        self.progress.start(phase, total);
        self.check()
    }

    pub(crate) fn tick(&mut self) -> Result<(), SearchError> {
        self.n += 1;
        if self.n < TICK {
            return Ok(());
        }
        self.progress.inc(self.n);
        self.n = 0;
        self.check()
    }

    /// [`Ticker::tick`] for `n` items at once.
    pub(crate) fn tick_n(&mut self, n: u64) -> Result<(), SearchError> {
        self.n += n;
        if self.n < TICK {
            return Ok(());
        }
        self.progress.inc(self.n);
        self.n = 0;
        self.check()
    }

    pub(crate) fn check(&self) -> Result<(), SearchError> {
        if self.progress.cancelled() {
            Err(SearchError::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Reports what is left of the phase and ends it.
    pub(crate) fn end(&mut self) {
        if self.n > 0 {
            self.progress.inc(self.n);
            self.n = 0;
        }
    }
}
