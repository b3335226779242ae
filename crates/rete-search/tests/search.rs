//! Label search on real built files: normalisation, word prefixes, local names, typos, ranking,
//! languages, bad input, the label scan of files without an index, determinism, hostile bytes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use proptest::prelude::*;
use rete_core::Rete;
use rete_search::{Kind, Match, Query, SearchError, SearchExtension, Searcher};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

const DATA: &str = r#"
@prefix ex: <http://example.org/> .
@prefix dbo: <http://dbpedia.org/ontology/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
ex:einstein a ex:Physicist ; rdfs:label "Albert Einstein"@en , "Альберт Эйнштейн"@ru ,
    "アルベルト・アインシュタイン"@ja ; ex:knows ex:bohr , ex:curie .
ex:bohr a ex:Physicist ; rdfs:label "Niels Bohr"@en ; ex:knows ex:einstein .
ex:curie a ex:Chemist , ex:Physicist ; foaf:name "Marie Curie" .
ex:dusseldorf rdfs:label "Düsseldorf"@de .
ex:allee skos:prefLabel "Königsallee Straße"@de .
ex:paris1 rdfs:label "Paris"@en ; ex:near ex:a1 , ex:a2 , ex:a3 , ex:a4 .
ex:paris2 rdfs:label "Paris"@en .
ex:hilton rdfs:label "Paris Hilton" .
ex:parisian rdfs:label "Parisian café" .
ex:tokyo rdfs:label "東京都"@ja .
ex:cairo rdfs:label "القاهرة"@ar , "Cairo"@en .
ex:telaviv rdfs:label "תל אביב"@he .
dbo:BasketballPlayer a owl:Class .
ex:michael a dbo:BasketballPlayer ; rdfs:label "Michael Jordan" .
ex:hasPart a owl:ObjectProperty .
ex:unlabelled_thing_42 ex:knows ex:einstein .
ex:tiger1 rdfs:label "Tiger"@de ; ex:near ex:a1 , ex:a2 .
ex:tiger2 rdfs:label "Tiger"@en .
ex:Physicist rdfs:label "physicist"@en .
"#;

fn build(dir: &Path, name: &str, ttl: &str, search: bool) -> PathBuf {
    let input = dir.join(format!("{name}.ttl"));
    std::fs::write(&input, ttl).unwrap();
    let out = dir.join(format!("{name}.rete"));
    let extensions: Vec<Arc<dyn rete_build::Extension>> = if search {
        vec![Arc::new(SearchExtension::default())]
    } else {
        Vec::new()
    };
    let opts = rete_build::BuildOptions {
        inputs: vec![rete_build::Input::path(&input)],
        extensions,
        ..rete_build::BuildOptions::default()
    };
    rete_build::build(&opts, &out).unwrap();
    out
}

/// `data` built with a search index and without one (searched by scanning its labels).
fn indexed_and_scanned(dir: &Path, data: &str) -> [Searcher; 2] {
    [
        searcher(&build(dir, "i", data, true)),
        searcher(&build(dir, "s", data, false)),
    ]
}

fn searcher(path: &Path) -> Searcher {
    Searcher::open(&Rete::open_path(path).unwrap()).unwrap()
}

fn terms(s: &Searcher, q: &Query) -> Vec<String> {
    s.search(q, &AtomicBool::new(false))
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.term.trim_start_matches("<http://example.org/").to_owned())
        .collect()
}

fn top(s: &Searcher, text: &str) -> Vec<String> {
    terms(s, &Query::new(text))
}

fn ex(local: &str) -> String {
    format!("{local}>")
}

/// Every case on the indexed file and on the same file without an index (label scan).
#[test]
fn matching_and_ranking_indexed_and_scanned() {
    let dir = tempfile::tempdir().unwrap();
    let [indexed, scanned] = indexed_and_scanned(dir.path(), DATA);
    assert!(indexed.is_indexed());
    assert!(!scanned.is_indexed());
    for s in [&indexed, &scanned] {
        // Normalisation: case, accents, ß, scripts.
        for (q, want) in [
            ("dusseldorf", "dusseldorf"),
            ("DÜSSELDORF", "dusseldorf"),
            ("strasse", "allee"),
            ("STRAẞE konigs", "allee"),
            ("東京", "tokyo"),
            ("東", "tokyo"),
            ("京都", "tokyo"),
            ("القاهرة", "cairo"),
            ("אביב", "telaviv"),
            ("эйнш", "einstein"),
            ("アインシュタイン", "einstein"),
            ("cafe", "parisian"),
        ] {
            assert_eq!(top(s, q).first(), Some(&ex(want)), "{q}");
        }
        // Word prefixes in any order.
        for q in [
            "alb ein",
            "ein alb",
            "Albert Einstein",
            "  einstein,   ALBERT ",
        ] {
            assert_eq!(top(s, q), [ex("einstein")], "{q}");
        }
        assert_eq!(top(s, "marie"), [ex("curie")]);
        // Typos: one from five letters, two from nine, none below five.
        assert_eq!(top(s, "einstain"), [ex("einstein")]);
        // Two neighbouring letters swapped are one typo (`einstien`: eight letters, one).
        assert_eq!(top(s, "einstien"), [ex("einstein")]);
        assert_eq!(top(s, "einstie"), [ex("einstein")]);
        assert_eq!(top(s, "dusseldrf"), [ex("dusseldorf")]);
        assert_eq!(top(s, "jordam"), [ex("michael")]);
        assert!(top(s, "bohx").is_empty());
        // Ranking: whole label, every word whole, then prefixes.
        let paris = s
            .search(&Query::new("paris"), &AtomicBool::new(false))
            .unwrap();
        let order: Vec<_> = paris.hits.iter().map(|h| h.matched).collect();
        assert_eq!(
            order,
            [
                Match::WholeLabel,
                Match::WholeLabel,
                Match::Exact,
                Match::Prefix
            ]
        );
        assert_eq!(paris.hits[2].term, "<http://example.org/hilton>");
        assert_eq!(paris.hits[3].term, "<http://example.org/parisian>");
        // Class filter, kinds.
        let mut q = Query::new("curie");
        q.class = Some("http://example.org/Physicist".into());
        assert_eq!(terms(s, &q), [ex("curie")]);
        q.class = Some("http://example.org/Chemist".into());
        assert_eq!(terms(s, &q), [ex("curie")]);
        let mut q = Query::new("a");
        q.class = Some("http://example.org/Physicist".into());
        q.limit = 100;
        // "Albert Einstein", not "Paris", "Cairo"… (not physicists) nor "Marie Curie" (no word
        // starts with "a").
        assert_eq!(terms(s, &q), [ex("einstein")]);
        let mut q = Query::new("physicist");
        q.kind = Some(Kind::Class);
        assert_eq!(terms(s, &q), [ex("Physicist")]);
        q.kind = Some(Kind::Predicate);
        assert!(terms(s, &q).is_empty());
        let mut q = Query::new("basketball");
        q.kind = Some(Kind::Class);
        assert_eq!(
            s.search(&q, &AtomicBool::new(false)).unwrap().hits[0].term,
            "<http://dbpedia.org/ontology/BasketballPlayer>"
        );
        let mut q = Query::new("has part");
        q.kind = Some(Kind::Predicate);
        assert_eq!(terms(s, &q), [ex("hasPart")]);
        // A word written as a compound: split at its own camelCase and digits, else, in one
        // case, at the words the labels hold; its pieces then match as separate words. A
        // class's or predicate's name is also a word of its own, typos and all.
        let matched = |text: &str| {
            s.search(&Query::new(text), &AtomicBool::new(false))
                .unwrap()
                .hits
                .first()
                .map(|h| (h.term.clone(), h.matched))
        };
        let player = "<http://dbpedia.org/ontology/BasketballPlayer>".to_owned();
        for q in ["basketballplayer", "BasketballPlayer", "BasketbalPlayer"] {
            assert_eq!(matched(q).map(|h| h.0), Some(player.clone()), "{q}");
        }
        assert_eq!(top(s, "alberteinstein"), [ex("einstein")]);
        assert_eq!(top(s, "AlbertEin"), [ex("einstein")]);
        assert_eq!(top(s, "einsteinalb"), [ex("einstein")]);
        assert_eq!(top(s, "haspart"), [ex("hasPart")]);
        if s.is_indexed() {
            // An entity's name, typed whole, matches it whole. (The scan reads no unlabelled
            // subject's name.)
            let thing = Some((
                "<http://example.org/unlabelled_thing_42>".to_owned(),
                Match::WholeLabel,
            ));
            assert_eq!(matched("unlabelledthing42"), thing);
            assert_eq!(matched("UnlabelledThing42"), thing);
            assert_eq!(top(s, "Thing42"), [ex("unlabelled_thing_42")]);
            assert_eq!(top(s, "unlabelledthing4"), [ex("unlabelled_thing_42")]);
        }
        // A typo is not split into words that no label holds together.
        assert_eq!(top(s, "einsteinn"), [ex("einstein")]);
        let h = &s
            .search(&Query::new("michael"), &AtomicBool::new(false))
            .unwrap()
            .hits[0];
        assert_eq!(
            h.class.as_deref(),
            Some("<http://dbpedia.org/ontology/BasketballPlayer>")
        );
        assert_eq!(h.lang, None);
        assert_eq!(
            h.source.as_deref(),
            Some("http://www.w3.org/2000/01/rdf-schema#label")
        );
        // Bad input: an empty answer, never a panic.
        for q in [
            String::new(),
            "   ".into(),
            "!!! ... ---".into(),
            "\u{0}\u{7}\u{1b}[2J".into(),
            "x".repeat(10_000),
            "alb ".repeat(2_500),
        ] {
            let a = s.search(&Query::new(q.clone()), &AtomicBool::new(false));
            assert!(a.is_ok(), "{:?}", &q[..q.len().min(20)]);
        }
        assert!(top(s, "\u{0}").is_empty());
        let mut q = Query::new("alb");
        q.limit = 0;
        assert!(terms(s, &q).is_empty());
        let mut q = Query::new("einstein");
        q.class = Some("http://example.org/Nope".into());
        let e = s.search(&q, &AtomicBool::new(false)).unwrap_err();
        assert!(matches!(e, SearchError::UnknownClass(_)), "{e}");
        assert_eq!(
            e.to_string(),
            "unknown class http://example.org/Nope: no such term in the file"
        );
        q.class = Some("not an iri".into());
        assert!(matches!(
            s.search(&q, &AtomicBool::new(false)),
            Err(SearchError::UnknownClass(_))
        ));
        let mut q = Query::new("einstein");
        q.within = Some(rete_search::Within {
            level: 0,
            community: 0,
        });
        assert!(matches!(
            s.search(&q, &AtomicBool::new(false)),
            Err(SearchError::NoPyramid)
        ));
    }
    // Importance breaks ties in the index (the scan has no degrees: term order).
    assert_eq!(top(&indexed, "paris")[..2], [ex("paris1"), ex("paris2")]);
    assert_eq!(top(&indexed, "unlabelled 42"), [ex("unlabelled_thing_42")]);
    // Preferred languages first within a tier.
    assert_eq!(top(&indexed, "tiger"), [ex("tiger1"), ex("tiger2")]);
    let mut q = Query::new("tiger");
    q.languages = vec!["en".into()];
    assert_eq!(terms(&indexed, &q), [ex("tiger2"), ex("tiger1")]);
    q.languages = vec!["de".into(), "en".into()];
    assert_eq!(terms(&indexed, &q), [ex("tiger1"), ex("tiger2")]);
    // A raised cancel flag stops the scan.
    let e = scanned
        .search(&Query::new("einstein"), &AtomicBool::new(true))
        .unwrap_err();
    assert!(matches!(e, SearchError::Cancelled));
}

