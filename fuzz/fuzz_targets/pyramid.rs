//! The pyramid sections (top, directory, level, member and membership blocks), decoded below
//! their checksums on the fixed file's pyramid.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::pyramid(data));
