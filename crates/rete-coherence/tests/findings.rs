//! Each finding kind, planted and found with its explanation; no false positives.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::{kinds, medical, run_ttl, texts};
use rete_coherence::{check, check_with, CheckOptions, CoherenceError, Measure, Tier};
use rete_core::Rete;
use rete_datagen::medical::{planted, MedicalParams};
use std::sync::atomic::AtomicBool;

/// The one finding of `kind` that checking `ttl` at `tier` gives.
fn found(ttl: &str, tier: Tier, kind: &str) -> rete_coherence::Finding {
    let r = run_ttl(ttl, tier);
    let v: Vec<_> = r.findings.iter().filter(|f| f.kind == kind).collect();
    assert_eq!(v.len(), 1, "expected one {kind}:\n{r}");
    v[0].clone()
}

#[test]
fn unsatisfiable_class_through_disjoint_superclasses() {
    let r = run_ttl(
        ":Relapsed rdfs:subClassOf :Sick, :Healthy . :Sick owl:disjointWith :Healthy .
         :Relapse2 rdfs:subClassOf :Relapsed .",
        Tier::Schema,
    );
    assert_eq!(
        kinds(&r),
        ["unsatisfiable-class", "unsatisfiable-class"],
        "{r}"
    );
    let f = &r.findings[0];
    assert_eq!(f.severity, "error");
    assert_eq!(f.classes[0], "http://ex.org/Relapse2");
    let f = &r.findings[1];
    assert_eq!(f.classes[0], "http://ex.org/Relapsed");
    assert_eq!(
        texts(f),
        [
            ":Relapsed rdfs:subClassOf :Healthy",
            ":Relapsed rdfs:subClassOf :Sick",
            ":Sick owl:disjointWith :Healthy"
        ]
    );
    assert_eq!(
        f.explanation[2].triple,
        Some([
            "<http://ex.org/Sick>".to_owned(),
            "<http://www.w3.org/2002/07/owl#disjointWith>".to_owned(),
            "<http://ex.org/Healthy>".to_owned()
        ])
    );
    assert!(f.message.contains("disjoint classes"), "{}", f.message);
    // The subclass's explanation starts from it.
    assert_eq!(
        texts(&r.findings[0])[0],
        ":Relapse2 rdfs:subClassOf :Relapsed"
    );
    assert_eq!(r.requests, 1);
}

#[test]
fn unsatisfiable_through_equivalence_nothing_complement_and_groups() {
    let r = run_ttl(
        ":A owl:equivalentClass :B . :B rdfs:subClassOf :X . :A rdfs:subClassOf :Y . :X owl:disjointWith :Y .
         :N rdfs:subClassOf owl:Nothing .
         :Alive owl:complementOf :Dead . :Zombie rdfs:subClassOf :Alive, :Dead .
         :Unborn owl:equivalentClass [ owl:complementOf :Born ] . :Ghost rdfs:subClassOf :Unborn, :Born .
         [] a owl:AllDisjointClasses ; owl:members ( :P :Q :R ) . :PR rdfs:subClassOf :P, :R .
         :Fine rdfs:subClassOf :X .",
        Tier::Schema,
    );
    let unsat: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.kind == "unsatisfiable-class")
        .map(|f| f.classes[0].strip_prefix("http://ex.org/").unwrap())
        .collect();
    assert_eq!(unsat, ["A", "B", "Ghost", "N", "PR", "Zombie"], "{r}");
    let by = |c: &str| {
        r.findings
            .iter()
            .find(|f| f.classes[0] == format!("http://ex.org/{c}"))
            .unwrap()
    };
    assert_eq!(
        texts(by("B")),
        [
            ":B rdfs:subClassOf :X",
            ":A owl:equivalentClass :B",
            ":A rdfs:subClassOf :Y",
            ":X owl:disjointWith :Y"
        ]
    );
    assert_eq!(texts(by("N")), [":N rdfs:subClassOf owl:Nothing"]);
    assert!(by("N").message.contains("owl:Nothing"));
    assert_eq!(
        texts(by("Zombie")),
        [
            ":Zombie rdfs:subClassOf :Alive",
            ":Zombie rdfs:subClassOf :Dead",
            ":Alive owl:complementOf :Dead"
        ]
    );
    assert!(by("Ghost").explanation.iter().any(|s| s.text
        == ":Unborn owl:equivalentClass [ owl:complementOf :Born ]"
        && s.triple.is_none()));
    assert!(texts(by("PR")).contains(&"[] a owl:AllDisjointClasses ; owl:members ( :P :Q :R )"));
}

