//! Coherence checks over an open document: Tier 0 (schema block), then Tier 1 (type, sameAs and
//! differentFrom slices), then Tier 2 (property triples), each tier's report handed over as soon
//! as it is ready. The Markdown report is `rete_coherence::report_markdown`.

use super::{AppError, AppResult, Doc};
pub use rete_coherence::report_markdown;
use rete_coherence::{check_with, CheckOptions, CoherenceError, Measure, Report, Tier};
use std::sync::atomic::AtomicBool;

/// The tiers a run goes through, in order, with what each one reads.
pub const TIERS: [(Tier, &str); 3] = [
    (Tier::Schema, "schema block"),
    (
        Tier::Selective,
        "rdf:type, owl:sameAs and owl:differentFrom",
    ),
    (Tier::Full, "the triples of every property with an axiom"),
];

/// Outcome of a run that went through one or more tiers.
#[derive(Debug)]
pub struct CoherenceRun {
    /// The report of the last tier that finished (it includes the lower tiers' findings).
    pub report: Option<Report>,
    /// Whether the run was cancelled before Tier 2 finished.
    pub cancelled: bool,
}

impl Doc {
    /// Runs Tier 0, 1 and 2 in turn; `on_tier` receives each tier's report (its findings include
    /// the lower tiers'). Reads go through the document's own cache and counters.
    pub fn coherence(
        &self,
        cancel: &AtomicBool,
        mut on_tier: impl FnMut(&Report),
    ) -> AppResult<CoherenceRun> {
        let opts = CheckOptions {
            measure: Measure::InPlace(Some(self.bytes.clone())),
            ..CheckOptions::default()
        };
        let mut last: Option<Report> = None;
        for (tier, _) in TIERS {
            match check_with(&self.rete, tier, cancel, &opts) {
                Ok(r) => {
                    on_tier(&r);
                    last = Some(r);
                }
                Err(CoherenceError::Cancelled) => {
                    return Ok(CoherenceRun {
                        report: last,
                        cancelled: true,
                    })
                }
                Err(e) => return Err(AppError::Invalid(e.to_string())),
            }
        }
        Ok(CoherenceRun {
            report: last,
            cancelled: false,
        })
    }
}
