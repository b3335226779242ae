//! The schema block: the fixed file with its three schema sections replaced by the input's parts
//! (stored raw, checksums valid), read through the public API.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rete_schema::{kind, Schema};

fuzz_target!(|data: &[u8]| {
    let [c, p, s] = rete_fuzz::split::<3>(data);
    let img = rete_fuzz::with_sections(&[
        (kind::CLASSES, c),
        (kind::PROPERTIES, p),
        (kind::STATISTICS, s),
    ]);
    if let Ok(rete) = rete_fuzz::open(&img) {
        if let Ok(Some(schema)) = Schema::open(&rete) {
            let _ = schema.to_string();
        }
    }
});
