//! Test support shared by the HTTP reader's test files.

/// `len` deterministic pseudo-random bytes (xorshift from `seed`): a body whose every range differs.
pub fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}
