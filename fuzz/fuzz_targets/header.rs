//! The fixed header and the section directory, then everything `Rete::open` and `verify` decode,
//! on an image whose checksums are recomputed after each mutation.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rete_core::Pattern;

fuzz_target!(|data: &[u8]| {
    let mut img = data.to_vec();
    rete_fuzz::reseal_all(&mut img);
    if let Ok(rete) = rete_fuzz::open(&img) {
        let _ = rete.card();
        let _ = rete.verify();
        let _ = rete.term(1);
        if let Ok(it) = rete.quads(&Pattern::default()) {
            for q in it.take(64) {
                if q.is_err() {
                    break;
                }
            }
        }
    }
});
