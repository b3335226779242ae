//! What the commands send to the webview. Everything is plain serializable data: the webview never
//! sees a file handle, only these views of the engine's answers.

use serde::Serialize;

/// An enum that crosses to the UI as one of a few fixed strings (a TypeScript union there); it
/// compares equal to its string, so `view.kind == "pyramid"` reads as before.
macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
        #[cfg_attr(test, derive(ts_rs::TS))]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant,)+
        }

        impl $name {
            /// The string the UI receives.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }
    };
}

wire_enum! {
    /// What a term is.
    TermKind {
        /// An IRI.
        Iri = "iri",
        /// A blank node.
        Bnode = "bnode",
        /// A literal.
        Literal = "literal",
    }
}

wire_enum! {
    /// What a map node stands for.
    NodeKind {
        /// A community of the pyramid.
        Community = "community",
        /// The instances of a class.
        Class = "class",
        /// One entity.
        Entity = "entity",
    }
}

wire_enum! {
    /// What a map view shows.
    ViewKind {
        /// The pyramid's top level.
        Pyramid = "pyramid",
        /// The class overview (a file without a pyramid).
        Classes = "classes",
        /// A group's member entities.
        Members = "members",
        /// An entity and its neighbours.
        Neighbourhood = "neighbourhood",
        /// A community's sub-communities.
        Children = "children",
        /// A CONSTRUCT or DESCRIBE result.
        QueryGraph = "query-graph",
    }
}

wire_enum! {
    /// Where the legend comes from.
    LegendSource {
        /// The file's schema block.
        Schema = "schema",
        /// The card's class counts.
        Card = "card",
    }
}

wire_enum! {
    /// How a query ended.
    QueryStatus {
        /// It answered.
        Ok = "ok",
        /// It failed (syntax, evaluation).
        Error = "error",
        /// The user stopped it.
        Cancelled = "cancelled",
        /// It was stopped at its time limit.
        Timeout = "timeout",
    }
}

wire_enum! {
    /// What a query answers with.
    QueryKind {
        /// Solutions (SELECT).
        Select = "select",
        /// A boolean (ASK).
        Ask = "ask",
        /// Triples (CONSTRUCT, DESCRIBE).
        Graph = "graph",
    }
}

wire_enum! {
    /// How a coherence check ended.
    RunStatus {
        /// It finished.
        Ok = "ok",
        /// The user stopped it.
        Cancelled = "cancelled",
    }
}

wire_enum! {
    /// What a search hit is.
    HitKind {
        /// An entity (anything that is not a class or a predicate).
        Entity = "entity",
        /// A class.
        Class = "class",
        /// A predicate.
        Predicate = "predicate",
    }
}

wire_enum! {
    /// Where a build of an RDF file stands.
    ImportStatus {
        /// Building.
        Running = "running",
        /// Built now.
        Built = "built",
        /// Found in the cache.
        Cached = "cached",
        /// The user stopped it.
        Cancelled = "cancelled",
        /// It failed (the error says why).
        Failed = "failed",
    }
}

/// A term as the UI shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TermView {
    /// Dictionary id within the open document (0 for literals that are not looked up by id).
    pub id: u64,
    /// The term in N-Triples syntax.
    pub nt: String,
    /// A short human label: `rdfs:label`-like literal, prefixed name or local name.
    pub label: String,
    /// What the term is.
    pub kind: TermKind,
}

/// A class (or other term) with a count, as listed on the card.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Counted {
    /// The term in N-Triples syntax.
    pub nt: String,
    /// Short label.
    pub label: String,
    /// Count.
    pub count: u64,
}

/// Summary of an open document, sent once after opening.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DocInfo {
    /// Handle to pass back to the other commands.
    pub doc: u32,
    /// Path or URL it was opened from.
    pub source: String,
    /// File name (last path segment).
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Distinct quads.
    pub quads: u64,
    /// Dictionary terms.
    pub terms: u64,
    /// Distinct subjects / predicates / objects.
    pub subjects: u64,
    /// Distinct predicates.
    pub predicates: u64,
    /// Distinct objects.
    pub objects: u64,
    /// Named graphs.
    pub graphs: usize,
    /// Classes by instance count (the card's list).
    pub classes: Vec<Counted>,
    /// Predicates by use count (the card's list, first 50).
    pub top_predicates: Vec<Counted>,
    /// Whether the file carries a community pyramid.
    pub has_pyramid: bool,
    /// Whether the file carries a schema block.
    pub has_schema: bool,
    /// Number of pyramid levels (0 without a pyramid).
    pub levels: usize,
    /// Whether the file is read over HTTP (range requests).
    pub remote: bool,
    /// Tool and version that built the file.
    pub built_by: String,
    /// Whether RDFS/OWL-RL materialization was applied at build time.
    pub materialized: bool,
}

