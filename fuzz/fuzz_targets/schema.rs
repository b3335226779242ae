//! The schema block: the fixed file with its three schema sections replaced by the input's parts
//! (stored raw, checksums valid), read through the public API.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::schema(data));
