//! Community labels in the reader's languages: a multilingual dataset built into a `.rete`, read
//! with several language preferences; files written before labels had languages (the committed
//! samples) still give their stored label.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::pyramid_of;
use rete_core::Rete;
use rete_pyramid::{Community, Pyramid, PyramidOptions};
use std::path::Path;

fn fixture() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/multilingual.ttl"
    ))
}

/// The level-0 community of `size` members (the fixture's groups have distinct sizes).
fn of_size(p: &Pyramid, size: u64) -> Community {
    let lv = p.level(0).unwrap();
    let mut found: Vec<Community> = lv
        .communities
        .into_iter()
        .filter(|c| c.size == size)
        .collect();
    assert_eq!(found.len(), 1, "one community of {size} members");
    found.remove(0)
}

#[test]
fn labels_follow_the_readers_languages() {
    let dir = tempfile::tempdir().unwrap();
    let (_rete, p) = pyramid_of(
        fixture(),
        &dir.path().join("ml.rete"),
        PyramidOptions::default(),
    );
    let sizes: Vec<u64> = p
        .level(0)
        .unwrap()
        .communities
        .iter()
        .map(|c| c.size)
        .collect();
    assert_eq!(sizes, [7, 5, 5, 1], "countries, rivers, people, the class");
    let countries = |langs: &[&str]| of_size(&p.with_languages(langs), 7).label;
    // The hub's only label is a code: the next most central member names the group.
    assert_eq!(countries(&[]), "Germany");
    assert_eq!(
        countries(&["fr"]),
        "Allemagne",
        "not the less central Autriche"
    );
    assert_eq!(
        countries(&["de-CH"]),
        "Deutschland",
        "de-CH falls back to de"
    );
    assert_eq!(countries(&["es"]), "Germany", "no Spanish: English");
    assert_eq!(countries(&["es", "ja"]), "ドイツ", "preferences in order");
    assert_eq!(countries(&["ja-JP", "fr"]), "ドイツ");
    // The same choice through the community itself.
    let c = of_size(&p, 7);
    assert_eq!(c.default_label, "Germany");
    assert_eq!(c.label_for(&["FR-ca"]), "Allemagne");
    let tags: Vec<&str> = c.labels_by_language.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(tags, ["de", "en", "fr", "ja"]);

    // Rivers and people have five members each: tell them apart by class.
    let level = p.with_languages(&["fr"]).level(0).unwrap();
    let group = |class: &str, langs: &[&str]| {
        let c = level
            .communities
            .iter()
            .find(|c| c.dominant_class.as_deref() == Some(class))
            .expect("community of the class");
        c.label_for(langs).to_owned()
    };
    let river = "<http://example.org/ml/River>";
    // No English label: any language (the first by the dictionary's order), French for French.
    assert_eq!(group(river, &[]), "Rhein");
    assert_eq!(group(river, &["es"]), "Rhein");
    assert_eq!(group(river, &["fr"]), "Rhin");
    assert_eq!(group(river, &["de-AT"]), "Rhein");
    // No member is labelled: the class, named in the reader's language, and its count.
    let person = "<http://example.org/ml/Person>";
    assert_eq!(group(person, &[]), "person · 5");
    assert_eq!(group(person, &["fr"]), "Personne · 5");
    assert_eq!(group(person, &["de"]), "Person · 5");
    assert_eq!(group(person, &["ja"]), "person · 5");
    // `with_languages` put the French label in `label` already.
    let shown: Vec<&str> = level.communities.iter().map(|c| c.label.as_str()).collect();
    assert!(
        shown.contains(&"Allemagne") && shown.contains(&"Rhin"),
        "{shown:?}"
    );

    // The summary the CLI prints uses the same languages.
    let s = p.with_languages(&["fr"]).summary(None, None).unwrap();
    let text = serde_json::to_string(&s).unwrap();
    assert!(text.contains("Allemagne"), "{text}");
}

/// Files written before labels had languages carry one label per community: readers with any
/// preference show it.
#[test]
fn files_written_before_still_give_their_label() {
    let samples = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples"));
    for name in ["social-1k.rete", "medical-1k.rete", "vocabularies.rete"] {
        let rete = Rete::open_path(samples.join(name)).unwrap();
        let p = Pyramid::open(&rete).unwrap().expect("pyramid");
        for l in 0..p.levels() {
            let plain = p.level(l).unwrap();
            let fr = p.with_languages(&["fr", "de-CH"]).level(l).unwrap();
            assert_eq!(plain, fr, "{name} level {l}");
            for c in &plain.communities {
                assert!(
                    !c.label.is_empty(),
                    "{name}: community {} has a label",
                    c.id
                );
                assert_eq!(c.label, c.default_label);
                assert!(c.labels_by_language.is_empty());
            }
        }
    }
}