/// One node of the map.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MapNode {
    /// Unique key on the map: `c<level>:<id>` for communities, `k:<class id>` for class groups,
    /// `e:<term id>` for entities.
    pub key: String,
    /// What the node stands for.
    pub kind: NodeKind,
    /// Display label.
    pub label: String,
    /// Members (communities, classes) or 1 (entities).
    pub size: u64,
    /// Class used for colour (N-Triples), if any.
    pub class: Option<String>,
    /// Position in layout coordinates; `None` when the UI must lay the node out.
    pub x: Option<f32>,
    /// See `x`.
    pub y: Option<f32>,
    /// Radius in layout coordinates (communities); children lie inside it.
    pub r: Option<f32>,
    /// Whether zooming into the node can expand it.
    pub expandable: bool,
    /// Pyramid level (communities), otherwise `None`.
    pub level: Option<u32>,
    /// Community id (communities), class term id (class groups) or term id (entities).
    pub id: u64,
    /// Class breakdown (communities, top 8).
    pub classes: Vec<Counted>,
}

/// One edge of the map.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MapEdge {
    /// Key of the source node.
    pub source: String,
    /// Key of the target node.
    pub target: String,
    /// Number of triples it stands for.
    pub weight: u64,
    /// Label: the predicate, or the main predicates of a super-edge.
    pub label: String,
}

/// A set of nodes and edges to put on the map. It goes to the webview in columns (see
/// [`crate::wire`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MapView {
    /// What the view shows.
    pub kind: ViewKind,
    /// Nodes.
    pub nodes: Vec<MapNode>,
    /// Edges among them.
    pub edges: Vec<MapEdge>,
    /// Explains what the view is, e.g. that it was computed from a sample.
    pub note: String,
    /// Whether limits cut the view short.
    pub truncated: bool,
}

/// A predicate-value pair of an entity.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Link {
    /// The predicate.
    pub predicate: TermView,
    /// The other end: the object of an outgoing triple or the subject of an incoming one.
    pub other: TermView,
}

/// Everything the details panel shows about one entity.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct EntityDetails {
    /// The entity.
    pub term: TermView,
    /// Its `rdf:type`s.
    pub types: Vec<TermView>,
    /// Outgoing triples whose object is a literal.
    pub properties: Vec<Link>,
    /// Outgoing triples whose object is an IRI or blank node.
    pub out_links: Vec<Link>,
    /// Incoming triples.
    pub in_links: Vec<Link>,
    /// Total outgoing triples (may exceed what is listed).
    pub out_total: u64,
    /// Total incoming triples.
    pub in_total: u64,
}

/// A super-edge from a community to another one, as the details panel lists it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct GroupLink {
    /// Map key of the other community.
    pub key: String,
    /// Its label.
    pub label: String,
    /// Triples between the two.
    pub weight: u64,
    /// Main predicates of those triples.
    pub predicates: String,
}

/// Where a term lives on the map.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Located {
    /// The term (N-Triples) as asked.
    pub nt: String,
    /// Its dictionary id, if the file has it.
    pub id: Option<u64>,
    /// Map keys from the coarsest group down to the entity (`c<level>:<id>`…, `e:<id>`).
    pub keys: Vec<String>,
}

/// Details of a community (pyramid) or class group.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct GroupDetails {
    /// Key on the map.
    pub key: String,
    /// Label.
    pub label: String,
    /// Members.
    pub size: u64,
    /// Pyramid level (communities).
    pub level: Option<u32>,
    /// Largest sub-communities (`nt` holds their map key).
    pub children: Vec<Counted>,
    /// Strongest super-edges to other communities.
    pub links: Vec<GroupLink>,
    /// Class breakdown.
    pub classes: Vec<Counted>,
    /// Main predicates of the edges leaving or entering the group.
    pub top_predicates: Vec<Counted>,
    /// A few members (first ones).
    pub sample: Vec<TermView>,
}

/// One class of the legend.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LegendClass {
    /// The class IRI in N-Triples syntax.
    pub nt: String,
    /// Label.
    pub label: String,
    /// Index of the parent entries in `Legend::classes` (a class tree).
    pub parents: Vec<usize>,
    /// Depth in the tree.
    pub depth: u32,
    /// Direct instances.
    pub direct: u64,
    /// Instances including subclasses'.
    pub total: u64,
}

