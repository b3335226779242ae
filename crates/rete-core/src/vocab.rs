//! The vocabulary every part of rete shares: well-known prefixes, the predicates that name a
//! resource, local names, and the prefixes in effect for one file ([`Prefixes`]).
//!
//! RDF, RDFS and XSD IRIs come from [`oxrdf::vocab`]; OWL, which oxrdf does not list, is here.

use oxrdf::vocab::{rdf, rdfs};
use std::collections::BTreeMap;

/// `rdf:` namespace.
pub const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
/// `rdfs:` namespace.
pub const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
/// `owl:` namespace.
pub const OWL: &str = "http://www.w3.org/2002/07/owl#";
/// `xsd:` namespace.
pub const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
/// `sh:` namespace (SHACL).
pub const SH: &str = "http://www.w3.org/ns/shacl#";

/// The prefixes of RDF itself: `rdf`, `rdfs`, `owl`, `xsd`.
pub const CORE_PREFIXES: [(&str, &str); 4] =
    [("rdf", RDF), ("rdfs", RDFS), ("owl", OWL), ("xsd", XSD)];

/// Prefixes every query and every term on the command line may use without declaring them, after
/// the file's own (see [`Prefixes::for_file`]).
pub const WELL_KNOWN: [(&str, &str); 14] = [
    ("rdf", RDF),
    ("rdfs", RDFS),
    ("owl", OWL),
    ("xsd", XSD),
    ("foaf", "http://xmlns.com/foaf/0.1/"),
    ("skos", "http://www.w3.org/2004/02/skos/core#"),
    ("schema", "http://schema.org/"),
    ("dcterms", "http://purl.org/dc/terms/"),
    ("dc", "http://purl.org/dc/elements/1.1/"),
    ("prov", "http://www.w3.org/ns/prov#"),
    ("dcat", "http://www.w3.org/ns/dcat#"),
    ("sh", SH),
    ("void", "http://rdfs.org/ns/void#"),
    ("geo", "http://www.opengis.net/ont/geosparql#"),
];

/// A well-known vocabulary: the prefix reports print its terms with when the input declares none,
/// and, for an ontology, the name a community made of its terms is called on the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vocabulary {
    /// Its usual prefix.
    pub prefix: &'static str,
    /// Its namespace IRI.
    pub namespace: &'static str,
    /// Its name, for vocabularies whose terms are classes and properties (`None` for instance
    /// namespaces such as DBpedia resources or Wikidata entities, and for datatypes).
    pub name: Option<&'static str>,
}

/// Well-known vocabularies for display (report prefixes, community labels), a wider list than
/// [`WELL_KNOWN`]: a query may use those undeclared, so that list stays small and unambiguous.
/// Order matters: the first entry with a free prefix wins.
pub const VOCABULARIES: [Vocabulary; 23] = [
    Vocabulary {
        prefix: "rdf",
        namespace: RDF,
        name: Some("RDF"),
    },
    Vocabulary {
        prefix: "rdfs",
        namespace: RDFS,
        name: Some("RDF Schema"),
    },
    Vocabulary {
        prefix: "owl",
        namespace: OWL,
        name: Some("OWL"),
    },
    Vocabulary {
        prefix: "xsd",
        namespace: XSD,
        name: None,
    },
    Vocabulary {
        prefix: "skos",
        namespace: "http://www.w3.org/2004/02/skos/core#",
        name: Some("SKOS"),
    },
    Vocabulary {
        prefix: "dc",
        namespace: "http://purl.org/dc/elements/1.1/",
        name: Some("Dublin Core"),
    },
    Vocabulary {
        prefix: "dcterms",
        namespace: "http://purl.org/dc/terms/",
        name: Some("DCMI terms"),
    },
    Vocabulary {
        prefix: "foaf",
        namespace: "http://xmlns.com/foaf/0.1/",
        name: Some("FOAF"),
    },
    Vocabulary {
        prefix: "schema",
        namespace: "http://schema.org/",
        name: Some("schema.org"),
    },
    Vocabulary {
        prefix: "schema",
        namespace: "https://schema.org/",
        name: Some("schema.org"),
    },
    Vocabulary {
        prefix: "dbo",
        namespace: "http://dbpedia.org/ontology/",
        name: Some("DBpedia ontology"),
    },
    Vocabulary {
        prefix: "dbr",
        namespace: "http://dbpedia.org/resource/",
        name: None,
    },
    Vocabulary {
        prefix: "gr",
        namespace: "http://purl.org/goodrelations/v1#",
        name: Some("GoodRelations"),
    },
    Vocabulary {
        prefix: "org",
        namespace: "http://www.w3.org/ns/org#",
        name: Some("W3C Organization"),
    },
    Vocabulary {
        prefix: "prov",
        namespace: "http://www.w3.org/ns/prov#",
        name: Some("PROV-O"),
    },
    Vocabulary {
        prefix: "dcat",
        namespace: "http://www.w3.org/ns/dcat#",
        name: Some("DCAT"),
    },
    Vocabulary {
        prefix: "vcard",
        namespace: "http://www.w3.org/2006/vcard/ns#",
        name: None,
    },
    Vocabulary {
        prefix: "geo",
        namespace: "http://www.w3.org/2003/01/geo/wgs84_pos#",
        name: None,
    },
    Vocabulary {
        prefix: "sioc",
        namespace: "http://rdfs.org/sioc/ns#",
        name: None,
    },
    Vocabulary {
        prefix: "void",
        namespace: "http://rdfs.org/ns/void#",
        name: None,
    },
    Vocabulary {
        prefix: "qudt",
        namespace: "http://qudt.org/schema/qudt/",
        name: Some("QUDT"),
    },
    Vocabulary {
        prefix: "time",
        namespace: "http://www.w3.org/2006/time#",
        name: Some("OWL-Time"),
    },
    Vocabulary {
        prefix: "wd",
        namespace: "http://www.wikidata.org/entity/",
        name: None,
    },
];

