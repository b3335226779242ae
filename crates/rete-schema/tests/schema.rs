#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_build::{build, BuildOptions, Extension, Input, Syntax};
use rete_core::writer::SectionSpec;
use rete_core::{CountingReader, FileReader, Rete};
use rete_schema::{
    extract, kind, ExtractOptions, Parts, PropertyKind, Schema, SchemaError, SchemaExtension,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const ONTO: &str = r#"
@prefix : <http://ex.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

:Person a owl:Class ; rdfs:label "Person"@en, "Personne"@fr .
:Patient rdfs:subClassOf :Person .
:Doctor rdfs:subClassOf :Person ; owl:equivalentClass :Physician .
:Healthy rdfs:subClassOf :Patient ; owl:disjointWith :Sick .
:Sick rdfs:subClassOf :Patient .
:Hospital a owl:Class .
:Disease a rdfs:Class .
[] a owl:AllDisjointClasses ; owl:members ( :Person :Hospital :Disease ) .
:Alive owl:complementOf :Dead .
:Unborn owl:equivalentClass [ owl:complementOf :Born ] .

:treatedBy a owl:ObjectProperty, owl:IrreflexiveProperty ; rdfs:domain :Patient ; rdfs:range :Doctor ;
    owl:inverseOf :treats .
:primaryDoctor a owl:FunctionalProperty ; rdfs:subPropertyOf :treatedBy ;
    owl:propertyDisjointWith :consultant .
:birthDate a owl:DatatypeProperty, owl:FunctionalProperty ; rdfs:range xsd:date ; rdfs:label "born" .
:supervises a owl:AsymmetricProperty .
[] a owl:AllDisjointProperties ; owl:members ( :treatedBy :supervises ) .

:alice a :Healthy ; :treatedBy :bob ; :birthDate "1990-01-01"^^xsd:date ; :name "Alice" .
:carol a :Sick, :Patient ; :treatedBy :bob, :dave ; :name "Carol"@en .
:bob a :Doctor ; :supervises :dave .
:dave a :Physician, :Doctor .
:h1 a :Hospital .
"#;

fn build_ttl(dir: &Path, name: &str, ttl: &str, ext: Vec<Arc<dyn Extension>>) -> PathBuf {
    let out = dir.join(name);
    let opts = BuildOptions {
        inputs: vec![Input::bytes(
            "onto.ttl",
            ttl.as_bytes().to_vec(),
            Syntax::Turtle,
        )],
        extensions: ext,
        ..BuildOptions::default()
    };
    build(&opts, &out).unwrap();
    out
}

fn schema_of(ttl: &str) -> Schema {
    let dir = tempfile::tempdir().unwrap();
    let path = build_ttl(dir.path(), "s.rete", ttl, vec![Arc::new(SchemaExtension)]);
    Schema::open(&Rete::open_path(path).unwrap())
        .unwrap()
        .unwrap()
}

fn ix(s: &Schema, local: &str) -> u32 {
    s.class_index(&format!("http://ex.org/{local}"))
        .unwrap_or_else(|| panic!("no class {local}"))
}

fn pix(s: &Schema, local: &str) -> usize {
    s.property_index(&format!("http://ex.org/{local}"))
        .unwrap_or_else(|| panic!("no property {local}")) as usize
}

#[test]
fn extracts_classes_hierarchy_and_counts() {
    let s = schema_of(ONTO);
    let names: Vec<String> = s.classes.iter().map(|c| s.compact(&c.iri)).collect();
    assert_eq!(
        names,
        [
            ":Alive",
            ":Born",
            ":Dead",
            ":Disease",
            ":Doctor",
            ":Healthy",
            ":Hospital",
            ":Patient",
            ":Person",
            ":Physician",
            ":Sick",
            ":Unborn"
        ]
    );
    let c = |n: &str| &s.classes[ix(&s, n) as usize];
    assert_eq!(c("Person").depth, 0);
    assert_eq!(c("Patient").depth, 1);
    assert_eq!(c("Healthy").depth, 2);
    assert_eq!(c("Healthy").parents, [ix(&s, "Patient")]);
    assert_eq!(c("Person").label.as_deref(), Some("Person"));
    assert_eq!(c("Healthy").direct_instances, 1);
    assert_eq!(c("Patient").direct_instances, 1);
    assert_eq!(c("Patient").total_instances, 2);
    // bob and dave are doctors; dave also through Physician ≡ Doctor, counted once.
    assert_eq!(c("Doctor").total_instances, 2);
    assert_eq!(c("Physician").total_instances, 2);
    assert_eq!(c("Person").total_instances, 4);
    assert_eq!(s.typed_instances, 5);
    // Level 0: Person (4 through subclasses), Hospital (1), and the unused roots.
    assert_eq!(s.levels[0].total_instances, 5);
    assert_eq!(s.levels[0].direct_instances, 2); // h1 (Hospital), dave (Physician, a root)
    assert_eq!(s.levels[1].direct_instances, 3); // carol (Patient), bob, dave
    assert_eq!(s.levels[2].total_instances, 2);
    assert_eq!(s.levels.iter().map(|l| l.classes).sum::<u64>(), 12);

    assert_eq!(s.disjoint, [(ix(&s, "Healthy"), ix(&s, "Sick"))]);
    let mut g = vec![ix(&s, "Person"), ix(&s, "Hospital"), ix(&s, "Disease")];
    g.sort_unstable();
    assert_eq!(s.disjoint_groups, [g]);
    assert_eq!(s.equivalent, [(ix(&s, "Doctor"), ix(&s, "Physician"))]);
    assert_eq!(
        s.complement,
        [
            (ix(&s, "Alive"), ix(&s, "Dead")),
            (ix(&s, "Unborn"), ix(&s, "Born"))
        ]
    );
    assert_eq!(s.anonymous_complement, [(ix(&s, "Unborn"), ix(&s, "Born"))]);
    assert_eq!(s.disjoint_pairs().len(), 4);
    assert_eq!(s.prefixes, [(String::new(), "http://ex.org/".to_owned())]);
}

#[test]
fn extracts_properties_relations_and_literals() {
    let s = schema_of(ONTO);
    let p = |n: &str| &s.properties[pix(&s, n)];
    let t = p("treatedBy");
    assert_eq!(t.kind, PropertyKind::Object);
    assert!(t.irreflexive && !t.functional);
    assert_eq!(t.domain, [ix(&s, "Patient")]);
    assert_eq!(t.range, [ix(&s, "Doctor")]);
    assert_eq!(t.inverse_of, [pix(&s, "treats") as u32]);
    assert_eq!(t.triples, 3);
    let pd = p("primaryDoctor");
    assert!(pd.functional);
    assert_eq!(pd.parents, [pix(&s, "treatedBy") as u32]);
    assert_eq!(pd.disjoint_with, [pix(&s, "consultant") as u32]);
    let b = p("birthDate");
    assert_eq!(b.kind, PropertyKind::Datatype);
    assert_eq!(b.label.as_deref(), Some("born"));
    assert_eq!(b.range_datatypes, ["http://www.w3.org/2001/XMLSchema#date"]);
    assert!(p("supervises").asymmetric);
    assert_eq!(s.property_disjoint_groups.len(), 1);

    let rel = |d: &str, pr: &str, r: &str| {
        s.relations
            .iter()
            .find(|x| {
                x.domain == ix(&s, d)
                    && x.range == ix(&s, r)
                    && x.predicate == format!("http://ex.org/{pr}")
            })
            .map_or(0, |x| x.count)
    };
    assert_eq!(rel("Healthy", "treatedBy", "Doctor"), 1);
    assert_eq!(rel("Sick", "treatedBy", "Doctor"), 2);
    assert_eq!(rel("Sick", "treatedBy", "Physician"), 1);
    assert_eq!(rel("Doctor", "supervises", "Physician"), 1);
    let lit = |c: &str, pr: &str, dt: &str| {
        s.literal_properties
            .iter()
            .find(|x| {
                x.class == ix(&s, c)
                    && x.predicate == format!("http://ex.org/{pr}")
                    && x.datatype.ends_with(dt)
            })
            .map_or(0, |x| x.count)
    };
    assert_eq!(lit("Healthy", "birthDate", "#date"), 1);
    assert_eq!(lit("Healthy", "name", "#string"), 1);
    assert_eq!(lit("Sick", "name", "#langString"), 1);
    // The whole schema serializes, and renders as text.
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains("\"literal_properties\""));
    let text = s.to_string();
    assert!(
        text.starts_with("12 classes, 5 typed instances\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "\n  :Person \"Person\" (0 direct, 4 total)\n    :Doctor (2 direct, 2 total)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("  :Healthy owl:disjointWith :Sick\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "  :treatedBy: irreflexive; domain :Patient; range :Doctor; inverseOf :treats\n"
        ),
        "{text}"
    );
    assert!(text.contains("  :Sick :treatedBy :Doctor: 2\n"), "{text}");
}