#[test]
fn index_bytes_are_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let a = build(dir.path(), "a", DATA, true);
    let b = std::fs::read(&a).unwrap();
    std::fs::remove_file(&a).unwrap();
    let again = build(dir.path(), "a", DATA, true);
    assert_eq!(std::fs::read(again).unwrap(), b);
}

/// A file whose search sections are replaced by `meta` and `tokens` (checksums valid).
fn crafted(original: &Path, meta: &[u8], tokens: Option<&[u8]>) -> Rete {
    use rete_core::craft::{assemble, RawSection};
    use rete_core::format::Codec;
    let bytes = std::fs::read(original).unwrap();
    let rete = Rete::open_path(original).unwrap();
    let sections: Vec<RawSection> = rete
        .sections()
        .iter()
        .map(|e| {
            let stored = bytes[e.offset as usize..(e.offset + e.len) as usize].to_vec();
            match (e.kind, tokens) {
                (48, _) => RawSection::new(
                    48,
                    0,
                    Codec::Zstd,
                    meta.len() as u64,
                    zstd::bulk::compress(meta, 3).unwrap(),
                ),
                (49, Some(t)) => RawSection::new(49, 0, Codec::Blocks, t.len() as u64, t.to_vec()),
                _ => RawSection::new(e.kind, e.index, e.codec, e.raw_len, stored),
            }
        })
        .collect();
    let file = assemble(
        rete.header().flags,
        rete.quad_count(),
        rete.term_count(),
        &sections,
    );
    Rete::open(Arc::new(rete_core::MemReader::new(file, "crafted.rete"))).unwrap()
}

use rete_core::format::varint::put as varint;

/// Meta of `docs` documents (one document block) and one token block `block`.
fn meta(docs: u64, tokens: u64, blocks: u64, block: &[u8], block_raw: usize) -> Vec<u8> {
    meta_of_layout(1, &[], docs, tokens, blocks, block, block_raw)
}

/// [`meta`] of index layout `version`, with the label predicates the documents refer to.
fn meta_of_layout(
    version: u8,
    predicates: &[&str],
    docs: u64,
    tokens: u64,
    blocks: u64,
    block: &[u8],
    block_raw: usize,
) -> Vec<u8> {
    let mut m = b"RSRC".to_vec();
    m.push(version);
    varint(&mut m, docs);
    varint(&mut m, tokens);
    varint(&mut m, 64);
    varint(&mut m, predicates.len() as u64);
    for p in predicates {
        varint(&mut m, p.len() as u64);
        m.extend_from_slice(p.as_bytes());
    }
    varint(&mut m, 0); // languages
    varint(&mut m, blocks);
    varint(&mut m, 1);
    m.push(b'a');
    varint(&mut m, 0);
    varint(&mut m, block.len() as u64);
    varint(&mut m, block_raw as u64);
    m.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(block).to_le_bytes());
    m
}

#[test]
fn lying_counts_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    // One document block: as many documents as the directory describes.
    let path = build(
        dir.path(),
        "c",
        "<http://example.org/a> <http://www.w3.org/2000/01/rdf-schema#label> \"a\" .\n",
        true,
    );
    let docs = Rete::open_path(&path).unwrap();
    let n = rete_search::Index::open(&docs)
        .unwrap()
        .unwrap()
        .documents();
    let err = |rete: Rete| -> String {
        let s = match Searcher::open(&rete) {
            Ok(s) => s,
            Err(e) => return e.to_string(),
        };
        match s.search(&Query::new("a"), &AtomicBool::new(false)) {
            Ok(a) => panic!("a lying section answered {a:?}"),
            Err(e) => e.to_string(),
        }
    };
    // A token block whose entry claims more documents than the index has.
    let mut raw = Vec::new();
    varint(&mut raw, 1);
    raw.extend_from_slice(&[0, 1, b'a']);
    varint(&mut raw, 1_000_000);
    let block = zstd::bulk::compress(&raw, 3).unwrap();
    let e = err(crafted(
        &path,
        &meta(n, 1, 1, &block, raw.len()),
        Some(&block),
    ));
    assert!(
        e.contains("corrupt search tokens") && e.contains("claims 1000000 documents"),
        "{e}"
    );
    // A block that announces 50 tokens and holds one.
    let mut raw = Vec::new();
    varint(&mut raw, 50);
    raw.extend_from_slice(&[0, 1, b'a', 1, 0]);
    let block = zstd::bulk::compress(&raw, 3).unwrap();
    let e = err(crafted(
        &path,
        &meta(n, 50, 1, &block, raw.len()),
        Some(&block),
    ));
    assert!(
        e.contains("corrupt search tokens") && e.contains("count 50 exceeds"),
        "{e}"
    );
    // A posting beyond the last document.
    let mut raw = Vec::new();
    varint(&mut raw, 1);
    raw.extend_from_slice(&[0, 1, b'a', 1]);
    varint(&mut raw, (n + 5) << 3);
    let block = zstd::bulk::compress(&raw, 3).unwrap();
    let e = err(crafted(
        &path,
        &meta(n, 1, 1, &block, raw.len()),
        Some(&block),
    ));
    assert!(e.contains("out of order or range"), "{e}");
    // A meta section claiming a million token blocks, or documents its directory cannot hold.
    let e = err(crafted(
        &path,
        &meta(n, 1, 1_000_000, &block, raw.len()),
        Some(&block),
    ));
    assert!(
        e.contains("corrupt search meta") && e.contains("exceeds"),
        "{e}"
    );
    let e = err(crafted(
        &path,
        &meta(n + 1000, 1, 1, &block, raw.len()),
        Some(&block),
    ));
    assert!(e.contains("corrupt search document directory"), "{e}");
    // A lying decoded length.
    let e = err(crafted(
        &path,
        &meta(n, 1, 1, &block, 1 << 31),
        Some(&block),
    ));
    assert!(e.contains("corrupt search meta"), "{e}");
}

