//! The build cache: `.rete` files built from RDF sources, kept in the app's data folder and keyed
//! by the source's identity (canonical path, size, modification time), so reopening an unchanged
//! source opens its built file at once and a changed one is rebuilt. Least recently used entries
//! go first once the cache is over its size limit (`rete_build::lru`, shared with the CLI's
//! converted upstream files).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Default size limit of the cache (bytes).
pub const DEFAULT_LIMIT: u64 = rete_build::lru::DEFAULT_CACHE_LIMIT;
/// Environment variable overriding the size limit (bytes), e.g. for tests.
pub const LIMIT_ENV: &str = rete_build::lru::CACHE_LIMIT_ENV;
/// Prefix of rete-build's temporary folders (they sit next to the file being built).
const TEMP_PREFIX: &str = ".rete-build-";

/// What identifies a source file: a different value means different content (or a moved file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// Canonical path.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: u64,
}

impl Identity {
    /// The identity of the file at `path` now.
    pub fn of(path: &Path) -> std::io::Result<Self> {
        let canonical = std::fs::canonicalize(path)?;
        let meta = std::fs::metadata(&canonical)?;
        let mtime_ns = meta
            .modified()?
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        Ok(Self {
            path: canonical.display().to_string(),
            size: meta.len(),
            mtime_ns,
        })
    }

    /// The cache key: a hash of the whole identity.
    pub fn key(&self) -> String {
        let text = format!("{}\0{}\0{}", self.path, self.size, self.mtime_ns);
        format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()))
    }
}

/// One built file in the cache.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The built `.rete`.
    pub file: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// The source it was built from, when recorded.
    pub source: Option<String>,
    /// Last use.
    #[serde(skip)]
    pub used: SystemTime,
}

/// Files and bytes in the cache, and its limit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CacheStats {
    /// The cache folder.
    pub dir: String,
    /// Built files.
    pub files: usize,
    /// Their total size.
    pub bytes: u64,
    /// The size limit.
    pub limit: u64,
}

/// The cache folder and its size limit.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    limit: u64,
}

impl Cache {
    /// A cache in `dir` (created when the first file is built) holding at most `limit` bytes.
    pub fn new(dir: impl Into<PathBuf>, limit: u64) -> Self {
        Self {
            dir: dir.into(),
            limit,
        }
    }

    /// The limit from [`LIMIT_ENV`], or [`DEFAULT_LIMIT`].
    pub fn limit_from_env() -> u64 {
        rete_build::lru::cache_limit_from_env()
    }

    /// The cache folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the file built from `id` lives (whether or not it exists yet).
    pub fn file_for(&self, id: &Identity) -> PathBuf {
        self.dir.join(format!("{}.rete", id.key()))
    }

    fn meta_for(file: &Path) -> PathBuf {
        rete_build::lru::sidecar(file)
    }

