//! `rete`: a thin command-line client of the rete library crates.

mod progress;
mod terms;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use rete_build::{BuildOptions, Input, Syntax};
use rete_core::{CountingReader, FileReader, GraphMatch, Pattern, RangeReader, ReadStats, Rete};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(
    name = "rete",
    version,
    about = "Build, inspect, query and verify .rete RDF files",
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print the bytes and requests read from the file or server (to stderr)
    #[arg(long, global = true)]
    stats: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Build a .rete file from RDF (N-Triples, N-Quads, Turtle, TriG, RDF/XML; .gz/.zst; `-` for stdin)
    Build(BuildArgs),
    /// Show the header, sections and card of a .rete file
    Info(InfoArgs),
    /// Match one triple/quad pattern and print the matches as N-Triples/N-Quads
    Query(QueryArgs),
    /// Run a SPARQL 1.1 query
    Sparql(SparqlArgs),
    /// Show the community pyramid: levels, one level's communities, or one community's contents
    Summary(SummaryArgs),
    /// Batch transitive reachability over one predicate from many seeds
    Reach(ReachArgs),
    /// Show the schema: class tree with instance counts, relations, axioms
    Schema(JsonFileArgs),
    /// Check the ontology and data for incoherence (tier 0 schema, 1 selective, 2 full)
    Coherence(CoherenceArgs),
    /// Write the whole dataset as N-Triples, N-Quads, Turtle or TriG
    Export(ExportArgs),
    /// Check every checksum, block and permutation of a .rete file
    Verify(FileArg),
    /// Bytes and requests a query or pattern will fetch (exact for one pattern, else an upper bound)
    Cost(CostArgs),
    /// Generate a synthetic dataset (N-Triples) for samples and benchmarks
    Generate(GenerateArgs),
}

#[derive(Args)]
struct BuildArgs {
    /// Input files (`-` reads standard input)
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output .rete file
    #[arg(short, long)]
    output: PathBuf,
    /// Syntax of the inputs when it cannot be told from their names
    #[arg(long, value_parser = parse_syntax)]
    format: Option<Syntax>,
    /// Base IRI for relative IRIs
    #[arg(long)]
    base: Option<String>,
    /// Memory for buffered quads and sort runs, e.g. 512M or 4G; beyond it the build spills to disk
    #[arg(long, default_value = "2G", value_parser = parse_size)]
    memory_budget: usize,
    /// Directory for temporary files (default: next to the output)
    #[arg(long)]
    temp_dir: Option<PathBuf>,
    /// zstd compression level of blocks (1-22)
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(i32).range(1..=22))]
    zstd_level: i32,
    /// Quads per permutation block
    #[arg(long, default_value_t = 4096)]
    block_quads: usize,
    /// Do not compute the community pyramid (smaller file, faster build, no map in the app)
    #[arg(long)]
    no_pyramid: bool,
    /// Do not store the schema block (class tree, relations, axioms for coherence tier 0)
    #[arg(long)]
    no_schema: bool,
    /// Materialize entailments first: RDFS and an OWL-RL subset (`all`, the default), or a
    /// comma-separated list (`--materialize=rdfs,owl-properties`) of rdfs, owl-properties,
    /// owl-equivalence, owl-schema, same-as
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "all", value_name = "RULE SETS")]
    materialize: Option<String>,
    /// Do not print progress
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Args)]
struct FileArg {
    /// A .rete file or an http(s) URL
    file: String,
}

