//! A permutation block directory or block, decoded below its checksum.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rete_core::perm::{decode_block, PermIndex};

fuzz_target!(|data: &[u8]| {
    let [sel, a, b, c, d, rest @ ..] = data else {
        return;
    };
    let n = u32::from_le_bytes([*a, *b, *c, *d]);
    if sel & 1 == 0 {
        let _ = decode_block(rest, n, "s", "f");
    } else {
        let _ = PermIndex::decode(rest, u64::from(n), "s", "f");
    }
});