/// A community stores at most 16 languages: those with most labels among the naming members.
#[test]
fn languages_are_bounded_most_frequent_first() {
    let dir = tempfile::tempdir().unwrap();
    let ttl = dir.path().join("many.ttl");
    let tags: Vec<String> = (0..20u8)
        .map(|i| format!("x{}{}", char::from(b'a' + i / 5), char::from(b'a' + i % 5)))
        .collect();
    let mut s = String::from("@prefix ex: <http://example.org/m/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n");
    s.push_str("ex:a ex:k ex:b, ex:c, ex:d . ex:b ex:k ex:c, ex:d . ex:c ex:k ex:d .\n");
    for t in &tags {
        s.push_str(&format!("ex:a rdfs:label \"Name {t}\"@{t} .\n"));
    }
    // The last three languages are the most frequent: a second member has them too.
    for t in &tags[17..] {
        s.push_str(&format!("ex:b rdfs:label \"Other {t}\"@{t} .\n"));
    }
    std::fs::write(&ttl, s).unwrap();
    let (_rete, p) = pyramid_of(
        &ttl,
        &dir.path().join("many.rete"),
        PyramidOptions::default(),
    );
    let c = of_size(&p, 4);
    assert_eq!(c.labels_by_language.len(), 16);
    let kept: Vec<&str> = c.labels_by_language.iter().map(|x| x.0.as_str()).collect();
    for t in &tags[17..] {
        assert!(kept.contains(&t.as_str()), "{t} in {kept:?}");
    }
    // Ties broken by tag: of the 17 languages only ex:a has, the first 13.
    assert!(kept.contains(&tags[0].as_str()) && !kept.contains(&tags[16].as_str()));
    assert_eq!(
        c.label_for(&[tags[19].as_str()]),
        format!("Name {}", tags[19])
    );
}

/// A community named after a member says what it holds when one class has at least 30 % of its
/// 20 or more members: the class's label in the reader's language and its count; not when most
/// of the graph is of that class.
#[test]
fn a_group_named_after_a_member_says_its_dominant_class() {
    let dir = tempfile::tempdir().unwrap();
    let ttl = dir.path().join("band.ttl");
    let mut s = String::from(
        "@prefix ex: <http://example.org/b/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n\
         ex:Musician rdfs:label \"Musician\"@en, \"Musicien\"@fr .\n\
         ex:star rdfs:label \"Nina Simone\"@en, \"Nina Simone (chanteuse)\"@fr .\n",
    );
    // One star of 24 members: 18 musicians (75 %), 6 venues without a class.
    for i in 0..24 {
        s.push_str(&format!("ex:star ex:knows ex:m{i} .\n"));
        if i < 17 {
            s.push_str(&format!("ex:m{i} a ex:Musician .\n"));
        }
    }
    s.push_str("ex:star a ex:Musician .\n");
    // A second star of 30 venues: musicians are not most of the graph.
    for i in 0..30 {
        s.push_str(&format!("ex:hall ex:near ex:v{i} . ex:v{i} a ex:Venue .\n"));
    }
    s.push_str("ex:hall rdfs:label \"Carnegie Hall\" .\n");
    std::fs::write(&ttl, s).unwrap();
    let (_rete, p) = pyramid_of(
        &ttl,
        &dir.path().join("band.rete"),
        PyramidOptions::default(),
    );
    let c = of_size(&p, 25);
    assert_eq!(c.default_label, "Nina Simone · 18 Musician");
    assert_eq!(
        c.label_for(&["fr"]),
        "Nina Simone (chanteuse) · 18 Musicien"
    );
    assert_eq!(c.label_for(&["de"]), "Nina Simone · 18 Musician");
    // No venue is labelled: the hall they are near names them, with what they are. Groups of
    // unlabelled instances of one class were all "Venue · N" (Brick's classes, each with its
    // blank `sh:TripleRule`s, were 12 groups called "TripleRule · N").
    assert_eq!(of_size(&p, 31).default_label, "Carnegie Hall · 30 Venue");
}