#[derive(Args)]
struct InfoArgs {
    /// A .rete file or an http(s) URL
    file: String,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct QueryArgs {
    /// A .rete file or an http(s) URL
    file: String,
    /// Subject (`<iri>`, `_:label`, or a prefixed name declared in the file)
    #[arg(short, long)]
    subject: Option<String>,
    /// Predicate
    #[arg(short, long)]
    predicate: Option<String>,
    /// Object (`<iri>`, `"literal"@lang`, `"5"^^<datatype>`, `_:label`, prefixed name)
    #[arg(short, long)]
    object: Option<String>,
    /// Graph (`<iri>`, `default` for the default graph; any graph when absent)
    #[arg(short, long)]
    graph: Option<String>,
    /// Print at most this many matches
    #[arg(long)]
    limit: Option<u64>,
    /// Print only the number of matches
    #[arg(long)]
    count: bool,
}

#[derive(Args)]
struct SparqlArgs {
    /// A .rete file or an http(s) URL
    file: String,
    /// The query text (or use -f)
    #[arg(required_unless_present = "query_file", conflicts_with = "query_file")]
    query: Option<String>,
    /// Read the query from a file (`-` for standard input)
    #[arg(short = 'f', long = "file")]
    query_file: Option<PathBuf>,
    /// Result format: table, json, xml, csv, tsv; CONSTRUCT/DESCRIBE: ntriples, turtle
    #[arg(long, default_value = "table", value_parser = parse_result_format)]
    format: rete_sparql::ResultFormat,
    /// Give up after this many seconds
    #[arg(long)]
    timeout: Option<f64>,
    /// Base IRI for relative IRIs in the query
    #[arg(long)]
    base: Option<String>,
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
struct CostArgs {
    /// The pattern, when no SPARQL query is given
    #[command(flatten)]
    pattern: QueryArgs,
    /// A SPARQL query to estimate instead of a pattern
    #[arg(long, conflicts_with_all = ["subject", "predicate", "object", "graph"])]
    sparql: Option<String>,
}

#[derive(Args)]
struct JsonFileArgs {
    /// A .rete file or an http(s) URL
    file: String,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct CoherenceArgs {
    /// A .rete file or an http(s) URL
    file: String,
    /// 0: schema only (unsatisfiable classes, from a few KB); 1: plus types, sameAs and
    /// differentFrom; 2: the full graph (property characteristics, domains and ranges)
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=2))]
    tier: u8,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ReachArgs {
    /// A .rete file or an http(s) URL
    file: String,
    /// The predicate to follow
    #[arg(short, long)]
    predicate: String,
    /// Seeds (`<iri>`, prefixed names, `_:b`); several allowed
    #[arg(long = "from", required = true, num_args = 1..)]
    from: Vec<String>,
    /// One task per seed on all cores
    #[arg(long)]
    parallel: bool,
    /// Follow edges from object to subject
    #[arg(long)]
    backward: bool,
    /// At most this many steps
    #[arg(long)]
    max_depth: Option<u32>,
    /// Count each seed as reached from itself (P* instead of P+)
    #[arg(long)]
    include_seeds: bool,
    /// List the reached terms
    #[arg(long)]
    terms: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct SummaryArgs {
    /// A .rete file or an http(s) URL
    file: String,
    /// Level to show (0 = finest); default: the top level
    #[arg(long)]
    level: Option<usize>,
    /// A community of --level: show its sub-communities (or, on level 0, its members)
    #[arg(long, requires = "level")]
    community: Option<u32>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    Nt,
    Nq,
    Ttl,
    Trig,
}

#[derive(Args)]
struct ExportArgs {
    /// A .rete file or an http(s) URL
    file: String,
    /// Output syntax
    #[arg(long, value_enum, default_value = "nq")]
    format: ExportFormat,
    /// Output file (default: standard output)
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Args)]
struct GenerateArgs {
    #[command(subcommand)]
    dataset: Dataset,
}

#[derive(Subcommand)]
enum Dataset {
    /// The upstream benchmark's social graph: people in communities of ~100 with ~5 knows edges each
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
        .ok_or_else(|| format!("unknown syntax {s:?}: use nt, nq, ttl, trig or rdf"))
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let stats = cli.stats;
    let mut src = None;
    let result = match cli.command {
        Command::Build(a) => build(a),
        Command::Info(a) => open(&a.file, &mut src).and_then(|r| info(&r, &a)),
        Command::Query(a) => open(&a.file, &mut src).and_then(|r| query(&r, &a)),
        Command::Cost(a) => open(&a.pattern.file, &mut src).and_then(|r| cost(&r, &a)),
        Command::Export(a) => open(&a.file, &mut src).and_then(|r| export(&r, &a)),
        Command::Sparql(a) => open(&a.file, &mut src).and_then(|r| sparql(&r, &a)),
        Command::Summary(a) => open(&a.file, &mut src).and_then(|r| summary(&r, &a)),
        Command::Reach(a) => open(&a.file, &mut src).and_then(|r| reach(&r, &a)),
        Command::Schema(a) => open(&a.file, &mut src).and_then(|r| schema(&r, &a)),
        Command::Coherence(a) => open(&a.file, &mut src).and_then(|r| coherence(&r, &a)),
        Command::Verify(a) => open(&a.file, &mut src).and_then(|r| verify(&r)),
        Command::Generate(a) => generate(a),
    };
    if stats {
        if let Some(src) = &src {
            let s = src.stats();
            eprintln!(
                "fetched {} bytes in {} requests from {}",
                s.bytes,
                s.requests,
                src.name()
            );
        }
    }
    result
}

/// Where a file is read from: a local path, or a URL through `rete-http`. Both count what they
/// read, for `--stats`.
enum Src {
    Local(Arc<CountingReader<FileReader>>),
    Remote(Arc<rete_http::HttpReader>),
}

impl Src {
    fn stats(&self) -> ReadStats {
        match self {
            Src::Local(r) => r.stats(),
            Src::Remote(r) => r.stats(),
        }
    }
    fn name(&self) -> &str {
        match self {
            Src::Local(r) => r.name(),
            Src::Remote(r) => r.name(),
        }
    }
}

/// Opens a local file or a URL; `src` keeps the byte source for `--stats`.
fn open(file: &str, src: &mut Option<Src>) -> Result<Rete> {
    let reader: Arc<dyn RangeReader> = if rete_http::is_url(file) {
        let r = Arc::new(rete_http::HttpReader::open(file)?);
        *src = Some(Src::Remote(r.clone()));
        r
    } else {
        let r = Arc::new(CountingReader::new(FileReader::open(file)?));
        *src = Some(Src::Local(r.clone()));
        r
    };
    Ok(Rete::open(reader)?)
}

fn build(a: BuildArgs) -> Result<()> {
    let inputs = a
        .inputs
        .iter()
        .map(|p| {
            let source = if p.as_os_str() == "-" {
                rete_build::Source::Stdin
            } else {
                rete_build::Source::Path(p.clone())
            };
            Input {
                source,
                syntax: a.format,
                compression: None,
            }
        })
        .collect::<Vec<_>>();
    if inputs
        .iter()
        .any(|i| matches!(i.source, rete_build::Source::Stdin))
        && a.format.is_none()
    {
        bail!("reading standard input needs --format (nt, nq, ttl, trig or rdf)");
    }
    let progress: Arc<dyn rete_build::Progress> = if a.quiet {
        Arc::new(rete_build::NoProgress)
    } else {
        Arc::new(progress::Bars::new())
    };
    let mut extensions: Vec<Arc<dyn rete_build::Extension>> = Vec::new();
    if !a.no_schema {
        extensions.push(Arc::new(rete_schema::SchemaExtension));
    }
    if !a.no_pyramid {
        extensions.push(Arc::new(rete_pyramid::PyramidExtension::default()));
    }
    let mut recorded = std::collections::BTreeMap::new();
    recorded.insert("pyramid".to_owned(), serde_json::Value::Bool(!a.no_pyramid));
    recorded.insert("schema".to_owned(), serde_json::Value::Bool(!a.no_schema));
    let materializer = match &a.materialize {
        Some(sets) => {
            let names: Vec<&str> = sets
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            recorded.insert(
                "materialize".to_owned(),
                serde_json::Value::String(names.join(",")),
            );
            Some(Arc::new(rete_reason::Materializer::new(
                rete_reason::MaterializeOptions::with_rule_sets(&names)?,
            )))
        }
        None => None,
    };
    let opts = BuildOptions {
        inputs,
        extensions,
        recorded_options: recorded,
        inference: materializer
            .clone()
            .map(|m| m as Arc<dyn rete_build::Inference>),
        base_iri: a.base.clone(),
        memory_budget: a.memory_budget,
        temp_dir: a.temp_dir.clone(),
        zstd_level: a.zstd_level,
        perm_block_quads: a.block_quads,
        progress,
        ..BuildOptions::default()
    };
    let report = rete_build::build(&opts, &a.output)?;
    if let (false, Some(m)) = (a.quiet, materializer.as_ref().and_then(|m| m.last_report())) {
        let rules: Vec<String> = m
            .rules
            .iter()
            .map(|r| {
                format!(
                    "{} {}",
                    serde_json::to_value(r.rule)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                    r.quads
                )
            })
            .collect();
        eprintln!(
            "materialized {} new quads ({})",
            m.inferred,
            rules.join(", ")
        );
    }
    if !a.quiet {
        eprintln!(
            "wrote {}: {} quads, {} terms, {} bytes{}",
            a.output.display(),
            report.quads,
            report.terms,
            report.file_bytes,
            if report.spilled_runs > 0 {
                format!(" ({} spill runs)", report.spilled_runs)
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

fn info(rete: &Rete, a: &InfoArgs) -> Result<()> {
    let h = rete.header();
    let card = rete.card()?;
    let out = std::io::stdout();
    let mut out = out.lock();
    if a.json {
        let sections: Vec<_> = rete
            .sections()
            .iter()
            .map(|e| serde_json::json!({"kind": e.kind, "index": e.index, "name": e.name(), "codec": format!("{:?}", e.codec), "offset": e.offset, "bytes": e.len, "raw_bytes": e.raw_len}))
            .collect();
        let v = serde_json::json!({
            "file": a.file,
            "bytes": rete.reader().len(),
            "version": format!("{}.{}", h.major, h.minor),
            "flags": h.flags,
            "quads": h.quads,
            "terms": h.terms,
            "sections": sections,
            "card": card,
        });
        serde_json::to_writer_pretty(&mut out, &v)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "file      {} ({} bytes)", a.file, rete.reader().len())?;
    writeln!(out, "format    .rete {}.{}", h.major, h.minor)?;
    writeln!(
        out,
        "quads     {} ({} in the default graph, {} named graphs)",
        card.quads,
        card.default_graph_quads,
        card.graphs.len()
    )?;
    writeln!(out, "terms     {}", card.terms)?;
    writeln!(
        out,
        "distinct  {} subjects, {} predicates, {} objects",
        card.distinct_subjects, card.distinct_predicates, card.distinct_objects
    )?;
    writeln!(out, "content   {}", card.content_hash)?;
    if card.build.materialized {
        writeln!(
            out,
            "inferred  {} quads (RDFS/OWL-RL materialization)",
            card.build.inferred_quads
        )?;
    }
    writeln!(out, "\nsections")?;
    for e in rete.sections() {
        writeln!(out, "  {:<28} {:>12} bytes  {:?}", e.name(), e.len, e.codec)?;
    }
    let top =
        |out: &mut dyn Write, title: &str, v: &[rete_core::NamedCount]| -> std::io::Result<()> {
            if v.is_empty() {
                return Ok(());
            }
            writeln!(out, "\n{title}")?;
            for c in v.iter().take(15) {
                writeln!(out, "  {:>10}  {}", c.count, c.term)?;
            }
            if v.len() > 15 {
                writeln!(out, "  … {} more", v.len() - 15)?;
            }
            Ok(())
        };
    top(&mut out, "classes (instances)", &card.classes)?;
    top(&mut out, "predicates (triples)", &card.predicates)?;
    top(&mut out, "named graphs (quads)", &card.graphs)?;
    Ok(())
}

/// The pattern of `query`/`cost` options; `None` if a bound term is not in the file (matches
/// nothing).
fn pattern(rete: &Rete, a: &QueryArgs) -> Result<Option<Pattern>> {
    let resolver = terms::Resolver::new(rete)?;
    let mut missing = false;
    let mut id = |s: &Option<String>, what: &str| -> Result<Option<u64>> {
        match s {
            None => Ok(None),
            Some(s) => match resolver
                .id(s)
                .with_context(|| format!("invalid {what} {s:?}"))?
            {
                Some(id) => Ok(Some(id)),
                None => {
                    missing = true;
                    Ok(Some(0))
                }
            },
        }
    };
    let s = id(&a.subject, "subject")?;
    let p = id(&a.predicate, "predicate")?;
    let o = id(&a.object, "object")?;
    let g = match a.graph.as_deref() {
        None => GraphMatch::Any,
        Some("default") => GraphMatch::Default,
        Some(g) => match id(&Some(g.to_owned()), "graph")? {
            Some(0) | None => GraphMatch::Named(0),
            Some(id) => GraphMatch::Named(id),
        },
    };
    // A term absent from the dictionary matches nothing.
    Ok((!missing).then_some(Pattern { s, p, o, g }))
}

fn query(rete: &Rete, a: &QueryArgs) -> Result<()> {
    let pattern = pattern(rete, a)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let Some(pattern) = pattern else {
        if a.count {
            writeln!(out, "0")?;
        }
        return Ok(());
    };
    if a.count {
        let n = rete.count(&pattern)?;
        writeln!(out, "{}", a.limit.map_or(n, |l| n.min(l)))?;
        return Ok(());
    }
    let mut cache = terms::TermCache::new(rete);
    for q in rete
        .quads(&pattern)?
        .take(a.limit.map_or(usize::MAX, |l| l as usize))
    {
        cache.write_quad(&mut out, &q?)?;
    }
    out.flush()?;
    Ok(())
}

fn cost(rete: &Rete, a: &CostArgs) -> Result<()> {
    if let Some(q) = &a.sparql {
        let estimate = rete_sparql::estimate_cost(rete, q, None)?;
        println!("{}", serde_json::to_string_pretty(&estimate)?);
        return Ok(());
    }
    let (bytes, requests, blocks) = match pattern(rete, &a.pattern)? {
        Some(p) => {
            let c = rete.pattern_cost(&p)?;
            (c.bytes, c.requests, c.blocks)
        }
        None => (0, 0, 0),
    };
    println!(
        "{{\"bytes\": {bytes}, \"requests\": {requests}, \"blocks\": {blocks}, \"exact\": true}}"
    );
    Ok(())
}

fn export(rete: &Rete, a: &ExportArgs) -> Result<()> {
    let card = rete.card()?;
    if matches!(a.format, ExportFormat::Nt | ExportFormat::Ttl) && !card.graphs.is_empty() {
        bail!("{} has {} named graphs, which N-Triples and Turtle cannot hold: use --format nq or trig", a.file, card.graphs.len());
    }
    let sink: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let out = BufWriter::with_capacity(1 << 20, sink);
    terms::export(
        rete,
        out,
        matches!(a.format, ExportFormat::Ttl | ExportFormat::Trig),
        &card.prefixes,
    )?;
    Ok(())
}

fn sparql(rete: &Rete, a: &SparqlArgs) -> Result<()> {
    let text = match (&a.query, &a.query_file) {
        (Some(q), _) => q.clone(),
        (None, Some(p)) if p.as_os_str() == "-" => std::io::read_to_string(std::io::stdin())?,
        (None, Some(p)) => {
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?
        }
        (None, None) => bail!("give a query or -f FILE"),
    };
    let opts = rete_sparql::QueryOptions {
        cancel: None,
        deadline: a
            .timeout
            .map(|t| std::time::Instant::now() + std::time::Duration::from_secs_f64(t)),
        base_iri: a.base.clone(),
        ..Default::default()
    };
    let results = rete_sparql::query(rete, &text, &opts)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    rete_sparql::write_results(results, a.format, &mut out)?;
    out.flush()?;
    Ok(())
}

fn summary(rete: &Rete, a: &SummaryArgs) -> Result<()> {
    let Some(pyramid) = rete_pyramid::Pyramid::open(rete)? else {
        bail!(
            "{} has no community pyramid (it was built with --no-pyramid)",
            rete.name()
        );
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let top = pyramid.levels().saturating_sub(1);
    let members = match (a.level, a.community) {
        (Some(0), Some(c)) => Some(pyramid.members(c)?),
        _ => None,
    };
    if let Some(members) = members {
        if a.json {
            serde_json::to_writer_pretty(&mut out, &members)?;
            writeln!(out)?;
        } else {
            writeln!(
                out,
                "{} members of level-0 community {}",
                members.len(),
                a.community.unwrap_or_default()
            )?;
            for m in &members {
                writeln!(
                    out,
                    "  {:<40} {:<30} {}",
                    m.term,
                    m.label.as_deref().unwrap_or(""),
                    m.class.as_deref().unwrap_or("")
                )?;
            }
        }
        return Ok(out.flush()?);
    }
    let level = match (a.level, a.community) {
        (Some(l), Some(c)) => pyramid.children(l, c)?,
        (l, _) => pyramid.level(l.unwrap_or(top))?,
    };
    if a.json {
        let v = serde_json::json!({"levels": pyramid.level_info(), "entities": pyramid.entity_count(), "level": level});
        serde_json::to_writer_pretty(&mut out, &v)?;
        writeln!(out)?;
        return Ok(out.flush()?);
    }
    writeln!(
        out,
        "{} entities in {} levels",
        pyramid.entity_count(),
        pyramid.levels()
    )?;
    for l in pyramid.level_info() {
        writeln!(
            out,
            "  level {}: {:>7} communities, {:>8} super-edges, modularity {:.4} ({})",
            l.level, l.communities, l.super_edges, l.modularity, l.method
        )?;
    }
    let what = match a.community {
        Some(c) => format!(
            "sub-communities of community {c} (level {})",
            level.level + 1
        ),
        None => format!("level {}", level.level),
    };
    writeln!(out, "\n{what}: {} communities", level.communities.len())?;
    let mut comms: Vec<_> = level.communities.iter().collect();
    comms.sort_by(|x, y| y.size.cmp(&x.size).then(x.id.cmp(&y.id)));
    for c in comms.iter().take(40) {
        writeln!(
            out,
            "  #{:<6} {:>8} members  {:<32} {}",
            c.id,
            c.size,
            c.label,
            c.dominant_class.as_deref().unwrap_or("")
        )?;
    }
    if comms.len() > 40 {
        writeln!(out, "  … {} more", comms.len() - 40)?;
    }
    let mut edges: Vec<_> = level.edges.iter().collect();
    edges.sort_by(|x, y| {
        y.weight
            .cmp(&x.weight)
            .then((x.source, x.target).cmp(&(y.source, y.target)))
    });
    if !edges.is_empty() {
        writeln!(out, "\nstrongest links")?;
        for e in edges.iter().take(15) {
            let preds: Vec<_> = e
                .top_predicates
                .iter()
                .map(|(p, n)| format!("{p} ×{n}"))
                .collect();
            writeln!(
                out,
                "  #{} — #{}  weight {}  {}",
                e.source,
                e.target,
                e.weight,
                preds.join(", ")
            )?;
        }
    }
    Ok(out.flush()?)
}

fn reach(rete: &Rete, a: &ReachArgs) -> Result<()> {
    let resolver = terms::Resolver::new(rete)?;
    let predicate = match resolver.parse(&a.predicate)? {
        oxrdf::Term::NamedNode(n) => n,
        other => bail!("the predicate must be an IRI, not {other}"),
    };
    let seeds = a
        .from
        .iter()
        .map(|s| resolver.parse(s))
        .collect::<Result<Vec<_>>>()?;
    let opts = rete_reason::ReachOptions {
        direction: if a.backward {
            rete_reason::Direction::Backward
        } else {
            rete_reason::Direction::Forward
        },
        max_depth: a.max_depth,
        include_seeds: a.include_seeds,
        parallel: a.parallel,
        collect: if a.terms {
            rete_reason::Collect::Terms
        } else {
            rete_reason::Collect::Count
        },
        ..Default::default()
    };
    let report = rete_reason::reach(rete, predicate.as_ref(), &seeds, &opts)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if a.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        for s in &report.seeds {
            writeln!(out, "{}\t{}", s.seed, s.count)?;
            for t in s.terms.iter().flatten() {
                writeln!(out, "  {t}")?;
            }
        }
    }
    Ok(out.flush()?)
}

fn schema(rete: &Rete, a: &JsonFileArgs) -> Result<()> {
    let Some(schema) = rete_schema::Schema::open(rete)? else {
        bail!(
            "{} has no schema block (it was built with --no-schema)",
            rete.name()
        );
    };
    print_report(&schema, a.json)
}

fn coherence(rete: &Rete, a: &CoherenceArgs) -> Result<()> {
    let tier = rete_coherence::Tier::from_number(a.tier)
        .ok_or_else(|| anyhow::anyhow!("no tier {}", a.tier))?;
    let cancel = std::sync::atomic::AtomicBool::new(false);
    print_report(&rete_coherence::check(rete, tier, &cancel)?, a.json)
}

/// Prints a report as pretty JSON or as its human-readable rendering.
fn print_report<T: serde::Serialize + std::fmt::Display>(report: &T, json: bool) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if json {
        serde_json::to_writer_pretty(&mut out, report)?;
        writeln!(out)?;
    } else {
        write!(out, "{report}")?;
    }
    Ok(out.flush()?)
}

fn verify(rete: &Rete) -> Result<()> {
    let r = rete.verify()?;
    println!(
        "ok: {} sections, {} blocks, {} quads, {} terms, {} bytes checked",
        r.sections, r.blocks, r.quads, r.terms, r.bytes
    );
    Ok(())
}

fn generate(a: GenerateArgs) -> Result<()> {
    match a.dataset {
        Dataset::Social {
            people,
            seed,
            output,
        } => {
            let params = rete_datagen::social::SocialParams {
                people,
                seed,
                ..Default::default()
            };
            let sink: Box<dyn Write> = match &output {
                Some(p) => Box::new(
                    std::fs::File::create(p)
                        .with_context(|| format!("cannot create {}", p.display()))?,
                ),
                None => Box::new(std::io::stdout().lock()),
            };
            let mut out = BufWriter::with_capacity(1 << 20, sink);
            rete_datagen::social::write_ntriples(&params, &mut out)?;
            out.flush()?;
        }
    }
    Ok(())
}
