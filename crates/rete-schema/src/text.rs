//! A human-readable rendering of a schema (what `rete schema FILE` prints).

use crate::Schema;
use std::fmt;

/// At most this many relations and literal properties are listed.
const TOP: usize = 25;

impl fmt::Display for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stats = self.parts.statistics;
        write!(f, "{} classes", self.classes.len())?;
        if stats {
            write!(f, ", {} typed instances", self.typed_instances)?;
        }
        writeln!(f)?;
        let children = self.children();
        let mut expanded = vec![false; self.classes.len()];
        let mut roots: Vec<u32> = self
            .classes
            .iter()
            .filter(|c| c.parents.is_empty())
            .map(|c| c.index)
            .collect();
        // Classes only reachable through a cycle have no root; start from them too.
        roots.extend(self.classes.iter().map(|c| c.index));
        for r in roots {
            if !expanded[r as usize] {
                self.tree(f, r, 1, &children, &mut expanded)?;
            }
        }
        if stats && !self.levels.is_empty() {
            writeln!(f, "\nlevels (depth: classes, direct / total instances)")?;
            for l in &self.levels {
                writeln!(
                    f,
                    "  {}: {} classes, {} / {}",
                    l.depth, l.classes, l.direct_instances, l.total_instances
                )?;
            }
        }
        let name = |c: u32| {
            self.classes
                .get(c as usize)
                .map_or_else(|| "?".to_owned(), |x| self.compact(&x.iri))
        };
        let pname = |p: u32| {
            self.properties
                .get(p as usize)
                .map_or_else(|| "?".to_owned(), |x| self.compact(&x.iri))
        };
        if !self.disjoint.is_empty() || !self.disjoint_groups.is_empty() {
            writeln!(f, "\ndisjoint")?;
            for &(a, b) in &self.disjoint {
                writeln!(f, "  {} owl:disjointWith {}", name(a), name(b))?;
            }
            for g in &self.disjoint_groups {
                let m: Vec<String> = g.iter().map(|&c| name(c)).collect();
                writeln!(f, "  AllDisjointClasses ( {} )", m.join(" "))?;
            }
        }
        for (title, pairs, pred) in [
            ("equivalent", &self.equivalent, "owl:equivalentClass"),
            ("complement", &self.complement, "owl:complementOf"),
        ] {
            if !pairs.is_empty() {
                writeln!(f, "\n{title}")?;
                for &(a, b) in pairs {
                    writeln!(f, "  {} {pred} {}", name(a), name(b))?;
                }
            }
        }
        let axiomatic: Vec<_> = self
            .properties
            .iter()
            .filter(|p| {
                p.functional
                    || p.inverse_functional
                    || p.irreflexive
                    || p.asymmetric
                    || p.symmetric
                    || p.transitive
                    || p.reflexive
                    || !p.domain.is_empty()
                    || !p.range.is_empty()
                    || !p.range_datatypes.is_empty()
                    || !p.inverse_of.is_empty()
                    || !p.disjoint_with.is_empty()
                    || !p.parents.is_empty()
            })
            .collect();
        if !axiomatic.is_empty() {
            writeln!(f, "\nproperty axioms")?;
        }
        for p in axiomatic {
            let mut parts: Vec<String> = Vec::new();
            for (on, label) in [
                (p.functional, "functional"),
                (p.inverse_functional, "inverse-functional"),
                (p.irreflexive, "irreflexive"),
                (p.asymmetric, "asymmetric"),
                (p.symmetric, "symmetric"),
                (p.transitive, "transitive"),
                (p.reflexive, "reflexive"),
            ] {
                if on {
                    parts.push(label.to_owned());
                }
            }
            let list = |v: &[u32], n: &dyn Fn(u32) -> String| {
                v.iter().map(|&x| n(x)).collect::<Vec<_>>().join(", ")
            };
            if !p.domain.is_empty() {
                parts.push(format!("domain {}", list(&p.domain, &name)));
            }
            if !p.range.is_empty() || !p.range_datatypes.is_empty() {
                let mut r: Vec<String> = p.range.iter().map(|&c| name(c)).collect();
                r.extend(p.range_datatypes.iter().map(|d| self.compact(d)));
                parts.push(format!("range {}", r.join(", ")));
            }
            if !p.parents.is_empty() {
                parts.push(format!("subPropertyOf {}", list(&p.parents, &pname)));
            }
            if !p.inverse_of.is_empty() {
                parts.push(format!("inverseOf {}", list(&p.inverse_of, &pname)));
            }
            if !p.disjoint_with.is_empty() {
                parts.push(format!("disjointWith {}", list(&p.disjoint_with, &pname)));
            }
            writeln!(f, "  {}: {}", self.compact(&p.iri), parts.join("; "))?;
        }
        if stats && !self.relations.is_empty() {
            most_used(
                f,
                "relations",
                &self.relations,
                |r| r.count,
                |r| {
                    format!(
                        "{} {} {}",
                        name(r.domain),
                        self.compact(&r.predicate),
                        name(r.range)
                    )
                },
            )?;
        }
        if stats && !self.literal_properties.is_empty() {
            most_used(
                f,
                "literal properties",
                &self.literal_properties,
                |l| l.count,
                |l| {
                    format!(
                        "{} {} {}",
                        name(l.class),
                        self.compact(&l.predicate),
                        self.compact(&l.datatype)
                    )
                },
            )?;
        }
        Ok(())
    }
}

impl Schema {
    /// The class tree below `root`, depth first (with an explicit stack: hierarchies can be deep).
    fn tree(
        &self,
        f: &mut fmt::Formatter<'_>,
        root: u32,
        indent: usize,
        children: &[Vec<u32>],
        expanded: &mut [bool],
    ) -> fmt::Result {
        let mut stack = vec![(root, indent)];
        while let Some((c, indent)) = stack.pop() {
            let class = &self.classes[c as usize];
            write!(f, "{:w$}{}", "", self.compact(&class.iri), w = indent * 2)?;
            if let Some(l) = &class.label {
                write!(f, " \"{l}\"")?;
            }
            if self.parts.statistics {
                write!(
                    f,
                    " ({} direct, {} total)",
                    class.direct_instances, class.total_instances
                )?;
            }
            if expanded[c as usize] {
                // Multiple inheritance or a cycle: the subtree was printed already.
                writeln!(f, " …")?;
                continue;
            }
            writeln!(f)?;
            expanded[c as usize] = true;
            for &ch in children[c as usize].iter().rev() {
                stack.push((ch, indent + 1));
            }
        }
        Ok(())
    }
}

/// The `title` section: `items` most used first (by `count`), at most [`TOP`] of them, each as
/// its `line` and count.
fn most_used<T>(
    f: &mut fmt::Formatter<'_>,
    title: &str,
    items: &[T],
    count: fn(&T) -> u64,
    line: impl Fn(&T) -> String,
) -> fmt::Result {
    let mut sorted: Vec<&T> = items.iter().collect();
    sorted.sort_by_key(|x| std::cmp::Reverse(count(x)));
    writeln!(f, "\n{title} (most used first)")?;
    for x in sorted.iter().take(TOP) {
        writeln!(f, "  {}: {}", line(x), count(x))?;
    }
    if sorted.len() > TOP {
        writeln!(f, "  … {} more", sorted.len() - TOP)?;
    }
    Ok(())
}
