//! Adding a search index to an open document that has none (or one of an older layout): what the
//! search box offers when its answers come from a label scan. The file is written again with
//! the index (`rete_search::add_index_with`, its other sections copied as stored) on the calling
//! worker thread, reporting progress as [`EVENT_INDEX`] events and stopping when cancelled, then
//! opened in place of the old one. A file the app built (from an RDF file or a download) gets it
//! in its cache entry; a user's `.rete` is written where the user chose (the shell asks).

use crate::engine::{AppError, AppResult, Doc};
use crate::import::{search_options, Emit, ImportView, Importer, Reporter};
use crate::model::{DocInfo, ImportStatus};
use crate::source::file_name;
use crate::store::Store;
use std::path::{Path, PathBuf};

/// Event carrying an [`ImportView`] of an index being added: started, progressed or ended.
pub const EVENT_INDEX: &str = "index-progress";

/// Why a document read over HTTP is not offered an index: adding one reads every quad, the
/// whole file, which a remote reader exists to avoid.
pub const REMOTE_REFUSAL: &str = "a document read over HTTP cannot get a search index here: adding one reads the whole file (ask its publisher for `rete index`, or download it and open the copy)";

/// Where the indexed copy of a document goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexDestination {
    /// The app built the file: its cache entry is replaced.
    Cache,
    /// A user's `.rete`: the shell asks where to save it, proposing `suggested` beside it.
    Choose {
        /// The proposed file (the same folder, the name with `-indexed`).
        suggested: PathBuf,
    },
}

impl Importer {
    /// Where the indexed copy of `doc` goes; an error for a document read over HTTP.
    pub fn index_destination(&self, store: &Store, doc: u32) -> AppResult<IndexDestination> {
        let d = store.get(doc)?;
        if d.is_remote() {
            return Err(AppError::Invalid(REMOTE_REFUSAL.into()));
        }
        let src = Path::new(&d.source);
        if self.is_cached(src) {
            return Ok(IndexDestination::Cache);
        }
        let stem = src
            .file_stem()
            .map_or_else(|| "graph".into(), |s| s.to_string_lossy());
        Ok(IndexDestination::Choose {
            suggested: src.with_file_name(format!("{stem}-indexed.rete")),
        })
    }

    /// Whether `file` is one of the cache's built files.
    fn is_cached(&self, file: &Path) -> bool {
        let folder = file.parent().and_then(|p| std::fs::canonicalize(p).ok());
        folder.is_some() && folder == std::fs::canonicalize(self.cache().dir()).ok()
    }

    /// Writes `doc` with a search index to `to` (`None`: its cache entry, for a file the app
    /// built), sending progress to `emit`, and opens the result: its info, the new document
    /// (the old one stays open until the caller closes it). `to` may be the document's own file:
    /// it is replaced only once the new one is complete. A cancel ([`Importer::cancel`] of the
    /// job in the events) leaves every file as it was.
    pub fn add_index(
        &self,
        store: &Store,
        doc: u32,
        to: Option<&Path>,
        emit: Emit,
    ) -> AppResult<DocInfo> {
        let d = store.get(doc)?;
        if d.is_remote() {
            return Err(AppError::Invalid(REMOTE_REFUSAL.into()));
        }
        let src = PathBuf::from(&d.source);
        let cached = self.is_cached(&src);
        let dest = match to {
            Some(p) => p.to_path_buf(),
            None if cached => src.clone(),
            None => {
                return Err(AppError::Invalid(format!(
                    "{}: say where to save the file with its search index",
                    d.origin
                )))
            }
        };
        let job = self.next_job();
        let view = ImportView::starting(
            job,
            &d.origin,
            std::fs::metadata(&src).map_or(0, |m| m.len()),
        );
        let reporter = Reporter::new(view, self.watch(job), emit);
        let result = write_indexed(&src, &dest, reporter.as_ref());
        self.end_job(job);
        if let Err(e) = result {
            match &e {
                AppError::Cancelled(_) => reporter.end(ImportStatus::Cancelled, None),
                other => reporter.end(ImportStatus::Failed, Some(other.to_string())),
            };
            return Err(e);
        }
        if cached {
            rete_build::lru::touch(&dest);
            self.cache().evict(&dest);
        }
        // A file the app built, or the file itself replaced, keeps what the user opened as its
        // name; a copy elsewhere is a new file the user chose.
        let same = std::fs::canonicalize(&dest).ok() == std::fs::canonicalize(&src).ok();
        let origin = if cached || same {
            d.origin.clone()
        } else {
            dest.display().to_string()
        };
        let opened = Doc::open_path(&dest).and_then(|doc| {
            let (id, doc) = store.insert(doc.with_origin(&origin));
            doc.info(id)
        });
        match &opened {
            Ok(_) => reporter.end(ImportStatus::Built, None),
            Err(e) => reporter.end(ImportStatus::Failed, Some(e.to_string())),
        };
        opened
    }
}

/// Writes `src` with a search index to `dest`, through a temporary file beside `dest` renamed at
/// the end (so `dest` may be `src`, and a failure or a cancel leaves `dest` as it was).
fn write_indexed(src: &Path, dest: &Path, progress: &Reporter) -> AppResult<()> {
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let err = |e: std::io::Error| AppError::Invalid(format!("{}: {e}", dest.display()));
    let tmp = tempfile::Builder::new()
        .prefix(".rete-index-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(err)?;
    match rete_search::add_index_with(src, tmp.path(), &search_options(), progress) {
        Ok(_) => {}
        Err(rete_search::SearchError::Cancelled) => {
            return Err(AppError::Cancelled(format!(
                "{}: adding the search index was cancelled",
                file_name(&src.display().to_string())
            )))
        }
        Err(e) => return Err(e.into()),
    }
    tmp.persist(dest).map_err(|e| err(e.error))?;
    Ok(())
}
