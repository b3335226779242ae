//! The app's questions to the engine, over one open `.rete` ([`Doc`]). Every function here is
//! synchronous and may read the file: the Tauri commands run them on blocking worker threads.

use crate::model::{Counted, DocInfo, TermKind, TermView};
use oxrdf::{NamedNodeRef, Term};
use rete_core::format::{FLAG_PYRAMID, FLAG_SCHEMA};
use rete_core::vocab::{PrefixOrigin, Prefixes, LABEL_PREDICATES, RDF_TYPE};
use rete_core::{Id, Pattern, Rete, ReteOptions};
use rete_http::{CountedReader, HttpReader};
use rete_pyramid::Pyramid;
use rete_schema::Schema;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

mod classes;
mod coherence;
mod entity;
mod error;
mod paths;
mod pyramid;
mod schema;
mod search;
mod shapes;
mod sparql;

pub use classes::pack_circles;
pub use coherence::{report_markdown, CoherenceRun};
pub use error::{AppError, AppResult, ErrorKind};
pub use paths::{PATH_DEADLINE, PATH_MEMORY};
pub use pyramid::community_key;
pub use search::{SearchRequest, MAX_HITS, MAX_SPREAD_KEYS};
pub use sparql::{QueryRun, GRAPH_TRIPLES, MAX_RESULT_BYTES, MAX_ROWS};

/// Writing query results.
pub mod sparql_export {
    pub use super::sparql::{write_run, ExportFormat, DEFAULT_TIMEOUT};
}

/// Limits that keep every answer small enough for the map and the panels.
pub mod limits {
    /// Classes shown as groups on the class overview.
    pub const OVERVIEW_CLASSES: usize = 60;
    /// Instances per class sampled to find relations between classes.
    pub const OVERVIEW_SAMPLE: usize = 25;
    /// Outgoing triples per sampled instance.
    pub const OVERVIEW_LINKS: usize = 30;
    /// Entities put on the map when a class group or a community expands.
    pub const MEMBERS: usize = 400;
    /// Links listed in each section of the details panel.
    pub const DETAIL_LINKS: usize = 200;
    /// Neighbours added by "expand neighbourhood".
    pub const NEIGHBOURS: usize = 150;
    /// Entities put on the map when a level-0 community of the pyramid expands.
    pub const COMMUNITY_MEMBERS: usize = 3000;
    /// Members whose links are looked up to draw edges inside an opened community.
    pub const COMMUNITY_EDGES: usize = 1500;
    /// Terms located in the pyramid per request.
    pub const LOCATE: usize = 5000;
    /// Communities plus super-edges kept for the details panel: beyond it what was kept is
    /// forgotten and read again from the file when asked about (a level may hold a million
    /// super-edges: 1.1 M at level 0 of 30 M triples).
    pub const SEEN_ITEMS: usize = 200_000;
}

/// A community seen on the map, with the super-edges that came with it.
#[derive(Debug, Clone)]
pub(crate) struct SeenCommunity {
    pub(crate) community: rete_pyramid::Community,
    pub(crate) edges: Vec<rete_pyramid::SuperEdge>,
    /// Labels of the communities at the other end of `edges`.
    pub(crate) others: HashMap<u32, String>,
}

/// One open `.rete` plus what the app looked up once about it.
#[derive(Debug)]
pub struct Doc {
    /// The engine's handle.
    pub rete: Rete,
    /// The file read: a path or URL (for an imported RDF file, its build in the cache).
    pub source: String,
    /// What the user opened: `source`, or the RDF file or URL an imported document was built
    /// from. The title, the recent list, reports and a reopen after a crash name this.
    pub origin: String,
    /// The byte source and its counters.
    pub bytes: CountedReader,
    /// The community pyramid, if the file has one.
    pub pyramid: Option<Pyramid>,
    /// The schema block, if the file has one.
    pub schema: Option<Schema>,
    /// Communities the map received, by (level, id): what the details panel shows about them.
    pub(crate) seen: Mutex<HashMap<(u32, u32), SeenCommunity>>,
    rdf_type: Option<Id>,
    label_preds: Vec<Id>,
    /// The file's own prefixes (card and schema): they name its terms.
    prefixes: Prefixes,
    /// What a query may use without declaring it: the file's prefixes, then the well-known ones.
    query_prefixes: Prefixes,
    /// Class rank (card order) by class term id: the UI's colour index.
    class_rank: HashMap<Id, usize>,
    /// The label search: opened with the document over HTTP, else on the first search (one read:
    /// its meta section).
    searcher: std::sync::OnceLock<rete_search::Searcher>,
    /// Labels of the classes that share one with another class, told apart (`engine/schema.rs`).
    told_apart: std::sync::OnceLock<HashMap<String, String>>,
    /// The user's languages: their labels rank first in search.
    languages: Vec<String>,
}

