//! The app's questions to the engine, over one open `.rete` ([`Doc`]). Every function here is
//! synchronous and may read the file: the Tauri commands run them on blocking worker threads.

use crate::key::NodeKey;
use crate::model::{
    Counted, DocInfo, EntityDetails, GroupDetails, Legend, LegendClass, LegendRelation,
    LegendSource, Link, MapEdge, MapNode, MapView, NodeKind, TermKind, TermView, ViewKind,
};
use oxrdf::{NamedNodeRef, Term};
use rete_core::format::{FLAG_PYRAMID, FLAG_SCHEMA};
use rete_core::vocab::{PrefixOrigin, Prefixes, LABEL_PREDICATES, RDF_TYPE};
use rete_core::{Id, Pattern, Rete, ReteOptions};
use rete_http::{CountedReader, HttpReader};
use rete_pyramid::Pyramid;
use rete_schema::Schema;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Mutex;

mod coherence;
mod paths;
mod pyramid;
mod schema;
mod search;
mod shapes;
mod sparql;

pub use coherence::{report_markdown, CoherenceRun};
pub use paths::{PATH_DEADLINE, PATH_MEMORY};
pub use pyramid::community_key;
pub use search::{SearchRequest, MAX_HITS};
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

/// Errors of the app's engine calls; shown verbatim in the window. They cross to the UI as
/// `{"kind": …, "message": …}` ([`ErrorKind`]), so the UI tells a cancelled build from a failure by
/// its kind, never by its wording.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The engine refused the file or a read failed (its own message).
    #[error(transparent)]
    Engine(#[from] rete_core::Error),
    /// No open document has this handle (it was closed).
    #[error("document {0} is not open")]
    NoDoc(u32),
    /// The community pyramid could not be read.
    #[error(transparent)]
    Pyramid(#[from] rete_pyramid::PyramidError),
    /// The schema block could not be read.
    #[error(transparent)]
    Schema(#[from] rete_schema::SchemaError),
    /// The label search failed.
    #[error(transparent)]
    Search(#[from] rete_search::SearchError),
    /// A request from the UI that does not make sense for this document.
    #[error("{0}")]
    Invalid(String),
    /// The user stopped the work (the message says which).
    #[error("{0}")]
    Cancelled(String),
}

/// What kind of failure an [`AppError`] is, as the UI receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The file or its reads failed (corrupt, missing, a server's error).
    File,
    /// The document was closed.
    NotOpen,
    /// The request does not make sense here.
    Invalid,
    /// The user stopped it.
    Cancelled,
}

impl AppError {
    /// The kind the UI acts on.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Search(rete_search::SearchError::Cancelled) => ErrorKind::Cancelled,
            Self::Engine(_) | Self::Pyramid(_) | Self::Schema(_) | Self::Search(_) => {
                ErrorKind::File
            }
            Self::NoDoc(_) => ErrorKind::NotOpen,
            Self::Invalid(_) => ErrorKind::Invalid,
            Self::Cancelled(_) => ErrorKind::Cancelled,
        }
    }
}

impl serde::Serialize for AppError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut st = s.serialize_struct("AppError", 2)?;
        st.serialize_field("kind", &self.kind())?;
        st.serialize_field("message", &self.to_string())?;
        st.end()
    }
}

