//! The fixed header and the section directory, then everything `Rete::open` and `verify` decode,
//! on an image whose checksums are recomputed after each mutation.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::header(data));