/// A prefixed name typed on (`dbo:Bask`, `ex:alb ein`) finds the terms of that namespace whose
/// labels or names hold the words after the colon, those whose local name starts with them
/// first, indexed and scanned; the prefix is the file's (Turtle's `@prefix`) or a well-known one
/// (`foaf:`); an undeclared one is searched as a word.
#[test]
fn a_prefix_typed_on_keeps_its_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let [indexed, scanned] = indexed_and_scanned(dir.path(), DATA);
    for s in [&indexed, &scanned] {
        let dbo = |local: &str| format!("<http://dbpedia.org/ontology/{local}>");
        assert_eq!(top(s, "dbo:Bask"), [dbo("BasketballPlayer")]);
        assert_eq!(top(s, "dbo:basketball pl"), [dbo("BasketballPlayer")]);
        assert_eq!(top(s, "ex:alb ein"), [ex("einstein")]);
        assert_eq!(top(s, " ex:tig"), [ex("tiger1"), ex("tiger2")]);
        // The terms whose local name starts with the typed text first (`parisian` before
        // "Paris Hilton", whose label ranks the same), then the others that match.
        let par = top(s, "ex:par");
        assert_eq!(
            par[..3],
            [ex("paris1"), ex("paris2"), ex("parisian")],
            "{par:?}"
        );
        assert!(
            par[3..].contains(&ex("hilton")) && par[3..].contains(&ex("hasPart")),
            "{par:?}"
        );
        // Einstein is not in DBpedia's namespace.
        assert!(top(s, "dbo:alb ein").is_empty());
        assert_eq!(
            top(s, "foaf:nam"),
            ["<http://xmlns.com/foaf/0.1/name>".to_owned()]
        );
        // A whole prefixed name is that term; an undeclared prefix is a word like the others.
        assert_eq!(top(s, "ex:einstein"), [ex("einstein")]);
        assert!(top(s, "zz:alb").is_empty());
        assert!(top(s, "ex:").is_empty());
        // A well-known namespace the file holds nothing of.
        assert!(top(s, "prov:alb").is_empty());
    }
}

/// A well-known vocabulary's prefix the file declares none for (N-Quads declare none): typed as
/// the app shows the terms (`org:Post`, `dbo:BasketballPlayer`), it finds them, whole or typed
/// on; a vocabulary prefix whose namespace the file does not hold is searched as a word.
#[test]
fn an_undeclared_vocabulary_prefix_finds_its_terms() {
    let nt = r#"
<http://dbpedia.org/ontology/BasketballPlayer> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> .
<http://dbpedia.org/ontology/BasketballPlayer> <http://www.w3.org/2000/01/rdf-schema#label> "basketball player"@en .
<http://www.w3.org/ns/org#Post> <http://www.w3.org/2000/01/rdf-schema#label> "puesto"@es .
<http://example.org/gr> <http://www.w3.org/2000/01/rdf-schema#label> "gr alba"@en .
"#;
    let dir = tempfile::tempdir().unwrap();
    let [indexed, scanned] = indexed_and_scanned(dir.path(), nt);
    for s in [&indexed, &scanned] {
        let dbo = ["<http://dbpedia.org/ontology/BasketballPlayer>"];
        let post = ["<http://www.w3.org/ns/org#Post>"];
        assert_eq!(top(s, "dbo:BasketballPlayer"), dbo);
        assert_eq!(top(s, "dbo:Bask"), dbo);
        assert_eq!(top(s, "dbo:basketball pl"), dbo);
        assert_eq!(top(s, "org:Post"), post);
        assert_eq!(top(s, "org:pues"), post);
        // GoodRelations is not in the file: `gr` is a word.
        assert_eq!(top(s, "gr:alb"), [ex("gr")]);
    }
}

/// A term found by a label in another language shows its label in a preferred one when that
/// matches with words as good, and ranks by it: for `basketb` in English, "basketball player"
/// (a prefix) rather than the German whole word "Basketballspieler", also when the hits asked
/// are full before the English label is read; in German, or with no preference, the German.
#[test]
fn a_hit_shows_its_label_in_a_preferred_language_that_matches_as_well() {
    let ttl = r#"
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:player rdfs:label "Basketballspieler"@de , "basketball player"@en ; ex:near ex:a , ex:b .
ex:team rdfs:label "Basketballmannschaft"@de ; ex:near ex:a .
ex:zleague rdfs:label "basketball league"@en .
"#;
    let dir = tempfile::tempdir().unwrap();
    let [indexed, scanned] = indexed_and_scanned(dir.path(), ttl);
    let cancel = AtomicBool::new(false);
    for s in [&indexed, &scanned] {
        let shown = |langs: &[&str], limit: usize| -> Vec<(String, String, Match)> {
            let mut q = Query::new("basketb");
            q.languages = langs.iter().map(|l| (*l).to_owned()).collect();
            q.limit = limit;
            s.search(&q, &cancel)
                .unwrap()
                .hits
                .into_iter()
                .map(|h| {
                    let term = h.term.trim_start_matches("<http://example.org/").to_owned();
                    (term, h.label, h.matched)
                })
                .collect()
        };
        let hit = |t: &str, label: &str, m: Match| (ex(t), label.to_owned(), m);
        let team = hit("team", "Basketballmannschaft", Match::WholePrefix);
        let player_en = hit("player", "basketball player", Match::Prefix);
        let player_de = hit("player", "Basketballspieler", Match::WholePrefix);
        // Less connected than the player, and after it in term order (the scan's order of ties).
        let league = hit("zleague", "basketball league", Match::Prefix);
        // A whole label's tier still ranks first, whatever its language.
        assert_eq!(
            shown(&["en"], 10),
            [team.clone(), player_en.clone(), league]
        );
        assert_eq!(shown(&["en"], 2), [team.clone(), player_en]);
        assert_eq!(shown(&["de"], 2), [player_de.clone(), team.clone()]);
        assert_eq!(shown(&[], 2), [player_de, team]);
    }
}

/// An untagged label (rdf:type's "type", a local name) ranks with the most preferred language,
/// by importance among the labels in it; only a label known to be in another language ranks
/// after, and a region ranks with its language: `type` in English (or `en-US`) lists rdf:type
/// before the "Type"@en and "Type"@en-us of the less used terms. Of a term's labels as good in
/// the same tier, a tagged one in a preferred language is the one shown.
#[test]
fn an_untagged_label_ranks_with_the_preferred_language() {
    let ttl = r#"
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:aa rdfs:label "Type"@fr ; ex:near ex:a , ex:b , ex:c .
ex:ab rdfs:label "type" ; ex:near ex:a , ex:b .
ex:ac rdfs:label "Type"@en ; ex:near ex:a .
ex:ad rdfs:label "Type"@en-us .
ex:kind rdfs:label "kind"@en .
ex:a ex:kind ex:b .
ex:zebra rdfs:label "zebra" , "zebra crossing"@en .
"#;
    let dir = tempfile::tempdir().unwrap();
    let [indexed, scanned] = indexed_and_scanned(dir.path(), ttl);
    let cancel = AtomicBool::new(false);
    for s in [&indexed, &scanned] {
        let ranked = |text: &str, langs: &[&str]| -> Vec<(String, Option<String>)> {
            let mut q = Query::new(text);
            q.languages = langs.iter().map(|l| (*l).to_owned()).collect();
            s.search(&q, &cancel)
                .unwrap()
                .hits
                .into_iter()
                .map(|h| {
                    (
                        h.term.trim_start_matches("<http://example.org/").to_owned(),
                        h.lang,
                    )
                })
                .collect()
        };
        let hit = |t: &str, lang: Option<&str>| (ex(t), lang.map(str::to_owned));
        let (aa, ab, ac, ad) = (
            hit("aa", Some("fr")),
            hit("ab", None),
            hit("ac", Some("en")),
            hit("ad", Some("en-us")),
        );
        // More used and before in term order (the scan's order of ties) than ex:ac, itself
        // than ex:ad.
        let english = [ab.clone(), ac.clone(), ad.clone(), aa.clone()];
        assert_eq!(ranked("type", &["en"]), english);
        assert_eq!(ranked("type", &["fr"]), [aa, ab, ac, ad]);
        // Untagged ties the first preference, before the second.
        assert_eq!(ranked("type", &["de", "en"]), english);
        // A region ranks with its language (`en-US` takes `en` labels as well): by importance.
        assert_eq!(ranked("type", &["en-US"]), english);
        assert_eq!(ranked("type", &["en-US", "en"]), english);
        // The predicate's "kind"@en, not its local name `kind`, also for `en-US`.
        assert_eq!(ranked("kind", &["en"]), [hit("kind", Some("en"))]);
        assert_eq!(ranked("kind", &["en-US"]), [hit("kind", Some("en"))]);
        // An untagged whole label rather than a tagged longer one: the tier first.
        let mut q = Query::new("zebra");
        q.languages = vec!["en".into()];
        let hits = s.search(&q, &cancel).unwrap().hits;
        let shown: Vec<_> = hits.iter().map(|h| (&h.label[..], h.matched)).collect();
        assert_eq!(shown, [("zebra", Match::WholeLabel)]);
    }
}

