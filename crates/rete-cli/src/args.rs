//! The command line: every command, its options and its `--help` (each with an example).

use clap::{Args, Parser, Subcommand, ValueEnum};
use rete_build::Syntax;
use std::path::PathBuf;

/// What `rete` with no arguments prints: the commands in the order a newcomer meets them.
pub const TOUR: &str = "\
rete builds, inspects, queries and verifies .rete RDF files.

A first tour (each command has --help with an example):
  rete generate social --people 2000 -o social.nt    # a synthetic social graph
  rete build social.nt -o social.rete                 # RDF in, one .rete file out
  rete info social.rete                               # header, sections, card
  rete prefixes social.rete                           # prefixes a query may use
  rete sparql social.rete 'SELECT (COUNT(*) AS ?n) WHERE { ?s foaf:knows ?o }'
  rete query social.rete -p foaf:knows --count        # one triple pattern
  rete summary social.rete                            # the community pyramid
  rete verify social.rete                             # every checksum and block

Files may be local paths or http(s) URLs (read lazily with range requests).
Run `rete help` for every command, `rete help COMMAND` for one.
";

#[derive(Parser)]
#[command(
    name = "rete",
    version,
    about = "Build, inspect, query and verify .rete RDF files",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Print the bytes and requests read from the file or server (to stderr)
    #[arg(long, global = true)]
    pub stats: bool,
    /// Follow a URL's redirects to HOST (or HOST:PORT) too, e.g. the storage host of GitHub
    /// release assets; repeat for several. Loopback and private addresses stay refused unless
    /// the URL given is one
    #[arg(long, global = true, value_name = "HOST")]
    pub allow_redirect_host: Vec<String>,
    /// Follow a URL's redirects to any other public host
    #[arg(long, global = true)]
    pub follow_redirects: bool,
}

#[derive(Subcommand)]
pub enum Command {
    /// Build a .rete file from RDF (N-Triples, N-Quads, Turtle, TriG, RDF/XML; .gz/.zst; `-` for stdin)
    #[command(after_help = "Example:\n  rete build social.nt -o social.rete")]
    Build(BuildArgs),
    /// Show the header, sections and card of a .rete file
    #[command(after_help = "Example:\n  rete info social.rete --json")]
    Info(InfoArgs),
    /// Match one triple/quad pattern and print the matches as N-Triples/N-Quads
    #[command(after_help = "Example:\n  rete query social.rete -p foaf:knows --count")]
    Query(QueryArgs),
    /// Run a SPARQL 1.1 query
    #[command(
        after_help = "Example:\n  rete sparql social.rete 'SELECT ?name WHERE { ?p foaf:name ?name } LIMIT 3'"
    )]
    Sparql(SparqlArgs),
    /// List the prefixes queries and terms may use without declaring them
    #[command(after_help = "Example:\n  rete prefixes social.rete")]
    Prefixes(InfoArgs),
    /// Show the community pyramid: levels, one level's communities, or one community's contents
    #[command(after_help = "Example:\n  rete summary social.rete --level 0 --community 3")]
    Summary(SummaryArgs),
    /// Find entities, classes and predicates by label: word prefixes, any order, typos forgiven
    #[command(
        after_help = "Example:\n  rete search social.rete 'ali smi' --limit 5\n  rete search medical.rete diabetes --kind class --json"
    )]
    Search(SearchArgs),
    /// Add a search index to a .rete built without one (or by an older rete), as a new file
    #[command(after_help = "Example:\n  rete index medical.rete -o medical-indexed.rete")]
    Index(IndexArgs),
    /// Batch transitive reachability over one predicate from many seeds
    #[command(
        after_help = "Example:\n  rete reach social.rete -p foaf:knows --from '<http://example.org/social/person/1>'"
    )]
    Reach(ReachArgs),
    /// The k shortest paths between two entities, over every link in either direction
    #[command(
        after_help = "Example:\n  rete path social.rete '<http://example.org/social/person/1>' '<http://example.org/social/person/7>' -k 3"
    )]
    Path(PathArgs),
    /// Show the schema: class tree with instance counts, relations, axioms
    #[command(after_help = "Example:\n  rete schema medical.rete")]
    Schema(JsonFileArgs),
    /// Check the ontology and data for incoherence (tier 0 schema, 1 selective, 2 full)
    #[command(after_help = "Example:\n  rete coherence medical.rete --tier 0")]
    Coherence(CoherenceArgs),
    /// Validate the data against SHACL shapes (exit 0 conforms, 1 does not, 2 error)
    #[command(after_help = "Example:\n  rete shacl people.rete --shapes shapes.ttl --format ttl")]
    Shacl(ShaclArgs),
    /// Write the whole dataset as N-Triples, N-Quads, Turtle or TriG
    #[command(after_help = "Example:\n  rete export social.rete --format ttl -o social.ttl")]
    Export(ExportArgs),
    /// Check every checksum, block and permutation of a .rete file
    #[command(after_help = "Example:\n  rete verify social.rete")]
    Verify(FileArg),
    /// Bytes and requests a query or pattern will fetch (exact for one pattern, else an upper bound)
    #[command(after_help = "Example:\n  rete cost social.rete -p foaf:knows")]
    Cost(CostArgs),
    /// Generate a synthetic dataset (N-Triples) for samples and benchmarks
    #[command(after_help = "Example:\n  rete generate social --people 2000 -o social.nt")]
    Generate(GenerateArgs),
    /// Serve .rete files as read-only SPARQL 1.1 endpoints over HTTP (one per file)
    #[command(
        after_help = "Example:\n  rete serve social.rete --cors '*'    # http://127.0.0.1:7878/social/sparql"
    )]
    Serve(ServeArgs),
}

