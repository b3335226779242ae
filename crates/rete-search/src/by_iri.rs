//! A pasted IRI or prefixed name — `<http://xmlns.com/foaf/0.1/name>`, `http://…`, `foaf:name` —
//! finds that term: what an RDF user copies from a query, a result or another tool. Its words
//! would otherwise all have to be in one label (`foaf` and `name`), which no label holds. The
//! term is looked up in the dictionary (prefixes: the file's card, then the well-known ones) and
//! shown as any hit is: its label in the preferred languages, its most specific class, its
//! community path.

use crate::build::schema_terms;
use crate::{Answer, Hit, Kind, Match, Query, SearchError, Searcher, DEFAULT_LABEL_PREDICATES};
use oxrdf::{NamedNode, Term, TermRef};
use rete_core::vocab::{local_name, Prefixes, VOCABULARIES};
use rete_core::{Id, Pattern};
use std::ops::Range;

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// The answer to `q` when its text is an IRI or a prefixed name of a term of the file that
/// passes the query's filters: that term alone. `None` otherwise: the text is then searched as
/// words.
pub(crate) fn search(s: &Searcher, q: &Query) -> Result<Option<Answer>, SearchError> {
    let Some(iri) = typed_iri(s, q.text.trim())? else {
        return Ok(None);
    };
    let rete = s.rete();
    let Some(id) = rete.id_of(TermRef::NamedNode(iri.as_ref()))? else {
        return Ok(None);
    };
    let schema = schema_terms(rete)?;
    let kind = schema.kinds.get(&id).copied().unwrap_or(Kind::Entity);
    if q.kind.is_some_and(|k| k != kind) {
        return Ok(None);
    }
    // Its classes, the most specific (fewest instances) first.
    let mut classes: Vec<Id> = Vec::new();
    if let Some(ty) = iri_id(s, RDF_TYPE)? {
        for quad in rete.quads(&Pattern::new(Some(id), Some(ty), None))? {
            classes.push(quad?[2]);
        }
    }
    classes.sort_by_key(|c| (schema.class_count.get(c).copied().unwrap_or(u64::MAX), *c));
    if let Some(class) = &q.class {
        let class = class.trim().trim_start_matches('<').trim_end_matches('>');
        let wanted = NamedNode::new(class).ok().map(|c| iri_id(s, c.as_str()));
        match wanted.transpose()?.flatten() {
            Some(c) if classes.contains(&c) => {}
            Some(_) => return Ok(None),
            None => return Err(SearchError::UnknownClass(class.to_owned())),
        }
    }
    let path = s.community_path(id)?;
    if let Some(w) = q.within {
        if !w.holds(path.as_ref()) {
            return Ok(None);
        }
    }
    let (label, lang, source) = best_label(s, id, &q.languages)?
        .unwrap_or_else(|| (local_name(iri.as_str()).to_owned(), None, None));
    let class = match classes.first() {
        Some(&c) => Some(rete.term(c)?.to_string()),
        None => None,
    };
    Ok(Some(Answer {
        hits: vec![Hit {
            rank: 1,
            term: iri.to_string(),
            kind,
            label,
            lang,
            source,
            matched: Match::WholeLabel,
            class,
            path,
        }],
        indexed: s.is_indexed(),
    }))
}

/// A label as a hit shows it: its text, language and predicate.
type Shown = (String, Option<String>, Option<String>);

/// The term's label as a hit shows it: `(text, language, predicate)` of the first label in the
/// preferred languages (label predicates in the index's order), else English or untagged, else
/// the first.
fn best_label(s: &Searcher, id: Id, languages: &[String]) -> Result<Option<Shown>, SearchError> {
    let rete = s.rete();
    let predicates: Vec<String> = match s.index() {
        Some(ix) => ix.label_predicates().to_vec(),
        None => DEFAULT_LABEL_PREDICATES.map(str::to_owned).to_vec(),
    };
    let mut found: Vec<(String, Option<String>, String)> = Vec::new();
    for p in predicates {
        let Some(pid) = iri_id(s, &p)? else {
            continue;
        };
        for quad in rete.quads(&Pattern::new(Some(id), Some(pid), None))? {
            if let Term::Literal(l) = rete.term(quad?[2])? {
                found.push((
                    l.value().to_owned(),
                    l.language().map(str::to_owned),
                    p.clone(),
                ));
            }
        }
    }
    let tag = |l: &(String, Option<String>, String)| l.1.clone().unwrap_or_default();
    let ranges: Vec<&str> = languages
        .iter()
        .flat_map(|p| rete_pyramid::lang::lookup_ranges(p))
        .chain(["en", ""])
        .collect();
    let rank = |l: &(String, Option<String>, String)| {
        let t = tag(l);
        ranges
            .iter()
            .position(|r| {
                if r.is_empty() {
                    t.is_empty()
                } else {
                    rete_pyramid::lang::matches(r, &t)
                }
            })
            .unwrap_or(ranges.len())
    };
    Ok(found
        .into_iter()
        .enumerate()
        .min_by_key(|(i, l)| (rank(l), *i))
        .map(|(_, (text, lang, p))| (text, lang, Some(p))))
}