/// Layouts 3 and 4: a token whose word-count byte and parts disagree, or whose one-word labels
/// name a document the index does not hold, is a clear error.
#[test]
fn a_token_whose_word_counts_lie_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(
        dir.path(),
        "w",
        "<http://example.org/a> <http://www.w3.org/2000/01/rdf-schema#label> \"a\" .\n",
        true,
    );
    let n = rete_search::Index::open(&Rete::open_path(&path).unwrap())
        .unwrap()
        .unwrap()
        .documents();
    for version in [3u8, 4] {
        // One token `a`: its word-count byte, its one-word labels' part (documents: inline
        // `doc << 3 | 1` in layout 3, `doc` in layout 4), the other labels' part (inline
        // postings, `doc << 3 | words`).
        let search = |counts: u8, ones: &[u64], rest: &[u64]| {
            let mut raw = Vec::new();
            varint(&mut raw, 1);
            raw.extend_from_slice(&[0, 1, b'a', counts]);
            varint(&mut raw, ones.len() as u64);
            for &d in ones {
                varint(&mut raw, if version == 3 { d << 3 | 1 } else { d });
            }
            varint(&mut raw, rest.len() as u64);
            for &p in rest {
                varint(&mut raw, p);
            }
            let block = zstd::bulk::compress(&raw, 3).unwrap();
            let rete = crafted(
                &path,
                &meta_of_layout(
                    version,
                    &rete_search::DEFAULT_LABEL_PREDICATES,
                    n,
                    1,
                    1,
                    &block,
                    raw.len(),
                ),
                Some(&block),
            );
            Searcher::open(&rete)
                .unwrap()
                .search(&Query::new("a"), &AtomicBool::new(false))
        };
        // Told the truth (document 0, a label of one word): found.
        let a = search(0b10, &[0], &[]).unwrap();
        assert_eq!(a.hits.len(), 1, "{version}: {a:?}");
        for (counts, ones, rest) in [
            // One-word labels announced, none listed.
            (0b10, &[][..], &[2][..]),
            // Labels of two words listed, not announced.
            (0b10, &[0][..], &[2][..]),
            // Bit 0, labels of no words.
            (0b11, &[0][..], &[][..]),
        ] {
            let e = search(counts, ones, rest).unwrap_err().to_string();
            assert!(
                e.contains("corrupt search tokens")
                    && e.contains("word counts and documents disagree"),
                "{version} {counts:#b} {ones:?} {rest:?}: {e}"
            );
        }
        let e = search(0b10, &[n], &[]).unwrap_err().to_string();
        assert!(
            e.contains("corrupt search tokens") && e.contains("out of order or range"),
            "{version}: {e}"
        );
    }
}

/// A token whose list is in chunks tells where it stands in its labels (layout 5): a byte
/// saying nowhere is a clear error, not a proof that a query has no answer.
#[test]
fn a_token_standing_nowhere_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut ttl = String::new();
    for i in 0..70 {
        ttl.push_str(&format!(
            "<http://example.org/p{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"A Smith{i}\" .\n"
        ));
    }
    let path = build(dir.path(), "nowhere", &ttl, true);
    let bytes = std::fs::read(&path).unwrap();
    let rete = Rete::open_path(&path).unwrap();
    let stored = |k: u16| {
        let e = rete.section(k, 0).unwrap();
        &bytes[e.offset as usize..(e.offset + e.len) as usize]
    };
    let meta = zstd::stream::decode_all(stored(48)).unwrap();
    let block = zstd::stream::decode_all(stored(49)).unwrap();
    // The first token, `a`, of 70 labels: its count, its word counts, no one-word labels, its
    // 70 others in a chunk (offset, stored and decoded lengths, checksum), then its places.
    let mut at = 0;
    let next = |at: &mut usize| rete_core::format::varint::read(&block, at).unwrap();
    let tokens = next(&mut at);
    assert_eq!(&block[at..at + 3], [0, 1, b'a']);
    at += 4;
    assert_eq!((next(&mut at), next(&mut at)), (0, 70), "{tokens} tokens");
    for _ in 0..3 {
        next(&mut at);
    }
    at += 8;
    assert_eq!(block[at], 1, "`a` is always the first word");
    let mut lying = block.clone();
    lying[at] = 0;
    let stored_block = zstd::bulk::compress(&lying, 3).unwrap();
    // The meta's one block reference, at its end, for the new block.
    let old = stored(49);
    let mut tail = Vec::new();
    varint(&mut tail, 0);
    varint(&mut tail, old.len() as u64);
    varint(&mut tail, block.len() as u64);
    tail.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(old).to_le_bytes());
    assert!(meta.ends_with(&tail));
    let mut meta = meta[..meta.len() - tail.len()].to_vec();
    varint(&mut meta, 0);
    varint(&mut meta, stored_block.len() as u64);
    varint(&mut meta, lying.len() as u64);
    meta.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&stored_block).to_le_bytes());
    let crafted = crafted(&path, &meta, Some(&stored_block));
    let e = Searcher::open(&crafted)
        .unwrap()
        .search(&Query::new("a smith1"), &AtomicBool::new(false))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("corrupt search tokens") && e.contains("stands nowhere in its labels"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]
    /// Every indexed label is found by the prefixes of each of its words.
    #[test]
    fn every_label_found_by_its_word_prefixes(
        labels in proptest::collection::vec(
            proptest::collection::vec("[a-zA-Zéßø]{1,9}", 1..4), 1..12)
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut nt = String::new();
        for (i, words) in labels.iter().enumerate() {
            nt.push_str(&format!(
                "<http://example.org/e{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"{}\" .\n",
                words.join(" ")
            ));
        }
        let path = build(dir.path(), "p", &nt, true);
        let s = searcher(&path);
        for (i, words) in labels.iter().enumerate() {
            let term = format!("<http://example.org/e{i}>");
            for w in words {
                let folded: Vec<char> = rete_search::normalize::fold(w).chars().collect();
                for n in [1, folded.len().div_ceil(2), folded.len()] {
                    let prefix: String = folded[..n].iter().collect();
                    let mut q = Query::new(prefix.clone());
                    q.limit = 1000;
                    let a = s.search(&q, &AtomicBool::new(false)).unwrap();
                    prop_assert!(
                        a.hits.iter().any(|h| h.term == term),
                        "{prefix:?} does not find {:?}", words
                    );
                }
            }
        }
    }
}

#[test]
fn a_word_shared_by_more_labels_than_fit_inline_is_read_back() {
    // More documents than an inline posting list holds: the token refers to a posting chunk,
    // and a block ending with such a token must not be taken for a lying count.
    let dir = tempfile::tempdir().unwrap();
    let mut ttl = String::from("@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n");
    for i in 0..40 {
        ttl.push_str(&format!(
            "<http://example.org/p{i}> rdfs:label \"Zhou number{i}\" .\n"
        ));
    }
    let path = build(dir.path(), "shared", &ttl, true);
    let s = searcher(&path);
    let hits = terms(
        &s,
        &Query {
            limit: 50,
            ..Query::new("zhou")
        },
    );
    assert_eq!(hits.len(), 40, "{hits:?}");
    assert_eq!(top(&s, "zhou number17").first(), Some(&ex("p17")));
}

/// The fixture `tests/data/{fixture}` (`data` built by rete 0.1.0 with `--no-pyramid
/// --no-schema` when the index had layout `version`) answers each query exactly as the same
/// data indexed today, at each limit. Its tokens are today's, and the `joined` local names of
/// entities builds stored before 2026-12-05 (`unlabelledthing42`), which a query now splits.
fn old_layout_answers_as_today(
    fixture: &str,
    data: &str,
    version: u8,
    joined: u64,
    queries: &[&str],
    limits: &[usize],
) -> Searcher {
    let dir = tempfile::tempdir().unwrap();
    let now = searcher(&build(dir.path(), "now", data, true));
    let old = searcher(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(fixture),
    );
    let (o, n) = (old.index().unwrap(), now.index().unwrap());
    assert_eq!((o.version(), n.version()), (version, 5));
    assert!(!o.is_current() && n.is_current());
    // Layouts 1 and 2 walk whole lists: a rewrite is offered for them alone.
    assert_eq!(o.is_outdated(), version < 3);
    assert!(!n.is_outdated());
    assert_eq!(
        (o.documents(), o.tokens()),
        (n.documents(), n.tokens() + joined)
    );
    let cancel = AtomicBool::new(false);
    for text in queries {
        for &limit in limits {
            let mut q = Query::new(*text);
            q.languages = vec!["de".into()];
            q.limit = limit;
            let a = old.search(&q, &cancel).unwrap();
            assert!(a.indexed && !a.hits.is_empty(), "{text}");
            assert_eq!(a, now.search(&q, &cancel).unwrap(), "{text} {limit}");
        }
    }
    now
}

/// The first layout of the index (before the document blocks held dictionary ids).
#[test]
fn an_index_of_the_first_layout_still_answers() {
    let queries = [
        "alb ein",
        "einstain",
        "paris",
        "basketball",
        "dusseldorf",
        "東京",
        "unlabelled",
        "has part",
        "physicist",
        "tiger",
    ];
    old_layout_answers_as_today("v1-layout.rete", DATA, 1, 1, &queries, &[10]);
}

/// Queries of the older layouts' fixtures that hold [`v2_extra`], whose `zhou` lists are chunked.
const CHUNKED: [&str; 10] = [
    "alb ein",
    "einstain",
    "paris",
    "zhou",
    "zho",
    "zhou number1",
    "zhou num",
    "number1",
    "東京",
    "tiger",
];