#[test]
fn block_round_trips_the_extraction() {
    let dir = tempfile::tempdir().unwrap();
    let plain = build_ttl(dir.path(), "plain.rete", ONTO, vec![]);
    let with = build_ttl(
        dir.path(),
        "with.rete",
        ONTO,
        vec![Arc::new(SchemaExtension)],
    );
    let plain = Rete::open_path(plain).unwrap();
    assert!(Schema::open(&plain).unwrap().is_none());
    let extracted = extract(&plain, &ExtractOptions::default()).unwrap();
    let rete = Rete::open_path(&with).unwrap();
    assert_ne!(rete.header().flags & rete_core::format::FLAG_SCHEMA, 0);
    let stored = Schema::open(&rete).unwrap().unwrap();
    assert_eq!(stored, extracted);
    // Partial reads give the same axioms.
    let classes = Schema::open_parts(&rete, Parts::CLASSES).unwrap().unwrap();
    assert_eq!(classes.classes.len(), stored.classes.len());
    assert_eq!(classes.disjoint_groups, stored.disjoint_groups);
    assert!(classes.properties.is_empty());
    let axioms = Schema::open_parts(&rete, Parts::AXIOMS).unwrap().unwrap();
    assert_eq!(axioms.properties.len(), stored.properties.len());
    // T-Box-only extraction reads the same axioms.
    let tbox = extract(&plain, &ExtractOptions { statistics: false }).unwrap();
    assert_eq!(tbox.disjoint, stored.disjoint);
    assert_eq!(tbox.complement, stored.complement);
    // The schema sections come first, right behind the directory.
    let first = rete.sections().iter().map(|e| e.offset).min().unwrap();
    assert_eq!(rete.section(kind::CLASSES, 0).unwrap().offset, first);
}

