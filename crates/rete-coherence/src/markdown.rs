//! The report as a Markdown document (what the app exports).

use crate::Report;
use std::fmt::Write as _;

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The report as a Markdown document.
pub fn report_markdown(source: &str, r: &Report) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Coherence report: {source}\n");
    let _ = writeln!(
        md,
        "Tier {} · {} · {} (schema from the {}) · {:.0} ms",
        r.tier,
        plural(r.findings.len(), "finding", "findings"),
        plural(r.classes, "class", "classes"),
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