/// Labels added to `DATA` in `tests/data/v2-layout.rete`: a word with a one-word label and more
/// documents than fit inline, so that its postings are in a chunk.
fn v2_extra() -> String {
    let mut ttl = String::from(
        "<http://example.org/zhou> <http://www.w3.org/2000/01/rdf-schema#label> \"Zhou\" .\n",
    );
    for i in 0..12 {
        ttl.push_str(&format!(
            "<http://example.org/p{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"Zhou number{i}\" .\n"
        ));
    }
    ttl
}

/// The second layout (before each token kept its one-word labels apart), with a word whose
/// postings are in a chunk.
#[test]
fn an_index_of_the_second_layout_still_answers() {
    let data = format!("{DATA}{}", v2_extra());
    let now = old_layout_answers_as_today("v2-layout.rete", &data, 2, 1, &CHUNKED, &[1, 3, 10]);
    assert_eq!(top(&now, "zhou").first(), Some(&ex("zhou")));
}

/// The third layout (at most 8 postings inline, word counts kept with one-word labels' too):
/// `tests/data/v3-layout.rete` holds [`v3_extra`], so that a word
/// has each part in a chunk there and inline now.
#[test]
fn an_index_of_the_third_layout_still_answers() {
    let data = format!("{DATA}{}", v3_extra());
    let queries: Vec<&str> = CHUNKED.into_iter().chain(["li", "unlabelled"]).collect();
    let now = old_layout_answers_as_today("v3-layout.rete", &data, 3, 0, &queries, &[1, 3, 10]);
    assert_eq!(top(&now, "li").len(), 10);
}

/// Labels added to `DATA` in `tests/data/v3-layout.rete`: [`v2_extra`] and ten one-word labels
/// `Li`.
fn v3_extra() -> String {
    let mut ttl = v2_extra();
    for i in 0..10 {
        ttl.push_str(&format!(
            "<http://example.org/li{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"Li\" .\n"
        ));
    }
    ttl
}

/// Labels added to `DATA` in `tests/data/v4-layout.rete`: [`v3_extra`], two first names with
/// more documents than fit inline, never together in a label, and a surname that starts like
/// one of them.
fn v4_extra() -> String {
    let label = "<http://www.w3.org/2000/01/rdf-schema#label>";
    let mut ttl = v3_extra();
    for i in 0..70 {
        ttl.push_str(&format!(
            "<http://example.org/ada{i}> {label} \"Ada Smith{i}\" .\n<http://example.org/fran{i}> {label} \"Fran Jones{i}\" .\n"
        ));
    }
    for i in 0..3 {
        ttl.push_str(&format!(
            "<http://example.org/franklin{i}> {label} \"Ada Franklin\" .\n"
        ));
    }
    ttl
}

/// The fourth layout (no places of a token in its labels): `tests/data/v4-layout.rete` (built
/// with [`v4_extra`]) answers as today, `ada fran` too, which layout 5 answers without walking
/// the lists of `ada` and `fran`.
#[test]
fn an_index_of_the_fourth_layout_still_answers() {
    let data = format!("{DATA}{}", v4_extra());
    let queries: Vec<&str> = CHUNKED
        .into_iter()
        .chain([
            "li",
            "ada fran",
            "ada fra",
            "fran",
            "ada smith1",
            "smith12 ada",
        ])
        .collect();
    let now = old_layout_answers_as_today("v4-layout.rete", &data, 4, 0, &queries, &[1, 3, 10]);
    assert_eq!(top(&now, "ada fran").len(), 3);
}

/// A reader over bytes in memory that notes each range read.
#[derive(Debug)]
struct Noted {
    mem: rete_core::MemReader,
    reads: std::sync::Mutex<Vec<(u64, usize)>>,
}

impl rete_core::RangeReader for Noted {
    fn len(&self) -> u64 {
        self.mem.len()
    }
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, rete_core::RangeError> {
        self.reads.lock().unwrap().push((offset, len));
        self.mem.read_at(offset, len)
    }
    fn name(&self) -> &str {
        self.mem.name()
    }
}

/// `Ada Fran`, typed on the way to "Ada Franklin", where `fran` is another first name: no
/// label is exactly both words, which a walk of both whole lists proved before layout 5. Now
/// the tokens' places prove it (both only ever first), and the answer comes from the first
/// posting chunks of the lists, the best-connected people first.
#[test]
fn two_words_never_together_in_a_label_are_not_walked() {
    let dir = tempfile::tempdir().unwrap();
    let mut ttl = String::from("@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n@prefix ex: <http://example.org/> .\n");
    // People named Ada or Fran in a shuffled order, so that each name's documents are spread
    // (their chunks are not a few bytes of runs); their surnames, each of one person, are
    // inline: the posting chunks are those of `ada` and `fran`, three each.
    let mut x = 1u64;
    for i in 0..24_000 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let name = ["Ada", "Fran"][(x >> 33) as usize % 2];
        ttl.push_str(&format!("ex:p{i} rdfs:label \"{name} Surname{i}\" .\n"));
    }
    for i in 0..40 {
        ttl.push_str(&format!(
            "ex:franklin{i} rdfs:label \"Ada Franklin\" ; ex:knows ex:p1 , ex:p2 , ex:p3 .\n"
        ));
    }
    let path = build(dir.path(), "names", &ttl, true);
    let noted = Arc::new(Noted {
        mem: rete_core::MemReader::new(std::fs::read(&path).unwrap(), "names.rete"),
        reads: Default::default(),
    });
    // Only the header read at open: every posting chunk read after is counted.
    let opts = rete_core::ReteOptions {
        prefetch: 4096,
        ..Default::default()
    };
    let rete = Rete::open_with(noted.clone(), opts).unwrap();
    let postings = rete.section(50, 0).unwrap();
    let (start, end) = (postings.offset, postings.offset + postings.len);
    let s = Searcher::open(&rete).unwrap();
    noted.reads.lock().unwrap().clear();
    let q = Query {
        limit: 10,
        ..Query::new("ada fran")
    };
    let hits = terms(&s, &q);
    assert_eq!(hits.len(), 10);
    assert!(hits.iter().all(|h| h.starts_with("franklin")), "{hits:?}");
    let read: usize = noted
        .reads
        .lock()
        .unwrap()
        .iter()
        .filter(|r| (start..end).contains(&r.0))
        .map(|r| r.1)
        .sum();
    // Their first chunks are read, no more.
    assert!(
        read as u64 * 2 < postings.len,
        "{read} of the {} bytes of posting chunks read",
        postings.len
    );
    // The same answer as the label scan of a file without the index.
    let scanned = searcher(&build(dir.path(), "scan", &ttl, false));
    assert_eq!(terms(&scanned, &q), hits);
}

/// A query of seven words is whole in a label of more (word counts stop at 7), its last words
/// at the eighth place and after: the tokens' places do not rule such a label out.
#[test]
fn seven_words_match_a_longer_label_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut ttl = String::new();
    for i in 0..70 {
        ttl.push_str(&format!(
            "<http://example.org/p{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"alpha bravo charlie delta echo foxtrot golf hotel india x{i}\" .\n"
        ));
    }
    let indexed = searcher(&build(dir.path(), "i", &ttl, true));
    let q = Query::new("charlie delta echo foxtrot golf hotel india");
    let a = indexed.search(&q, &AtomicBool::new(false)).unwrap().hits;
    assert_eq!(a.len(), 10);
    assert!(a.iter().all(|h| h.matched == Match::WholeLabel), "{a:?}");
}

/// The samples (`scripts/make-samples.sh`) carry an index of the current layout.
#[test]
fn the_samples_carry_the_current_layout() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "rete") {
            let s = searcher(&path);
            let index = s
                .index()
                .unwrap_or_else(|| panic!("{}: no index", path.display()));
            assert!(
                index.is_current(),
                "{}: layout {}",
                path.display(),
                index.version()
            );
            seen += 1;
        }
    }
    assert!(seen >= 4, "{seen} samples");
}