    /// Creates the folder (before a build writes into it).
    pub fn ensure_dir(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)
    }

    /// The built file of `id` if there is one; a hit counts as a use.
    pub fn lookup(&self, id: &Identity) -> Option<PathBuf> {
        let file = self.file_for(id);
        if !file.is_file() {
            return None;
        }
        rete_build::lru::touch(&file);
        Some(file)
    }

    /// Records what `file` (just built) was built from, and counts it as used.
    pub fn record(&self, id: &Identity, file: &Path) -> std::io::Result<()> {
        let meta = serde_json::to_vec_pretty(id).map_err(std::io::Error::other)?;
        std::fs::write(Self::meta_for(file), meta)?;
        rete_build::lru::touch(file);
        Ok(())
    }

    /// The built files, least recently used first.
    pub fn entries(&self) -> Vec<Entry> {
        rete_build::lru::cached_files(&self.dir)
            .into_iter()
            .map(|f| Entry {
                source: std::fs::read(Self::meta_for(&f.file))
                    .ok()
                    .and_then(|b| serde_json::from_slice::<Identity>(&b).ok())
                    .map(|i| i.path),
                bytes: f.bytes,
                used: f.used,
                file: f.file,
            })
            .collect()
    }

    /// Files, bytes and limit.
    pub fn stats(&self) -> CacheStats {
        let entries = self.entries();
        CacheStats {
            dir: self.dir.display().to_string(),
            files: entries.len(),
            bytes: entries.iter().map(|e| e.bytes).sum(),
            limit: self.limit,
        }
    }

    /// Removes least recently used files until the cache fits its limit, never `keep` (the file
    /// just built or opened, even if it alone is over the limit). Returns the files removed.
    pub fn evict(&self, keep: &Path) -> Vec<PathBuf> {
        rete_build::lru::evict(&self.dir, self.limit, keep)
    }

    /// Removes every built file, and temporary folders left by builds that did not finish
    /// (`builds_running` false: none can be in use). Returns what was freed.
    pub fn clear(&self, builds_running: bool) -> CacheStats {
        let before = self.stats();
        for e in self.entries() {
            let _ = std::fs::remove_file(&e.file);
            let _ = std::fs::remove_file(Self::meta_for(&e.file));
        }
        if !builds_running {
            self.sweep_temp();
        }
        CacheStats {
            limit: self.limit,
            ..before
        }
    }

    /// Removes temporary folders of builds that did not finish (a crash or a kill).
    pub fn sweep_temp(&self) {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for e in dir.filter_map(Result::ok) {
            if e.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }

    /// Everything in the folder (files and folders), for tests and checks.
    pub fn listing(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn put(cache: &Cache, name: &str, bytes: usize, age_s: u64) -> PathBuf {
        cache.ensure_dir().unwrap();
        let f = cache.dir().join(format!("{name}.rete"));
        std::fs::write(&f, vec![0u8; bytes]).unwrap();
        let used = SystemTime::now() - Duration::from_secs(age_s);
        rete_build::lru::set_used(&f, used).unwrap();
        f
    }

    #[test]
    fn identity_changes_with_size_and_mtime() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("a.ttl");
        std::fs::write(&src, "<a> <b> <c> .\n").unwrap();
        let a = Identity::of(&src).unwrap();
        assert_eq!(a, Identity::of(&src).unwrap());
        assert_eq!(a.key(), Identity::of(&src).unwrap().key());
        // Same path reached another way: same identity.
        let again = Identity::of(&dir.path().join(".").join("a.ttl")).unwrap();
        assert_eq!(a.key(), again.key());
        std::fs::write(&src, "<a> <b> <d> , <e> .\n").unwrap();
        let b = Identity::of(&src).unwrap();
        assert_ne!(a.key(), b.key());
        // Same size, new modification time.
        std::fs::File::options()
            .write(true)
            .open(&src)
            .unwrap()
            .set_modified(SystemTime::now() + Duration::from_secs(5))
            .unwrap();
        assert_ne!(b.key(), Identity::of(&src).unwrap().key());
    }

    #[test]
    fn lookup_finds_recorded_files_and_counts_a_use() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("cache"), 1 << 20);
        let src = dir.path().join("a.nt");
        std::fs::write(&src, "<a> <b> <c> .\n").unwrap();
        let id = Identity::of(&src).unwrap();
        assert!(cache.lookup(&id).is_none());
        let f = put(&cache, &id.key(), 10, 3600);
        cache.record(&id, &f).unwrap();
        let hit = cache.lookup(&id).unwrap();
        assert_eq!(hit, f);
        let e = cache.entries();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].source.as_deref(), Some(id.path.as_str()));
        assert!(e[0].used.elapsed().unwrap() < Duration::from_secs(60));
    }

    #[test]
    fn eviction_removes_least_recently_used_first_and_keeps_the_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path(), 250);
        let old = put(&cache, "old", 100, 300);
        let mid = put(&cache, "mid", 100, 200);
        let new = put(&cache, "new", 100, 100);
        std::fs::write(old.with_extension("json"), "{}").unwrap();
        let removed = cache.evict(&new);
        assert_eq!(removed, std::slice::from_ref(&old));
        assert!(!old.exists() && !old.with_extension("json").exists());
        assert!(mid.exists() && new.exists());
        // A file over the limit on its own stays when it is the one kept.
        let big = put(&cache, "big", 1000, 0);
        let removed = cache.evict(&big);
        assert_eq!(removed, [mid, new]);
        assert!(big.exists());
        assert_eq!(cache.stats().files, 1);
    }

    #[test]
    fn clear_removes_files_and_leftover_temp_folders() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path(), 1 << 20);
        put(&cache, "a", 10, 0);
        put(&cache, "b", 20, 0);
        std::fs::create_dir(dir.path().join(".rete-build-x")).unwrap();
        let freed = cache.clear(true);
        assert_eq!((freed.files, freed.bytes), (2, 30));
        // A build may be using the temp folder: it stays.
        assert_eq!(cache.listing(), [".rete-build-x"]);
        cache.clear(false);
        assert!(cache.listing().is_empty());
    }
}
