//! Hand-written tests, one or more per rule, plus graphs, limits and the builder hook.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::{lines, quads, rete_from_trig};
use rete_reason::{materialize, MaterializeOptions, Materializer, Rule};
use std::collections::BTreeSet;
use std::sync::Arc;

fn infer(
    trig: &str,
    opts: &MaterializeOptions,
) -> (BTreeSet<String>, rete_reason::MaterializeReport) {
    let dir = tempfile::tempdir().expect("tempdir");
    let rete = rete_from_trig(dir.path(), "t", trig);
    let m = materialize(&rete, opts).expect("materialize");
    let got = lines(&m.quads);
    // The report adds up and never lists input quads as new.
    let per_rule: u64 = m.report.rules.iter().map(|r| r.quads).sum();
    assert_eq!(per_rule, m.report.inferred, "{:?}", m.report);
    assert_eq!(m.report.inferred as usize, got.len());
    let input = quads(trig);
    assert!(
        got.is_disjoint(&input),
        "inferred input quads: {:?}",
        got.intersection(&input).collect::<Vec<_>>()
    );
    (got, m.report)
}

fn all() -> MaterializeOptions {
    MaterializeOptions::owl_rl()
}

fn count(report: &rete_reason::MaterializeReport, rule: Rule) -> u64 {
    report
        .rules
        .iter()
        .find(|r| r.rule == rule)
        .map_or(0, |r| r.quads)
}

#[test]
fn subclass_transitivity_and_type_propagation() {
    let (got, report) = infer(
        ":A rdfs:subClassOf :B . :B rdfs:subClassOf :C . :x a :A .",
        &MaterializeOptions::rdfs(),
    );
    assert_eq!(got, quads(":A rdfs:subClassOf :C . :x a :B . :x a :C ."));
    assert_eq!(count(&report, Rule::SubClassOf), 1);
    assert_eq!(count(&report, Rule::Type), 2);
}

#[test]
fn subclass_cycle_has_no_reflexive_statements() {
    let (got, _) = infer(
        ":A rdfs:subClassOf :B . :B rdfs:subClassOf :A . :x a :A .",
        &MaterializeOptions::rdfs(),
    );
    assert_eq!(got, quads(":x a :B ."));
    // With OWL, mutual subsumption is equivalence.
    let (got, _) = infer(
        ":A rdfs:subClassOf :B . :B rdfs:subClassOf :A . :x a :A .",
        &all(),
    );
    assert_eq!(
        got,
        quads(":x a :B . :A owl:equivalentClass :B . :B owl:equivalentClass :A .")
    );
}

#[test]
fn subproperty_transitivity_and_propagation() {
    let (got, report) = infer(
        ":p rdfs:subPropertyOf :q . :q rdfs:subPropertyOf :r . :x :p :y .",
        &MaterializeOptions::rdfs(),
    );
    assert_eq!(
        got,
        quads(":p rdfs:subPropertyOf :r . :x :q :y . :x :r :y .")
    );
    assert_eq!(count(&report, Rule::SubPropertyOf), 1);
    assert_eq!(count(&report, Rule::SubProperty), 2);
}

#[test]
fn domain_and_range() {
    let (got, report) = infer(
        ":p rdfs:domain :D ; rdfs:range :R . :D rdfs:subClassOf :E .
         :x :p :y . :x :p \"literal\" .",
        &MaterializeOptions::rdfs(),
    );
    // No statement about the literal: it cannot be a subject.
    assert_eq!(got, quads(":x a :D , :E . :y a :R ."));
    assert_eq!(count(&report, Rule::Domain), 2);
    assert_eq!(count(&report, Rule::Range), 1);
}

#[test]
fn domain_through_superproperty() {
    let (got, _) = infer(
        ":p rdfs:subPropertyOf :q . :q rdfs:domain :D . :x :p :y .",
        &MaterializeOptions::rdfs(),
    );
    assert_eq!(got, quads(":x :q :y . :x a :D ."));
}