/// The index added to a file built without one is the index `rete build` writes, byte for byte
/// (the rest of the file is copied: its card still says how it was built); a file with the first
/// layout gets the current one; the input is never the output.
#[test]
fn an_index_added_later_is_the_built_one() {
    let dir = tempfile::tempdir().unwrap();
    let with = build(dir.path(), "with", DATA, true);
    let without = build(dir.path(), "without", DATA, false);
    let added = dir.path().join("added.rete");
    let opts = rete_search::SearchOptions::default();
    let stats = rete_search::add_index(&without, &added, &opts).unwrap();
    assert!(stats.documents > 0);
    let index = |p: &Path| -> Vec<Vec<u8>> {
        let r = Rete::open_path(p).unwrap();
        (48..=52)
            .map(|k| {
                let e = *r.section(k, 0).unwrap();
                r.section_range(k, 0, 0, e.len as usize).unwrap()
            })
            .collect()
    };
    assert!(index(&added) == index(&with), "the added index differs");
    let q = Query::new("alb ein");
    let cancel = AtomicBool::new(false);
    let (a, w) = (searcher(&added), searcher(&with));
    assert_eq!(
        a.search(&q, &cancel).unwrap(),
        w.search(&q, &cancel).unwrap()
    );
    assert!(Rete::open_path(&added).unwrap().verify().is_ok());
    let old = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/v1-layout.rete");
    let upgraded = dir.path().join("upgraded.rete");
    rete_search::add_index(&old, &upgraded, &opts).unwrap();
    let s = searcher(&upgraded);
    assert_eq!(s.index().unwrap().version(), 5);
    assert_eq!(top(&s, "alb ein"), [ex("einstein")]);
    let e = rete_search::add_index(&added, &added, &opts).unwrap_err();
    assert!(e.to_string().contains("another file"), "{e}");

    // With a progress sink: its phases in order, the quads of the degree scan counted; a cancel
    // stops it and leaves nothing at the output.
    let sink = Sink::default();
    let logged = dir.path().join("logged.rete");
    rete_search::add_index_with(&without, &logged, &opts, &sink).unwrap();
    assert!(index(&logged) == index(&with), "the added index differs");
    let log = sink.log.lock().unwrap().clone();
    let phases: Vec<&str> = log.iter().map(|(p, _, _)| p.as_str()).collect();
    assert_eq!(
        phases,
        ["labels", "degrees", "classes", "tokens", "encode", "write"]
    );
    let quads = Rete::open_path(&without).unwrap().header().quads;
    assert_eq!(log[1].1, Some(2 * quads));
    assert_eq!(log[1].2, 2 * quads, "every quad scanned twice is counted");
    let stop = Sink {
        cancel: true,
        ..Sink::default()
    };
    let cancelled = dir.path().join("cancelled.rete");
    let e = rete_search::add_index_with(&without, &cancelled, &opts, &stop).unwrap_err();
    assert!(matches!(e, SearchError::Cancelled), "{e}");
    assert!(!cancelled.exists());
}

/// Records the phases of a build: (phase, total, work counted).
#[derive(Default)]
struct Sink {
    log: std::sync::Mutex<Vec<(String, Option<u64>, u64)>>,
    cancel: bool,
    /// Cancels once this phase has counted some work.
    cancel_in: Option<&'static str>,
}

impl rete_build::Progress for Sink {
    fn start(&self, phase: &str, total: Option<u64>) {
        self.log.lock().unwrap().push((phase.to_owned(), total, 0));
    }
    fn inc(&self, n: u64) {
        if let Some(last) = self.log.lock().unwrap().last_mut() {
            last.2 += n;
        }
    }
    fn finish(&self) {}
    fn cancelled(&self) -> bool {
        let log = self.log.lock().unwrap();
        let busy = |phase: &str| log.last().is_some_and(|l| l.0 == phase && l.2 > 0);
        self.cancel || self.cancel_in.is_some_and(busy)
    }
}

/// An unlabelled subject found by its local name counts its links in too: the subjects' and the
/// objects' scans, run side by side, meet in term order, so its document exists when the links
/// pointing at it are counted. `thingB` (one link out, three in) ranks above `thingA` (one out),
/// which comes first by term order alone.
#[test]
fn a_local_name_counts_the_links_pointing_at_it() {
    let dir = tempfile::tempdir().unwrap();
    let ttl = "@prefix ex: <http://example.org/> .
ex:thingA ex:near ex:x .
ex:thingB ex:near ex:x .
ex:y1 ex:near ex:thingB . ex:y2 ex:near ex:thingB . ex:y3 ex:near ex:thingB .
";
    let file = build(dir.path(), "things", ttl, true);
    assert_eq!(
        top(&searcher(&file), "thing")[..2],
        [ex("thingB"), ex("thingA")]
    );
}

/// A cancel in the middle of the degree scans (SPO and OSP decoded on two threads) stops the
/// index: a clear error, nothing written, no thread left waiting.
#[test]
fn a_cancel_during_the_degree_scans_stops_both() {
    let dir = tempfile::tempdir().unwrap();
    // 60 000 quads: the scans count 120 000, so the progress hears of them mid-way.
    let mut ttl = String::from("@prefix ex: <http://example.org/> .\n");
    for i in 0..20_000 {
        ttl.push_str(&format!(
            "ex:p{i} ex:knows ex:p{} ; ex:name \"P {i}\" ; ex:age {} .\n",
            (i * 7 + 1) % 20_000,
            i % 90
        ));
    }
    let without = build(dir.path(), "many", &ttl, false);
    let opts = rete_search::SearchOptions::default();
    let stop = Sink {
        cancel_in: Some("degrees"),
        ..Sink::default()
    };
    let out = dir.path().join("stopped.rete");
    let e = rete_search::add_index_with(&without, &out, &opts, &stop).unwrap_err();
    assert!(matches!(e, SearchError::Cancelled), "{e}");
    assert!(!out.exists());
    let log = stop.log.lock().unwrap();
    let degrees = log.iter().find(|l| l.0 == "degrees").unwrap();
    assert!(degrees.2 > 0 && degrees.2 < 120_000, "{degrees:?}");
}

#[test]
fn several_words_over_long_lists_answer_as_the_scan_does() {
    // Names as in a people graph: first names also used as middle names, never as last names,
    // so "ada fran" has no whole label of two exact words but matches "Ada Fran Smith" and
    // "Ada Franklin"; each word is in thousands of labels (lists of several posting chunks).
    let first = ["Ada", "Alan", "Fran", "Karen"];
    let last = ["Franklin", "Smith", "Frances", "Jones", "Francis"];
    let mut ttl = String::from("@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n");
    let mut labels = Vec::new();
    for i in 0..24_000usize {
        let middle = if i % 7 == 0 {
            format!("{} ", first[(i / 28) % 4])
        } else {
            String::new()
        };
        let label = format!("{} {middle}{}", first[i % 4], last[(i / 4) % 5]);
        ttl.push_str(&format!(
            "<http://example.org/p{i}> rdfs:label \"{label}\" .\n"
        ));
        labels.push(label.to_lowercase());
    }
    let dir = tempfile::tempdir().unwrap();
    let [indexed, scanned] = indexed_and_scanned(dir.path(), &ttl);
    let answer = |s: &Searcher, text: &str, limit: usize| {
        let q = Query {
            limit,
            ..Query::new(text)
        };
        s.search(&q, &AtomicBool::new(false)).unwrap().hits
    };
    for text in [
        "ada fran",
        "fran ada",
        "ada franc",
        "alan fran smith",
        "karen f",
        "fran",
        "ada smith",
        "ada fran s",
        "franklen ada",
        "smiht karen",
        "jones fran alan",
        // Two first names: together only where one is a middle name.
        "karen alan",
        "alan kar",
        "franklin ada",
    ] {
        // Both rank by tier; within one the index orders by importance, the scan by term: the
        // tiers given out match, and every hit is one the scan finds with the same match.
        let all: std::collections::HashMap<String, Match> = answer(&scanned, text, 1000)
            .into_iter()
            .map(|h| (h.term, h.matched))
            .collect();
        let hits = answer(&indexed, text, 60);
        let tiers: Vec<Match> = hits.iter().map(|h| h.matched).collect();
        let want: Vec<Match> = answer(&scanned, text, 60)
            .iter()
            .map(|h| h.matched)
            .collect();
        assert_eq!(tiers, want, "{text}");
        assert!(!hits.is_empty(), "{text}");
        for h in &hits {
            assert_eq!(all.get(&h.term), Some(&h.matched), "{text}: {}", h.term);
        }
    }
    // Two last names never stand together: nothing, from the tokens' places alone.
    for text in ["smith jones", "jones smith", "franklin francis"] {
        assert!(answer(&scanned, text, 60).is_empty(), "{text}");
        assert!(answer(&indexed, text, 60).is_empty(), "{text}");
    }
    // Where the matches are counts every label with a word starting with each word typed, the
    // tokens ruled out by the places of the others included in none.
    for text in [
        "ada fran",
        "karen alan",
        "alan kar",
        "fran ada",
        "smith jones",
    ] {
        let want = labels
            .iter()
            .filter(|l| {
                text.split(' ')
                    .all(|t| l.split(' ').any(|w| w.starts_with(t)))
            })
            .count() as u64;
        let spread = indexed
            .spread(&Query::new(text), &AtomicBool::new(false))
            .unwrap();
        assert_eq!(spread.entities, want, "{text}");
    }
}