/// The well-known vocabulary of a namespace.
pub fn vocabulary(namespace: &str) -> Option<&'static Vocabulary> {
    VOCABULARIES.iter().find(|v| v.namespace == namespace)
}

/// The namespace of a well-known prefix.
pub fn well_known(prefix: &str) -> Option<&'static str> {
    WELL_KNOWN
        .iter()
        .find(|(p, _)| *p == prefix)
        .map(|(_, ns)| *ns)
}

/// Predicates whose literal value names a resource, most preferred first.
pub const LABEL_PREDICATES: [&str; 7] = [
    rdfs::LABEL.as_str(),
    "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://xmlns.com/foaf/0.1/name",
    "http://schema.org/name",
    "https://schema.org/name",
    "http://purl.org/dc/terms/title",
    "http://purl.org/dc/elements/1.1/title",
];

/// `rdf:type`, the predicate of class membership.
pub const RDF_TYPE: &str = rdf::TYPE.as_str();

/// The local name of an IRI: what follows its last `/` or `#` (trailing ones ignored), or the
/// whole IRI when nothing does.
pub fn local_name(iri: &str) -> &str {
    let local = iri
        .trim_end_matches(['/', '#'])
        .rsplit(['/', '#'])
        .next()
        .unwrap_or(iri);
    if local.is_empty() {
        iri
    } else {
        local
    }
}

/// Where a prefix in effect comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PrefixOrigin {
    /// Declared by the file's sources (recorded in its card).
    File,
    /// Added by the schema block (the classes' namespace for sources without prefixes).
    Schema,
    /// One of [`WELL_KNOWN`].
    WellKnown,
}

impl std::fmt::Display for PrefixOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::File => "file",
            Self::Schema => "schema",
            Self::WellKnown => "well-known",
        })
    }
}

/// One prefix in effect.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Prefix {
    /// The prefix without its colon (`""` for `:`).
    pub prefix: String,
    /// The namespace IRI it stands for.
    pub namespace: String,
    /// Where it comes from.
    pub origin: PrefixOrigin,
}

/// The prefixes in effect, in precedence order: the first declaration of a prefix wins. The CLI
/// and the app build it the same way ([`Prefixes::for_file`]); a query's own `PREFIX` lines win
/// over all of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefixes {
    entries: Vec<Prefix>,
}

impl Prefixes {
    /// No prefixes.
    pub fn new() -> Self {
        Self::default()
    }

    /// The prefixes of one file: its card's, then its schema block's, then the well-known ones.
    pub fn for_file(card: &BTreeMap<String, String>, schema: &[(String, String)]) -> Self {
        let mut out = Self::new();
        for (p, ns) in card {
            out.declare(p, ns, PrefixOrigin::File);
        }
        for (p, ns) in schema {
            out.declare(p, ns, PrefixOrigin::Schema);
        }
        for (p, ns) in WELL_KNOWN {
            out.declare(p, ns, PrefixOrigin::WellKnown);
        }
        out
    }

    /// Adds `prefix` unless it is already declared; returns whether it was added.
    pub fn declare(&mut self, prefix: &str, namespace: &str, origin: PrefixOrigin) -> bool {
        if self.get(prefix).is_some() {
            return false;
        }
        self.entries.push(Prefix {
            prefix: prefix.to_owned(),
            namespace: namespace.to_owned(),
            origin,
        });
        true
    }