#[derive(Args)]
pub struct ServeArgs {
    /// .rete files or http(s) URLs; each answers at /NAME/sparql, NAME being the file name
    /// without .rete (write NAME=FILE to choose it)
    #[arg(required = true, value_name = "FILE|URL")]
    pub files: Vec<String>,
    /// Address to listen on (port 0: any free port)
    #[arg(long, default_value = "127.0.0.1:7878")]
    pub bind: String,
    /// Stop a query after this long and answer 503 (e.g. 30s, 500ms, 2m; 0 for no limit)
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Refuse (400) an answer with more rows or triples than this, rather than cut it
    #[arg(long)]
    pub max_rows: Option<u64>,
    /// Queries run at once (default: the number of cores)
    #[arg(long)]
    pub threads: Option<usize>,
    /// Queries that may wait for a worker before more are refused with 503 (default: 4 × threads)
    #[arg(long)]
    pub queue: Option<usize>,
    /// Origins allowed to query from a web page (CORS), comma-separated; `*` for any
    #[arg(long, value_delimiter = ',', value_name = "ORIGINS")]
    pub cors: Vec<String>,
    /// Largest request body (413 beyond), e.g. 1M
    #[arg(long, default_value = "1M", value_parser = parse_size)]
    pub max_body: usize,
    /// Decoded blocks kept in memory per served file, e.g. 2G (default: twice a local file's
    /// size, at least 256M, the files together at most a quarter of the machine's memory; 256M
    /// for a URL): queries over a large file decode far less once what they touch fits
    #[arg(long, value_parser = parse_size)]
    pub cache: Option<usize>,
    /// The default graph of a query is the union of all graphs (each triple once); the
    /// protocol's default-graph-uri and the query's FROM still win
    #[arg(long)]
    pub union_default_graph: bool,
    /// Let SERVICE call endpoints on this host (`host` or `host:port`; repeat or comma-separate;
    /// `*` for any). Without it a query with SERVICE is refused
    #[arg(long, value_delimiter = ',', value_name = "HOST")]
    pub allow_service: Vec<String>,
}

/// A duration such as `30s`, `500ms`, `2m`, `1h` or a number of seconds.
fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("invalid duration {s:?}: write e.g. 30s, 500ms or 2m"))?;
    let secs = match unit {
        "" | "s" => n,
        "ms" => n / 1000.0,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        other => return Err(format!("unknown time unit {other:?}: use ms, s, m or h")),
    };
    std::time::Duration::try_from_secs_f64(secs).map_err(|e| format!("invalid duration {s:?}: {e}"))
}