/// Result alias of the app.
pub type AppResult<T> = Result<T, AppError>;

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
    prefixes: Vec<(String, String)>,
    /// What a query may use without declaring it: the file's prefixes, then the well-known ones.
    query_prefixes: Prefixes,
    /// Class rank (card order) by class term id: the UI's colour index.
    class_rank: HashMap<Id, usize>,
    /// The label search, opened on the first search (one read: its meta section).
    searcher: std::sync::OnceLock<rete_search::Searcher>,
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
        // The file's own prefixes name its terms, longest namespace first so the most specific
        // prefix wins.
        let mut prefixes: Vec<(String, String)> = query_prefixes
            .iter()
            .filter(|e| e.origin != PrefixOrigin::WellKnown)
            .map(|e| (e.prefix.clone(), e.namespace.clone()))
            .collect();
        prefixes.sort_by_key(|p| std::cmp::Reverse(p.1.len()));
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
            searcher: std::sync::OnceLock::new(),
            languages: Vec::new(),
        })
    }

    /// The summary the UI shows first.
    pub fn info(&self, doc: u32) -> AppResult<DocInfo> {
        let card = self.rete.card()?;
        let name = crate::import::file_name(self.origin.split(['?', '#']).next().unwrap_or(""));
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

    fn counted(&self, nt: &str, count: u64) -> Counted {
        Counted {
            nt: nt.to_owned(),
            label: self.short_nt(nt),
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

    fn short_iri(&self, iri: &str) -> String {
        for (p, ns) in &self.prefixes {
            if let Some(local) = iri.strip_prefix(ns.as_str()) {
                if !local.is_empty() && !local.contains(['/', '#']) {
                    return format!("{p}:{local}");
                }
            }
        }
        rete_core::vocab::local_name(iri).to_owned()
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

    /// The first map when the file has no pyramid: its classes as groups sized by instances, placed
    /// without overlap, with the relations seen on a sample of each class's instances.
    pub fn class_overview(&self) -> AppResult<MapView> {
        let card = self.rete.card()?;
        let mut classes = Vec::new();
        for c in card.classes.iter().take(limits::OVERVIEW_CLASSES) {
            if let Some(id) = nt_id(&self.rete, &c.term)? {
                classes.push((id, c));
            }
        }
        let radii: Vec<f32> = classes.iter().map(|(_, c)| group_radius(c.count)).collect();
        let centres = pack_circles(&radii);
        let mut nodes = Vec::with_capacity(classes.len());
        for (i, (id, c)) in classes.iter().enumerate() {
            nodes.push(MapNode {
                key: NodeKey::Class(*id).to_string(),
                kind: NodeKind::Class,
                label: self.short_nt(&c.term),
                size: c.count,
                class: Some(c.term.clone()),
                x: Some(centres[i].0),
                y: Some(centres[i].1),
                r: Some(radii[i]),
                expandable: c.count > 0,
                level: None,
                id: *id,
                classes: vec![self.counted(&c.term, c.count)],
            });
        }
        let in_view: HashSet<Id> = classes.iter().map(|(id, _)| *id).collect();
        let mut pairs: BTreeMap<(Id, Id), BTreeMap<Id, u64>> = BTreeMap::new();
        let mut truncated = false;
        if let Some(t) = self.rdf_type {
            for (class, c) in &classes {
                truncated |= c.count as usize > limits::OVERVIEW_SAMPLE;
                for q in self
                    .rete
                    .quads(&Pattern::new(None, Some(t), Some(*class)))?
                    .take(limits::OVERVIEW_SAMPLE)
                {
                    let s = q?[0];
                    for l in self
                        .rete
                        .quads(&Pattern::new(Some(s), None, None))?
                        .take(limits::OVERVIEW_LINKS)
                    {
                        let [_, p, o, _] = l?;
                        if p == t {
                            continue;
                        }
                        if let Some(oc) = self.main_class(o)? {
                            if in_view.contains(&oc) {
                                *pairs.entry((*class, oc)).or_default().entry(p).or_default() += 1;
                            }
                        }
                    }
                }
            }
        }
        let mut edges = Vec::new();
        for ((a, b), preds) in pairs {
            if a == b {
                continue;
            }
            let weight = preds.values().sum();
            let mut top: Vec<(Id, u64)> = preds.into_iter().collect();
            top.sort_by_key(|t| std::cmp::Reverse(t.1));
            let label = top
                .iter()
                .take(2)
                .map(|(p, _)| self.term_view(*p, false).map(|v| v.label))
                .collect::<AppResult<Vec<_>>>()?
                .join(", ");
            edges.push(MapEdge {
                source: NodeKey::Class(a).to_string(),
                target: NodeKey::Class(b).to_string(),
                weight,
                label,
            });
        }
        Ok(MapView {
            kind: ViewKind::Classes,
            nodes,
            edges,
            note: format!(
                "Classes from the file's card, sized by instances. Relations between classes were counted on the first {} instances of each class.",
                limits::OVERVIEW_SAMPLE
            ),
            truncated: truncated || card.classes.len() > limits::OVERVIEW_CLASSES,
        })
    }

    /// The instances of a class (first [`limits::MEMBERS`]) placed inside its group circle
    /// `(x, y, r)`, with the links among them.
    pub fn class_members(&self, class: Id, centre: (f32, f32, f32)) -> AppResult<MapView> {
        let Some(t) = self.rdf_type else {
            return Err(AppError::Invalid("the file has no rdf:type triples".into()));
        };
        let mut ids = Vec::new();
        let mut truncated = false;
        for q in self.rete.quads(&Pattern::new(None, Some(t), Some(class)))? {
            if ids.len() == limits::MEMBERS {
                truncated = true;
                break;
            }
            ids.push(q?[0]);
        }
        self.entities_in_circle(&ids, centre, ViewKind::Members, truncated)
    }

    /// An entity's map node, at `(x, y, r)` or, without one, left for the UI to lay out.
    fn entity_node(&self, id: Id, at: Option<(f32, f32, f32)>) -> AppResult<MapNode> {
        let term = self.term_view(id, true)?;
        Ok(MapNode {
            key: NodeKey::Entity(id).to_string(),
            kind: NodeKind::Entity,
            label: term.label,
            size: 1,
            class: self.class_nt(self.main_class(id)?)?,
            x: at.map(|a| a.0),
            y: at.map(|a| a.1),
            r: at.map(|a| a.2),
            expandable: false,
            level: None,
            id,
            classes: Vec::new(),
        })
    }

    /// Entity nodes for `ids`, laid out on a sunflower spiral inside `(x, y, r)`, plus the triples
    /// that link two of them.
    pub fn entities_in_circle(
        &self,
        ids: &[Id],
        (cx, cy, r): (f32, f32, f32),
        kind: ViewKind,
        truncated: bool,
    ) -> AppResult<MapView> {
        let n = ids.len().max(1) as f32;
        let mut nodes = Vec::with_capacity(ids.len());
        for (i, &id) in ids.iter().enumerate() {
            let (x, y) = sunflower(i, n, r * 0.92);
            let at = (cx + x, cy + y, (r / n.sqrt() * 0.45).max(r * 0.002));
            nodes.push(self.entity_node(id, Some(at))?);
        }
        let edges = self.edges_among(ids)?;
        Ok(MapView {
            kind,
            nodes,
            edges,
            note: String::new(),
            truncated,
        })
    }

    /// Triples whose subject and object are both in `ids` (rdf:type excluded).
    pub fn edges_among(&self, ids: &[Id]) -> AppResult<Vec<MapEdge>> {
        let set: HashSet<Id> = ids.iter().copied().collect();
        // On a remote file: the members' blocks in one batch, not a round trip or two each.
        // Only a speed-up: if it fails (the read budget, a coalesced span a little over it),
        // the scans read what they need themselves and report what fails.
        let subjects: Vec<Pattern> = ids
            .iter()
            .map(|&s| Pattern::new(Some(s), None, None))
            .collect();
        let _ = self.rete.prefetch(&subjects);
        let mut agg: BTreeMap<(Id, Id), (u64, Id)> = BTreeMap::new();
        for &s in ids {
            for q in self.rete.quads(&Pattern::new(Some(s), None, None))? {
                let [_, p, o, _] = q?;
                if Some(p) != self.rdf_type && o != s && set.contains(&o) {
                    let e = agg.entry((s, o)).or_insert((0, p));
                    e.0 += 1;
                }
            }
        }
        let mut pred_labels: HashMap<Id, String> = HashMap::new();
        let mut edges = Vec::with_capacity(agg.len());
        for ((s, o), (w, p)) in agg {
            let label = match pred_labels.get(&p) {
                Some(l) => l.clone(),
                None => {
                    let l = self.term_view(p, false)?.label;
                    pred_labels.insert(p, l.clone());
                    l
                }
            };
            edges.push(MapEdge {
                source: NodeKey::Entity(s).to_string(),
                target: NodeKey::Entity(o).to_string(),
                weight: w,
                label,
            });
        }
        Ok(edges)
    }

    /// Properties and links of one entity for the details panel: one scan of its triples (types
    /// included), one of its incoming links, each term decoded once and each predicate once.
    pub fn entity(&self, id: Id) -> AppResult<EntityDetails> {
        let term = self.term_view(id, true)?;
        let mut preds: HashMap<Id, TermView> = HashMap::new();
        let mut pred = |p: Id| -> AppResult<TermView> {
            if let Some(v) = preds.get(&p) {
                return Ok(v.clone());
            }
            let v = self.term_view(p, false)?;
            preds.insert(p, v.clone());
            Ok(v)
        };
        let (mut types, mut properties, mut out_links, mut in_links) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut type_ids: Vec<Id> = Vec::new();
        let mut out_total = 0;
        for q in self.rete.quads(&Pattern::new(Some(id), None, None))? {
            let [_, p, o, _] = q?;
            out_total += 1;
            if Some(p) == self.rdf_type {
                if !type_ids.contains(&o) {
                    type_ids.push(o);
                    types.push(self.term_view(o, false)?);
                }
                continue;
            }
            if out_links.len() >= limits::DETAIL_LINKS && properties.len() >= limits::DETAIL_LINKS {
                continue;
            }
            let t = self.rete.term(o)?;
            let list = if matches!(t, Term::Literal(_)) {
                &mut properties
            } else {
                &mut out_links
            };
            if list.len() < limits::DETAIL_LINKS {
                list.push(Link {
                    predicate: pred(p)?,
                    other: self.view_of(o, t, true)?,
                });
            }
        }
        let in_total = self.rete.count(&Pattern::new(None, None, Some(id)))?;
        for q in self
            .rete
            .quads(&Pattern::new(None, None, Some(id)))?
            .take(limits::DETAIL_LINKS)
        {
            let [s, p, _, _] = q?;
            in_links.push(Link {
                predicate: pred(p)?,
                other: self.term_view(s, true)?,
            });
        }
        Ok(EntityDetails {
            term,
            types,
            properties,
            out_links,
            in_links,
            out_total,
            in_total,
        })
    }

    /// An entity and its IRI/blank-node neighbours (both directions) with the links among them,
    /// laid out by the UI.
    pub fn neighbourhood(&self, id: Id) -> AppResult<MapView> {
        let mut ids = vec![id];
        let mut seen: HashSet<Id> = HashSet::from([id]);
        let mut truncated = false;
        let mut push = |other: Id, ids: &mut Vec<Id>| {
            if seen.insert(other) {
                if ids.len() > limits::NEIGHBOURS {
                    truncated = true;
                } else {
                    ids.push(other);
                }
            }
        };
        for q in self.rete.quads(&Pattern::new(Some(id), None, None))? {
            let [_, p, o, _] = q?;
            if Some(p) != self.rdf_type && !matches!(self.rete.term(o)?, Term::Literal(_)) {
                push(o, &mut ids);
            }
        }
        for q in self.rete.quads(&Pattern::new(None, None, Some(id)))? {
            push(q?[0], &mut ids);
        }
        let mut nodes = Vec::with_capacity(ids.len());
        for &n in &ids {
            nodes.push(self.entity_node(n, None)?);
        }
        let edges = self.edges_among(&ids)?;
        Ok(MapView {
            kind: ViewKind::Neighbourhood,
            nodes,
            edges,
            note: String::new(),
            truncated,
        })
    }

    /// Details of a class group: its size, a sample of members, and the predicates they use.
    pub fn class_group(&self, class: Id) -> AppResult<GroupDetails> {
        let nt = self.rete.term(class)?.to_string();
        let size = match self.rdf_type {
            Some(t) => self.rete.count(&Pattern::new(None, Some(t), Some(class)))?,
            None => 0,
        };
        let mut sample = Vec::new();
        let mut preds: BTreeMap<Id, u64> = BTreeMap::new();
        if let Some(t) = self.rdf_type {
            for q in self
                .rete
                .quads(&Pattern::new(None, Some(t), Some(class)))?
                .take(limits::OVERVIEW_SAMPLE)
            {
                let s = q?[0];
                if sample.len() < 12 {
                    sample.push(self.term_view(s, true)?);
                }
                for l in self
                    .rete
                    .quads(&Pattern::new(Some(s), None, None))?
                    .take(limits::OVERVIEW_LINKS)
                {
                    let p = l?[1];
                    if p != t {
                        *preds.entry(p).or_default() += 1;
                    }
                }
            }
        }
        let mut top: Vec<(Id, u64)> = preds.into_iter().collect();
        top.sort_by_key(|t| std::cmp::Reverse(t.1));
        let top_predicates = top
            .into_iter()
            .take(10)
            .map(|(p, n)| {
                Ok(Counted {
                    nt: self.rete.term(p)?.to_string(),
                    label: self.term_view(p, false)?.label,
                    count: n,
                })
            })
            .collect::<AppResult<Vec<_>>>()?;
        Ok(GroupDetails {
            key: NodeKey::Class(class).to_string(),
            label: self.short_nt(&nt),
            size,
            level: None,
            children: Vec::new(),
            links: Vec::new(),
            classes: vec![self.counted(&nt, size)],
            top_predicates,
            sample,
        })
    }

    /// The legend from the card: classes by instances (flat) and the relations between them
    /// observed on the class overview's sample.
    pub fn card_legend(&self) -> AppResult<Legend> {
        let card = self.rete.card()?;
        let classes = card
            .classes
            .iter()
            .map(|c| LegendClass {
                nt: c.term.clone(),
                label: self.short_nt(&c.term),
                parents: Vec::new(),
                depth: 0,
                direct: c.count,
                total: c.count,
            })
            .collect();
        let overview = self.class_overview()?;
        let class_of: HashMap<&str, &str> = overview
            .nodes
            .iter()
            .filter_map(|n| n.class.as_deref().map(|c| (n.key.as_str(), c)))
            .collect();
        let mut relations = Vec::new();
        for e in &overview.edges {
            if let (Some(d), Some(r)) = (
                class_of.get(e.source.as_str()),
                class_of.get(e.target.as_str()),
            ) {
                relations.push(LegendRelation {
                    domain: (*d).to_owned(),
                    predicate: Counted {
                        nt: String::new(),
                        label: e.label.clone(),
                        count: e.weight,
                    },
                    range: (*r).to_owned(),
                });
            }
        }
        relations.sort_by_key(|r| std::cmp::Reverse(r.predicate.count));
        Ok(Legend {
            source: LegendSource::Card,
            classes,
            relations,
            note: overview.note,
        })
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

/// Radius of a group holding `count` members: area proportional to the count.
fn group_radius(count: u64) -> f32 {
    (count.max(1) as f32).sqrt() * 10.0
}

/// Point `i` of `n` on a sunflower (Vogel) spiral filling a disc of radius `r` evenly.
fn sunflower(i: usize, n: f32, r: f32) -> (f32, f32) {
    const GOLDEN: f32 = 2.399_963;
    let rho = r * ((i as f32 + 0.5) / n).sqrt();
    let theta = i as f32 * GOLDEN;
    (rho * theta.cos(), rho * theta.sin())
}

/// Places circles (largest first, as given) without overlap, each as close to the origin as a
/// spiral search allows: a compact bubble chart.
pub fn pack_circles(radii: &[f32]) -> Vec<(f32, f32)> {
    let mut placed: Vec<(f32, f32, f32)> = Vec::with_capacity(radii.len());
    let gap = radii.iter().copied().fold(0.0f32, f32::max) * 0.08 + 1.0;
    for &r in radii {
        let mut pos = (0.0, 0.0);
        if !placed.is_empty() {
            let mut step = 0usize;
            loop {
                let t = step as f32 * 0.35;
                let rho = t * gap * 0.6;
                let cand = (rho * t.cos(), rho * t.sin());
                let free = placed.iter().all(|&(x, y, pr)| {
                    let (dx, dy) = (cand.0 - x, cand.1 - y);
                    (dx * dx + dy * dy).sqrt() >= pr + r + gap
                });
                if free || step > 200_000 {
                    pos = cand;
                    break;
                }
                step += 1;
            }
        }
        placed.push((pos.0, pos.1, r));
    }
    placed.into_iter().map(|(x, y, _)| (x, y)).collect()
}

/// `n` followed by `one` or `many` as `n` asks ("1 class", "2 classes").
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_circles_do_not_overlap() {
        let radii = [50.0, 30.0, 30.0, 10.0, 5.0, 5.0, 1.0];
        let c = pack_circles(&radii);
        for i in 0..radii.len() {
            for j in i + 1..radii.len() {
                let d = ((c[i].0 - c[j].0).powi(2) + (c[i].1 - c[j].1).powi(2)).sqrt();
                assert!(d >= radii[i] + radii[j], "{i} and {j} overlap");
            }
        }
    }

    #[test]
    fn sunflower_stays_inside() {
        for i in 0..100 {
            let (x, y) = sunflower(i, 100.0, 10.0);
            assert!((x * x + y * y).sqrt() <= 10.0 + 1e-3);
        }
    }

    #[test]
    fn plural_picks_the_form() {
        assert_eq!(plural(1, "class", "classes"), "1 class");
        assert_eq!(plural(0, "class", "classes"), "0 classes");
        assert_eq!(plural(20, "finding", "findings"), "20 findings");
    }
}
