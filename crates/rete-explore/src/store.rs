//! Open documents, files waiting to be opened, and the recent-files list.

use crate::engine::{AppError, AppResult, Doc, QueryRun};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Most recent files kept.
pub const RECENT_MAX: usize = 10;
/// Query results kept in memory (the latest ones) for paging and export.
pub const KEPT_RESULTS: usize = 3;
/// Bytes of the query results kept together: older ones are dropped past it, the newest never
/// (one result holds at most [`crate::engine::MAX_RESULT_BYTES`]).
pub const KEPT_RESULT_BYTES: usize = crate::engine::MAX_RESULT_BYTES;

/// A kept query result with the document it came from.
#[derive(Debug, Clone)]
pub struct KeptRun {
    /// The document.
    pub doc: Arc<Doc>,
    /// The result.
    pub run: Arc<QueryRun>,
}

/// The documents open in the app, by handle.
#[derive(Debug, Default)]
pub struct Store {
    docs: Mutex<HashMap<u32, Arc<Doc>>>,
    next: AtomicU32,
    pending: Mutex<Vec<String>>,
    /// Cancel flags of running queries and checks, by `q<run>` / `c<run>`.
    flags: Mutex<HashMap<String, Arc<AtomicBool>>>,
    results: Mutex<VecDeque<(u32, KeptRun)>>,
    /// The last coherence report of each document.
    reports: Mutex<HashMap<u32, rete_coherence::Report>>,
    /// Languages of community labels (the webview's `navigator.languages`); `None` until the UI
    /// says: the OS locale's.
    languages: Mutex<Option<Vec<String>>>,
    /// When the webview's process last ended ([`Store::reopen_after_crash`]).
    last_crash: Mutex<Option<Instant>>,
    /// What the new page tells the user after a crash ([`Store::take_notice`]).
    notice: Mutex<Option<String>>,
}

