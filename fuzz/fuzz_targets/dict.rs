//! The dictionary block directory or a dictionary block, decoded below its checksum.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rete_core::dict::{DictBlock, DictIndex};

fuzz_target!(|data: &[u8]| {
    let [sel, a, b, c, d, rest @ ..] = data else {
        return;
    };
    let n = u32::from_le_bytes([*a, *b, *c, *d]);
    if sel & 1 == 0 {
        if let Ok(block) = DictBlock::decode(rest, n, "f") {
            for i in 0..block.len() {
                if let Some(t) = block.get(i) {
                    let _ = block.find(t);
                }
            }
        }
    } else if let Ok(index) =
        DictIndex::decode(rest, u64::from(n & 0xffff), u64::from(n >> 16), "f")
    {
        let _ = index.block_of_id(u64::from(n & 0xff));
        let _ = index.block_for_term(rest);
    }
});