/// Decoded blocks a document keeps (the engine's default is 256 MiB): the app and its webview
/// stay within 500 MB after a long exploration of a 30 M-triple file, and the blocks an
/// exploration revisits (dictionary, the permutations' blocks of the entities on screen) fit.
pub const CACHE_BYTES: usize = 64 << 20;

fn open_rete(reader: std::sync::Arc<dyn rete_core::RangeReader>) -> AppResult<Rete> {
    Ok(Rete::open_with(
        reader,
        ReteOptions {
            cache_bytes: CACHE_BYTES,
            ..ReteOptions::default()
        },
    )?)
}

impl Doc {
    /// Opens a local file and reads its card (so a corrupt card fails here, not later).
    pub fn open_path(path: &Path) -> AppResult<Self> {
        let bytes = CountedReader::local(path).map_err(rete_core::Error::from)?;
        let rete = open_rete(bytes.reader())?;
        Self::from_rete(rete, path.display().to_string(), bytes)
    }

    /// Opens a `.rete` served over HTTP(S) through range requests.
    pub fn open_http(reader: HttpReader) -> AppResult<Self> {
        let source = reader.url().to_owned();
        let bytes = CountedReader::remote(reader);
        let rete = open_rete(bytes.reader())?;
        Self::from_rete(rete, source, bytes)
    }

    /// The document as opened from `origin` (an RDF file or URL it was built from).
    #[must_use]
    pub fn with_origin(mut self, origin: &str) -> Self {
        origin.clone_into(&mut self.origin);
        self
    }

    /// Whether the file is read over HTTP.
    pub fn is_remote(&self) -> bool {
        self.bytes.is_remote()
    }

    fn from_rete(rete: Rete, source: String, bytes: CountedReader) -> AppResult<Self> {
        // Over HTTP the search opens first: its open fetches in one request the index's small
        // sections with the directories' page tables and the pyramid's top and directory, which
        // the map reads next anyway, so the first keystroke starts at the postings. A search
        // index that fails to open fails the first search, not the map.
        let searcher = std::sync::OnceLock::new();
        if bytes.is_remote() {
            if let Ok(s) = rete_search::Searcher::open(&rete) {
                let _ = searcher.set(s);
            }
        }
        let card = rete.card()?.clone();
        let iri_id = |iri: &str| -> AppResult<Option<Id>> {
            match NamedNodeRef::new(iri) {
                Ok(n) => Ok(rete.id_of(n.into())?),
                Err(_) => Ok(None),
            }
        };
        let rdf_type = iri_id(RDF_TYPE)?;
        let mut label_preds = Vec::new();
        for p in LABEL_PREDICATES {
            if let Some(id) = iri_id(p)? {
                label_preds.push(id);
            }
        }
        let mut class_rank = HashMap::new();
        for (rank, c) in card.classes.iter().enumerate() {
            if let Some(id) = nt_id(&rete, &c.term)? {
                class_rank.insert(id, rank);
            }
        }
        let pyramid = Pyramid::open(&rete)?;
        let schema = Schema::open(&rete)?;
        let query_prefixes = Prefixes::for_file(
            &card.prefixes,
            schema.as_ref().map_or(&[][..], |s| &s.prefixes[..]),
        );
        let mut prefixes = Prefixes::new();
        for e in query_prefixes
            .iter()
            .filter(|e| e.origin != PrefixOrigin::WellKnown)
        {
            prefixes.declare(&e.prefix, &e.namespace, e.origin);
        }
        Ok(Self {
            rete,
            origin: source.clone(),
            source,
            bytes,
            pyramid,
            schema,
            seen: Mutex::new(HashMap::new()),
            rdf_type,
            label_preds,
            prefixes,
            query_prefixes,
            class_rank,
            searcher,
            told_apart: std::sync::OnceLock::new(),
            languages: Vec::new(),
        })
    }

    /// The summary the UI shows first.
    pub fn info(&self, doc: u32) -> AppResult<DocInfo> {
        let card = self.rete.card()?;
        let name = crate::source::file_name(self.origin.split(['?', '#']).next().unwrap_or(""));
        Ok(DocInfo {
            doc,
            source: self.origin.clone(),
            name,
            bytes: self.rete.reader().len(),
            quads: card.quads,
            terms: card.terms,
            subjects: card.distinct_subjects,
            predicates: card.distinct_predicates,
            objects: card.distinct_objects,
            graphs: card.graphs.len(),
            classes: card
                .classes
                .iter()
                .map(|c| self.counted(&c.term, c.count))
                .collect(),
            top_predicates: card
                .predicates
                .iter()
                .take(50)
                .map(|c| self.counted(&c.term, c.count))
                .collect(),
            has_pyramid: self.pyramid.is_some() || self.rete.has_flag(FLAG_PYRAMID),
            has_schema: self.schema.is_some() || self.rete.has_flag(FLAG_SCHEMA),
            levels: self.pyramid.as_ref().map_or(0, Pyramid::levels),
            remote: self.is_remote(),
            built_by: format!("{} {}", card.build.tool, card.build.version)
                .trim()
                .to_owned(),
            materialized: card.build.materialized,
        })
    }

