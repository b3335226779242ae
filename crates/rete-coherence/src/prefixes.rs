//! The prefix table a report prints terms with: declared by the input, or well known, or made up
//! from the namespace — one namespace per prefix and one prefix per namespace, and a bare `:` only
//! for a namespace the input declared as its default.

use rete_schema::Schema;

/// Well-known vocabulary prefixes used when the input declares none for a namespace.
fn well_known() -> impl Iterator<Item = (&'static str, &'static str)> {
    rete_core::vocab::VOCABULARIES
        .iter()
        .map(|v| (v.prefix, v.namespace))
}
/// Stands for the default prefix until the card says whether the input declared it (the schema
/// block cannot tell a declared `:` from one chosen for an input without prefixes). A private-use
/// character, so it cannot come from an IRI's compact form.
pub(crate) const PENDING: &str = "\u{E000}";

/// The prefix table of one check.
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    /// `(prefix, namespace)`, the default prefix possibly as [`PENDING`].
    pub(crate) entries: Vec<(String, String)>,
    /// The namespace of [`PENDING`], when there is one.
    pub(crate) pending: Option<String>,
}

fn namespace_of(iri: &str) -> Option<&str> {
    let end = iri.rfind(['#', '/'])?;
    (end + 1 < iri.len()).then(|| &iri[..=end])
}

impl Table {
    fn has_name(&self, p: &str) -> bool {
        self.entries.iter().any(|(q, _)| q == p)
    }

    fn has_namespace(&self, ns: &str) -> bool {
        self.entries.iter().any(|(_, n)| n == ns)
    }

    fn add(&mut self, p: &str, ns: &str) -> bool {
        if self.has_name(p) || self.has_namespace(ns) {
            return false;
        }
        self.entries.push((p.to_owned(), ns.to_owned()));
        true
    }

    /// A free prefix made from the namespace's last path segment (`…/medical#` → `medical`),
    /// else from its host's name (`http://www.geonames.org/ontology#` → `geonames`, when
    /// `ontology` is taken), or `ns1`, `ns2`, ….
    pub(crate) fn made_up(&self, ns: &str) -> String {
        let tail = ns.trim_end_matches(['#', '/']);
        let seg = tail.rsplit(['/', '#', ':']).next().unwrap_or_default();
        let seg = seg.split('.').next().unwrap_or_default();
        // The host's name: its label before the top-level domain, without `www`.
        let host = ns.split_once("://").map_or("", |(_, rest)| {
            rest.split(['/', '#', ':']).next().unwrap_or_default()
        });
        let labels: Vec<&str> = host.split('.').filter(|l| *l != "www").collect();
        let site = labels.len().checked_sub(2).map_or("", |i| labels[i]);
        for candidate in [seg, site] {
            let name: String = candidate
                .chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .take(12)
                .collect::<String>()
                .to_ascii_lowercase();
            if name.starts_with(|c: char| c.is_ascii_alphabetic())
                && !self.has_name(&name)
                && !well_known().any(|(p, _)| p == name)
            {
                return name;
            }
        }
        (1..)
            .map(|i| format!("ns{i}"))
            .find(|p| !self.has_name(p))
            .unwrap_or_default()
    }

    /// The well-known prefixes of the namespaces not named yet; the name of the default
    /// namespace's own stays free for it (`http://schema.org/`, the default of an input without
    /// prefixes, would otherwise find `schema` taken by `https://schema.org/` and be `ns9`).
    fn add_well_known(&mut self) {
        let reserved: Vec<&str> = self.pending.as_deref().map_or_else(Vec::new, |d| {
            well_known()
                .filter(|(_, ns)| *ns == d)
                .map(|(p, _)| p)
                .collect()
        });
        for (p, ns) in well_known() {
            if !reserved.contains(&p) {
                self.add(p, ns);
            }
        }
    }

