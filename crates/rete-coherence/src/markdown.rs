//! The report as a Markdown document (what the app exports): the prefix table, the counts, then
//! the findings grouped by root cause and by clash, then the rest.

use crate::render::compact_all;
use crate::{Finding, Report};
use rete_core::human::plural;
use std::fmt::Write as _;

/// The report as a Markdown document.
pub fn report_markdown(source: &str, r: &Report) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Coherence report: {source}\n");
    if !r.prefixes.is_empty() {
        let _ = writeln!(md, "| Prefix | Namespace |\n|---|---|");
        for (p, ns) in &r.prefixes {
            let _ = writeln!(md, "| `{p}:` | `{ns}` |");
        }
        let _ = writeln!(md);
    }
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
        return md;
    }
    let _ = writeln!(md, "\n**{}**", r.summary());
    if let Some(note) = r.provenance_note() {
        let _ = writeln!(md, "\n{note}");
    }
    let mut n = 0;
    for (k, c) in r.groups.causes.iter().enumerate() {
        let Some(root) = c.roots.first().and_then(|&i| r.findings.get(i)) else {
            continue;
        };
        n += 1;
        let _ = writeln!(
            md,
            "\n## Root cause {}: {} — {} ({})\n",
            k + 1,
            root.kind,
            one_line(&root.message),
            root.severity
        );
        if c.roots.len() > 1 {
            let names = compact_all(&r.prefixes, &c.classes);
            let _ = writeln!(md, "Equivalent root classes: {}\n", join_code(&names));
        }
        explanation(&mut md, root);
        if !c.derived.is_empty() {
            let _ = writeln!(
                md,
                "\n{} because of it: {}",
                plural(
                    c.derived.len(),
                    "derived unsatisfiable class",
                    "derived unsatisfiable classes"
                ),
                r.derived_names(k, usize::MAX)
            );
        }
        for &i in &c.instances {
            if let Some(f) = r.findings.get(i) {
                n += 1;
                finding(&mut md, n, f);
            }
        }
    }
    for c in &r.groups.clashes {
        let names = compact_all(&r.prefixes, &c.classes);
        let _ = writeln!(
            md,
            "\n## Clash of {} ({})",
            join_code(&names),
            plural(c.findings.len(), "finding", "findings")
        );
        for &i in &c.findings {
            if let Some(f) = r.findings.get(i) {
                n += 1;
                finding(&mut md, n, f);
            }
        }
    }
    let rest = r.ungrouped();
    if !rest.is_empty() && n > 0 {
        let _ = writeln!(md, "\n## Other findings");
    }
    for i in rest {
        n += 1;
        finding(&mut md, n, &r.findings[i]);
    }
    md
}

fn one_line(s: &str) -> String {
    s.replace('\n', " ")
}

fn finding(md: &mut String, n: usize, f: &Finding) {
    let _ = writeln!(
        md,
        "\n### {}. {} — {} ({})\n",
        n,
        f.kind,
        one_line(&f.message),
        f.severity
    );
    if !f.classes.is_empty() {
        let _ = writeln!(md, "Classes: {}\n", join_code(&f.classes));
    }
    if !f.entities.is_empty() {
        let _ = writeln!(md, "Entities: {}\n", join_code(&f.entities));
    }
    explanation(md, f);
}

fn explanation(md: &mut String, f: &Finding) {
    if f.explanation.is_empty() {
        return;
    }
    let _ = writeln!(md, "Explanation:\n");
    for s in &f.explanation {
        let _ = write!(md, "1. `{}`", s.text.replace('`', "'"));
        if !s.graphs.is_empty() {
            let _ = write!(md, " — graph {}", join_code(&s.graphs));
        }
        let _ = writeln!(md);
    }
}

fn join_code(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("`{}`", s.replace('`', "'")))
        .collect::<Vec<_>>()
        .join(", ")
}