#[test]
fn fewer_typos_rank_first() {
    // "Organization Role Code" is the more important term (linked to) and sorts first, yet
    // `organisaton` is one typo from "organisation" and two from "organization": the one-typo
    // label comes first, indexed and scanned, then whole labels before longer ones.
    let ttl = r#"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix ex: <http://example.org/> .
ex:a_orgrole rdfs:label "Organization Role Code" .
ex:b_orgname rdfs:label "Organization" .
ex:c_org rdfs:label "organisation" .
ex:d_orgunit rdfs:label "organisation unit" .
ex:x1 ex:p ex:a_orgrole . ex:x2 ex:p ex:a_orgrole . ex:x3 ex:p ex:a_orgrole .
"#;
    let dir = tempfile::tempdir().unwrap();
    for search in [true, false] {
        let s = searcher(&build(dir.path(), &format!("t{search}"), ttl, search));
        let hits = s
            .search(&Query::new("organisaton"), &AtomicBool::new(false))
            .unwrap()
            .hits;
        let got: Vec<(String, Match)> = hits
            .into_iter()
            .map(|h| {
                (
                    h.term.trim_start_matches("<http://example.org/").to_owned(),
                    h.matched,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("c_org>".to_owned(), Match::Fuzzy),
                ("d_orgunit>".to_owned(), Match::Fuzzy),
                ("b_orgname>".to_owned(), Match::Fuzzy),
                ("a_orgrole>".to_owned(), Match::Fuzzy),
            ],
            "indexed: {search}"
        );
    }
}

#[test]
fn labels_read_as_typed_come_first_within_a_tier() {
    // "Foot Pound Force" is the more important (linked to); typed "Pound Force Foot", the label
    // that reads so comes first of the two whole labels, and the longer one starting so first
    // of the others.
    let ttl = r#"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix ex: <http://example.org/> .
ex:ft_lbf rdfs:label "Foot Pound Force"@en .
ex:lbf_ft rdfs:label "Pound Force Foot"@en .
ex:lbf_per_ft2 rdfs:label "Pound Force per Square Foot"@en .
ex:lbf_ft_per_lb rdfs:label "Pound Force Foot Per Pound"@en .
ex:x1 ex:p ex:ft_lbf , ex:lbf_per_ft2 . ex:x2 ex:p ex:ft_lbf , ex:lbf_per_ft2 .
"#;
    let dir = tempfile::tempdir().unwrap();
    for search in [true, false] {
        let s = searcher(&build(dir.path(), &format!("t{search}"), ttl, search));
        assert_eq!(
            top(&s, "Pound Force Foot"),
            ["lbf_ft>", "ft_lbf>", "lbf_ft_per_lb>", "lbf_per_ft2>"].map(ex_of),
            "indexed: {search}"
        );
        // Typing on: whole labels by prefixes, then the others, each as typed first (the more
        // important "Pound Force per Square Foot" does not read so).
        assert_eq!(
            top(&s, "pound force f"),
            ["lbf_ft>", "ft_lbf>", "lbf_ft_per_lb>", "lbf_per_ft2>"].map(ex_of),
            "indexed: {search}"
        );
    }
    // A local name counts its camelCase words (the index holds unlabelled subjects' names).
    let names = r#"@prefix ex: <http://example.org/> .
ex:MassPound a ex:Unit . ex:PoundMass a ex:Unit .
ex:x3 ex:p ex:MassPound . ex:x4 ex:p ex:MassPound .
"#;
    let s = searcher(&build(dir.path(), "names", names, true));
    assert_eq!(top(&s, "pound ma"), [ex("PoundMass"), ex("MassPound")]);
    assert_eq!(top(&s, "mass po"), [ex("MassPound"), ex("PoundMass")]);
}

fn ex_of(local: &str) -> String {
    local.to_owned()
}

#[test]
fn a_pasted_iri_or_prefixed_name_finds_that_term() {
    // Its words alone (`ex`, `einstein`) would have to be in one label; the term is found
    // whole, with its label in the preferred language, its class and kind, indexed or not.
    let dir = tempfile::tempdir().unwrap();
    for search in [true, false] {
        let s = searcher(&build(dir.path(), &format!("iri{search}"), DATA, search));
        let one = |q: Query| {
            let hits = s.search(&q, &AtomicBool::new(false)).unwrap().hits;
            hits.into_iter()
                .map(|h| (h.term, h.label, h.kind, h.class))
                .collect::<Vec<_>>()
        };
        let einstein = (
            "<http://example.org/einstein>".to_owned(),
            "Albert Einstein".to_owned(),
            Kind::Entity,
            Some("<http://example.org/Physicist>".to_owned()),
        );
        for text in [
            "<http://example.org/einstein>",
            " http://example.org/einstein ",
            "ex:einstein",
        ] {
            assert_eq!(
                one(Query::new(text)),
                std::slice::from_ref(&einstein),
                "{text}: {search}"
            );
        }
        let ru = Query {
            languages: vec!["ru".into()],
            ..Query::new("ex:einstein")
        };
        assert_eq!(one(ru)[0].1, "Альберт Эйнштейн", "{search}");
        // A class, and a predicate, unlabelled: their local names.
        let player = one(Query::new("dbo:BasketballPlayer"));
        assert_eq!(
            (player[0].1.as_str(), player[0].2),
            ("BasketballPlayer", Kind::Class)
        );
        assert_eq!(one(Query::new("ex:knows"))[0].2, Kind::Predicate);
        // Filters hold; an IRI the file lacks is searched as words.
        let classes_only = Query {
            kind: Some(Kind::Class),
            ..Query::new("ex:einstein")
        };
        assert!(one(classes_only).is_empty(), "{search}");
        assert!(one(Query::new("ex:nobody")).is_empty(), "{search}");
        assert!(one(Query::new("<not an iri>")).is_empty(), "{search}");
    }
}

/// A class's name is a word of its own (`undergraduatestudent`), its members' numbered names are
/// not: a name typed whole finds the class first, then the members, split at its camelCase; in
/// one case, split at the index's words, the class's joined name first, then its parts.
#[test]
fn a_class_and_members_named_after_it() {
    let data = r#"
@prefix ex: <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:UndergraduateStudent a owl:Class .
ex:UndergraduateStudent12 a ex:UndergraduateStudent ; ex:memberOf ex:Dept0 .
ex:UndergraduateStudent7 a ex:UndergraduateStudent ; ex:memberOf ex:Dept0 .
ex:GraduateStudent3 ex:memberOf ex:Dept0 .
ex:FullProfessor0 ex:memberOf ex:Dept0 .
"#;
    let dir = tempfile::tempdir().unwrap();
    let s = searcher(&build(dir.path(), "u", data, true));
    let all = top(&s, "UndergraduateStudent");
    assert_eq!(all[0], ex("UndergraduateStudent"));
    let mut members = all[1..].to_vec();
    members.sort();
    assert_eq!(
        members,
        [ex("UndergraduateStudent12"), ex("UndergraduateStudent7")]
    );
    let mut q = Query::new("UndergraduateStudent");
    q.kind = Some(Kind::Entity);
    assert_eq!(terms(&s, &q).len(), 2);
    for text in [
        "UndergraduateStudent12",
        "undergraduatestudent12",
        "undergraduatestudent1",
    ] {
        assert_eq!(top(&s, text), [ex("UndergraduateStudent12")], "{text}");
    }
    let h = &s
        .search(
            &Query::new("UndergraduateStudent12"),
            &AtomicBool::new(false),
        )
        .unwrap()
        .hits[0];
    assert_eq!(h.matched, Match::WholeLabel);
    assert_eq!(top(&s, "graduatestudent3"), [ex("GraduateStudent3")]);
    // A part of its camelCase has the typos of the whole name: two in `Graxaute` (one swap, one
    // letter), as in `GraxauteStudent3` typed as one word.
    assert_eq!(top(&s, "GraxauteStudent3"), [ex("GraduateStudent3")]);
    assert_eq!(top(&s, "GradauteStudent3"), [ex("GraduateStudent3")]);
    assert!(top(&s, "GradauteStu").contains(&ex("GraduateStudent3")));
    assert_eq!(top(&s, "GraduateStudxnt3"), [ex("GraduateStudent3")]);
    assert!(top(&s, "GraxuateStu").contains(&ex("GraduateStudent3")));
    // A part of four letters, one typo; of three, none.
    assert_eq!(top(&s, "FuxlProfessor0"), [ex("FullProfessor0")]);
    assert!(top(&s, "FxlProfessor0").is_empty());
}

/// Upstream rete (PyPI rete-graph 0.3.6, installed by scripts/setup.sh) as an oracle: every term
/// its `prefix_search` finds for text typed from a label, ours finds too. On the same triples
/// (the two real samples' labels: medical terms, and multilingual vocabularies given in one
/// graph, as upstream searches only the default graph), every prefix of up to 12 characters of
/// every `rdfs:label` and the whole label.
#[test]
fn upstream_prefix_search_finds_no_term_that_ours_misses() {
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples");
    let label = "<http://www.w3.org/2000/01/rdf-schema#label>";
    let (mut lines, mut labels) = (std::collections::BTreeSet::new(), Vec::new());
    for name in ["medical-1k.rete", "vocabularies.rete"] {
        let rete = Rete::open_path(format!("{samples}/{name}")).unwrap();
        for q in rete
            .quads(&rete_core::Pattern::new(None, None, None))
            .unwrap()
        {
            let [s, p, o, _] = q.unwrap();
            let [s, p, o] = [s, p, o].map(|id| rete.term(id).unwrap());
            if let (true, oxrdf::Term::Literal(l)) = (p.to_string() == label, &o) {
                labels.push(l.value().to_owned());
            }
            lines.insert(format!("{s} {p} {o} ."));
        }
    }
    let nt: String = lines.into_iter().map(|l| l + "\n").collect();
    let mut queries = std::collections::BTreeSet::new();
    for l in &labels {
        let ends = l.char_indices().map(|(i, _)| i).skip(1).take(12);
        queries.extend(ends.map(|i| l[..i].to_owned()));
        queries.insert(l.clone());
    }
    assert!(
        labels.len() > 100 && queries.len() > 500,
        "{}",
        labels.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let ours = searcher(&build(dir.path(), "o", &nt, true));
    let (nt_path, q_path) = (dir.path().join("o.ttl"), dir.path().join("q.json"));
    std::fs::write(&q_path, serde_json::to_string(&queries).unwrap()).unwrap();
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import json, sys, rete_graph; \
             g = rete_graph.open(rete_graph.build(open(sys.argv[1]).read(), 'nt')); \
             print(json.dumps([[iri for _, iri in g.prefix_search(q, 100000)] \
                               for q in json.load(open(sys.argv[2]))]))",
        ])
        .args([&nt_path, &q_path])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "rete-graph answers: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).unwrap();
    let mut found = 0;
    for (q, want) in queries.iter().zip(&theirs) {
        let mut query = Query::new(q.as_str());
        query.limit = 100_000;
        let got: std::collections::HashSet<String> = ours
            .search(&query, &AtomicBool::new(false))
            .unwrap()
            .hits
            .into_iter()
            .map(|h| h.term)
            .collect();
        for iri in want {
            assert!(
                got.contains(&format!("<{iri}>")),
                "{q:?}: upstream finds {iri}"
            );
        }
        found += want.len();
    }
    // Upstream answered: the comparison compared something.
    assert!(found > queries.len(), "{found}");
}