#[test]
fn header_and_schema_come_in_one_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = build_ttl(dir.path(), "s.rete", ONTO, vec![Arc::new(SchemaExtension)]);
    let counting = Arc::new(CountingReader::new(FileReader::open(&path).unwrap()));
    let rete = Rete::open(counting.clone()).unwrap();
    Schema::open(&rete).unwrap().unwrap();
    assert_eq!(counting.stats().requests, 1);
}

#[test]
fn cycles_share_a_depth() {
    let s = schema_of(
        "@prefix : <http://ex.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
         :A rdfs:subClassOf :B . :B rdfs:subClassOf :C . :C rdfs:subClassOf :A . :C rdfs:subClassOf :R .
         :D rdfs:subClassOf :A .",
    );
    let d: Vec<u32> = ["A", "B", "C", "D", "R"]
        .iter()
        .map(|n| s.classes[ix(&s, n) as usize].depth)
        .collect();
    assert_eq!(d, [1, 1, 1, 2, 0]);
    let parents: Vec<Vec<u32>> = s.classes.iter().map(|c| c.parents.clone()).collect();
    assert_eq!(
        rete_schema::subclass_cycles(&parents),
        [vec![ix(&s, "A"), ix(&s, "B"), ix(&s, "C")]]
    );
}

#[test]
fn corrupt_schema_sections_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = build_ttl(dir.path(), "s.rete", ONTO, vec![Arc::new(SchemaExtension)]);
    // A flipped byte inside the stored section: checksum error.
    let rete = Rete::open_path(&path).unwrap();
    for k in [kind::CLASSES, kind::PROPERTIES, kind::STATISTICS] {
        let e = *rete.section(k, 0).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[(e.offset + e.len / 2) as usize] ^= 0x55;
        let bad = dir.path().join(format!("bad-{k}.rete"));
        std::fs::write(&bad, &bytes).unwrap();
        let r = Rete::open_path(&bad).unwrap();
        let err = Schema::open(&r).unwrap_err();
        assert!(
            matches!(err, SchemaError::Format(rete_core::Error::Corrupt { .. })),
            "{err}"
        );
    }

    // A well-formed section whose content is not a schema: decoding error, no panic.
    #[derive(Debug)]
    struct Garbage(u16, Vec<u8>);
    impl Extension for Garbage {
        fn name(&self) -> &str {
            "garbage"
        }
        fn flags(&self) -> u32 {
            rete_core::format::FLAG_SCHEMA
        }
        fn sections_with_steps(
            &self,
            _: &Rete,
        ) -> Result<rete_core::extension::ExtensionOutput, Box<dyn std::error::Error + Send + Sync>>
        {
            Ok(vec![SectionSpec::raw(self.0, 0, self.1.clone())].into())
        }
    }
    let good = Schema::open(&rete).unwrap().unwrap().to_sections().unwrap();
    let payloads: Vec<Vec<u8>> = good
        .iter()
        .map(|s| match &s.payload {
            rete_core::writer::Payload::Bytes(b) => zstd_decode(b, s.raw_len),
            _ => unreachable!(),
        })
        .collect();
    let cases: Vec<Vec<u8>> = vec![
        vec![],
        vec![7],
        vec![1, 0xff, 0xff, 0xff, 0xff, 0x0f],
        payloads[0][..payloads[0].len() - 3].to_vec(),
        {
            let mut v = payloads[0].clone();
            v.push(0);
            v
        },
    ];
    for (i, bytes) in cases.into_iter().enumerate() {
        let path = build_ttl(
            dir.path(),
            &format!("g{i}.rete"),
            ONTO,
            vec![Arc::new(Garbage(kind::CLASSES, bytes))],
        );
        let err = Schema::open(&Rete::open_path(path).unwrap()).unwrap_err();
        assert!(
            matches!(err, SchemaError::Format(rete_core::Error::Corrupt { .. })),
            "case {i}: {err}"
        );
    }
    // Properties present but truncated.
    #[derive(Debug)]
    struct Pair(Vec<u8>, Vec<u8>);
    impl Extension for Pair {
        fn name(&self) -> &str {
            "pair"
        }
        fn flags(&self) -> u32 {
            0
        }
        fn sections_with_steps(
            &self,
            _: &Rete,
        ) -> Result<rete_core::extension::ExtensionOutput, Box<dyn std::error::Error + Send + Sync>>
        {
            Ok(vec![
                SectionSpec::raw(kind::CLASSES, 0, self.0.clone()),
                SectionSpec::raw(kind::PROPERTIES, 0, self.1.clone()),
            ]
            .into())
        }
    }
    let truncated = payloads[1][..payloads[1].len() / 2].to_vec();
    let path = build_ttl(
        dir.path(),
        "p.rete",
        ONTO,
        vec![Arc::new(Pair(payloads[0].clone(), truncated))],
    );
    let r = Rete::open_path(path).unwrap();
    assert!(Schema::open_parts(&r, Parts::CLASSES).unwrap().is_some());
    assert!(matches!(
        Schema::open_parts(&r, Parts::AXIOMS),
        Err(SchemaError::Format(rete_core::Error::Corrupt { .. }))
    ));
    // Statistics requested but missing.
    assert!(matches!(
        Schema::open(&r),
        Err(SchemaError::Format(rete_core::Error::Corrupt { .. }))
    ));
}

fn zstd_decode(b: &[u8], raw: u64) -> Vec<u8> {
    rete_core::format::zstd_decode(b, raw, "t", &|| "s".into()).unwrap()
}

#[test]
fn a_default_prefix_without_document_prefixes() {
    let s = schema_of(
        "<http://o.example/v#A> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://o.example/v#B> .
         <http://other.example/X> a <http://www.w3.org/2002/07/owl#Class> .",
    );
    assert_eq!(
        s.prefixes,
        [(String::new(), "http://o.example/v#".to_owned())]
    );
    assert_eq!(s.compact("http://o.example/v#A"), ":A");
    assert_eq!(
        s.compact("http://other.example/X"),
        "<http://other.example/X>"
    );
    assert_eq!(
        s.compact("http://www.w3.org/2002/07/owl#Thing"),
        "owl:Thing"
    );
}
