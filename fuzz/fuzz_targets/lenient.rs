//! The build's fast lenient N-Triples/N-Quads parse against the strict parse.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::lenient(data));