#[test]
fn complement_reasoning_goes_beyond_the_hierarchy() {
    // X is disjoint from both A and its complement B: X is empty.
    let f = found(
        ":A owl:complementOf :B . :X owl:disjointWith :A . :X owl:disjointWith :B .",
        Tier::Schema,
        "unsatisfiable-class",
    );
    assert_eq!(f.classes[0], "http://ex.org/X");
    let t = texts(&f);
    assert!(t.contains(&":A owl:complementOf :B"), "{t:?}");
    assert!(t.contains(&":X owl:disjointWith :A") && t.contains(&":X owl:disjointWith :B"));
}

#[test]
fn inconsistent_ontologies() {
    let r = run_ttl(
        ":A owl:complementOf :B . :A rdfs:subClassOf owl:Nothing . :B rdfs:subClassOf owl:Nothing .",
        Tier::Selective,
    );
    assert_eq!(kinds(&r), ["inconsistent-ontology"], "{r}");
    let f = found(
        "owl:Thing rdfs:subClassOf :A, :B . :A owl:disjointWith :B . :x a :C .",
        Tier::Full,
        "inconsistent-ontology",
    );
    assert_eq!(
        texts(&f),
        [
            "owl:Thing rdfs:subClassOf :A",
            "owl:Thing rdfs:subClassOf :B",
            ":A owl:disjointWith :B"
        ]
    );
}

#[test]
fn subclass_cycles_are_reported_as_info() {
    let f = found(
        ":A rdfs:subClassOf :B . :B rdfs:subClassOf :C . :C rdfs:subClassOf :A . :D rdfs:subClassOf :A .",
        Tier::Schema,
        "subclass-cycle",
    );
    assert_eq!(f.severity, "info");
    assert_eq!(f.classes.len(), 3);
    assert_eq!(
        texts(&f),
        [
            ":A rdfs:subClassOf :B",
            ":B rdfs:subClassOf :C",
            ":C rdfs:subClassOf :A"
        ]
    );
}

const TBOX: &str = "
:Person a owl:Class . :Patient rdfs:subClassOf :Person . :Doctor rdfs:subClassOf :Person .
:Healthy rdfs:subClassOf :Patient ; owl:disjointWith :Sick . :Sick rdfs:subClassOf :Patient .
:Recovered rdfs:subClassOf :Healthy . :Chronic rdfs:subClassOf :Sick .
:Relapsed rdfs:subClassOf :Sick, :Healthy .
:Organization a owl:Class ; owl:disjointWith :Person . :Hospital rdfs:subClassOf :Organization .
:birthDate a owl:DatatypeProperty, owl:FunctionalProperty .
:attending a owl:ObjectProperty, owl:FunctionalProperty ; owl:propertyDisjointWith :consulting .
:record a owl:InverseFunctionalProperty .
:supervises a owl:AsymmetricProperty, owl:IrreflexiveProperty .
:likes a owl:AsymmetricProperty .
:knows a owl:IrreflexiveProperty .
:diagnosis rdfs:domain :Patient .
:treatedBy rdfs:range :Doctor .
:treats owl:inverseOf :treatedBy .
:primary rdfs:subPropertyOf :treatedBy .
[] a owl:AllDisjointProperties ; owl:members ( :knows :hates ) .
";