/// How many of `paths` (community paths, finest level first) each community holds, per level.
fn per_level<'a>(
    paths: impl Iterator<Item = &'a Vec<u32>>,
) -> Vec<std::collections::BTreeMap<u32, u64>> {
    let mut want: Vec<std::collections::BTreeMap<u32, u64>> = Vec::new();
    for path in paths {
        want.resize_with(want.len().max(path.len()), Default::default);
        for (level, c) in path.iter().enumerate() {
            *want[level].entry(*c).or_default() += 1;
        }
    }
    want
}

/// A spread's counts per level, as [`per_level`] gives them.
fn spread_levels(spread: &rete_search::Spread) -> Vec<std::collections::BTreeMap<u32, u64>> {
    spread
        .levels
        .iter()
        .map(|l| l.iter().copied().collect())
        .collect()
}

#[test]
fn spread_counts_every_match_in_its_communities() {
    // The oracle: the typeahead's own hits with a limit above their number (words of fewer than
    // five letters: no typos, which the typeahead adds when it has fewer hits than asked).
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples");
    let s = searcher(Path::new(&format!("{samples}/social-20k.rete")));
    let no = AtomicBool::new(false);
    for text in ["ada", "tur ada", "ali", "jo b", "ada:", "zzzq"] {
        let mut q = Query::new(text);
        q.limit = rete_search::MAX_LIMIT;
        let hits = s.search(&q, &no).unwrap().hits;
        assert!(hits.len() < q.limit, "{text}: {}", hits.len());
        let spread = s.spread(&q, &no).unwrap();
        assert!(spread.complete, "{text}");
        let entities: Vec<_> = hits.iter().filter(|h| h.kind == Kind::Entity).collect();
        assert_eq!(spread.entities as usize, entities.len(), "{text}");
        assert_eq!(
            spread.placed.len(),
            entities.iter().filter(|h| h.path.is_some()).count()
        );
        let want = per_level(entities.iter().filter_map(|h| h.path.as_ref()));
        assert_eq!(spread_levels(&spread), want, "{text}");
        if text == "ada" {
            assert!(spread.entities > 20 && want.len() > 1, "{spread:?}");
            // Within one top-level community: its share, and nothing outside it.
            let top = want.len() - 1;
            let (&c, &n) = want[top].iter().next().unwrap();
            q.within = Some(rete_search::Within {
                level: top as u32,
                community: c,
            });
            let inside = s.spread(&q, &no).unwrap();
            assert_eq!(inside.entities, n);
            assert_eq!(inside.levels[top], vec![(c, n)]);
        }
    }
    // A pasted IRI: that term; a class filter naming no term: a clear error.
    let ada = s.search(&Query::new("ada"), &no).unwrap().hits[0].clone();
    let one = s.spread(&Query::new(ada.term.as_str()), &no).unwrap();
    assert_eq!((one.entities, one.placed.len()), (1, 1));
    let mut q = Query::new("ada");
    q.class = Some("http://example.org/NoSuchClass".into());
    assert!(matches!(
        s.spread(&q, &no),
        Err(SearchError::UnknownClass(_))
    ));
    // Cancelled: an error, not a partial count.
    assert!(matches!(
        s.spread(&Query::new("a"), &AtomicBool::new(true)),
        Err(SearchError::Cancelled)
    ));
    // No index: a clear error (the app offers to add one).
    let dir = tempfile::tempdir().unwrap();
    let plain = searcher(&build(dir.path(), "plain", DATA, false));
    assert!(matches!(
        plain.spread(&Query::new("paris"), &no),
        Err(SearchError::NoIndex)
    ));
    // A one-letter word: every token it starts, beyond the few hundred a keystroke reads.
    let mut many = String::from("@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n");
    for i in 0..1500 {
        many.push_str(&format!(
            "<http://example.org/t{i}> rdfs:label \"pa{i:04}x\" .\n"
        ));
    }
    let tokens = searcher(&build(dir.path(), "many", &many, true));
    let p = tokens.spread(&Query::new("p"), &no).unwrap();
    assert_eq!((p.entities, p.complete), (1500, true));
    // Typos only when nothing matches as typed: "einstien" finds Einstein, "paris" not "parisian"'s typos.
    let indexed = searcher(&build(dir.path(), "indexed", DATA, true));
    assert_eq!(
        indexed
            .spread(&Query::new("einstien"), &no)
            .unwrap()
            .entities,
        1
    );
    assert_eq!(
        indexed.spread(&Query::new("paris"), &no).unwrap().entities,
        4
    );
}

/// An ontology's classes and predicates are described by triples of their own: they are entities
/// of the map, so their hits have a community path and the spread counts them where they are
/// (Brick's classes, the vocabularies' terms); a class only ever an object of `rdf:type` is not.
#[test]
fn an_ontologys_terms_have_their_place_on_the_map() {
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples");
    let s = searcher(Path::new(&format!("{samples}/vocabularies.rete")));
    let no = AtomicBool::new(false);
    let mut on_map = 0;
    // Words of fewer than five letters: no typos, which the typeahead adds when it has fewer
    // hits than asked and the spread only when nothing matches.
    for text in ["org", "pers", "birt", "name", "dat"] {
        let mut q = Query::new(text);
        q.limit = rete_search::MAX_LIMIT;
        let hits = s.search(&q, &no).unwrap().hits;
        let spread = s.spread(&q, &no).unwrap();
        let placed: Vec<_> = hits.iter().filter(|h| h.path.is_some()).collect();
        on_map += placed.iter().filter(|h| h.kind != Kind::Entity).count();
        let off_schema = hits
            .iter()
            .filter(|h| h.kind != Kind::Entity && h.path.is_none())
            .count();
        assert_eq!(spread.placed.len(), placed.len(), "{text}");
        assert_eq!(spread.schema_terms as usize, off_schema, "{text}");
        assert_eq!(spread.entities as usize, hits.len() - off_schema, "{text}");
        let want = per_level(placed.iter().filter_map(|h| h.path.as_ref()));
        assert_eq!(spread_levels(&spread), want, "{text}");
    }
    assert!(on_map > 5, "{on_map} classes and predicates on the map");
    let mut q = Query::new("organization");
    q.kind = Some(Kind::Class);
    let foaf = s
        .search(&q, &no)
        .unwrap()
        .hits
        .into_iter()
        .find(|h| h.term == "<http://xmlns.com/foaf/0.1/Organization>")
        .unwrap();
    assert!(foaf.path.is_some());
    // Within its community, it is found; within another, not.
    let path = foaf.path.clone().unwrap();
    q.within = Some(rete_search::Within {
        level: 0,
        community: path[0],
    });
    assert!(s
        .search(&q, &no)
        .unwrap()
        .hits
        .iter()
        .any(|h| h.term == foaf.term));
    // The social graph's foaf:Person is only ever an object of rdf:type: no place on the map.
    let social = searcher(Path::new(&format!("{samples}/social-1k.rete")));
    let mut q = Query::new("person");
    q.kind = Some(Kind::Class);
    let hits = social.search(&q, &no).unwrap().hits;
    assert!(!hits.is_empty() && hits.iter().all(|h| h.path.is_none()));
    assert_eq!(social.spread(&q, &no).unwrap().schema_terms, 1);
}