#[test]
fn domain_and_range_propagation_in_the_schema() {
    let (got, report) = infer(
        ":p rdfs:subPropertyOf :q . :q rdfs:domain :D ; rdfs:range :R .
         :D rdfs:subClassOf :E . :R rdfs:subClassOf :S .",
        &all(),
    );
    assert_eq!(
        got,
        quads(
            ":q rdfs:domain :E ; rdfs:range :S .
             :p rdfs:domain :D , :E ; rdfs:range :R , :S ."
        )
    );
    assert_eq!(count(&report, Rule::DomainPropagation), 3);
    assert_eq!(count(&report, Rule::RangePropagation), 3);
    // Plain RDFS has no schema-level propagation.
    let (got, _) = infer(
        ":p rdfs:subPropertyOf :q . :q rdfs:domain :D . :D rdfs:subClassOf :E .",
        &MaterializeOptions::rdfs(),
    );
    assert!(got.is_empty(), "{got:?}");
}

#[test]
fn inverse_of_both_directions() {
    let (got, report) = infer(
        ":hasChild owl:inverseOf :hasParent . :a :hasChild :b . :c :hasParent :d .",
        &all(),
    );
    assert_eq!(got, quads(":b :hasParent :a . :d :hasChild :c ."));
    assert_eq!(count(&report, Rule::Inverse), 2);
    // Not an RDFS rule.
    let (got, _) = infer(
        ":hasChild owl:inverseOf :hasParent . :a :hasChild :b .",
        &MaterializeOptions::rdfs(),
    );
    assert!(got.is_empty());
}

#[test]
fn symmetric_property() {
    let (got, report) = infer(
        ":knows a owl:SymmetricProperty . :a :knows :b . :b :knows :a . :c :knows :d . :e :knows \"x\" .",
        &all(),
    );
    assert_eq!(got, quads(":d :knows :c ."));
    assert_eq!(count(&report, Rule::Symmetric), 1);
}

#[test]
fn transitive_property_chain_and_cycle() {
    let (got, report) = infer(
        ":anc a owl:TransitiveProperty . :a :anc :b . :b :anc :c . :c :anc :d .",
        &all(),
    );
    assert_eq!(got, quads(":a :anc :c , :d . :b :anc :d ."));
    assert_eq!(count(&report, Rule::Transitive), 3);
    // A cycle makes every member reach itself (OWL 2 RL prp-trp has no exception).
    let (got, _) = infer(
        ":p a owl:TransitiveProperty . :a :p :b . :b :p :a .",
        &all(),
    );
    assert_eq!(got, quads(":a :p :a . :b :p :b ."));
}

#[test]
fn transitive_chain_ending_in_a_literal() {
    // `:b :p "v"` only appears in round 1; the join must run from its side in round 2.
    let (got, _) = infer(
        ":p a owl:TransitiveProperty . :q rdfs:subPropertyOf :p . :a :p :b . :b :q \"v\" .",
        &all(),
    );
    assert_eq!(got, quads(":b :p \"v\" . :a :p \"v\" ."));
}

#[test]
fn rules_chain_across_groups() {
    // inverse → subproperty → transitive → range, in one fixpoint.
    let (got, _) = infer(
        ":partOf owl:inverseOf :hasPart . :hasPart rdfs:subPropertyOf :contains .
         :contains a owl:TransitiveProperty ; rdfs:range :Thing .
         :b :partOf :a . :c :partOf :b .",
        &all(),
    );
    assert_eq!(
        got,
        quads(
            ":a :hasPart :b . :b :hasPart :c . :a :contains :b . :b :contains :c .
             :a :contains :c . :b a :Thing . :c a :Thing .
             :hasPart rdfs:range :Thing ."
        )
    );
}

