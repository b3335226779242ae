//! Opening any RDF file: a file that is not one of our `.rete` files (Turtle, N-Triples, N-Quads,
//! TriG, RDF/XML, JSON-LD, compressed or not, or an upstream-rete file) is built into a `.rete`
//! in the build cache ([`crate::cache`]) on the calling worker thread, with the library crates
//! (rete-build plus the pyramid and schema extensions, as `rete build` wires them), reporting
//! progress as [`EVENT_IMPORT`] events and stopping when cancelled. The built file is then opened
//! like any other `.rete`; reopening an unchanged source finds it in the cache.

use crate::cache::{Cache, CacheStats, Identity};
use crate::engine::{AppError, AppResult, Doc};
use crate::model::{DocInfo, ImportStatus};
use crate::source::file_name;
use crate::store::Store;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Event carrying an [`ImportView`]: a build started, progressed or ended.
pub const EVENT_IMPORT: &str = "import-progress";
/// Environment variable overriding the cache folder (tests, benchmarks).
pub const CACHE_DIR_ENV: &str = "RETE_CACHE_DIR";
/// Extensions of the RDF files the app builds (before an optional `.gz` / `.zst`).
pub const RDF_EXTENSIONS: &[&str] = &[
    "ttl", "nt", "nq", "trig", "rdf", "owl", "xml", "jsonld", "json",
];
/// What the Open… dialog lists: `.rete` first, then the RDF syntaxes, plain or compressed.
pub const DIALOG_EXTENSIONS: &[&str] = &[
    "rete", "ttl", "nt", "nq", "trig", "rdf", "owl", "xml", "jsonld", "json", "gz", "zst",
];
/// Compression extensions accepted after an RDF extension.
pub const COMPRESSED_EXTENSIONS: &[&str] = &["gz", "zst"];
/// zstd level of imported files, `rete build`'s default: higher levels make the permutations
/// phase slower for under 1 % of size (Save as .rete… copies the file as is).
pub const ZSTD_LEVEL: i32 = 6;
/// Least time between two progress events of one build.
const EMIT_EVERY: Duration = Duration::from_millis(100);

/// What a local file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One of our `.rete` files: opened in place.
    Rete,
    /// A file written by upstream rete: built into the cache.
    Upstream,
    /// An RDF document: built into the cache.
    Rdf,
}

/// Tells a file's kind by its content (rete-build's sniffing: magic bytes, then the RDF syntax,
/// through gzip/zstd) and its name. A `.rete` name is trusted only for the two `.rete` formats:
/// anything else named `.rete` goes to the reader, which says what is wrong with it.
pub fn kind_of(path: &Path) -> AppResult<Kind> {
    let named_rete = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("rete"));
    match rete_build::detect(path) {
        Ok(rete_build::Detected::Rete) => Ok(Kind::Rete),
        Ok(rete_build::Detected::UpstreamRete { .. }) => Ok(Kind::Upstream),
        Ok(rete_build::Detected::Rdf { .. }) if !named_rete => Ok(Kind::Rdf),
        Ok(_) | Err(rete_build::DetectError::Unknown { .. }) if named_rete => Ok(Kind::Rete),
        Err(e) => Err(AppError::Invalid(e.to_string())),
        Ok(_) => Ok(Kind::Rete),
    }
}

/// A build as the window shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ImportView {
    /// Build number (pass it to `import_cancel`).
    pub job: u32,
    /// The source path (or URL).
    pub source: String,
    /// Its file name.
    pub name: String,
    /// Where the build stands.
    pub status: ImportStatus,
    /// The current phase: `parse`, `dictionary`, `sort`, `permutations`, `pyramid`, `schema`,
    /// `write` (or `open` once built).
    pub phase: String,
    /// Work done in the phase.
    pub done: u64,
    /// Work of the phase, if known (for `parse`: the input's bytes).
    pub total: Option<u64>,
    /// Triples (quads) parsed so far.
    pub triples: u64,
    /// Bytes of the source the parser has read so far (compare with `total` in `parse`).
    pub read_bytes: u64,
    /// Size of the source file.
    pub source_bytes: u64,
    /// Time since the build began.
    pub elapsed_ms: f64,
    /// Finished phases with their time in milliseconds, in order.
    pub phases: Vec<(String, f64)>,
    /// Why it failed (`failed` only).
    pub error: Option<String>,
}

impl ImportView {
    /// Job `job` on `source` (a path or URL of `source_bytes`), starting: nothing done yet.
    pub(crate) fn starting(job: u32, source: &str, source_bytes: u64) -> Self {
        Self {
            job,
            source: source.to_owned(),
            name: file_name(source),
            status: ImportStatus::Running,
            phase: String::new(),
            done: 0,
            total: None,
            triples: 0,
            read_bytes: 0,
            source_bytes,
            elapsed_ms: 0.0,
            phases: Vec::new(),
            error: None,
        }
    }
}

