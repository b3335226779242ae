//! Upstream rete files (format 0x05) read whole.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::upstream(data));