    /// The namespace of `prefix`.
    pub fn get(&self, prefix: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| e.prefix == prefix)
            .map(|e| e.namespace.as_str())
    }

    /// The prefixes in precedence order.
    pub fn iter(&self) -> std::slice::Iter<'_, Prefix> {
        self.entries.iter()
    }

    /// `(prefix, namespace)` pairs in precedence order.
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .map(|e| (e.prefix.clone(), e.namespace.clone()))
            .collect()
    }

    /// Number of prefixes.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The IRI of `prefix:local`, if the prefix is declared.
    pub fn expand(&self, pname: &str) -> Option<String> {
        let (p, local) = pname.split_once(':')?;
        self.get(p).map(|ns| format!("{ns}{local}"))
    }

    /// `(prefix, local)` of `iri` with the longest matching namespace (the earliest declared
    /// among equals) and a non-empty local part without `/` or `#` ([`compact_iri`]).
    pub fn compact<'a>(&'a self, iri: &'a str) -> Option<(&'a str, &'a str)> {
        let namespaces = self
            .entries
            .iter()
            .map(|e| (e.prefix.as_str(), e.namespace.as_str()));
        compact_iri(namespaces, iri, |local| !local.contains(['/', '#']))
    }
}

/// `(prefix, local)` of `iri` under the longest of `namespaces` (`(prefix, namespace)` pairs; the
/// earliest among equals) that leaves a non-empty local part which `local_ok` accepts. The one
/// IRI shortening rule: callers differ only in the local parts they accept and in what they
/// write when nothing fits.
pub fn compact_iri<'p, 'i>(
    namespaces: impl IntoIterator<Item = (&'p str, &'p str)>,
    iri: &'i str,
    local_ok: impl Fn(&str) -> bool,
) -> Option<(&'p str, &'i str)> {
    let mut best: Option<(&str, &str)> = None;
    for (prefix, namespace) in namespaces {
        if let Some(local) = iri.strip_prefix(namespace) {
            if !local.is_empty()
                && best.is_none_or(|(_, l)| local.len() < l.len())
                && local_ok(local)
            {
                best = Some((prefix, local));
            }
        }
    }
    best
}

/// `prefix:local` of `iri` ([`compact_iri`]), else `<iri>`.
pub fn compact_or_bracketed<'p>(
    namespaces: impl IntoIterator<Item = (&'p str, &'p str)>,
    iri: &str,
    local_ok: impl Fn(&str) -> bool,
) -> String {
    match compact_iri(namespaces, iri, local_ok) {
        Some((prefix, local)) => format!("{prefix}:{local}"),
        None => format!("<{iri}>"),
    }
}

impl<'a> IntoIterator for &'a Prefixes {
    type Item = &'a Prefix;
    type IntoIter = std::slice::Iter<'a, Prefix>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_prefixes_win_then_schema_then_well_known() {
        let card = BTreeMap::from([("foaf".to_owned(), "http://ex.org/f#".to_owned())]);
        let schema = vec![
            (String::new(), "http://ex.org/".to_owned()),
            ("foaf".to_owned(), "http://other/".to_owned()),
        ];
        let p = Prefixes::for_file(&card, &schema);
        assert_eq!(p.get("foaf"), Some("http://ex.org/f#"));
        assert_eq!(p.get(""), Some("http://ex.org/"));
        assert_eq!(p.get("skos"), well_known("skos"));
        assert_eq!(p.iter().next().map(|e| e.origin), Some(PrefixOrigin::File));
        assert_eq!(
            p.expand("rdf:type").as_deref(),
            Some("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
        );
        assert_eq!(p.expand("nope:x"), None);
    }

    #[test]
    fn compacts_with_the_longest_namespace() {
        let card = BTreeMap::from([
            ("ex".to_owned(), "http://ex.org/".to_owned()),
            ("exp".to_owned(), "http://ex.org/person/".to_owned()),
        ]);
        let p = Prefixes::for_file(&card, &[]);
        assert_eq!(p.compact("http://ex.org/person/1"), Some(("exp", "1")));
        assert_eq!(p.compact("http://ex.org/a"), Some(("ex", "a")));
        assert_eq!(p.compact("http://ex.org/a/b#"), None);
        assert_eq!(p.compact(RDF_TYPE), Some(("rdf", "type")));
        // Any local part, or only some: the longest namespace whose local part is accepted.
        let pairs = [
            ("ex", "http://ex.org/"),
            ("ex2", "http://ex.org/"),
            ("a", "http://ex.org/a/"),
        ];
        let any = |_: &str| true;
        assert_eq!(
            compact_iri(pairs, "http://ex.org/a/b", any),
            Some(("a", "b"))
        );
        assert_eq!(
            compact_iri(pairs, "http://ex.org/c", any),
            Some(("ex", "c"))
        );
        let short = |l: &str| l.len() > 1;
        assert_eq!(
            compact_iri(pairs, "http://ex.org/a/b", short),
            Some(("ex", "a/b"))
        );
        assert_eq!(
            compact_or_bracketed(pairs, "http://ex.org/", any),
            "<http://ex.org/>"
        );
    }

    #[test]
    fn local_names() {
        assert_eq!(local_name("http://ex.org/a/b"), "b");
        assert_eq!(local_name("http://ex.org/o#C"), "C");
        assert_eq!(local_name("http://ex.org/a/"), "a");
        assert_eq!(local_name("urn:x"), "urn:x");
        assert_eq!(
            LABEL_PREDICATES[0],
            "http://www.w3.org/2000/01/rdf-schema#label"
        );
    }
}