#[derive(Args)]
pub struct BuildArgs {
    /// Input files (`-` reads standard input)
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output .rete file
    #[arg(short, long)]
    pub output: PathBuf,
    /// Syntax of the inputs when it cannot be told from their names
    #[arg(long, value_parser = parse_syntax)]
    pub format: Option<Syntax>,
    /// Base IRI for relative IRIs
    #[arg(long)]
    pub base: Option<String>,
    /// Memory of the build (terms, quads, sort runs, the pyramid's graph), e.g. 512M or 4G; beyond it the build spills to disk
    #[arg(long, default_value = "2G", value_parser = parse_size)]
    pub memory_budget: usize,
    /// Directory for temporary files (default: next to the output)
    #[arg(long)]
    pub temp_dir: Option<PathBuf>,
    /// zstd compression level of blocks, the pyramid's included (1-22)
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(i32).range(1..=22))]
    pub zstd_level: i32,
    /// Quads per permutation block (16 to 65536)
    #[arg(long, default_value_t = 4096, value_parser = parse_block_quads)]
    pub block_quads: usize,
    /// Do not compute the community pyramid (smaller file, faster build, no map in the app)
    #[arg(long)]
    pub no_pyramid: bool,
    /// Place each community's members on a spiral by degree instead of by their links (the
    /// force-directed layout stored in the file by default)
    #[arg(long, conflicts_with = "no_pyramid")]
    pub no_member_layout: bool,
    /// Do not store the schema block (class tree, relations, axioms for coherence tier 0)
    #[arg(long)]
    pub no_schema: bool,
    /// Do not build the search index (`rete search` then scans the labels, more slowly)
    #[arg(long)]
    pub no_search: bool,
    /// Label predicates of the search index, most preferred first (IRIs, comma-separated);
    /// default: skos:prefLabel, rdfs:label, foaf:name, schema:name, dcterms:title, dc:title,
    /// skos:altLabel, skos:hiddenLabel, schema:alternateName, skosxl:literalForm
    #[arg(long, value_delimiter = ',', value_name = "IRIS")]
    pub label_predicates: Option<Vec<String>>,
    /// Materialize entailments first: RDFS and an OWL-RL subset (`all`, the default), or a
    /// comma-separated list (`--materialize=rdfs,owl-properties`) of rdfs, owl-properties,
    /// owl-equivalence, owl-schema, same-as
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "all", value_name = "RULE SETS")]
    pub materialize: Option<String>,
    /// Do not print progress
    #[arg(short, long)]
    pub quiet: bool,
    /// After the build, print the report: each phase's time and spilled bytes, the peak spill on
    /// disk
    #[arg(long)]
    pub report: bool,
    /// Print the build report as JSON on standard output (phases, spills, counts)
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct FileArg {
    /// A .rete file or an http(s) URL
    pub file: String,
}

#[derive(Args)]
pub struct InfoArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct QueryArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// Subject (`<iri>`, `_:label`, or a prefixed name: see `rete prefixes FILE`)
    #[arg(short, long)]
    pub subject: Option<String>,
    /// Predicate
    #[arg(short, long)]
    pub predicate: Option<String>,
    /// Object (`<iri>`, `"literal"@lang`, `"5"^^<datatype>`, `_:label`, prefixed name)
    #[arg(short, long)]
    pub object: Option<String>,
    /// Graph (`<iri>`, `default` for the default graph; any graph when absent)
    #[arg(short, long)]
    pub graph: Option<String>,
    /// Print at most this many matches
    #[arg(long)]
    pub limit: Option<u64>,
    /// Print only the number of matches
    #[arg(long)]
    pub count: bool,
}

#[derive(Args)]
pub struct SparqlArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// The query text (or use -f); the prefixes of `rete prefixes FILE` need no PREFIX line
    #[arg(required_unless_present = "query_file", conflicts_with = "query_file")]
    pub query: Option<String>,
    /// Read the query from a file (`-` for standard input)
    #[arg(short = 'f', long = "file")]
    pub query_file: Option<PathBuf>,
    /// Result format: table, json, xml, csv, tsv; CONSTRUCT/DESCRIBE: ntriples, turtle
    #[arg(long, default_value = "table", value_parser = parse_result_format)]
    pub format: rete_sparql::ResultFormat,
    /// Give up after this many seconds (0: no deadline)
    #[arg(long, default_value = "60", value_parser = parse_timeout)]
    pub timeout: f64,
    /// Base IRI for relative IRIs in the query
    #[arg(long)]
    pub base: Option<String>,
    /// The default graph is the union of all graphs (each triple once); FROM still wins
    #[arg(long)]
    pub union_default_graph: bool,
    /// Let SERVICE call endpoints on this host (`host` or `host:port`; repeat or comma-separate;
    /// `*` for any). Without it a query with SERVICE is refused
    #[arg(long, value_delimiter = ',', value_name = "HOST")]
    pub allow_service: Vec<String>,
}

