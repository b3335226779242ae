//! The command bodies (`commands::ops`) on real files: the samples of `samples/` (or the folder
//! named by `RETE_SAMPLES`), damaged copies of them, and a file built without pyramid and schema
//! block (`tests/fixtures`, for the class overview and the card legend).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;
mod fixtures;

use common::open_served;
use rete_explore::engine::limits;
use rete_explore::model::{MapNode, MapView};
use rete_explore::ops;
use rete_explore::store::Store;
use std::path::PathBuf;

const PERSON: &str = "<http://xmlns.com/foaf/0.1/Person>";

fn sample(name: &str) -> PathBuf {
    let dir = std::env::var_os("RETE_SAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../samples"));
    let p = dir.join(name);
    assert!(
        p.is_file(),
        "sample {} is missing (build the samples first)",
        p.display()
    );
    p
}

/// The social sample built without pyramid and schema: the map is the class overview.
fn plain() -> PathBuf {
    fixtures::fixture("social-1k-plain.rete")
}

/// The overview's `foaf:Person` group.
fn person_group(store: &Store, doc: u32) -> MapNode {
    let map = ops::overview(store, doc).unwrap();
    map.nodes
        .into_iter()
        .find(|n| n.class.as_deref() == Some(PERSON))
        .unwrap()
}

/// The members of the Person group, expanded around the origin.
fn person_members(store: &Store, doc: u32) -> MapView {
    let g = person_group(store, doc);
    ops::expand(store, doc, &g.key, 0.0, 0.0, 1.0).unwrap()
}

fn open(store: &Store) -> rete_explore::model::DocInfo {
    let info = ops::open_path(store, &plain().display().to_string()).expect("the file opens");
    assert!(!info.has_pyramid);
    info
}

#[test]
fn after_the_webview_crashed_the_last_document_opens_again() {
    let store = Store::default();
    let sample = sample("social-1k.rete").display().to_string();
    let first = open(&store).doc;
    let last = ops::open_path(&store, &sample).expect("the file opens").doc;
    assert_eq!(store.reopen_after_crash(), Some(sample.clone()));
    // The new page knows no handle: every document is closed, the last one is queued.
    assert!(store.get(first).is_err() && store.get(last).is_err());
    assert_eq!(store.take_pending(), vec![sample.clone()]);
    // The new page says what happened, once.
    let notice = store.take_notice().expect("a notice for the new page");
    assert!(
        notice.contains("social-1k.rete was opened again"),
        "{notice}"
    );
    assert_eq!(store.take_notice(), None);
    // The reopened document crashes the webview again at once: a loop, the page comes back
    // without it.
    let again = ops::open_path(&store, &sample).expect("the file opens").doc;
    assert_eq!(store.reopen_after_crash(), None);
    assert!(store.get(again).is_err());
    assert!(store.take_pending().is_empty());
    let notice = store.take_notice().expect("a notice for the new page");
    assert!(notice.contains("not opened again"), "{notice}");
}

#[test]
fn open_reads_the_card() {
    let store = Store::default();
    let info = open(&store);
    assert_eq!(info.name, "social-1k-plain.rete");
    assert!(info.quads > 5000, "{} quads", info.quads);
    assert!(info.terms > 1000);
    let person = info
        .classes
        .iter()
        .find(|c| c.nt == PERSON)
        .expect("foaf:Person is a class");
    assert_eq!(person.count, 1000);
    assert!(info
        .top_predicates
        .iter()
        .any(|p| p.nt == "<http://xmlns.com/foaf/0.1/knows>"));
    assert!(info.bytes > 0);
}

#[test]
fn overview_shows_the_classes_with_positions() {
    let store = Store::default();
    let info = open(&store);
    let map = ops::overview(&store, info.doc).unwrap();
    assert!(!map.nodes.is_empty());
    let person = map
        .nodes
        .iter()
        .find(|n| n.class.as_deref() == Some(PERSON))
        .expect("a Person group");
    assert_eq!(person.size, 1000);
    assert!(person.expandable);
    assert!(person.x.is_some() && person.y.is_some() && person.r.is_some_and(|r| r > 0.0));
    for e in &map.edges {
        assert!(
            map.nodes.iter().any(|n| n.key == e.source)
                && map.nodes.iter().any(|n| n.key == e.target)
        );
    }
}

#[test]
fn expanding_a_class_places_members_inside_its_circle() {
    let store = Store::default();
    let info = open(&store);
    let g = person_group(&store, info.doc);
    let (x, y, r) = (g.x.unwrap(), g.y.unwrap(), g.r.unwrap());
    let members = ops::expand(&store, info.doc, &g.key, x, y, r).unwrap();
    assert_eq!(members.nodes.len(), limits::MEMBERS);
    assert!(members.truncated, "1000 persons do not all fit");
    for n in &members.nodes {
        assert_eq!(n.kind, "entity");
        assert_eq!(n.class.as_deref(), Some(PERSON));
        let d = ((n.x.unwrap() - x).powi(2) + (n.y.unwrap() - y).powi(2)).sqrt();
        assert!(d <= r, "{} lies outside its group", n.key);
    }
    assert!(!members.edges.is_empty(), "members know each other");
    assert!(
        members
            .edges
            .iter()
            .all(|e| e.label == "foaf:knows" || e.label == "knows"),
        "{:?}",
        members.edges[0]
    );
    let err = ops::expand(&store, info.doc, "e:1", 0.0, 0.0, 1.0).unwrap_err();
    assert!(err.to_string().contains("cannot be expanded"));
}