fn iri_id(s: &Searcher, iri: &str) -> Result<Option<Id>, SearchError> {
    Ok(s.rete()
        .id_of(TermRef::NamedNode(NamedNode::new_unchecked(iri).as_ref()))?)
}

/// The IRI `text` is, or names with a declared prefix: `<iri>`, an absolute IRI without spaces
/// (`scheme://…`, or `urn:…`), or `prefix:local`.
fn typed_iri(s: &Searcher, text: &str) -> Result<Option<NamedNode>, SearchError> {
    if text.is_empty() || text.chars().any(char::is_whitespace) {
        return Ok(None);
    }
    if let Some(inner) = text.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
        return Ok(NamedNode::new(inner).ok());
    }
    let Some((prefix, rest)) = text.split_once(':') else {
        return Ok(None);
    };
    if rest.starts_with("//") || prefix.eq_ignore_ascii_case("urn") {
        return Ok(NamedNode::new(text).ok());
    }
    Ok(namespace_of(s, prefix)?.and_then(|(ns, _)| NamedNode::new(format!("{ns}{rest}")).ok()))
}

/// The namespace `prefix` names in this file and the ids of its IRIs: a prefix the file's card
/// or the well-known list declares, else a well-known vocabulary's prefix (`dbo`, `org`, `gr`)
/// whose namespace the file holds IRIs of: the app shows such names (`org:Post`) where the
/// file declares none, so they can be typed back.
fn namespace_of(s: &Searcher, prefix: &str) -> Result<Option<(String, Range<Id>)>, SearchError> {
    let rete = s.rete();
    let prefixes = Prefixes::for_file(&rete.card()?.prefixes, &[]);
    if let Some(ns) = prefixes.get(prefix) {
        return Ok(Some((ns.to_owned(), rete.iri_ids_starting_with(ns)?)));
    }
    for v in VOCABULARIES.iter().filter(|v| v.prefix == prefix) {
        let terms = rete.iri_ids_starting_with(v.namespace)?;
        if !terms.is_empty() {
            return Ok(Some((v.namespace.to_owned(), terms)));
        }
    }
    Ok(None)
}

/// A query led by a declared prefix: the namespace, the ids of its IRIs, and the text after the
/// colon to search as words.
pub(crate) struct Namespaced<'t> {
    pub(crate) namespace: String,
    pub(crate) terms: Range<Id>,
    pub(crate) rest: &'t str,
}

/// The namespace a query is led by (`schema:Per`, `dbo:birth da`: a prefixed name typed on
/// toward a term of that namespace). `None` when the text does not start so or the prefix names
/// no namespace of the file ([`namespace_of`]).
pub(crate) fn namespace_typed<'t>(
    s: &Searcher,
    text: &'t str,
) -> Result<Option<Namespaced<'t>>, SearchError> {
    let Some((prefix, rest)) = text.trim_start().split_once(':') else {
        return Ok(None);
    };
    let name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    if prefix.is_empty() || !prefix.chars().all(name_char) || rest.starts_with("//") {
        return Ok(None);
    }
    Ok(
        namespace_of(s, prefix)?.map(|(namespace, terms)| Namespaced {
            namespace,
            terms,
            rest,
        }),
    )
}

/// `hits` of a query led by namespace `ns`'s prefix, those whose local name starts with the
/// `typed` text first (letters and digits compared, case folded: `Per` → `Person` before
/// `costPerUnit`, `birth da` → `birthDate`), each group in its order; at most `limit`, ranked
/// anew.
pub(crate) fn names_first(mut hits: Vec<Hit>, ns: &str, typed: &str, limit: usize) -> Vec<Hit> {
    let fold = |t: &str| -> String {
        t.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let typed = fold(typed);
    let starts = |h: &Hit| {
        h.term
            .strip_prefix('<')
            .and_then(|t| t.strip_suffix('>'))
            .and_then(|iri| iri.strip_prefix(ns))
            .is_some_and(|local| fold(local).starts_with(&typed))
    };
    // A stable sort: the word search's order within each group.
    hits.sort_by_key(|h| !starts(h));
    hits.truncate(limit);
    for (i, h) in hits.iter_mut().enumerate() {
        h.rank = i + 1;
    }
    hits
}