#[test]
fn tier1_clashes() {
    let r = run_ttl(
        &format!(
            "{TBOX}
        :p1 a :Healthy, :Sick .
        :p2 a :Recovered, :Chronic .
        :p3 a :Relapsed .
        :p4 a :Healthy . :p5 a :Chronic . :p4 owl:sameAs :p6 . :p6 owl:sameAs :p5 .
        :p7 owl:sameAs :p8 ; owl:differentFrom :p8 .
        :p9 owl:sameAs :p10 . [] a owl:AllDifferent ; owl:distinctMembers ( :p9 :p11 :p10 ) .
        :ok1 a :Healthy, :Recovered . :ok2 a :Doctor, :Patient . :ok3 owl:differentFrom :ok4 ."
        ),
        Tier::Selective,
    );
    assert_eq!(
        kinds(&r),
        [
            "unsatisfiable-class",
            "disjoint-class-clash",
            "disjoint-class-clash",
            "unsatisfiable-member",
            "disjoint-class-clash",
            "same-different-clash",
            "same-different-clash"
        ],
        "{r}"
    );
    let f = &r.findings[1];
    assert_eq!(f.entities, ["<http://ex.org/p1>"]);
    assert_eq!(
        texts(f),
        [
            ":p1 rdf:type :Healthy",
            ":p1 rdf:type :Sick",
            ":Healthy owl:disjointWith :Sick"
        ]
    );
    assert_eq!(
        texts(&r.findings[2]),
        [
            ":p2 rdf:type :Chronic",
            ":p2 rdf:type :Recovered",
            ":Chronic rdfs:subClassOf :Sick",
            ":Recovered rdfs:subClassOf :Healthy",
            ":Healthy owl:disjointWith :Sick"
        ]
    );
    let f = &r.findings[3];
    assert_eq!(texts(f)[0], ":p3 rdf:type :Relapsed");
    assert!(texts(f).contains(&":Healthy owl:disjointWith :Sick"));
    let f = &r.findings[4];
    let mut e = f.entities.clone();
    e.sort();
    assert_eq!(e, ["<http://ex.org/p4>", "<http://ex.org/p5>"]);
    assert_eq!(
        texts(f),
        [
            ":p4 rdf:type :Healthy",
            ":p5 rdf:type :Chronic",
            ":p4 owl:sameAs :p6",
            ":p6 owl:sameAs :p5",
            ":Chronic rdfs:subClassOf :Sick",
            ":Healthy owl:disjointWith :Sick"
        ]
    );
    assert_eq!(
        texts(&r.findings[5]),
        [":p7 owl:differentFrom :p8", ":p7 owl:sameAs :p8"]
    );
    let f = &r.findings[6];
    assert_eq!(f.entities, ["<http://ex.org/p9>", "<http://ex.org/p10>"]);
    assert_eq!(
        texts(f),
        [
            "[] a owl:AllDifferent ; owl:distinctMembers ( :p9 :p11 :p10 )",
            ":p9 owl:sameAs :p10"
        ]
    );
}

