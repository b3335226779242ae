//! `rete coherence`: incoherence in the ontology and the data, tier by tier.

use crate::args::CoherenceArgs;
use anyhow::Result;
use rete_core::Rete;

pub fn run(rete: &Rete, a: &CoherenceArgs) -> Result<()> {
    let tier = rete_coherence::Tier::from_number(a.tier)
        .ok_or_else(|| anyhow::anyhow!("no tier {}", a.tier))?;
    let cancel = std::sync::atomic::AtomicBool::new(false);
    // Over HTTP the look-ups that annotate steps cost requests of their own: Tier 0 stays one
    // request unless the user asks for the sources.
    let annotate = a.sources || !rete_http::is_url(&a.file);
    let opts = rete_coherence::CheckOptions {
        annotate,
        ..rete_coherence::CheckOptions::default()
    };
    let report = rete_coherence::check_with(rete, tier, &cancel, &opts)?;
    super::print_report(&report, a.json)?;
    if !annotate && !a.json {
        println!("Sources of the steps were not looked up for a remote file: add --sources.");
    }
    Ok(())
}
