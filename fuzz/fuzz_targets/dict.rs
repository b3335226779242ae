//! The dictionary block directory or a dictionary block (alone or with a zstd dictionary),
//! decoded below its checksum.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::dict(data));