/// Where a build sends its progress.
pub type Emit = Arc<dyn Fn(&ImportView) + Send + Sync>;

struct Live {
    view: ImportView,
    phase_started: Instant,
    last_emit: Option<Instant>,
}

/// rete-build's progress sink: keeps the view current, sends it at most every [`EMIT_EVERY`]
/// (and at every phase change), and answers the build's "cancelled?" question.
pub(crate) struct Reporter {
    started: Instant,
    cancel: Arc<AtomicBool>,
    live: Mutex<Live>,
    emit: Emit,
}

impl Reporter {
    /// A sink starting now from `view`, stopping when `cancel` is raised.
    pub(crate) fn new(view: ImportView, cancel: Arc<AtomicBool>, emit: Emit) -> Arc<Self> {
        Arc::new(Self {
            started: Instant::now(),
            cancel,
            live: Mutex::new(Live {
                view,
                phase_started: Instant::now(),
                last_emit: None,
            }),
            emit,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn send(&self, live: &mut Live, force: bool) {
        let now = Instant::now();
        if !force && live.last_emit.is_some_and(|t| now - t < EMIT_EVERY) {
            return;
        }
        live.last_emit = Some(now);
        live.view.elapsed_ms = self.started.elapsed().as_secs_f64() * 1e3;
        (self.emit)(&live.view);
    }

    fn end_phase(live: &mut Live) {
        if !live.view.phase.is_empty() && live.view.status == ImportStatus::Running {
            let ms = live.phase_started.elapsed().as_secs_f64() * 1e3;
            let phase = live.view.phase.clone();
            live.view.phases.push((phase, ms));
        }
    }

    /// Sends the final view.
    pub(crate) fn end(&self, status: ImportStatus, error: Option<String>) -> ImportView {
        let mut live = self.lock();
        live.view.status = status;
        live.view.error = error;
        self.send(&mut live, true);
        live.view.clone()
    }
}

impl rete_build::Progress for Reporter {
    fn start(&self, phase: &str, total: Option<u64>) {
        let mut live = self.lock();
        Self::end_phase(&mut live);
        live.view.phase = phase.to_owned();
        live.view.total = total;
        live.view.done = 0;
        live.phase_started = Instant::now();
        self.send(&mut live, true);
    }

    fn inc(&self, n: u64) {
        let mut live = self.lock();
        live.view.done += n;
        if live.view.phase == "parse" {
            live.view.triples += n;
        }
        self.send(&mut live, false);
    }

    fn finish(&self) {
        let mut live = self.lock();
        Self::end_phase(&mut live);
        // Counted once: a later start() must not add it again.
        live.view.phase.clear();
    }

    fn parsed_bytes(&self, bytes: u64) {
        let mut live = self.lock();
        live.view.read_bytes = bytes;
        self.send(&mut live, false);
    }

    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// Builds under way (their cancel flags) and the cache.
#[derive(Debug)]
pub struct Importer {
    next: AtomicU32,
    flags: Mutex<HashMap<u32, Arc<AtomicBool>>>,
    cache: Cache,
}

impl Importer {
    /// An importer building into `cache`; temporary folders left by an earlier run are removed.
    pub fn new(cache: Cache) -> Self {
        cache.sweep_temp();
        Self {
            next: AtomicU32::new(0),
            flags: Mutex::new(HashMap::new()),
            cache,
        }
    }

    /// The cache.
    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    fn flags(&self) -> MutexGuard<'_, HashMap<u32, Arc<AtomicBool>>> {
        self.flags.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The number of a new job (builds and index additions share them).
    pub(crate) fn next_job(&self) -> u32 {
        self.next.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The cancel flag of job `job`, raised by [`Importer::cancel`] until [`Importer::end_job`].
    pub(crate) fn watch(&self, job: u32) -> Arc<AtomicBool> {
        let cancel = Arc::new(AtomicBool::new(false));
        self.flags().insert(job, cancel.clone());
        cancel
    }

    /// Job `job` ended: its cancel flag goes.
    pub(crate) fn end_job(&self, job: u32) {
        self.flags().remove(&job);
    }

    /// Stops build `job` (no-op once it ended).
    pub fn cancel(&self, job: u32) {
        if let Some(f) = self.flags().get(&job) {
            f.store(true, Ordering::Relaxed);
        }
    }

    /// Whether any build is under way.
    pub fn busy(&self) -> bool {
        !self.flags().is_empty()
    }

    /// Empties the cache (temporary folders too when no build is under way).
    pub fn clear_cache(&self) -> CacheStats {
        let busy = self.busy();
        if !busy {
            let _ = std::fs::remove_dir_all(self.cache.dir().join(DOWNLOADS));
        }
        self.cache.clear(busy)
    }

    /// Opens a local file of any kind: a `.rete` in place, anything else through the cache
    /// (built first on a miss). `emit` receives the build's progress. The document's info names
    /// the source, so the recent list and the title show what the user opened.
    pub fn open(&self, store: &Store, path: &str, emit: Emit) -> AppResult<DocInfo> {
        self.open_as(store, path, path, emit)
    }

    /// [`Importer::open`] of a local copy of `origin` (a download keeps the URL as the origin).
    fn open_as(&self, store: &Store, path: &str, origin: &str, emit: Emit) -> AppResult<DocInfo> {
        let p = Path::new(path);
        if p.is_dir() {
            return Err(AppError::Invalid(format!(
                "{path}: is a folder, not a .rete or RDF file"
            )));
        }
        match kind_of(p)? {
            Kind::Rete => {
                let doc = Doc::open_path(p)?.with_origin(origin);
                let (id, doc) = store.insert(doc);
                doc.info(id)
            }
            Kind::Rdf | Kind::Upstream => {
                let file = self.built(p, path, emit)?;
                let doc = Doc::open_path(&file)?.with_origin(origin);
                let (id, doc) = store.insert(doc);
                doc.info(id)
            }
        }
    }

    /// The cached build of `p`, building it on a miss.
    fn built(&self, p: &Path, path: &str, emit: Emit) -> AppResult<PathBuf> {
        let id = Identity::of(p).map_err(|e| AppError::Invalid(format!("{path}: {e}")))?;
        let job = self.next_job();
        let view = ImportView::starting(job, path, id.size);
        if let Some(hit) = self.cache.lookup(&id) {
            emit(&ImportView {
                status: ImportStatus::Cached,
                ..view
            });
            return Ok(hit);
        }
        let reporter = Reporter::new(view, self.watch(job), emit);
        crate::trace::mark("import-start");
        let result = self.build(p, &id, reporter.clone());
        self.end_job(job);
        match result {
            Ok(file) => {
                crate::trace::mark("import-built");
                let view = reporter.end(ImportStatus::Built, None);
                trace(&view);
                Ok(file)
            }
            Err(rete_build::BuildError::Cancelled) => {
                reporter.end(ImportStatus::Cancelled, None);
                Err(AppError::Cancelled(format!("{path}: import cancelled")))
            }
            Err(e) => {
                let msg = e.to_string();
                reporter.end(ImportStatus::Failed, Some(msg.clone()));
                Err(AppError::Invalid(msg))
            }
        }
    }

    fn build(
        &self,
        p: &Path,
        id: &Identity,
        reporter: Arc<Reporter>,
    ) -> Result<PathBuf, rete_build::BuildError> {
        let io = |e: std::io::Error| rete_build::BuildError::Io {
            path: self.cache.dir().display().to_string(),
            source: e,
        };
        self.cache.ensure_dir().map_err(io)?;
        let file = self.cache.file_for(id);
        let mut recorded = std::collections::BTreeMap::new();
        recorded.insert("imported_by".to_owned(), "rete-desktop".into());
        let opts = rete_build::BuildOptions {
            inputs: vec![rete_build::Input::path(p)],
            extensions: vec![
                Arc::new(rete_schema::SchemaExtension),
                Arc::new(rete_pyramid::PyramidExtension {
                    options: rete_pyramid::PyramidOptions {
                        zstd_level: ZSTD_LEVEL,
                        ..rete_pyramid::PyramidOptions::default()
                    },
                }),
                // An imported file is found by its labels as you type (rete build's default).
                Arc::new(rete_search::SearchExtension {
                    options: search_options(),
                }),
            ],
            zstd_level: ZSTD_LEVEL,
            progress: reporter,
            recorded_options: recorded,
            ..rete_build::BuildOptions::default()
        };
        // rete-build writes a temporary folder next to `file` and renames at the end: a failed
        // or cancelled build leaves nothing in the cache.
        rete_build::build(&opts, &file)?;
        self.cache.record(id, &file).map_err(io)?;
        self.cache.evict(&file);
        Ok(file)
    }
}

/// How the app builds a search index: `rete build`'s defaults at the app's zstd level.
pub(crate) fn search_options() -> rete_search::SearchOptions {
    rete_search::SearchOptions {
        zstd_level: ZSTD_LEVEL,
        ..rete_search::SearchOptions::default()
    }
}

/// Whether a URL names an RDF document (by the extension of its path).
pub fn url_is_rdf(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let name = file_name(path).to_ascii_lowercase();
    let mut parts = name.rsplit('.');
    let last = parts.next().unwrap_or_default();
    let ext = if COMPRESSED_EXTENSIONS.contains(&last) {
        parts.next().unwrap_or_default()
    } else {
        last
    };
    name.contains('.') && RDF_EXTENSIONS.contains(&ext)
}

impl Importer {
    /// Opens an RDF document served over HTTP(S): downloaded once into the cache folder (kept
    /// while the server reports the same size, ETag and Last-Modified), then built like a local
    /// file. The document's info names the URL.
    pub fn open_url(&self, store: &Store, url: &str, emit: Emit) -> AppResult<DocInfo> {
        self.open_url_allowing(store, url, &[], emit)
    }

    /// [`Self::open_url`], following redirects to `redirect_hosts` too (hosts the user agreed
    /// to, see [`crate::ops::asking_for_redirects`]).
    pub fn open_url_allowing(
        &self,
        store: &Store,
        url: &str,
        redirect_hosts: &[String],
        emit: Emit,
    ) -> AppResult<DocInfo> {
        let file = self.download(url, redirect_hosts)?;
        self.open_as(store, &file.display().to_string(), url, emit)
    }

    fn download(&self, url: &str, redirect_hosts: &[String]) -> AppResult<PathBuf> {
        use rete_core::RangeReader as _;
        use std::io::Write as _;
        /// Bytes per range request.
        const CHUNK: u64 = 8 << 20;
        let opts = rete_http::HttpOptions {
            redirect_hosts: redirect_hosts.to_vec(),
            ..rete_http::HttpOptions::default()
        };
        let r = rete_http::HttpReader::open_with(url, opts).map_err(AppError::http)?;
        let len = r.len();
        let tag = format!(
            "{url}\0{len}\0{}\0{}",
            r.etag().unwrap_or(""),
            r.last_modified().unwrap_or("")
        );
        let key = xxhash_rust::xxh3::xxh3_128(tag.as_bytes());
        let dir = self.cache.dir().join(DOWNLOADS);
        let name = file_name(url.split(['?', '#']).next().unwrap_or(url));
        let dest = dir.join(format!("{key:032x}-{name}"));
        if dest.is_file() {
            return Ok(dest);
        }
        let err = |e: std::io::Error| AppError::Invalid(format!("{}: {e}", dir.display()));
        std::fs::create_dir_all(&dir).map_err(err)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(err)?;
        let mut off = 0;
        while off < len {
            let n = (len - off).min(CHUNK);
            let bytes = r
                .read_at(off, usize::try_from(n).unwrap_or(usize::MAX))
                .map_err(|e| AppError::Invalid(format!("{url}: {e}")))?;
            tmp.write_all(&bytes).map_err(err)?;
            off += n;
        }
        tmp.persist(&dest).map_err(|e| err(e.error))?;
        Ok(dest)
    }
}

/// Folder of downloaded RDF documents inside the cache folder.
pub const DOWNLOADS: &str = "downloads";

/// With the launch trace on (`RETE_LAUNCH_TRACE`, the benchmarks), prints the finished build's
/// phases as one JSON line on stdout.
fn trace(view: &ImportView) {
    if !crate::trace::enabled() {
        return;
    }
    use std::io::Write as _;
    let line = serde_json::json!({ "import": view });
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The cache folder: [`CACHE_DIR_ENV`] or `cache/` in the app's data folder.
pub fn cache_dir(data_dir: Option<PathBuf>) -> PathBuf {
    match std::env::var_os(CACHE_DIR_ENV) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => data_dir.unwrap_or_else(std::env::temp_dir).join("cache"),
    }
}

/// Copies the file behind an open local document to `to` (through a temporary file renamed at
/// the end, so a failed copy leaves no half-written file).
pub fn save_copy(store: &Store, doc: u32, to: &Path) -> AppResult<()> {
    let d = store.get(doc)?;
    if d.is_remote() {
        return Err(AppError::Invalid(
            "a document read over HTTP has no local file to save".into(),
        ));
    }
    let from = Path::new(&d.source);
    let err = |e: std::io::Error| AppError::Invalid(format!("{}: {e}", to.display()));
    let dir = match to.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = tempfile::NamedTempFile::new_in(&dir).map_err(err)?;
    std::fs::copy(from, tmp.path()).map_err(err)?;
    tmp.persist(to).map_err(|e| err(e.error))?;
    Ok(())
}