/// One relation of the legend: domain class → predicate → range class.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LegendRelation {
    /// Domain class (N-Triples).
    pub domain: String,
    /// Predicate.
    pub predicate: Counted,
    /// Range class (N-Triples).
    pub range: String,
}

/// The schema legend.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Legend {
    /// Where the legend comes from.
    pub source: LegendSource,
    /// Classes, most instances first.
    pub classes: Vec<LegendClass>,
    /// Relations, most used first.
    pub relations: Vec<LegendRelation>,
    /// Explains where the relations come from.
    pub note: String,
}

/// A class or predicate offered by the query editor's autocompletion.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Vocab {
    /// The IRI.
    pub iri: String,
    /// Label or short name.
    pub label: String,
    /// Instances (classes) or triples (predicates).
    pub count: u64,
}

/// An example query offered by the query pane.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct QueryExample {
    /// What it shows.
    pub title: String,
    /// The query (it may use the file's prefixes without declaring them).
    pub query: String,
}

/// What the query editor knows about the file.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SparqlContext {
    /// Prefix → namespace: the file's (card, schema) and a few well-known ones.
    pub prefixes: Vec<(String, String)>,
    /// Classes with instance counts.
    pub classes: Vec<Vocab>,
    /// Predicates with triple counts.
    pub predicates: Vec<Vocab>,
    /// Example queries built from the card.
    pub examples: Vec<QueryExample>,
}

/// A query error: a syntax error carries its position (1-based; 0 when unknown).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct QueryError {
    /// The engine's message.
    pub message: String,
    /// Line of a syntax error.
    pub line: u64,
    /// Column of a syntax error.
    pub column: u64,
}

/// What the app holds in memory for its documents: the caches an exploration fills, each with
/// its bound (so a growing process can be read against them).
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MemoryView {
    /// Each open document's caches, by handle.
    pub docs: Vec<DocMemory>,
    /// Query results kept for paging and export.
    pub kept_results: usize,
    /// The most results kept.
    pub max_kept_results: usize,
    /// Bytes of the kept results' rows together.
    pub kept_result_bytes: usize,
    /// The most bytes kept together (the newest result is kept whatever its size).
    pub max_kept_result_bytes: usize,
}

/// One open document's caches ([`MemoryView`]).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DocMemory {
    /// The document's handle.
    pub doc: u32,
    /// Decoded blocks (dictionary and permutations) in the file's block cache.
    pub blocks: usize,
    /// Their weight as the cache counts it (bytes).
    pub block_bytes: usize,
    /// The block cache's bound in bytes.
    pub max_block_bytes: usize,
    /// Block directory entries loaded (bytes): at most the file's directories.
    pub directory_bytes: usize,
    /// A remote file's fetched ranges held (bytes; 0 for a local file).
    pub range_bytes: usize,
    /// The range cache's bound in bytes (0 for a local file).
    pub max_range_bytes: usize,
    /// Decoded pyramid blocks (communities, super-edges, members) held.
    pub pyramid_blocks: usize,
    /// Their bytes.
    pub pyramid_bytes: usize,
    /// The most pyramid blocks held.
    pub max_pyramid_blocks: usize,
    /// Communities and super-edges kept for the details panel.
    pub seen_items: usize,
    /// About what they take in memory (bytes).
    pub seen_bytes: usize,
    /// The most kept before they are dropped.
    pub max_seen_items: usize,
}

/// Bytes and requests that reached the file or the server.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ReadView {
    /// Bytes read.
    pub bytes: u64,
    /// Read requests (HTTP requests for a remote file).
    pub requests: u64,
    /// Whether the file is read over HTTP.
    pub remote: bool,
    /// A remote file's byte budget: fetching beyond it fails until the user agrees to more.
    pub budget: Option<u64>,
    /// Bytes fetched since the file was opened (what the budget counts).
    pub fetched: u64,
}

/// The outcome of a query run.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct QueryOutcome {
    /// The run's handle (for pages and export).
    pub run: u32,
    /// How it ended.
    pub status: QueryStatus,
    /// What it answers with.
    pub kind: QueryKind,
    /// Column names.
    pub columns: Vec<String>,
    /// Rows in the result.
    pub total: usize,
    /// The first rows.
    pub rows: Vec<Vec<Option<TermView>>>,
    /// ASK answer.
    pub boolean: Option<bool>,
    /// A CONSTRUCT/DESCRIBE result as a graph to draw.
    pub graph: Option<MapView>,
    /// Whether the result was cut at the row limit.
    pub truncated: bool,
    /// Evaluation time.
    pub elapsed_ms: f64,
    /// The error, for `error`.
    pub error: Option<QueryError>,
    /// What the query read.
    pub read: ReadView,
    /// Why an empty answer is empty when the default graph is to blame (the file's data is in
    /// named graphs), and what to do about it.
    pub hint: Option<String>,
}