    /// The table for `schema`: its declared prefixes, the well-known ones, and one made up for
    /// every other namespace of its classes and properties.
    pub(crate) fn new(schema: &Schema) -> Table {
        let mut t = Table::default();
        let well_known_name = |p: &str, ns: &str| well_known().any(|w| w.0 == p && w.1 != ns);
        let mut default = None;
        for (p, ns) in &schema.prefixes {
            if ns.is_empty() {
                continue;
            }
            if p.is_empty() {
                default.get_or_insert(ns.clone());
            } else if !well_known_name(p, ns) {
                t.add(p, ns);
            }
        }
        if let Some(ns) = default {
            // A declared prefix other than `:` that covers a class means the inputs had prefixes,
            // so `:` was declared too; otherwise the card decides.
            let sure = t
                .entries
                .iter()
                .any(|(_, n)| schema.classes.iter().any(|c| c.iri.starts_with(n.as_str())));
            if sure {
                t.add("", &ns);
            } else if t.add(PENDING, &ns) {
                t.pending = Some(ns);
            }
        }
        t.add_well_known();
        let iris = schema
            .classes
            .iter()
            .map(|c| c.iri.as_str())
            .chain(schema.properties.iter().map(|p| p.iri.as_str()));
        for iri in iris {
            let covered = t
                .entries
                .iter()
                .any(|(_, n)| iri.starts_with(n.as_str()) && iri.len() > n.len());
            if covered {
                continue;
            }
            if let Some(ns) = namespace_of(iri) {
                let p = t.made_up(ns);
                t.add(&p, ns);
            }
        }
        t
    }

    /// What [`PENDING`] becomes: `""` when the card declares that namespace as the default (or
    /// the card is not consulted), else a made-up prefix.
    pub(crate) fn settle(&mut self, declared_default: Option<&str>) -> Option<String> {
        let ns = self.pending.take()?;
        let name = if declared_default.is_none_or(|d| d == ns) {
            String::new()
        } else {
            well_known()
                .find(|(p, n)| *n == ns && !self.has_name(p))
                .map_or_else(|| self.made_up(&ns), |(p, _)| p.to_owned())
        };
        for e in &mut self.entries {
            if e.0 == PENDING {
                e.0.clone_from(&name);
            }
        }
        Some(name)
    }

    /// The entries whose prefix occurs in one of `texts` (`prefix:` at the start of a token).
    pub(crate) fn used<'a>(&self, texts: impl Iterator<Item = &'a str>) -> Vec<(String, String)> {
        let mut used = vec![false; self.entries.len()];
        for text in texts {
            for token in text.split([' ', '(', ')', '[', ']', ',', '\n', '\t', '{', '}', '≡', '⊑'])
            {
                if token.starts_with(['<', '"', '_']) {
                    continue;
                }
                let Some((p, rest)) = token.split_once(':') else {
                    continue;
                };
                if rest.is_empty() || rest.starts_with('/') {
                    continue;
                }
                if let Some(i) = self.entries.iter().position(|(q, _)| q == p) {
                    used[i] = true;
                }
            }
        }
        let mut out: Vec<(String, String)> = self
            .entries
            .iter()
            .zip(used)
            .filter(|(_, u)| *u)
            .map(|(e, _)| e.clone())
            .collect();
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_up_prefixes_are_short_free_names() {
        let mut t = Table::default();
        assert_eq!(t.made_up("http://example.org/medical#"), "medical");
        t.add("medical", "http://example.org/medical#");
        // Its last segment taken, a namespace is named after its site.
        assert_eq!(t.made_up("http://other.org/medical#"), "other");
        assert_eq!(t.made_up("http://www.geonames.org/medical#"), "geonames");
        assert_eq!(t.made_up("http://ex.org/"), "ex");
        assert_eq!(t.made_up("http://ex.org/2024/"), "ex");
        t.add("ex", "http://ex.org/");
        assert_eq!(t.made_up("http://ex.org/2024/"), "ns1");
        assert_eq!(t.made_up("urn:x:medical#"), "ns1");
    }

    #[test]
    fn the_default_namespace_keeps_its_well_known_name() {
        // N-Quads declare no prefix: `http://schema.org/` is the default until the card says it
        // was not declared, then it takes `schema`, which `https://schema.org/` must not hold.
        let mut t = Table::default();
        t.add(PENDING, "http://schema.org/");
        t.pending = Some("http://schema.org/".to_owned());
        t.add_well_known();
        assert_eq!(t.settle(Some("")), Some("schema".to_owned()));
        assert!(t
            .entries
            .contains(&("schema".to_owned(), "http://schema.org/".to_owned())));
        assert!(t.entries.iter().any(|(p, _)| p == "foaf"));
    }

    #[test]
    fn used_prefixes_are_found_in_tokens() {
        let mut t = Table::default();
        t.add("foaf", "http://xmlns.com/foaf/0.1/");
        t.add("", "http://ex.org/");
        t.add("owl", "http://www.w3.org/2002/07/owl#");
        let used = t.used([":A owl:disjointWith ( <http://x/y> \"a:b\" )"].into_iter());
        assert_eq!(
            used,
            [
                ("".to_owned(), "http://ex.org/".to_owned()),
                (
                    "owl".to_owned(),
                    "http://www.w3.org/2002/07/owl#".to_owned()
                )
            ]
        );
    }
}
