//! The webview asks; the shell decides. A script in the page (a bug, or content that found a way to
//! run) must not make the app read any file or URL it names: the open commands accept only a
//! source the *user* chose through the shell — the Open dialog, a drop on the window, the command
//! line, a second launch, an OS "open with", the recent list (made of sources the user opened
//! before) — or, for a URL typed in the page's Open URL dialog, one the user confirms in a native
//! dialog the page cannot answer. The rule is the same for every file type.

use std::collections::HashSet;
use std::sync::Mutex;

/// The sources (paths or URLs, as the shell handed them to the page) the user chose this session.
#[derive(Debug, Default)]
pub struct Grants {
    chosen: Mutex<HashSet<String>>,
}

/// How a source is compared: as the shell handed it over, without surrounding blanks.
fn key(source: &str) -> &str {
    source.trim()
}

impl Grants {
    /// Records sources the user chose (through the shell, never through a command's argument).
    pub fn grant<S: AsRef<str>>(&self, sources: impl IntoIterator<Item = S>) {
        let mut chosen = self.chosen.lock().unwrap_or_else(|p| p.into_inner());
        chosen.extend(sources.into_iter().map(|s| key(s.as_ref()).to_owned()));
    }

    /// Whether the page may open `source`: granted this session, or on the recent list.
    pub fn allows(&self, source: &str, recent: &[String]) -> bool {
        let k = key(source);
        !k.is_empty()
            && (self
                .chosen
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains(k)
                || recent.iter().any(|r| key(r) == k))
    }

    /// [`Grants::allows`], or the message the page shows when it does not.
    pub fn check(&self, source: &str, recent: &[String]) -> Result<(), String> {
        if self.allows(source, recent) {
            Ok(())
        } else {
            Err(format!(
                "{}: not opened — the app opens only what you choose (Open…, Open URL…, a drop, the command line or the recent list)",
                key(source)
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_chosen_or_recent_sources_are_allowed() {
        let g = Grants::default();
        let recent = vec!["/home/u/old.rete".to_owned()];
        assert!(!g.allows("/etc/passwd", &recent));
        assert!(!g.allows("/home/u/new.rete", &recent));
        assert!(!g.allows("http://127.0.0.1:9/x.rete", &recent));
        assert!(!g.allows("", &[String::new()]));
        // The recent list: sources opened in an earlier session.
        assert!(g.allows("/home/u/old.rete", &recent));
        g.grant(["/home/u/new.rete", " https://h/x.rete "]);
        assert!(g.allows("/home/u/new.rete", &recent));
        assert!(g.allows("https://h/x.rete", &recent));
        // Exact sources only: no prefix, folder, or path trick widens a grant.
        assert!(!g.allows("/home/u", &recent));
        assert!(!g.allows("/home/u/new.rete/../../../etc/passwd", &recent));
        assert!(!g.allows("/home/u/./new.rete", &recent));
        assert!(!g.allows("https://h/x.rete?y", &recent));
        let e = g.check("/etc/passwd", &recent).unwrap_err();
        assert!(e.starts_with("/etc/passwd: not opened"), "{e}");
        assert!(g.check(" /home/u/new.rete", &recent).is_ok());
    }

    #[test]
    fn the_rule_does_not_depend_on_the_file_type() {
        let g = Grants::default();
        for f in [
            "/d/a.rete",
            "/d/a.ttl",
            "/d/a.nt",
            "/d/a.jsonld",
            "/d/a.nq",
            "/d/a.rdf",
        ] {
            assert!(!g.allows(f, &[]), "{f}");
        }
        g.grant(["/d/a.ttl", "/d/a.rete"]);
        assert!(g.allows("/d/a.ttl", &[]));
        assert!(g.allows("/d/a.rete", &[]));
        assert!(!g.allows("/d/a.jsonld", &[]));
    }
}
