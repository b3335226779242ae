#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
mod common;

use common::medical;
use rete_coherence::{check, check_with, CheckOptions, Measure, Tier};
use rete_core::{CountingReader, FileReader, Rete};
use rete_datagen::medical::MedicalParams;
use rete_http::CountedReader;
use rete_schema::{kind, Parts, Schema};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// An ontology of about 1,000 classes: the header, the directory and the class section come in
/// the one read that opens the file, so Tier 0 costs exactly one request.
#[test]
fn tier0_is_one_request_on_a_thousand_classes() {
    let dir = tempfile::tempdir().unwrap();
    let params = MedicalParams {
        instances: 1000,
        taxonomy: 960,
        ..MedicalParams::default()
    };
    let path = medical(dir.path(), &params, true);
    let rete = Rete::open_path(&path).unwrap();
    for k in [kind::CLASSES, kind::PROPERTIES, kind::STATISTICS] {
        let e = rete.section(k, 0).unwrap();
        eprintln!(
            "section {k}: {} stored bytes, ends at {}",
            e.len,
            e.offset + e.len
        );
    }
    let schema = Schema::open_parts(&rete, Parts::CLASSES).unwrap().unwrap();
    assert!(schema.classes.len() >= 1000, "{}", schema.classes.len());

    // Measured by the checker on a cold view of the file.
    let report = check(&rete, Tier::Schema, &AtomicBool::new(false)).unwrap();
    assert_eq!(report.requests, 1, "{report:?}");
    assert_eq!(report.phases[0].requests, 1);
    assert_eq!(common::kinds(&report), ["unsatisfiable-class"], "{report}");

    // Measured by the caller: open + Tier 0 = one request in all.
    let counting = Arc::new(CountingReader::new(FileReader::open(&path).unwrap()));
    let rete = Rete::open(counting.clone()).unwrap();
    // Without the look-ups that annotate findings (named graphs, declared prefixes), which come
    // after the check and are counted apart in `report.lookup`.
    let opts = CheckOptions {
        measure: Measure::InPlace(Some(CountedReader::Local(counting.clone()))),
        annotate: false,
        ..CheckOptions::default()
    };
    let report = check_with(&rete, Tier::Schema, &AtomicBool::new(false), &opts).unwrap();
    assert_eq!(report.requests, 0);
    assert!(report.measured);
    assert_eq!(counting.stats().requests, 1);
    assert!(!report.lookup.done);
}
