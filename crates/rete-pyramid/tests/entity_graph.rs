//! The entity graph against a direct count of the triples it is made of. Its loading reads the
//! triples in blocks of a few thousand (asking for memory a few triples ahead): a graph of many
//! blocks must give every link, once per triple, and every degree.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::{build_file, social_nt};
use oxrdf::Term;
use rete_core::{Id, Pattern};
use rete_pyramid::EntityGraph;
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn links_and_degrees_match_the_triples_over_many_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 3000);
    let rete = build_file(&nt, &dir.path().join("s.rete"), None);
    let rdf_type = rete.id_of(oxrdf::vocab::rdf::TYPE.into()).unwrap();
    let is_entity = |id: Id| {
        matches!(
            rete.term(id).unwrap(),
            Term::NamedNode(_) | Term::BlankNode(_)
        )
    };
    // Distinct triples (the same triple in several graphs counts once).
    let mut triples = BTreeSet::new();
    for q in rete.quads(&Pattern::default()).unwrap() {
        let [s, p, o, _] = q.unwrap();
        triples.insert([s, p, o]);
    }
    let mut want: BTreeMap<(Id, Id), u64> = BTreeMap::new();
    let mut entities = BTreeSet::new();
    for &[s, p, o] in &triples {
        entities.insert(s);
        if Some(p) == rdf_type || !is_entity(o) {
            continue;
        }
        entities.insert(o);
        *want.entry((s.min(o), s.max(o))).or_default() += 1;
    }
    let links: u64 = want.values().sum();
    assert!(
        links > 3 * 4096,
        "{links} link triples: too few to span several blocks"
    );

    let g = EntityGraph::from_rete(&rete).unwrap();
    let got: BTreeMap<(Id, Id), u64> = g
        .edges()
        .map(|(a, b, w)| ((a.min(b), a.max(b)), w))
        .collect();
    assert_eq!(got, want);
    assert_eq!(g.node_count(), entities.len());
    assert!(entities.iter().all(|&e| g.node_of(e).is_some()));
}
