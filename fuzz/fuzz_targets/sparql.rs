//! SPARQL parse, plan and evaluate on the fixed file, each query under a short deadline.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rete_sparql::{evaluate, parse, QueryOptions, QueryResults};
use std::time::{Duration, Instant};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(q) = parse(text, None) else {
        return;
    };
    let rete = &rete_fuzz::fixture().1;
    let opts = QueryOptions {
        deadline: Some(Instant::now() + Duration::from_millis(200)),
        ..QueryOptions::default()
    };
    match evaluate(rete, &q, &opts) {
        Ok(QueryResults::Solutions(s)) => {
            for r in s.take(256) {
                if r.is_err() {
                    break;
                }
            }
        }
        Ok(QueryResults::Graph(t)) => {
            for r in t.take(256) {
                if r.is_err() {
                    break;
                }
            }
        }
        _ => {}
    }
});