/// Two ends of the webview's process closer than this are a loop: the document is not reopened.
pub const CRASH_LOOP: Duration = Duration::from_secs(30);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Store {
    /// Registers an opened document and returns its handle.
    pub fn insert(&self, mut doc: Doc) -> (u32, Arc<Doc>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        doc.set_languages(&self.languages());
        let doc = Arc::new(doc);
        self.lock().insert(id, doc.clone());
        (id, doc)
    }

    /// The document with handle `id`.
    pub fn get(&self, id: u32) -> AppResult<Arc<Doc>> {
        self.lock().get(&id).cloned().ok_or(AppError::NoDoc(id))
    }

    /// The open documents, by handle.
    pub fn docs(&self) -> Vec<(u32, Arc<Doc>)> {
        let mut docs: Vec<(u32, Arc<Doc>)> =
            self.lock().iter().map(|(k, d)| (*k, d.clone())).collect();
        docs.sort_by_key(|d| d.0);
        docs
    }

    /// Forgets a document (its file is closed once running commands finish with it).
    pub fn close(&self, id: u32) {
        self.lock().remove(&id);
        lock(&self.reports).remove(&id);
    }

    /// The cancel flag of run `key`, created lowered (or already raised by an early cancel).
    pub fn flag(&self, key: &str) -> Arc<AtomicBool> {
        lock(&self.flags)
            .entry(key.to_owned())
            .or_insert_with(|| Arc::new(AtomicBool::new(false)))
            .clone()
    }

    /// Raises the cancel flag of run `key` (also before the run registered it).
    pub fn cancel(&self, key: &str) {
        self.flag(key).store(true, Ordering::Relaxed);
    }

    /// Forgets the flag of a finished run.
    pub fn finish(&self, key: &str) {
        lock(&self.flags).remove(key);
    }

    /// Runs `f` as run `key`: with its cancel flag, which is forgotten once `f` returns.
    pub fn while_running<T>(&self, key: &str, f: impl FnOnce(Arc<AtomicBool>) -> T) -> T {
        let out = f(self.flag(key));
        self.finish(key);
        out
    }

    /// Keeps a query result; the oldest are dropped beyond [`KEPT_RESULTS`] results or
    /// [`KEPT_RESULT_BYTES`] together.
    pub fn keep_result(&self, run: u32, kept: KeptRun) {
        let mut r = lock(&self.results);
        r.retain(|(k, _)| *k != run);
        r.push_back((run, kept));
        trim_oldest(
            &mut r,
            |(_, k)| k.run.bytes,
            KEPT_RESULTS,
            KEPT_RESULT_BYTES,
        );
    }

    /// Query results kept now, and their bytes together.
    pub fn kept_results(&self) -> (usize, usize) {
        let r = lock(&self.results);
        (r.len(), r.iter().map(|(_, k)| k.run.bytes).sum())
    }

    /// A kept query result.
    pub fn result(&self, run: u32) -> AppResult<KeptRun> {
        lock(&self.results)
            .iter()
            .find(|(k, _)| *k == run)
            .map(|(_, r)| r.clone())
            .ok_or_else(|| {
                AppError::Invalid(format!(
                    "query result {run} is no longer kept; run the query again"
                ))
            })
    }

    /// Records the last coherence report of a document.
    pub fn keep_report(&self, doc: u32, report: rete_coherence::Report) {
        lock(&self.reports).insert(doc, report);
    }

    /// The last coherence report of a document.
    pub fn report(&self, doc: u32) -> AppResult<rete_coherence::Report> {
        lock(&self.reports)
            .get(&doc)
            .cloned()
            .ok_or_else(|| AppError::Invalid("run the coherence check first".into()))
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<u32, Arc<Doc>>> {
        self.docs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues files to open (command line, second launch, drag and drop, OS "open with").
    pub fn push_pending(&self, paths: impl IntoIterator<Item = String>) {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(paths);
    }

    /// After the webview's process ended (WebKit's software GL can crash it): the page starts
    /// over and knows no document, so they are all closed, and the last one opened is queued to
    /// open again, which the new page does first. Returns what was queued: nothing when the
    /// previous crash was less than [`CRASH_LOOP`] ago, so a document that crashes the webview
    /// each time it is drawn does not reload it forever (it stays on the recent list).
    pub fn reopen_after_crash(&self) -> Option<String> {
        let docs = std::mem::take(&mut *self.lock());
        lock(&self.reports).clear();
        let now = Instant::now();
        let looping = lock(&self.last_crash)
            .replace(now)
            .is_some_and(|t| now.duration_since(t) < CRASH_LOOP);
        let last = docs
            .into_iter()
            .max_by_key(|(id, _)| *id)
            .map(|(_, d)| d.origin.clone())
            .filter(|_| !looping);
        let notice = match (&last, looping) {
            (Some(source), _) => format!(
                "The window's web view crashed and was restarted; {} was opened again at its top level.",
                crate::source::file_name(source)
            ),
            (None, true) => format!(
                "The window's web view crashed again within {} s; the document it showed was not opened again (it is in the recent files).",
                CRASH_LOOP.as_secs()
            ),
            (None, false) => "The window's web view crashed and was restarted.".to_owned(),
        };
        *lock(&self.notice) = Some(notice);
        self.push_pending(last.clone());
        last
    }

    /// The message for the page after the webview's process ended, once.
    pub fn take_notice(&self) -> Option<String> {
        lock(&self.notice).take()
    }

    /// Takes the queued files.
    pub fn take_pending(&self) -> Vec<String> {
        std::mem::take(&mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Sets the user's languages (BCP 47 tags, most preferred first) for the documents opened
    /// from now on; an empty list goes back to the OS locale's.
    pub fn set_languages(&self, languages: Vec<String>) {
        // The webview's word: bounded, and only what can be a language tag.
        let languages: Vec<String> = languages
            .into_iter()
            .map(|l| l.trim().to_owned())
            .filter(|l| {
                (1..=64).contains(&l.len())
                    && l.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            })
            .take(32)
            .collect();
        *lock(&self.languages) = (!languages.is_empty()).then_some(languages);
    }

    /// The user's languages: as the UI set them, else the OS locale's (`LANGUAGE`, `LC_ALL`,
    /// `LC_MESSAGES`, `LANG`).
    pub fn languages(&self) -> Vec<String> {
        lock(&self.languages)
            .clone()
            .unwrap_or_else(rete_pyramid::lang::env_languages)
    }
}

/// The file arguments of a command line (`argv` without the program), made absolute against
/// `cwd`: options (`-…`) are skipped, URLs and `rete://` view links are kept as they are.
pub fn file_args(argv: &[String], cwd: &Path) -> Vec<String> {
    argv.iter()
        .skip(1)
        .filter(|a| !a.starts_with('-') && !a.is_empty())
        .map(|a| {
            // URLs, and rete:// view links (opened through `open_link`, never granted as files).
            if a.starts_with("http://") || a.starts_with("https://") || crate::view::is_link(a) {
                return a.clone();
            }
            let a = a.strip_prefix("file://").unwrap_or(a);
            let p = PathBuf::from(a);
            if p.is_absolute() { p } else { cwd.join(p) }
                .display()
                .to_string()
        })
        .collect()
}

/// Reads the recent-files list stored at `file` (missing or unreadable: empty).
pub fn recent_load(file: &Path) -> Vec<String> {
    std::fs::read(file)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Puts `source` first in the list stored at `file` and returns the new list.
pub fn recent_push(file: &Path, source: &str) -> std::io::Result<Vec<String>> {
    let mut list = recent_load(file);
    list.retain(|s| s != source);
    list.insert(0, source.to_owned());
    list.truncate(RECENT_MAX);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let bytes = serde_json::to_vec_pretty(&list).map_err(std::io::Error::other)?;
    write_atomic(file, |w| w.write_all(&bytes))?;
    Ok(list)
}

/// Writes `path` all at once or not at all: `write` fills a temporary file in the same folder
/// (so the rename stays on one file system), which is flushed to disk and renamed over `path`.
/// A crash, a full disk or a failing `write` leaves the previous file as it was, never half of
/// a new one, and removes the temporary file.
pub fn write_atomic<E: From<std::io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> Result<(), E>,
) -> Result<(), E> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().map_or_else(
        || std::ffi::OsString::from("file"),
        std::ffi::OsStr::to_os_string,
    );
    // A dot file named after the target: a leftover (power cut) is recognisable.
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(&name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // As `File::create` would (the umask applies), not the temporary file's private 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let tmp = builder.tempfile_in(dir)?;
    let mut w = std::io::BufWriter::new(tmp);
    write(&mut w)?;
    let tmp = w.into_inner().map_err(|e| e.into_error())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Drops the oldest items until at most `count` are left weighing at most `bytes` together; the
/// newest stays, whatever it weighs.
fn trim_oldest<T>(q: &mut VecDeque<T>, weight: impl Fn(&T) -> usize, count: usize, bytes: usize) {
    let mut total: usize = q.iter().map(&weight).sum();
    while q.len() > 1 && (q.len() > count || total > bytes) {
        if let Some(old) = q.pop_front() {
            total -= weight(&old);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_results_are_bounded_in_count_and_bytes_keeping_the_newest() {
        let trimmed = |items: &[usize]| {
            let mut q: VecDeque<usize> = items.iter().copied().collect();
            trim_oldest(&mut q, |w| *w, 3, 100);
            q.into_iter().collect::<Vec<_>>()
        };
        assert_eq!(trimmed(&[10, 20, 30]), [10, 20, 30]);
        assert_eq!(trimmed(&[10, 20, 30, 40]), [20, 30, 40]);
        // Bytes: the oldest go until the rest fit.
        assert_eq!(trimmed(&[60, 30, 20]), [30, 20]);
        assert_eq!(trimmed(&[50, 50, 1]), [50, 1]);
        // The newest stays even alone over the bound.
        assert_eq!(trimmed(&[10, 20, 150]), [150]);
        assert_eq!(trimmed(&[150]), [150]);
        assert_eq!(trimmed(&[]), [] as [usize; 0]);
    }

    #[test]
    fn file_args_resolves_relative_paths_and_skips_options() {
        let argv: Vec<String> = [
            "app",
            "--flag",
            "a.rete",
            "/abs/b.rete",
            "https://h/x.rete",
            "file:///c.rete",
        ]
        .map(String::from)
        .into();
        let got = file_args(&argv, Path::new("/home/u"));
        assert_eq!(
            got,
            [
                "/home/u/a.rete",
                "/abs/b.rete",
                "https://h/x.rete",
                "/c.rete"
            ]
        );
    }

    fn dir_names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn atomic_write_replaces_whole_or_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("out.csv");
        write_atomic(&f, |w| w.write_all(b"old")).unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"old");
        // A writer failing halfway: the old file is intact, no temporary file is left.
        let e = write_atomic(&f, |w| {
            w.write_all(&[b'x'; 100_000])?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "disk full");
        assert_eq!(std::fs::read(&f).unwrap(), b"old");
        assert_eq!(dir_names(dir.path()), ["out.csv"]);
        // While writing, the new bytes sit in a temporary file next to the target.
        write_atomic(&f, |w| {
            w.write_all(b"new")?;
            w.flush()?;
            let names = dir_names(dir.path());
            assert_eq!(names.len(), 2, "{names:?}");
            assert!(names[0].starts_with(".out.csv.") && names[0].ends_with(".tmp"));
            assert_eq!(std::fs::read(&f).unwrap(), b"old");
            Ok::<(), std::io::Error>(())
        })
        .unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new");
        assert_eq!(dir_names(dir.path()), ["out.csv"]);
        // A folder that does not exist: an error, nothing written.
        assert!(write_atomic(&dir.path().join("no/such.csv"), |w| w.write_all(b"x")).is_err());
    }

    #[test]
    fn recent_list_is_written_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("recent.json");
        recent_push(&f, "a").unwrap();
        // A recent.json that is not a list (say, cut short by a crash of an older version) is
        // read as empty and replaced whole.
        std::fs::write(&f, b"[\"a\", \"b").unwrap();
        assert!(recent_load(&f).is_empty());
        assert_eq!(recent_push(&f, "c").unwrap(), ["c"]);
        assert_eq!(recent_load(&f), ["c"]);
        assert_eq!(dir_names(dir.path()), ["recent.json"]);
    }

    #[test]
    fn recent_list_is_most_recent_first_without_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("sub/recent.json");
        assert!(recent_load(&f).is_empty());
        recent_push(&f, "a").unwrap();
        recent_push(&f, "b").unwrap();
        let l = recent_push(&f, "a").unwrap();
        assert_eq!(l, ["a", "b"]);
        for i in 0..20 {
            recent_push(&f, &i.to_string()).unwrap();
        }
        assert_eq!(recent_load(&f).len(), RECENT_MAX);
    }
}