#[test]
fn tier2_property_violations() {
    let r = run_ttl(
        &format!(
            "{TBOX}
        :a :birthDate \"1990-01-01\"^^xsd:date, \"1991-01-01\"^^xsd:date .
        :b :attending :d1, :d2 .
        :c :attending :d1, :d3 . :d1 owl:differentFrom :d3 .
        :r1 a :Thing . :x :record :r1 . :y :record :r1 .
        :d1 :supervises :d1 .
        :d1 :likes :d2 . :d2 :likes :d1 . :d3 :likes :d3 .
        :e :attending :d4 ; :consulting :d4 .
        :f :knows :g ; :hates :g .
        :h a :Hospital ; :diagnosis :flu .
        :i :treatedBy :h2 . :h2 a :Hospital .
        :h3 a :Hospital . :h3 :treats :j .
        :h4 a :Hospital . :k :primary :h4 .
        :ok :birthDate \"1990-01-01\"^^xsd:date . :ok :attending :d1 . :d2 :supervises :d3 .
        :ok2 :diagnosis :flu ; a :Healthy . :ok3 :treatedBy :d2 ; a :Patient ."
        ),
        Tier::Full,
    );
    let k = kinds(&r);
    let count = |kind: &str| k.iter().filter(|&&x| x == kind).count();
    assert_eq!(count("functional-violation"), 3, "{r}");
    assert_eq!(count("inverse-functional-violation"), 1, "{r}");
    assert_eq!(count("irreflexive-violation"), 1, "{r}");
    assert_eq!(count("asymmetric-violation"), 2, "{r}");
    assert_eq!(count("disjoint-property-violation"), 2, "{r}");
    assert_eq!(count("domain-range-clash"), 4, "{r}");
    assert_eq!(r.findings.len(), 1 + 3 + 1 + 1 + 2 + 2 + 4, "{r}");

    let by = |kind: &str, entity: &str| {
        r.findings
            .iter()
            .find(|f| f.kind == kind && f.entities.contains(&format!("<http://ex.org/{entity}>")))
            .unwrap_or_else(|| panic!("no {kind} for {entity}:\n{r}"))
    };
    // The finding of `kind` for `entity`, of `severity`: its explanation.
    let explained = |kind: &str, entity: &str, severity: &str| {
        let f = by(kind, entity);
        assert_eq!(f.severity, severity, "{kind} for {entity}");
        texts(f)
    };
    assert_eq!(
        explained("functional-violation", "a", "error"),
        [
            ":birthDate rdf:type owl:FunctionalProperty",
            ":a :birthDate \"1990-01-01\"^^xsd:date",
            ":a :birthDate \"1991-01-01\"^^xsd:date"
        ]
    );
    assert_eq!(by("functional-violation", "b").severity, "warning");
    assert_eq!(by("functional-violation", "c").severity, "error");
    assert_eq!(
        explained("inverse-functional-violation", "r1", "warning"),
        [
            ":record rdf:type owl:InverseFunctionalProperty",
            ":x :record :r1",
            ":y :record :r1"
        ]
    );
    assert_eq!(
        texts(by("irreflexive-violation", "d1")),
        [
            ":supervises rdf:type owl:IrreflexiveProperty",
            ":d1 :supervises :d1"
        ]
    );
    assert_eq!(
        texts(by("asymmetric-violation", "d2")),
        [
            ":likes rdf:type owl:AsymmetricProperty",
            ":d1 :likes :d2",
            ":d2 :likes :d1"
        ]
    );
    // A self-loop of a property that is asymmetric but not declared irreflexive.
    assert_eq!(by("asymmetric-violation", "d3").entities.len(), 1);
    assert_eq!(
        texts(by("disjoint-property-violation", "e")),
        [
            ":attending owl:propertyDisjointWith :consulting",
            ":e :attending :d4",
            ":e :consulting :d4"
        ]
    );
    assert!(texts(by("disjoint-property-violation", "f"))[0]
        .starts_with("[] a owl:AllDisjointProperties"));
    assert_eq!(
        texts(by("domain-range-clash", "h")),
        [
            ":h rdf:type :Hospital",
            ":h :diagnosis :flu",
            ":diagnosis rdfs:domain :Patient",
            ":Hospital rdfs:subClassOf :Organization",
            ":Patient rdfs:subClassOf :Person",
            ":Organization owl:disjointWith :Person"
        ]
    );
    assert_eq!(
        texts(by("domain-range-clash", "h2"))[..3],
        [
            ":h2 rdf:type :Hospital",
            ":i :treatedBy :h2",
            ":treatedBy rdfs:range :Doctor"
        ]
    );
    // Through owl:inverseOf: `:h3 :treats :j` means `:j :treatedBy :h3`.
    assert_eq!(
        texts(by("domain-range-clash", "h3"))[1..4],
        [
            ":h3 :treats :j",
            ":treats owl:inverseOf :treatedBy",
            ":treatedBy rdfs:range :Doctor"
        ]
    );
    // Through rdfs:subPropertyOf.
    assert_eq!(
        texts(by("domain-range-clash", "h4"))[1..4],
        [
            ":k :primary :h4",
            ":primary rdfs:subPropertyOf :treatedBy",
            ":treatedBy rdfs:range :Doctor"
        ]
    );
    // Tier phases add up.
    assert_eq!(r.phases.len(), 3);
    assert_eq!(
        r.phases.iter().map(|p| p.findings).sum::<usize>(),
        r.findings.len()
    );
    assert_eq!(r.phases[2].findings, 13);
    assert_eq!(r.phases.iter().map(|p| p.requests).sum::<u64>(), r.requests);
}

