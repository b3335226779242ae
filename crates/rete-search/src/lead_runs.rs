//! A permutation's runs of its leading term, counted on a thread of their own: an index build
//! meets the subjects' and the objects' runs side by side, in term order.

use crate::SearchError;
use rete_core::{Id, Perm, Rete};

/// Each term's number of quads in a permutation where it leads, in term order, decoded on a
/// thread of its own and handed over a block at a time.
pub(crate) struct LeadRuns {
    rx: std::sync::mpsc::Receiver<Result<Vec<(Id, u64)>, SearchError>>,
    runs: Vec<(Id, u64)>,
    pos: usize,
}

impl LeadRuns {
    pub(crate) fn spawn<'s>(
        scope: &'s std::thread::Scope<'s, '_>,
        base: &'s Rete,
        perm: Perm,
    ) -> Self {
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        scope.spawn(move || {
            let scanned = base.scan_lead_runs(perm, |runs| {
                // The reader stopped (an error of its own): so does the scan.
                Ok::<_, SearchError>(tx.send(Ok(runs)).is_ok())
            });
            if let Err(e) = scanned {
                let _ = tx.send(Err(e));
            }
        });
        Self {
            rx,
            runs: Vec::new(),
            pos: 0,
        }
    }

    /// Steps past the run [`LeadRuns::peek`] gave.
    pub(crate) fn advance(&mut self) {
        self.pos += 1;
    }

    /// The next run, waiting for the next block's if needed; `None` after the last.
    pub(crate) fn peek(&mut self) -> Result<Option<(Id, u64)>, SearchError> {
        while self.pos == self.runs.len() {
            match self.rx.recv() {
                Ok(runs) => {
                    self.runs = runs?;
                    self.pos = 0;
                }
                Err(_) => return Ok(None),
            }
        }
        Ok(Some(self.runs[self.pos]))
    }
}