fn parse_result_format(s: &str) -> Result<rete_sparql::ResultFormat, String> {
    rete_sparql::ResultFormat::from_name(s).ok_or_else(|| {
        format!(
            "unknown format {s:?}: use {}",
            rete_sparql::ResultFormat::NAMES.join(", ")
        )
    })
}

#[derive(Args)]
pub struct CostArgs {
    /// The pattern, when no SPARQL query is given
    #[command(flatten)]
    pub pattern: QueryArgs,
    /// A SPARQL query to estimate instead of a pattern
    #[arg(long, conflicts_with_all = ["subject", "predicate", "object", "graph"])]
    pub sparql: Option<String>,
    /// Estimate the query over the union of all graphs (as `rete sparql --union-default-graph`)
    #[arg(long)]
    pub union_default_graph: bool,
}

#[derive(Args)]
pub struct JsonFileArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ShaclArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// The shapes graph: a file or URL in any RDF syntax (.ttl, .nt, .nq, .trig, .rdf,
    /// .jsonld); without it, the shapes the dataset itself holds
    #[arg(long)]
    pub shapes: Option<String>,
    /// text: a summary grouped by shape and constraint; ttl / jsonld: the W3C validation
    /// report; json: the summary as JSON
    #[arg(long, value_enum, default_value_t = ShaclFormat::Text)]
    pub format: ShaclFormat,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShaclFormat {
    Text,
    Ttl,
    Jsonld,
    Json,
}

#[derive(Args)]
pub struct CoherenceArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// 0: schema only (unsatisfiable classes, from a few KB); 1: plus types, sameAs and
    /// differentFrom; 2: the full graph (property characteristics, domains and ranges)
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub tier: u8,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    /// Also for a URL, look up the named graph of every step and the declared prefixes (a few
    /// more requests; always done for a local file)
    #[arg(long)]
    pub sources: bool,
}

#[derive(Args)]
pub struct ReachArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// The predicate to follow
    #[arg(short, long)]
    pub predicate: String,
    /// Seeds (`<iri>`, prefixed names, `_:b`); several allowed
    #[arg(long = "from", required = true, num_args = 1..)]
    pub from: Vec<String>,
    /// One task per seed on all cores
    #[arg(long)]
    pub parallel: bool,
    /// Follow edges from object to subject
    #[arg(long)]
    pub backward: bool,
    /// At most this many steps
    #[arg(long)]
    pub max_depth: Option<u32>,
    /// Count each seed as reached from itself (P* instead of P+)
    #[arg(long)]
    pub include_seeds: bool,
    /// List the reached terms
    #[arg(long)]
    pub terms: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct PathArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// The first entity (`<iri>`, prefixed name, `_:b`)
    pub from: String,
    /// The second entity
    pub to: String,
    /// How many paths, shortest first
    #[arg(short, default_value_t = 5)]
    pub k: usize,
    /// At most this many links per path
    #[arg(long, default_value_t = 6)]
    pub max_hops: u32,
    /// Only links with these predicates (comma-separated)
    #[arg(long, value_delimiter = ',')]
    pub via: Vec<String>,
    /// Never links with these predicates (comma-separated)
    #[arg(long, value_delimiter = ',')]
    pub without: Vec<String>,
    /// Never through instances of these classes (comma-separated)
    #[arg(long, value_delimiter = ',')]
    pub without_class: Vec<String>,
    /// Also follow schema links (rdf:type, rdfs:subClassOf, rdfs:domain, rdfs:range, owl:*)
    #[arg(long)]
    pub schema: bool,
    /// Never through entities with more links than this (the two ends are exempt)
    #[arg(long)]
    pub max_degree: Option<u64>,
    /// Stop after this many seconds, keeping the paths found
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct SummaryArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// Level to show (0 = finest); default: the top level
    #[arg(long)]
    pub level: Option<usize>,
    /// A community of --level: show its sub-communities (or, on level 0, its members)
    #[arg(long, requires = "level")]
    pub community: Option<u32>,
    /// Languages of community labels, most preferred first (BCP 47 tags: fr,de-CH); default:
    /// LANGUAGE, LC_ALL, LC_MESSAGES or LANG; then English, then any
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub lang: Option<Vec<String>>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct IndexArgs {
    /// A local .rete file
    pub file: String,
    /// The new file: FILE's sections and the index (written beside it, then renamed into place)
    #[arg(short, long)]
    pub output: PathBuf,
    /// Label predicates of the index, most preferred first (IRIs, comma-separated); default as
    /// for `rete build`
    #[arg(long, value_delimiter = ',', value_name = "IRIS")]
    pub label_predicates: Option<Vec<String>>,
    /// Memory of the index's labels and word lists, e.g. 4G (as `rete build --memory-budget`)
    #[arg(long, default_value = "2G", value_parser = parse_size)]
    pub memory_budget: usize,
}

