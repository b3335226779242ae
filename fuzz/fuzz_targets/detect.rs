//! Telling a file's kind by its name and content (gzip and zstd looked through).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::detect(data));
