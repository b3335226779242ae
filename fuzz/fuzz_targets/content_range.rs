//! The HTTP `Content-Range` parser.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::content_range(data));