#[test]
fn equivalent_class() {
    let (got, report) = infer(
        ":A owl:equivalentClass :B . :B owl:equivalentClass :C . :x a :A . :y a :C .",
        &all(),
    );
    let expected = quads(
        ":A rdfs:subClassOf :B , :C . :B rdfs:subClassOf :A , :C . :C rdfs:subClassOf :A , :B .
         :A owl:equivalentClass :C . :B owl:equivalentClass :A .
         :C owl:equivalentClass :A , :B .
         :x a :B , :C . :y a :A , :B .",
    );
    assert_eq!(got, expected);
    assert_eq!(count(&report, Rule::EquivalentClass), 4);
}

#[test]
fn equivalent_property() {
    let (got, _) = infer(
        ":p owl:equivalentProperty :q . :x :p :y . :u :q :v .",
        &all(),
    );
    assert_eq!(
        got,
        quads(
            ":p rdfs:subPropertyOf :q . :q rdfs:subPropertyOf :p . :q owl:equivalentProperty :p .
             :x :q :y . :u :p :v ."
        )
    );
}

#[test]
fn same_as_closure_and_copying() {
    let (got, report) = infer(
        ":a owl:sameAs :b . :c owl:sameAs :b . :a :name \"A\" . :x :knows :c . :knows rdfs:domain :P .",
        &all(),
    );
    let expected = quads(
        ":b owl:sameAs :a , :c . :a owl:sameAs :c . :c owl:sameAs :a .
         :b :name \"A\" . :c :name \"A\" .
         :x :knows :a , :b . :x a :P .",
    );
    assert_eq!(got, expected);
    assert_eq!(count(&report, Rule::SameAsClosure), 4);
    assert_eq!(report.same_as_cliques, 1);
    assert_eq!(report.same_as_largest_clique, 3);
}

#[test]
fn same_as_on_predicates() {
    let (got, _) = infer(":p owl:sameAs :q . :x :p :y .", &all());
    assert_eq!(got, quads(":q owl:sameAs :p . :x :q :y ."));
}

#[test]
fn same_as_limits() {
    let trig = ":a owl:sameAs :b , :c , :d . :a :name \"A\" .";
    let mut opts = all();
    opts.same_as_copy_limit = 3;
    let (got, report) = infer(trig, &opts);
    assert_eq!(report.same_as_cliques_not_copied, 1);
    assert_eq!(report.same_as_cliques_not_closed, 0);
    // Closed (4·3 − 3 asserted) but not copied.
    assert_eq!(got.len(), 9, "{got:?}");
    assert!(!got.iter().any(|q| q.contains("name")));
    opts.same_as_closure_limit = 3;
    let (got, report) = infer(trig, &opts);
    assert_eq!(report.same_as_cliques_not_closed, 1);
    assert!(got.is_empty(), "{got:?}");
}

#[test]
fn same_as_between_classes_reaches_the_schema() {
    // eq-rep copies a schema statement; the second pass applies the changed schema.
    let (got, report) = infer(
        ":A owl:sameAs :B . :B rdfs:subClassOf :C . :x a :A .",
        &all(),
    );
    let expected = quads(":B owl:sameAs :A . :A rdfs:subClassOf :C . :x a :B , :C .");
    assert_eq!(got, expected);
    assert!(report.passes >= 2, "{report:?}");
}

#[test]
fn schema_derived_by_instance_rules_triggers_another_pass() {
    let (got, report) = infer(
        ":broader rdfs:subPropertyOf rdfs:subClassOf . :Cat :broader :Animal . :tom a :Cat .",
        &MaterializeOptions::rdfs(),
    );
    assert_eq!(
        got,
        quads(":Cat rdfs:subClassOf :Animal . :tom a :Animal .")
    );
    assert_eq!(report.passes, 2);
}

#[test]
fn vocabulary_missing_from_the_file_is_added() {
    // No rdf:type anywhere in the input: the conclusion still needs it.
    let (got, _) = infer(
        ":p rdfs:domain :D . :x :p :y .",
        &MaterializeOptions::rdfs(),
    );
    assert_eq!(got, quads(":x a :D ."));
}