#[test]
fn entity_details_list_properties_and_links() {
    let store = Store::default();
    let info = open(&store);
    let members = person_members(&store, info.doc);
    let first = &members.nodes[0];
    let d = ops::entity(&store, info.doc, first.id).unwrap();
    assert!(d.term.nt.starts_with("<http://example.org/social/person/"));
    // foaf:name is a label predicate: the label is the person's name, not the IRI.
    assert!(!d.term.label.contains("person/"), "label {}", d.term.label);
    assert_eq!(d.term.label, first.label);
    assert_eq!(
        d.types.iter().map(|t| t.nt.as_str()).collect::<Vec<_>>(),
        [PERSON]
    );
    assert!(d
        .properties
        .iter()
        .any(|p| p.predicate.nt == "<http://xmlns.com/foaf/0.1/name>"));
    assert!(d.out_links.iter().all(|l| l.other.kind != "literal"));
    assert!(!d.out_links.is_empty());
    assert!(d.in_total >= d.in_links.len() as u64);
    assert!(d.out_total >= (d.properties.len() + d.out_links.len()) as u64);
    // A link leads to another entity's details.
    let next = ops::entity(&store, info.doc, d.out_links[0].other.id).unwrap();
    assert_eq!(next.term.id, d.out_links[0].other.id);
    assert!(ops::entity(&store, info.doc, u64::MAX).is_err());
}

#[test]
fn neighbourhood_holds_the_entity_and_its_neighbours() {
    let store = Store::default();
    let info = open(&store);
    let members = person_members(&store, info.doc);
    let id = members.nodes[0].id;
    let nb = ops::neighbourhood(&store, info.doc, id).unwrap();
    assert_eq!(nb.nodes[0].id, id);
    assert!(nb.nodes.len() > 1);
    assert!(
        nb.nodes.iter().all(|n| n.x.is_none()),
        "the UI lays neighbourhoods out"
    );
    let key = format!("e:{id}");
    assert!(nb.edges.iter().any(|e| e.source == key || e.target == key));
}

#[test]
fn group_details_and_legend() {
    let store = Store::default();
    let info = open(&store);
    let g = person_group(&store, info.doc);
    let d = ops::group(&store, info.doc, &g.key).unwrap();
    assert_eq!(d.size, 1000);
    assert!(!d.sample.is_empty());
    assert!(d
        .top_predicates
        .iter()
        .any(|p| p.nt == "<http://xmlns.com/foaf/0.1/knows>"));
    let legend = ops::legend(&store, info.doc).unwrap();
    assert!(legend
        .classes
        .iter()
        .any(|c| c.nt == PERSON && c.total == 1000));
    assert!(ops::group(&store, info.doc, "e:1").is_err());
}

#[test]
fn closed_documents_are_reported() {
    let store = Store::default();
    let info = open(&store);
    store.close(info.doc);
    let err = ops::overview(&store, info.doc).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("document {} is not open", info.doc)
    );
}

#[test]
fn bad_files_give_the_engine_message() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::default();
    let good = std::fs::read(sample("social-1k.rete")).unwrap();

    let text = dir.path().join("notes.rete");
    std::fs::write(&text, "@prefix ex: <http://example.org/> .\nex:alice ex:knows ex:bob .\nex:bob ex:knows ex:carol .\n").unwrap();
    let err = ops::open_path(&store, &text.display().to_string())
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a .rete file"), "{err}");

    let truncated = dir.path().join("truncated.rete");
    std::fs::write(&truncated, &good[..good.len() / 2]).unwrap();
    let err = ops::open_path(&store, &truncated.display().to_string())
        .unwrap_err()
        .to_string();
    assert!(err.contains("truncated"), "{err}");

    // Damage the byte in the middle of every section after the directory: whichever section is
    // read first reports it, at open or at the first map.
    let corrupt = dir.path().join("corrupt.rete");
    let mut bad = good.clone();
    for i in (2048..bad.len()).step_by(997) {
        bad[i] ^= 0x5a;
    }
    std::fs::write(&corrupt, &bad).unwrap();
    let err = match ops::open_path(&store, &corrupt.display().to_string()) {
        Err(e) => e.to_string(),
        Ok(info) => ops::overview(&store, info.doc).unwrap_err().to_string(),
    };
    assert!(err.contains("corrupt"), "{err}");

    let missing = dir.path().join("missing.rete");
    let err = ops::open_path(&store, &missing.display().to_string())
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot open"), "{err}");

    let err = ops::open_path(&store, &dir.path().display().to_string())
        .unwrap_err()
        .to_string();
    assert!(err.contains("is a folder"), "{err}");
}

#[test]
fn urls_other_than_http_are_refused() {
    let store = Store::default();
    let err = ops::open_url(&store, "ftp://example.org/x.rete")
        .unwrap_err()
        .to_string();
    assert!(err.contains("only http:// and https://"), "{err}");
}

#[test]
fn open_url_reads_a_served_file_in_place() {
    let store = Store::default();
    let (url, info) = open_served(&store, &sample("social-1k.rete"), 64);
    assert_eq!(info.name, "social-1k.rete");
    assert_eq!(info.source, url);
    let map = ops::overview(&store, info.doc).unwrap();
    assert!(map.nodes.iter().any(|n| n.class.as_deref() == Some(PERSON)));
}
