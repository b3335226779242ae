//! How much decoded data `rete serve` keeps per served file when the user does not say. A
//! server answers many queries over the same file, and a query that touches many places of it
//! (BSBM's Q5 probes 22,000 products spread over the whole subject permutation of a 1.7 GB file)
//! decodes every block anew once the cache holds less than what the queries touch: at 100 M
//! triples 256 MiB left Q5 at 1.36 s, 4 GiB at 0.12 s. So the default grows with the file: twice
//! its size (blocks are zstd-compressed about 2:1 and more), at least 256 MiB, and the files
//! served together take at most a quarter of the machine's memory.

/// The smallest default cache, and the one for a remote file (read lazily over HTTP: what it
/// touches is fetched, not the whole file).
pub const MIN_CACHE: u64 = 256 << 20;

/// The default cache of one of `files` served files of `file_bytes` bytes (`None`: a URL), on a
/// machine with `memory` bytes (`None`: not known).
pub fn default_cache(file_bytes: Option<u64>, files: usize, memory: Option<u64>) -> u64 {
    let Some(len) = file_bytes else {
        return MIN_CACHE;
    };
    let want = len.saturating_mul(2).max(MIN_CACHE);
    match memory {
        Some(m) => want.min((m / 4 / files.max(1) as u64).max(MIN_CACHE)),
        None => MIN_CACHE,
    }
}

/// The default cache of `source` (a path or a URL) served among `files` files, on this machine.
pub fn default_cache_for(source: &str, files: usize) -> u64 {
    // A URL's length is not known before it is opened: it keeps the floor.
    let local = std::fs::metadata(source)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    default_cache(local, files, machine_memory())
}

/// The machine's memory, from `/proc/meminfo` (`None` where there is none).
pub fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_grows_with_the_file_within_a_quarter_of_memory() {
        let gib = 1u64 << 30;
        // A small file keeps the floor; a remote one and an unknown machine too.
        assert_eq!(default_cache(Some(10 << 20), 1, Some(24 * gib)), MIN_CACHE);
        assert_eq!(default_cache(None, 1, Some(24 * gib)), MIN_CACHE);
        assert_eq!(default_cache(Some(2 * gib), 1, None), MIN_CACHE);
        // BSBM's 100 M-triple file (1.7 GB) on 24 GiB: twice the file.
        assert_eq!(
            default_cache(Some(1_744_940_084), 1, Some(24 * gib)),
            3_489_880_168
        );
        // Within a quarter of memory, shared by the files served together.
        assert_eq!(default_cache(Some(10 * gib), 1, Some(24 * gib)), 6 * gib);
        assert_eq!(default_cache(Some(10 * gib), 3, Some(24 * gib)), 2 * gib);
        // Never under the floor, even on a small machine.
        assert_eq!(default_cache(Some(10 * gib), 4, Some(gib / 2)), MIN_CACHE);
        assert!(machine_memory().is_none_or(|m| m > 0));
    }

    #[test]
    fn a_local_file_is_measured_and_a_url_keeps_the_floor() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.rete");
        // Sparse: a 1 GiB length without the disk space.
        std::fs::File::create(&path)
            .unwrap()
            .set_len(1 << 30)
            .unwrap();
        let path = path.to_str().unwrap();
        let want = default_cache(Some(1 << 30), 1, machine_memory());
        assert_eq!(default_cache_for(path, 1,), want);
        if machine_memory().is_some_and(|m| m >= 8 << 30) {
            assert_eq!(want, 2 << 30);
        }
        assert_eq!(
            default_cache_for("http://127.0.0.1:9/big.rete", 1),
            MIN_CACHE
        );
        assert_eq!(
            default_cache_for(dir.path().to_str().unwrap(), 1),
            MIN_CACHE
        );
    }
}
