//! The name shown for a document's path or URL; opening, importing and crash recovery share it.

/// The last part of a path or URL.
pub(crate) fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\']).next().unwrap_or(path).to_owned()
}
