//! The HTTP reader against a loopback server giving the input's raw responses.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::http(data));