#[derive(Args)]
pub struct SearchArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// What to look for: words in any order, each a word or the start of one
    pub text: String,
    /// Only entities, classes or predicates
    #[arg(long, value_parser = ["entity", "class", "predicate"])]
    pub kind: Option<String>,
    /// Only instances of this class (<iri> or prefix:name)
    #[arg(long)]
    pub class: Option<String>,
    /// Preferred label languages, most preferred first (BCP 47 tags: fr,de-CH); default:
    /// LANGUAGE, LC_ALL, LC_MESSAGES or LANG; then English
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub lang: Option<Vec<String>>,
    /// At most this many results (at most 1000)
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Only entities in this community of the pyramid: LEVEL:ID (see `rete summary`)
    #[arg(long, value_name = "LEVEL:ID")]
    pub within: Option<String>,
    /// Where all the matches are instead of the best ones: on each pyramid level, top first,
    /// the communities holding matched entities and how many (the most first, --limit of them)
    #[arg(long)]
    pub spread: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    Nt,
    Nq,
    Ttl,
    Trig,
}

#[derive(Args)]
pub struct ExportArgs {
    /// A .rete file or an http(s) URL
    pub file: String,
    /// Output syntax
    #[arg(long, value_enum, default_value = "nq")]
    pub format: ExportFormat,
    /// Output file (default: standard output)
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

#[derive(Args)]
pub struct GenerateArgs {
    #[command(subcommand)]
    pub dataset: Dataset,
}

#[derive(Subcommand)]
pub enum Dataset {
    /// The upstream benchmark's social graph: people in communities of ~100 with ~5 knows edges each
    #[command(after_help = "Example:\n  rete generate social --people 2000 -o social.nt")]
    Social {
        /// Number of people
        #[arg(long, default_value_t = 20_000)]
        people: u64,
        /// Random seed
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Output file (default: standard output)
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// The Berlin SPARQL Benchmark's e-commerce data (BSBM V3): products, offers, reviews;
    /// about 2,785 products per million triples
    #[command(after_help = "Example:\n  rete generate bsbm --products 2785 -o bsbm-1m.nt")]
    Bsbm {
        /// Number of products (the scale factor)
        #[arg(long, default_value_t = 2785)]
        products: u64,
        /// Random seed
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Output file (default: standard output)
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

fn parse_syntax(s: &str) -> Result<Syntax, String> {
    Syntax::from_name(s)
        .ok_or_else(|| format!("unknown syntax {s:?}: use nt, nq, ttl, trig, rdf or jsonld"))
}

fn parse_size(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => {
            let m = match s[i..].to_ascii_uppercase().trim_end_matches(['B', 'I']) {
                "" => 1,
                "K" => 1 << 10,
                "M" => 1 << 20,
                "G" => 1 << 30,
                "T" => 1 << 40,
                other => return Err(format!("unknown size unit {other:?}")),
            };
            (&s[..i], m)
        }
        None => (s, 1usize),
    };
    let n: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("invalid size {s:?}"))?;
    Ok((n * mult as f64) as usize)
}

/// A deadline in seconds: finite and not negative (`0` for none).
fn parse_timeout(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!(
            "{s:?} is not a number of seconds (0 or more; 0 for no deadline)"
        )),
    }
}

/// Quads per permutation block: what a reader accepts (16 to `MAX_BLOCK_QUADS`).
fn parse_block_quads(s: &str) -> Result<usize, String> {
    let max = rete_core::format::MAX_BLOCK_QUADS;
    match s.parse::<usize>() {
        Ok(n) if (16..=max).contains(&n) => Ok(n),
        _ => Err(format!("{s:?} is not a block size from 16 to {max} quads")),
    }
}
