//! The search index: the fixed file with its five search sections replaced by the input's parts
//! (stored raw, checksums valid), searched through the public API.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::search(data));