/// What a query will read, before it runs (an upper bound).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CostEstimate {
    /// Bytes to fetch.
    pub bytes: u64,
    /// Requests to make.
    pub requests: u64,
    /// Permutation blocks to decode.
    pub blocks: u64,
    /// Triple patterns (and path steps) counted.
    pub patterns: usize,
    /// Patterns with a constant the file does not have (they cost nothing).
    pub absent: usize,
    /// Whether part of the query (complex property paths, DESCRIBE) was bounded coarsely.
    pub partial: bool,
    /// The syntax error, if the query does not parse.
    pub error: Option<QueryError>,
}

/// Progress of a coherence run, sent as each tier finishes.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CoherenceProgress {
    /// Run handle.
    pub run: u32,
    /// The tier that just finished.
    pub tier: u8,
    /// Its report (findings of this tier and the ones below).
    #[cfg_attr(test, ts(type = "CoherenceReport"))]
    pub report: rete_coherence::Report,
}

/// The outcome of a coherence run.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CoherenceOutcome {
    /// Run handle.
    pub run: u32,
    /// How it ended.
    pub status: RunStatus,
    /// The report of the last tier that finished.
    #[cfg_attr(test, ts(type = "CoherenceReport | null"))]
    pub report: Option<rete_coherence::Report>,
}

/// What a path search may follow (the app's filters; `rete path --via/--without`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PathFilters {
    /// Only links with these predicates (N-Triples IRIs), when not empty.
    #[serde(default)]
    pub via: Vec<String>,
    /// Never links with these predicates (N-Triples IRIs).
    #[serde(default)]
    pub without: Vec<String>,
    /// Also follow schema links (`rdf:type`, `rdfs:subClassOf`, …), left out by default.
    #[serde(default)]
    pub include_schema: bool,
    /// Never pass through entities with more links than this (the two ends are exempt).
    #[serde(default)]
    pub max_degree: Option<u64>,
}

/// The results of one shape and one constraint component (rete-shacl's summary group).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ShapesGroup {
    /// The source shape (N-Triples form: `<iri>` or `_:b`).
    pub shape: String,
    /// The constraint component's IRI.
    pub component: String,
    /// The severity's IRI.
    pub severity: String,
    /// The result path (SPARQL path syntax), when the shape has one.
    pub path: Option<String>,
    /// Number of results.
    pub count: u64,
    /// Number of distinct focus nodes.
    pub focus_count: u64,
    /// The first focus nodes (N-Triples form), in first-seen order.
    pub focus_nodes: Vec<String>,
    /// The first distinct messages.
    pub messages: Vec<String>,
}

/// Progress of a SHACL validation, sent after each shape with targets and every few thousand
/// focus nodes within one.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ShapesProgress {
    /// Run handle.
    pub run: u32,
    /// Shapes with targets validated so far.
    pub shapes_done: u64,
    /// Shapes with targets in all.
    pub shapes_total: u64,
    /// Focus nodes validated so far (all shapes).
    pub focus_nodes_done: u64,
    /// Focus nodes of the shape being validated.
    pub shape_focus_nodes: u64,
    /// How many of those are done.
    pub shape_focus_nodes_done: u64,
    /// Results so far.
    pub results: u64,
}

impl ShapesProgress {
    /// Run `run`'s progress as rete-shacl reports it.
    pub fn of(run: u32, p: &rete_shacl::Progress) -> Self {
        Self {
            run,
            shapes_done: p.shapes_done as u64,
            shapes_total: p.shapes_total as u64,
            focus_nodes_done: p.focus_nodes_done,
            shape_focus_nodes: p.shape_focus_nodes,
            shape_focus_nodes_done: p.shape_focus_nodes_done,
            results: p.results as u64,
        }
    }
}

/// The outcome of a SHACL validation.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ShapesOutcome {
    /// Run handle.
    pub run: u32,
    /// How it ended.
    pub status: RunStatus,
    /// Where the shapes came from: the shapes file, or the dataset.
    pub source: String,
    /// Whether the data conforms (none when cancelled).
    pub conforms: Option<bool>,
    /// Number of results.
    pub results: u64,
    /// Results grouped by shape and constraint component, most results first.
    pub groups: Vec<ShapesGroup>,
    /// The shapes' SHACL-AF rules (`sh:rule`), which infer triples and were not run: the data
    /// was validated as given.
    pub rules_not_run: u64,
    /// Time taken.
    pub elapsed_ms: u64,
}

mod find;
pub use find::*;