#[test]
fn no_false_positives_on_a_coherent_ontology() {
    let r = run_ttl(
        &format!(
            "{}
        :p1 a :Healthy, :Recovered ; :birthDate \"1990-01-01\"^^xsd:date ; :attending :d1 ; :consulting :d2 ;
            :diagnosis :flu ; :treatedBy :d1 ; :primary :d1 .
        :d1 a :Doctor ; :supervises :d2 ; :likes :d2 ; :knows :d2 . :d2 a :Doctor ; :treats :p1 .
        :p1 owl:sameAs :p1b . :p1b a :Patient ; owl:differentFrom :d1 .
        :x :record :r1 . :y :record :r2 .
        :h a :Hospital .",
            TBOX.replace(":Relapsed rdfs:subClassOf :Sick, :Healthy .", "")
        ),
        Tier::Full,
    );
    assert!(r.findings.is_empty(), "{r}");

    // The medical graph without its planted defects, at a few thousand individuals.
    let dir = tempfile::tempdir().unwrap();
    let params = MedicalParams {
        instances: 3000,
        plant: false,
        ..MedicalParams::default()
    };
    let rete = Rete::open_path(medical(dir.path(), &params, true)).unwrap();
    let r = check(&rete, Tier::Full, &AtomicBool::new(false)).unwrap();
    assert!(r.findings.is_empty(), "{r}");
}

#[test]
fn medical_graph_planted_defects_are_found_per_tier() {
    let dir = tempfile::tempdir().unwrap();
    let params = MedicalParams {
        instances: 2000,
        ..MedicalParams::default()
    };
    let path = medical(dir.path(), &params, true);
    let rete = Rete::open_path(&path).unwrap();
    let cancel = AtomicBool::new(false);
    let plants = planted(&params);
    let found = |r: &rete_coherence::Report, p: &rete_datagen::medical::Planted| {
        r.findings.iter().any(|f| {
            f.kind == p.kind
                && p.entities
                    .iter()
                    .all(|e| f.entities.contains(&format!("<{e}>")))
                && !f.explanation.is_empty()
        })
    };
    let t0 = check(&rete, Tier::Schema, &cancel).unwrap();
    assert_eq!(kinds(&t0), ["unsatisfiable-class"]);
    assert_eq!(t0.requests, 1);
    let t1 = check(&rete, Tier::Selective, &cancel).unwrap();
    let selective: Vec<_> = plants.iter().filter(|p| p.selective).collect();
    assert_eq!(t1.findings.len(), 1 + selective.len(), "{t1}");
    for p in &selective {
        assert!(found(&t1, p), "tier 1 misses {p:?}:\n{t1}");
    }
    let t2 = check(&rete, Tier::Full, &cancel).unwrap();
    assert_eq!(t2.findings.len(), 1 + plants.len(), "{t2}");
    for p in &plants {
        assert!(found(&t2, p), "tier 2 misses {p:?}:\n{t2}");
    }
    assert!(t0.bytes_read < t1.bytes_read && t1.bytes_read < t2.bytes_read);

    // Without a schema block the same findings come from the axiom triples.
    let plain = medical(&dir.path().join("x").tap_mkdir(), &params, false);
    let rete = Rete::open_path(plain).unwrap();
    let t2b = check(&rete, Tier::Full, &cancel).unwrap();
    assert_eq!(t2b.schema_source, "triples");
    assert_eq!(t2.schema_source, "block");
    assert_eq!(t2b.findings, t2.findings);
}

trait TapMkdir {
    fn tap_mkdir(self) -> Self;
}
impl TapMkdir for std::path::PathBuf {
    fn tap_mkdir(self) -> Self {
        std::fs::create_dir_all(&self).unwrap();
        self
    }
}

#[test]
fn reports_serialize_and_render() {
    let r = run_ttl(
        ":Relapsed rdfs:subClassOf :Sick, :Healthy . :Sick owl:disjointWith :Healthy . :x a :Relapsed .",
        Tier::Selective,
    );
    let json: serde_json::Value = serde_json::to_value(&r).unwrap();
    assert_eq!(json["tier"], 1);
    assert_eq!(json["findings"][0]["kind"], "unsatisfiable-class");
    assert_eq!(json["findings"][1]["kind"], "unsatisfiable-member");
    assert_eq!(
        json["findings"][0]["explanation"][0]["triple"][1],
        "<http://www.w3.org/2000/01/rdf-schema#subClassOf>"
    );
    assert!(json["requests"].as_u64().unwrap() >= 1);
    let text = r.to_string();
    assert!(text.contains("Tier 0: 1 finding"), "{text}");
    assert!(text.contains(
        "error [unsatisfiable-member] :x is an instance of the unsatisfiable class :Relapsed"
    ));
    assert!(text.contains("    :Sick owl:disjointWith :Healthy"));
}