    /// A class or predicate in a list of counts, by its prefixed name: the file's prefixes,
    /// else a well-known one's. A file in N-Triples or N-Quads declares none, and local names
    /// alone collide there (`owl:Class` and `rdfs:Class` both "Class", `foaf:name` and
    /// `schema:name`).
    fn counted(&self, nt: &str, count: u64) -> Counted {
        let prefixed = nt
            .strip_prefix('<')
            .and_then(|s| s.strip_suffix('>'))
            .and_then(|iri| self.query_prefixes.compact(iri));
        Counted {
            nt: nt.to_owned(),
            label: prefixed.map_or_else(|| self.short_nt(nt), |(p, l)| format!("{p}:{l}")),
            count,
        }
    }

    /// A short name for a term in N-Triples syntax: prefixed name, local name or the literal.
    pub fn short_nt(&self, nt: &str) -> String {
        if let Some(iri) = nt.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
            return self.short_iri(iri);
        }
        nt.to_owned()
    }

    /// `prefix:local` with the file's most specific prefix (see [`Prefixes::compact`]), else
    /// the local name.
    fn short_iri(&self, iri: &str) -> String {
        match self.prefixes.compact(iri) {
            Some((p, local)) => format!("{p}:{local}"),
            None => rete_core::vocab::local_name(iri).to_owned(),
        }
    }

    /// The label of a resource: its first label-like literal, else a short form of its name.
    pub fn label_of(&self, id: Id, term: &Term) -> AppResult<String> {
        if !matches!(term, Term::Literal(_)) {
            for &p in &self.label_preds {
                if let Some(q) = self
                    .rete
                    .quads(&Pattern::new(Some(id), Some(p), None))?
                    .next()
                {
                    if let Term::Literal(l) = self.rete.term(q?[2])? {
                        return Ok(l.value().to_owned());
                    }
                }
            }
        }
        Ok(match term {
            Term::NamedNode(n) => self.short_iri(n.as_str()),
            Term::BlankNode(b) => format!("_:{}", b.as_str()),
            Term::Literal(l) => l.value().to_owned(),
            #[allow(unreachable_patterns)]
            other => other.to_string(),
        })
    }

    /// The UI view of term `id`; `labelled` looks up label literals (one extra read per term).
    pub fn term_view(&self, id: Id, labelled: bool) -> AppResult<TermView> {
        self.view_of(id, self.rete.term(id)?, labelled)
    }

    /// [`Self::term_view`] of a term already decoded.
    fn view_of(&self, id: Id, term: Term, labelled: bool) -> AppResult<TermView> {
        let label = if labelled {
            self.label_of(id, &term)?
        } else {
            match &term {
                Term::NamedNode(n) => self.short_iri(n.as_str()),
                Term::Literal(l) => l.value().to_owned(),
                other => other.to_string(),
            }
        };
        let kind = match term {
            Term::NamedNode(_) => TermKind::Iri,
            Term::BlankNode(_) => TermKind::Bnode,
            _ => TermKind::Literal,
        };
        Ok(TermView {
            id,
            nt: term.to_string(),
            label,
            kind,
        })
    }

    /// The `rdf:type`s of `id`.
    fn types_of(&self, id: Id) -> AppResult<Vec<Id>> {
        let Some(t) = self.rdf_type else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for q in self.rete.quads(&Pattern::new(Some(id), Some(t), None))? {
            out.push(q?[2]);
        }
        out.dedup();
        Ok(out)
    }

    /// The class used to colour `id`: its most common type (card order).
    fn main_class(&self, id: Id) -> AppResult<Option<Id>> {
        let types = self.types_of(id)?;
        Ok(types
            .iter()
            .copied()
            .min_by_key(|c| self.class_rank.get(c).copied().unwrap_or(usize::MAX)))
    }

    fn class_nt(&self, class: Option<Id>) -> AppResult<Option<String>> {
        class
            .map(|c| self.rete.term(c).map(|t| t.to_string()))
            .transpose()
            .map_err(Into::into)
    }

    /// Looks up a term given in N-Triples syntax.
    pub fn resolve(&self, nt: &str) -> AppResult<Option<Id>> {
        nt_id(&self.rete, nt)
    }
}

/// The id of a term written in N-Triples syntax, if it is in the dictionary.
fn nt_id(rete: &Rete, nt: &str) -> AppResult<Option<Id>> {
    match nt.parse::<Term>() {
        Ok(t) => Ok(rete.id_of(t.as_ref())?),
        Err(_) => Ok(None),
    }
}