#[test]
fn blank_nodes() {
    let (got, _) = infer(":p rdfs:range :R ; owl:inverseOf :q . _:b :p _:c .", &all());
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got
        .iter()
        .any(|q| q.starts_with("_:") && q.contains("<http://example.org/R>")));
    assert!(got.iter().any(|q| q.contains("<http://example.org/q>")));
}

#[test]
fn named_graphs() {
    let (got, _) = infer(
        ":A rdfs:subClassOf :B . :anc a owl:TransitiveProperty .
         :x a :A . :a :anc :b .
         :g1 { :y a :A . :b :anc :c . :c :anc :d . }
         :g2 { :d :anc :e . }",
        &all(),
    );
    let expected = quads(
        ":x a :B .
         :g1 { :y a :B . :a :anc :c , :d . :b :anc :d . }",
    );
    // The default graph is visible from :g1 (a→b→c), :g1 and :g2 never combine (no c→e).
    assert_eq!(got, expected);
}

#[test]
fn schema_in_one_named_graph() {
    let (got, _) = infer(
        ":onto { :A rdfs:subClassOf :B . :B rdfs:subClassOf :C . }
         :data { :x a :A . }",
        &MaterializeOptions::rdfs(),
    );
    assert_eq!(
        got,
        quads(":onto { :A rdfs:subClassOf :C . } :data { :x a :B , :C . }")
    );
}

#[test]
fn rule_sets_by_name() {
    let o = MaterializeOptions::with_rule_sets(&["owl-properties"]).expect("valid");
    // OWL sets imply RDFS.
    assert!(o.rdfs && o.owl_properties && !o.same_as && !o.owl_equivalence);
    let o = MaterializeOptions::with_rule_sets(&["rdfs"]).expect("valid");
    assert_eq!(o, MaterializeOptions::rdfs());
    assert_eq!(
        MaterializeOptions::with_rule_sets(&["all"]).expect("valid"),
        MaterializeOptions::owl_rl()
    );
    assert!(MaterializeOptions::with_rule_sets(&["owl-full"]).is_err());
}

#[test]
fn serial_equals_parallel() {
    // Big enough for parallel rounds: a 40k-statement delta.
    let mut trig = String::from(":p rdfs:domain :D ; owl:inverseOf :q . :D rdfs:subClassOf :E .\n");
    for i in 0..40_000 {
        trig.push_str(&format!(":n{i} :p :n{} .\n", i + 1));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let rete = rete_from_trig(dir.path(), "big", &trig);
    let mut opts = all();
    let par = materialize(&rete, &opts).expect("parallel");
    opts.parallel = false;
    let ser = materialize(&rete, &opts).expect("serial");
    assert_eq!(par.quads, ser.quads);
    assert_eq!(par.report.rules, ser.report.rules);
    // 40k inverse + 40k D + 40k E + `:p rdfs:domain :E`.
    assert_eq!(par.quads.len(), 120_001);
}

#[test]
fn builder_hook_materializes_into_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = format!("{}:A rdfs:subClassOf :B . :x a :A .", common::PREFIXES);
    let m = Arc::new(Materializer::new(MaterializeOptions::owl_rl()));
    let out = dir.path().join("m.rete");
    let opts = rete_build::BuildOptions {
        inputs: vec![rete_build::Input::bytes(
            "m.ttl",
            data.into_bytes(),
            rete_build::Syntax::Turtle,
        )],
        inference: Some(m.clone()),
        zstd_level: 1,
        ..Default::default()
    };
    let report = rete_build::build(&opts, &out).expect("build");
    assert_eq!(report.inferred_quads, 1);
    let r = m.last_report().expect("report");
    assert_eq!(r.inferred, 1);
    let rete = rete_core::Rete::open_path(&out).expect("open");
    assert_eq!(rete.quad_count(), 3);
    assert!(rete.card().expect("card").build.materialized);
}
