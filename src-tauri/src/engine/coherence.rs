//! Coherence checks over an open document: Tier 0 (schema block), then Tier 1 (type, sameAs and
//! differentFrom slices), then Tier 2 (property triples), each tier's report handed over as soon
//! as it is ready; and the report as Markdown.

use super::{AppError, AppResult, Doc};
use rete_coherence::{check_with, CheckOptions, CoherenceError, Measure, Report, Tier};
use std::fmt::Write as _;
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

/// The report as a Markdown document.
pub fn report_markdown(source: &str, r: &Report) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Coherence report: {source}\n");
    let _ = writeln!(
        md,
        "Tier {} · {} · {} (schema from the {}) · {:.0} ms",
        r.tier,
        super::plural(r.findings.len(), "finding", "findings"),
        super::plural(r.classes, "class", "classes"),
        if r.schema_source == "block" {
            "schema block"
        } else {
            "axiom triples"
        },
        r.elapsed_ms
    );
    if r.measured {
        let _ = writeln!(
            md,
            "\nRead {} bytes in {} requests.",
            r.bytes_read, r.requests
        );
    }
    let _ = writeln!(
        md,
        "\n| Tier | Findings | Bytes | Requests | ms |\n|---|---|---|---|---|"
    );
    for p in &r.phases {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.0} |",
            p.tier, p.findings, p.bytes_read, p.requests, p.elapsed_ms
        );
    }
    if r.findings.is_empty() {
        let _ = writeln!(
            md,
            "\nNo findings: the file is coherent and consistent at this tier."
        );
    }
    for (i, f) in r.findings.iter().enumerate() {
        let _ = writeln!(
            md,
            "\n## {}. {} — {} ({})\n",
            i + 1,
            f.kind,
            f.message.replace('\n', " "),
            f.severity
        );
        if !f.classes.is_empty() {
            let _ = writeln!(md, "Classes: {}\n", join_code(&f.classes));
        }
        if !f.entities.is_empty() {
            let _ = writeln!(md, "Entities: {}\n", join_code(&f.entities));
        }
        if !f.explanation.is_empty() {
            let _ = writeln!(md, "Explanation:\n");
            for s in &f.explanation {
                let _ = writeln!(md, "1. `{}`", s.text.replace('`', "'"));
            }
        }
    }
    md
}

fn join_code(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("`{}`", s.replace('`', "'")))
        .collect::<Vec<_>>()
        .join(", ")
}
