//! A folder of built `.rete` files kept within a size limit, least recently used first out:
//! the app's build cache and the CLI's converted upstream files. A file's modification time is
//! its last use (touched on every hit), so the folder itself is the index and nothing can get
//! out of step. A file's sidecar (same name, `.json`) goes with it.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Default size limit of such a folder (bytes): 4 GiB.
pub const DEFAULT_CACHE_LIMIT: u64 = 4 << 30;
/// Environment variable overriding the size limit (bytes).
pub const CACHE_LIMIT_ENV: &str = "RETE_CACHE_LIMIT";

/// The limit from [`CACHE_LIMIT_ENV`], or [`DEFAULT_CACHE_LIMIT`].
pub fn cache_limit_from_env() -> u64 {
    std::env::var(CACHE_LIMIT_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_CACHE_LIMIT)
}

/// One `.rete` file of the folder.
#[derive(Debug, Clone)]
pub struct CachedFile {
    /// The file.
    pub file: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// Its last use.
    pub used: SystemTime,
}

/// Marks a file as used now (its modification time is its LRU stamp); a file that cannot be
/// stamped just keeps its place.
pub fn touch(file: &Path) {
    let _ = set_used(file, SystemTime::now());
}

/// Sets a file's last use (its modification time) to `when`.
pub fn set_used(file: &Path, when: SystemTime) -> std::io::Result<()> {
    std::fs::File::options()
        .write(true)
        .open(file)?
        .set_modified(when)
}

/// The sidecar of `file`: what it was built from.
pub fn sidecar(file: &Path) -> PathBuf {
    file.with_extension("json")
}

/// The `.rete` files in `dir`, least recently used first (none if `dir` does not exist).
pub fn cached_files(dir: &Path) -> Vec<CachedFile> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<CachedFile> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rete"))
        .filter_map(|file| {
            let meta = std::fs::metadata(&file).ok()?;
            meta.is_file().then(|| CachedFile {
                bytes: meta.len(),
                used: meta.modified().unwrap_or(UNIX_EPOCH),
                file,
            })
        })
        .collect();
    out.sort_by_key(|e| e.used);
    out
}

/// Removes least recently used files of `dir` (and their sidecars) until the rest fits in
/// `limit` bytes, never `keep` (the file just built or opened, even if it alone is over the
/// limit). Returns the files removed. A reader that has a removed file open keeps reading it
/// (Unix: it is only unlinked).
pub fn evict(dir: &Path, limit: u64, keep: &Path) -> Vec<PathBuf> {
    let files = cached_files(dir);
    let mut total: u64 = files.iter().map(|e| e.bytes).sum();
    let mut removed = Vec::new();
    for e in files {
        if total <= limit {
            break;
        }
        if e.file == keep {
            continue;
        }
        if std::fs::remove_file(&e.file).is_ok() {
            let _ = std::fs::remove_file(sidecar(&e.file));
            total = total.saturating_sub(e.bytes);
            removed.push(e.file);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn put(dir: &Path, name: &str, bytes: usize, age_s: u64) -> PathBuf {
        let f = dir.join(format!("{name}.rete"));
        std::fs::write(&f, vec![0u8; bytes]).unwrap();
        set_used(&f, SystemTime::now() - Duration::from_secs(age_s)).unwrap();
        f
    }

    #[test]
    fn least_recently_used_go_first_and_the_kept_file_stays() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let old = put(d, "old", 100, 300);
        let mid = put(d, "mid", 100, 200);
        let new = put(d, "new", 100, 100);
        std::fs::write(sidecar(&old), "{}").unwrap();
        std::fs::write(d.join("notes.txt"), vec![0u8; 1000]).unwrap();
        assert_eq!(evict(d, 250, &new), std::slice::from_ref(&old));
        assert!(!old.exists() && !sidecar(&old).exists());
        assert!(mid.exists() && new.exists() && d.join("notes.txt").exists());
        // A use moves a file to the back of the line.
        touch(&mid);
        let big = put(d, "big", 1000, 0);
        let _ = put(d, "x", 10, 400);
        assert_eq!(evict(d, 1100, &big), [d.join("x.rete"), new]);
        assert_eq!(evict(d, 0, &big), [mid]);
        assert!(big.exists());
        assert_eq!(cached_files(d).len(), 1);
        assert!(evict(&d.join("missing"), 0, &big).is_empty());
    }
}
