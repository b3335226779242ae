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
    /// Batch transitive reachability over one predicate from many seeds
    #[command(
        after_help = "Example:\n  rete reach social.rete -p foaf:knows --from '<http://example.org/social/person/1>'"
    )]
    Reach(ReachArgs),
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
    /// Quads per permutation block
    #[arg(long, default_value_t = 4096)]
    pub block_quads: usize,
    /// Do not compute the community pyramid (smaller file, faster build, no map in the app)
    #[arg(long)]
    pub no_pyramid: bool,
    /// Do not store the schema block (class tree, relations, axioms for coherence tier 0)
    #[arg(long)]
    pub no_schema: bool,
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
    /// Give up after this many seconds
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Base IRI for relative IRIs in the query
    #[arg(long)]
    pub base: Option<String>,
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
