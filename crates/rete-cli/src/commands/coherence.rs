//! `rete coherence`: incoherence in the ontology and the data, tier by tier.

use crate::args::CoherenceArgs;
use anyhow::Result;
use rete_core::Rete;

pub fn run(rete: &Rete, a: &CoherenceArgs) -> Result<()> {
    let tier = rete_coherence::Tier::from_number(a.tier)
        .ok_or_else(|| anyhow::anyhow!("no tier {}", a.tier))?;
    let cancel = std::sync::atomic::AtomicBool::new(false);
    super::print_report(&rete_coherence::check(rete, tier, &cancel)?, a.json)
}