#[test]
fn findings_over_the_cap_are_summed_up() {
    let mut ttl = String::from(":A owl:disjointWith :B .");
    for i in 0..30 {
        ttl += &format!(" :x{i} a :A, :B .");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = common::build_bytes(
        dir.path(),
        "t.ttl",
        format!("{}{ttl}", common::PREFIXES).into_bytes(),
        rete_build::Syntax::Turtle,
        true,
    );
    let rete = Rete::open_path(path).unwrap();
    let opts = CheckOptions {
        max_findings_per_kind: 10,
        measure: Measure::InPlace(None),
        ..CheckOptions::default()
    };
    let r = check_with(&rete, Tier::Selective, &AtomicBool::new(false), &opts).unwrap();
    assert_eq!(r.findings.len(), 11);
    assert!(!r.measured);
    let last = r.findings.last().unwrap();
    assert_eq!(last.kind, "omitted");
    assert_eq!(
        last.message,
        "20 more disjoint-class-clash findings were not listed"
    );
}

#[test]
fn cancellation_and_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let path = medical(dir.path(), &MedicalParams::default(), true);
    let rete = Rete::open_path(&path).unwrap();
    let err = check(&rete, Tier::Full, &AtomicBool::new(true)).unwrap_err();
    assert!(matches!(err, CoherenceError::Cancelled), "{err}");

    // A damaged class section fails the check with an error, at any tier.
    let e = *rete.section(rete_schema::kind::CLASSES, 0).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[(e.offset + e.len / 3) as usize] ^= 0x20;
    let bad = dir.path().join("bad.rete");
    std::fs::write(&bad, bytes).unwrap();
    let rete = Rete::open_path(&bad).unwrap();
    for tier in [Tier::Schema, Tier::Selective, Tier::Full] {
        let err = check(&rete, tier, &AtomicBool::new(false)).unwrap_err();
        assert!(matches!(err, CoherenceError::Schema(_)), "{tier:?}: {err}");
        assert!(err.to_string().contains("corrupt"), "{err}");
    }
}

#[test]
fn instances_of_nothing_are_members_of_an_unsatisfiable_class() {
    let r = run_ttl(
        ":Ghost rdfs:subClassOf owl:Nothing . :z a owl:Nothing . :g a :Ghost .",
        Tier::Selective,
    );
    assert_eq!(
        kinds(&r),
        [
            "unsatisfiable-class",
            "unsatisfiable-member",
            "unsatisfiable-member"
        ],
        "{r}"
    );
    assert_eq!(
        texts(&r.findings[1]),
        [":g rdf:type :Ghost", ":Ghost rdfs:subClassOf owl:Nothing"]
    );
    assert_eq!(
        r.findings[2].message,
        ":z is an instance of the unsatisfiable class owl:Nothing"
    );
}

#[test]
fn few_clashable_types_are_read_class_by_class() {
    // Most individuals have types no disjointness touches; the few that can clash are read from
    // their classes' slices, with the same findings as a full pass would give.
    let mut ttl = String::from(
        ":Healthy owl:disjointWith :Sick . :Recovered rdfs:subClassOf :Healthy .
         :p1 a :Recovered, :Sick, :Tag . :p2 a :Healthy . :p3 a :Sick, :Tag .
         :p4 a :Recovered . :p4 owl:sameAs :p5 . :p5 a :Sick .",
    );
    for i in 0..60 {
        ttl += &format!(" :t{i} a :Tag, :Other .");
    }
    let r = run_ttl(&ttl, Tier::Full);
    assert_eq!(
        kinds(&r),
        ["disjoint-class-clash", "disjoint-class-clash"],
        "{r}"
    );
    assert_eq!(r.findings[0].entities, ["<http://ex.org/p1>"]);
    assert_eq!(
        texts(&r.findings[0]),
        [
            ":p1 rdf:type :Sick",
            ":p1 rdf:type :Recovered",
            ":Recovered rdfs:subClassOf :Healthy",
            ":Healthy owl:disjointWith :Sick"
        ]
    );
    assert_eq!(r.findings[1].entities.len(), 2);
}
