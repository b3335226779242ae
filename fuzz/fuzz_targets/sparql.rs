//! SPARQL parse, plan and evaluate on the fixed file, each query under a short deadline.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::time::Duration;

fuzz_target!(|data: &[u8]| rete_fuzz::sparql(data, Duration::from_millis(200)));