/// When most of the graph is of one class, a group's name does not repeat it.
#[test]
fn a_class_everyone_has_is_not_said() {
    let dir = tempfile::tempdir().unwrap();
    let ttl = dir.path().join("people.ttl");
    let mut s = String::from(
        "@prefix ex: <http://example.org/p/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n\
         ex:ada rdfs:label \"Ada Lovelace\" ; a ex:Person .\n",
    );
    for i in 0..24 {
        s.push_str(&format!(
            "ex:ada ex:knows ex:p{i} . ex:p{i} a ex:Person .\n"
        ));
    }
    std::fs::write(&ttl, s).unwrap();
    let (_rete, p) = pyramid_of(
        &ttl,
        &dir.path().join("people.rete"),
        PyramidOptions::default(),
    );
    assert_eq!(of_size(&p, 25).default_label, "Ada Lovelace");
}

/// A community of RDF list cells without a labelled member is called what it is, not `nil` after
/// `rdf:nil`, the hub every list ends in (the zazuko vocabularies' `owl:unionOf` lists); a name
/// published over several lines is shown on one.
#[test]
fn list_cells_are_called_rdf_lists() {
    let dir = tempfile::tempdir().unwrap();
    let ttl = dir.path().join("lists.ttl");
    let mut s = String::from("@prefix ex: <http://example.org/l/> .\n");
    // 12 lists of 3 literals, each held by an unlabelled blank node: 36 cells, 12 holders, nil.
    for i in 0..12 {
        s.push_str(&format!("[] ex:oneOf ( \"a{i}\" \"b{i}\" \"c{i}\" ) .\n"));
    }
    // As the RDF vocabulary labels it: still no name for the lists' community.
    s.push_str("<http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> <http://www.w3.org/2000/01/rdf-schema#label> \"nil\" .\n");
    // A labelled star elsewhere keeps its member's name, on one line.
    for i in 0..8 {
        s.push_str(&format!("ex:hub ex:knows ex:p{i} .\n"));
    }
    s.push_str(
        "ex:hub <http://www.w3.org/2000/01/rdf-schema#label> \"\"\"Grace\n      Hopper\t\"\"\" .\n",
    );
    std::fs::write(&ttl, s).unwrap();
    let (_rete, p) = pyramid_of(
        &ttl,
        &dir.path().join("lists.rete"),
        PyramidOptions::default(),
    );
    let mut lists = 0;
    for l in 0..p.levels() {
        for c in p.level(l).unwrap().communities {
            match c.default_label.as_str() {
                "Grace Hopper" => {
                    assert_eq!(c.size, 9);
                    if l == 0 {
                        // The member itself, as the map lists it, on one line too.
                        let m = p.members(c.id).unwrap();
                        assert!(m.iter().any(|m| m.label.as_deref() == Some("Grace Hopper")));
                    }
                }
                "RDF lists" => lists += 1,
                other => assert!(c.size < 3, "level {l}: {other:?} of {} members", c.size),
            }
        }
    }
    assert!(lists >= p.levels(), "a community of lists on every level");
}

/// A group without a labelled member or a class is not named after a blank node's label nor a
/// term of RDF itself (Brick's list of numeric datatype shapes was `_:b0x7377`; split smaller,
/// as here, its pieces were `nil`, `byte`, `double`), but after an IRI of its own, else what it
/// is.
#[test]
fn blank_nodes_and_terms_of_rdf_name_no_group() {
    let dir = tempfile::tempdir().unwrap();
    let ttl = dir.path().join("shapes.ttl");
    let mut s = String::from(
        "@prefix ex: <http://example.org/n/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n",
    );
    // A star of 25 blank nodes.
    for i in 0..24 {
        s.push_str(&format!("_:hub ex:has _:b{i} .\n"));
    }
    // A list of ten datatype shapes, as Brick's `bsh:NumericValue`.
    s.push_str("ex:Numeric ex:oneOf (");
    for d in [
        "int",
        "long",
        "short",
        "byte",
        "decimal",
        "double",
        "float",
        "integer",
        "unsignedInt",
        "unsignedLong",
    ] {
        s.push_str(&format!(" [ ex:datatype xsd:{d} ]"));
    }
    s.push_str(" ) .\n");
    std::fs::write(&ttl, s).unwrap();
    let (_rete, p) = pyramid_of(
        &ttl,
        &dir.path().join("shapes.rete"),
        PyramidOptions::default(),
    );
    let mut seen = Vec::new();
    for l in 0..p.levels() {
        for c in p.level(l).unwrap().communities {
            match c.default_label.as_str() {
                "25 blank nodes" => assert_eq!(c.size, 25),
                "Numeric" | "RDF lists" => {}
                other => panic!("level {l}: {other:?} of {} members", c.size),
            }
            seen.push(c.default_label);
        }
    }
    assert!(seen.iter().any(|l| l == "25 blank nodes"), "{seen:?}");
    assert!(seen.iter().any(|l| l == "Numeric"), "{seen:?}");
}
