#![doc = include_str!("../README.md")]

mod depth;
mod detect;
mod entities;
mod error;
mod extdict;
mod files;
mod input;
mod lenient;
mod lines;
pub mod lru;
mod options;
mod permutations;
pub use depth::MAX_JSON_DEPTH;
pub use entities::{ENTITY_EXPANSION_FLOOR, MAX_ENTITY_LEN};
mod rss;
mod sort;
mod spill;
mod termsort;

pub use detect::{detect, DetectError, Detected};
pub use error::BuildError;
pub use files::{default_cache_dir, dir_inputs, readable_path};
pub use input::{Compression, Input, ParseSummary, Source, Syntax};
pub use options::{BuildOptions, BuildReport, NoProgress, Progress};

use extdict::{Interner, TermLookup};
use options::check_cancel;
use oxrdf::Quad;
use permutations::{compress_block, PermResult, PermStats};
use rete_core::card::{BuildInfo, Card, InputInfo, NamedCount};
use rete_core::format::{kind, FLAG_MATERIALIZED, FLAG_NAMED_GRAPHS};
use rete_core::paged;
use rete_core::perm::PermWriter;
use rete_core::writer::{write_file, FileSpec, SectionSpec};
use rete_core::{term, Perm, Rete};
use sort::{ProvQuads, SortedKeys};
use spill::Spill;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use xxhash_rust::xxh3::Xxh3;

// The extension points live on the writer side of rete-core, so the crates implementing them
// need not depend on this one; re-exported so callers keep compiling.
pub use rete_core::extension::{BoxError, Extension, Inference};

/// The base dataset's parts, in temp files and memory.
struct Parts {
    sections: Vec<SectionSpec>,
    blocks: Vec<SectionSpec>,
    flags: u32,
    quads: u64,
    terms: u64,
}

/// Builds `out` from `opts.inputs`. Writes a temp file next to `out` and renames it at the end,
/// so an error leaves any existing `out` untouched.
pub fn build(opts: &BuildOptions, out: &Path) -> Result<BuildReport, BuildError> {
    if opts.inputs.is_empty() {
        return Err(BuildError::Invalid("no input given".into()));
    }
    let tmp_parent = match &opts.temp_dir {
        Some(d) => d.clone(),
        None => match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
    };
    let tmp = tempfile::Builder::new()
        .prefix(".rete-build-")
        .tempdir_in(&tmp_parent)
        .map_err(|e| BuildError::Io {
            path: tmp_parent.display().to_string(),
            source: e,
        })?;
    build_in(opts, out, &tmp).map_err(|e| naming_output(e, tmp.path(), out))
}

/// An I/O error on a file of the build's temporary folder (removed by then) names the output
/// it was for, then that file.
fn naming_output(e: BuildError, tmp: &Path, out: &Path) -> BuildError {
    let rename = |path: String| {
        if Path::new(&path).starts_with(tmp) {
            format!("{} (the build's temporary file {path})", out.display())
        } else {
            path
        }
    };
    match e {
        BuildError::Io { path, source } => BuildError::Io {
            path: rename(path),
            source,
        },
        BuildError::Format(rete_core::Error::Io { path, source }) => {
            BuildError::Format(rete_core::Error::Io {
                path: rename(path),
                source,
            })
        }
        e => e,
    }
}

/// [`build`] with its temporary folder made.
fn build_in(
    opts: &BuildOptions,
    out: &Path,
    tmp: &tempfile::TempDir,
) -> Result<BuildReport, BuildError> {
    let mut report = BuildReport::default();
    let rss = rss::RssSampler::start();
    let mut inputs = opts.inputs.clone();
    // stdin can be read once only; materialization parses inputs twice.
    if opts.inference.is_some() {
        for (i, input) in inputs.iter_mut().enumerate() {
            if matches!(input.source, Source::Stdin) {
                let path = tmp.path().join(format!("stdin-{i}"));
                let mut f = File::create(&path).map_err(|e| BuildError::Io {
                    path: path.display().to_string(),
                    source: e,
                })?;
                std::io::copy(&mut std::io::stdin(), &mut f).map_err(|e| BuildError::Io {
                    path: "-".into(),
                    source: e,
                })?;
                let syntax = Some(input.resolve()?.0);
                *input = Input {
                    source: Source::Path(path),
                    syntax,
                    compression: input.compression,
                };
            }
        }
    }
    let work = tmp.path().join("base");
    std::fs::create_dir(&work).map_err(|e| BuildError::Io {
        path: work.display().to_string(),
        source: e,
    })?;
    let mut parts = build_parts(
        opts,
        &inputs,
        &[],
        &work,
        &mut report,
        &rss,
        BuildInfoExtra::default(),
    )?;
    if let Some(inf) = &opts.inference {
        let t = Instant::now();
        let base_path = tmp.path().join("base.rete");
        write_parts(&base_path, &parts, Vec::new(), 0)?;
        let base = Rete::open_path(&base_path)?;
        check_cancel(opts.progress.as_ref())?;
        opts.progress
            .start(&format!("inference ({})", inf.name()), None);
        let inferred = inf.infer(&base).map_err(|e| BuildError::Extension {
            name: inf.name().to_owned(),
            source: e,
        })?;
        opts.progress.finish();
        check_cancel(opts.progress.as_ref())?;
        let before = parts.quads;
        drop(base);
        report
            .phases
            .push(("inference".into(), t.elapsed().as_secs_f64() * 1e3));
        report.peak_rss.push(("inference".into(), rss.take()));
        let work2 = tmp.path().join("materialized");
        std::fs::create_dir(&work2).map_err(|e| BuildError::Io {
            path: work2.display().to_string(),
            source: e,
        })?;
        let mut r2 = BuildReport::default();
        let extra = BuildInfoExtra {
            materialized: true,
            base_quads: Some(before),
        };
        parts = build_parts(opts, &inputs, &inferred, &work2, &mut r2, &rss, extra)?;
        parts.flags |= FLAG_MATERIALIZED;
        report.inferred_quads = parts.quads - before;
        report.spilled_runs += r2.spilled_runs;
        report.dictionary_runs += r2.dictionary_runs;
        report.quad_runs += r2.quad_runs;
        report.permutation_runs += r2.permutation_runs;
        report.peak_spill_bytes = report.peak_spill_bytes.max(r2.peak_spill_bytes);
        report.spill_bytes.extend(
            r2.spill_bytes
                .into_iter()
                .map(|(n, b)| (format!("{n} (materialized)"), b)),
        );
        report.phases.extend(
            r2.phases
                .into_iter()
                .map(|(n, t)| (format!("{n} (materialized)"), t)),
        );
        report.peak_rss.extend(
            r2.peak_rss
                .into_iter()
                .map(|(n, b)| (format!("{n} (materialized)"), b)),
        );
    }
    let mut extra_sections = Vec::new();
    let mut flags = 0;
    if !opts.extensions.is_empty() {
        let prov = tmp.path().join("provisional.rete");
        write_parts(&prov, &parts, Vec::new(), 0)?;
        // Extensions scan whole permutations, which a cache does not speed up: keep the
        // reader's block cache a small share of the memory budget (it counts in their peak);
        // below 64 MiB the read-ahead of the scans running side by side thrashes it.
        let base = Rete::open_with(
            Arc::new(rete_core::FileReader::open(&prov).map_err(rete_core::Error::from)?),
            rete_core::ReteOptions {
                cache_bytes: (opts.memory_budget / 16).clamp(64 << 20, 128 << 20),
                ..rete_core::ReteOptions::default()
            },
        )?;
        // The provisional file's writing is no extension's: each extension's peak starts here.
        rss.take();
        for ext in &opts.extensions {
            let t = Instant::now();
            check_cancel(opts.progress.as_ref())?;
            opts.progress.start(ext.name(), None);
            let out = ext
                .sections_with_steps(&base)
                .map_err(|e| BuildError::Extension {
                    name: ext.name().to_owned(),
                    source: e,
                })?;
            let secs = out.sections;
            report.steps.extend(
                out.steps
                    .into_iter()
                    .map(|(step, ms)| (format!("{}/{step}", ext.name()), ms)),
            );
            opts.progress.finish();
            check_cancel(opts.progress.as_ref())?;
            for s in &secs {
                if s.kind <= kind::CARD {
                    return Err(BuildError::Invalid(format!(
                        "extension {} returned reserved section kind {}",
                        ext.name(),
                        s.kind
                    )));
                }
            }
            extra_sections.extend(secs);
            flags |= ext.flags();
            report
                .phases
                .push((ext.name().to_owned(), t.elapsed().as_secs_f64() * 1e3));
            report.peak_rss.push((ext.name().to_owned(), rss.take()));
        }
    }
    let t = Instant::now();
    check_cancel(opts.progress.as_ref())?;
    opts.progress.start("write", None);
    write_parts(out, &parts, extra_sections, flags)?;
    opts.progress.finish();
    report
        .phases
        .push(("write".into(), t.elapsed().as_secs_f64() * 1e3));
    report.peak_rss.push(("write".into(), rss.take()));
    report.quads = parts.quads;
    report.terms = parts.terms;
    report.file_bytes = std::fs::metadata(out)
        .map_err(|e| BuildError::Io {
            path: out.display().to_string(),
            source: e,
        })?
        .len();
    Ok(report)
}

/// Lays out the file: header and directory, schema sections (read together with the header),
/// card, block directories (read together at first use), other extension sections, then blocks.
fn write_parts(
    out: &Path,
    parts: &Parts,
    extra: Vec<SectionSpec>,
    flags: u32,
) -> Result<(), BuildError> {
    let copy = |s: &SectionSpec| SectionSpec {
        kind: s.kind,
        index: s.index,
        codec: s.codec,
        raw_len: s.raw_len,
        payload: match &s.payload {
            rete_core::writer::Payload::Bytes(b) => rete_core::writer::Payload::Bytes(b.clone()),
            rete_core::writer::Payload::File(p) => rete_core::writer::Payload::File(p.clone()),
            rete_core::writer::Payload::Copy { path, offset, len } => {
                rete_core::writer::Payload::Copy {
                    path: path.clone(),
                    offset: *offset,
                    len: *len,
                }
            }
        },
    };
    let (schema, other): (Vec<_>, Vec<_>) = extra
        .into_iter()
        .partition(|s| (kind::SCHEMA_FIRST..=kind::SCHEMA_LAST).contains(&s.kind));
    let mut sections: Vec<SectionSpec> = schema;
    sections.extend(parts.sections.iter().map(copy));
    sections.extend(other);
    sections.extend(parts.blocks.iter().map(copy));
    write_file(
        out,
        &FileSpec {
            flags: parts.flags | flags,
            quads: parts.quads,
            terms: parts.terms,
            sections,
        },
    )?;
    Ok(())
}

#[derive(Default, Clone, Copy)]
struct BuildInfoExtra {
    materialized: bool,
    base_quads: Option<u64>,
}

/// Quads between two progress reports (and cancellation checks) while parsing.
const PROGRESS_QUADS: u64 = 65536;

/// Bytes of a parsed quad in memory (four chunk-local ids).
const QUAD_BYTES: usize = 16;

/// Spills the current chunk: its terms as a sorted run, its quads next to them.
fn spill_chunk(
    interner: &mut Interner,
    quads: &mut ProvQuads,
    dir: &Path,
    spill: &Spill,
) -> Result<(), BuildError> {
    interner.spill(dir, spill)?;
    spill_quads(quads, dir, spill)?;
    quads.end_chunk();
    Ok(())
}

fn spill_quads(quads: &mut ProvQuads, dir: &Path, spill: &Spill) -> Result<(), BuildError> {
    quads.spill(dir, "prov", spill)?;
    spill.quad_runs.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

fn build_parts(
    opts: &BuildOptions,
    inputs: &[Input],
    extra: &[Quad],
    dir: &Path,
    report: &mut BuildReport,
    rss: &rss::RssSampler,
    info: BuildInfoExtra,
) -> Result<Parts, BuildError> {
    let progress = &opts.progress;
    let spill = Spill::default();
    let mut spilled_before = 0;
    let mut phase_done = |name: &str, took: Duration, report: &mut BuildReport, spill: &Spill| {
        report.phases.push((name.into(), took.as_secs_f64() * 1e3));
        report
            .spill_bytes
            .push((name.into(), spill.written() - spilled_before));
        report.peak_rss.push((name.into(), rss.take()));
        spilled_before = spill.written();
    };
    // 1. Parse and intern into chunk-local ids (0 is the default graph). The chunk's terms and
    // quads share half the budget (sorting the terms at the end of the chunk needs room). When
    // they outgrow it, the quads go to disk as a part of the chunk; the chunk ends only when the
    // terms alone take all but an eighth of it, the room left for the next parts.
    let t = Instant::now();
    let mut interner = Interner::default();
    let mut quads = ProvQuads::default();
    let mut input_infos = Vec::new();
    let mut prefixes = BTreeMap::new();
    let budget = opts.memory_budget.max(1 << 20);
    let chunk_budget = budget / 2;
    let term_budget = chunk_budget - chunk_budget / 8;
    let sink =
        |q: [&[u8]; 4], interner: &mut Interner, quads: &mut ProvQuads| -> Result<(), BuildError> {
            let [s, p, o, g] = q;
            let s = interner.intern_recent(0, s)?;
            let p = interner.intern_recent(1, p)?;
            let o = interner.intern(o)?;
            let g = interner.intern_graph((!g.is_empty()).then_some(g))?;
            quads.push([s, p, o, g]);
            let terms = interner.mem_bytes();
            if terms > term_budget && quads.mem.len() > 1024 {
                spill_chunk(interner, quads, dir, &spill)?;
            } else if terms + quads.mem.capacity() * QUAD_BYTES > chunk_budget
                && quads.mem.len() > 1024
            {
                spill_quads(quads, dir, &spill)?;
            }
            Ok(())
        };
    // Parsing runs on the threads of the current rayon pool (one: all on this thread); chunks
    // of N-Triples are a small share of the budget, as several are in flight.
    let parse_opts = input::ParseOptions {
        base_iri: opts.base_iri.as_deref(),
        threads: rayon::current_num_threads(),
        chunk_bytes: (budget / 256).clamp(16 << 10, 1 << 20),
    };
    check_cancel(progress.as_ref())?;
    let total_bytes = inputs.iter().map(Input::stored_len).sum::<Option<u64>>();
    progress.start("parse", total_bytes);
    let read = Arc::new(AtomicU64::new(0));
    let mut n = 0u64;
    for (i, input) in inputs.iter().enumerate() {
        let (syntax, _) = input.resolve()?;
        let reader_cancel = Some(progress.clone());
        let summary = input::parse(
            input,
            i,
            parse_opts,
            Some(read.clone()),
            reader_cancel,
            &mut |q| {
                n += 1;
                if n % PROGRESS_QUADS == 0 {
                    progress.inc(PROGRESS_QUADS);
                    progress.parsed_bytes(read.load(Ordering::Relaxed));
                    check_cancel(progress.as_ref())?;
                }
                sink(q, &mut interner, &mut quads)
            },
        )
        // A read refused by the cancel surfaces as the parser's error.
        .map_err(|e| {
            if progress.cancelled() {
                BuildError::Cancelled
            } else {
                e
            }
        })?;
        for (k, v) in summary.prefixes {
            prefixes.entry(k).or_insert(v);
        }
        input_infos.push(InputInfo {
            name: input.name(),
            format: syntax.name().into(),
            statements: summary.statements,
        });
    }
    progress.inc(n % PROGRESS_QUADS);
    progress.parsed_bytes(read.load(Ordering::Relaxed));
    for part in extra.chunks(4096) {
        let mut batch = input::Batch::default();
        for q in part {
            batch.push(q.as_ref())?;
        }
        batch.feed_raw(&mut |q| sink(q, &mut interner, &mut quads))?;
    }
    // Once a chunk spilled, the last one does too: the merge reads runs only.
    if interner.has_spilled() {
        spill_chunk(&mut interner, &mut quads, dir, &spill)?;
    }
    progress.finish();
    phase_done("parse", t.elapsed(), report, &spill);
    check_cancel(progress.as_ref())?;

    // 2. The dictionary: merge the chunks' sorted terms, give final ids, rewrite the quads.
    let t = Instant::now();
    progress.start("dictionary", Some(interner.entries()));
    let dict_path = dir.join("dict.bin");
    let mut hash = Xxh3::new();
    let (dict, quads) = extdict::write_dictionary(
        interner,
        quads,
        dir,
        &dict_path,
        (opts.dict_block_bytes, opts.zstd_level),
        &mut hash,
        &spill,
    )?;
    let term_count = dict.terms;
    progress.finish();
    phase_done("dictionary", t.elapsed(), report, &spill);
    check_cancel(progress.as_ref())?;

    // 3. The six permutations: sort each (in memory, or into spilled runs), then write each.
    let t = Instant::now();
    let rdf_type = dict.rdf_type;
    // Each permutation sorts at most a sixth of half the budget at a time (the rest is headroom
    // for what is not counted: allocator slack, the parser's and the writers' buffers), so the
    // six may sort and be written in parallel whether their keys stay in memory or spill: the
    // merge of spilled runs holds only a read buffer per run. Quads that never spilled are read
    // from memory: they count too (up to half the budget, with the terms, see the parse).
    let held_quads = quads.mem.capacity() * QUAD_BYTES;
    let sort_budget = (budget / 2)
        .min(budget.saturating_sub(held_quads + budget / 4))
        .max(1 << 20);
    // Made by the dictionary phase, which knew every predicate and graph before it rewrote the
    // quads (and wrote the spilled ones packed).
    let packing = quads
        .packing
        .clone()
        .ok_or_else(|| BuildError::Invalid("internal: quads without a packing".into()))?;
    let key_bytes = packing.key_bytes();
    // When the six do not fit but one does, the permutations are sorted and written one at a
    // time, each on every thread, and nothing spills (at 100 M triples 800 MB of keys). When
    // not even one fits, no sorted keys stay in memory: only the run buffers of the permutations
    // being sorted (one per thread) share the budget, so runs are longer and fewer.
    let total = quads.total as usize;
    let held = total.saturating_mul(6 * key_bytes) <= sort_budget;
    let one_at_a_time = !held && total.saturating_mul(key_bytes) <= sort_budget;
    let run_len = if held {
        sort_budget / 6 / key_bytes
    } else if one_at_a_time {
        // A run ends when it holds this many: one more than all of them.
        total.saturating_add(1)
    } else {
        sort_budget / rayon::current_num_threads().max(1) / key_bytes
    };
    let sort_perm = |perm: Perm| -> Result<SortedKeys, BuildError> {
        check_cancel(progress.as_ref())?;
        let spill_all = !held && !one_at_a_time;
        let keys = SortedKeys::new(&quads, perm, &packing, run_len, spill_all, dir, &spill)?;
        progress.inc(1);
        Ok(keys)
    };
    let level = opts.zstd_level;
    let write_perm = |(perm, keys): (Perm, SortedKeys)| -> Result<(PermResult, usize), BuildError> {
        check_cancel(progress.as_ref())?;
        let runs = keys.spilled_runs();
        let path = dir.join(format!("perm-{}.bin", perm.label()));
        let file = BufWriter::with_capacity(
            1 << 20,
            File::create(&path).map_err(|e| BuildError::Io {
                path: path.display().to_string(),
                source: e,
            })?,
        );
        let mut w = PermWriter::new(file, opts.perm_block_quads, level);
        let mut stats = PermStats::new(perm, rdf_type);
        let block = w.block_quads();
        keys.drain_blocks(
            &spill,
            block,
            |q| compress_block(q, level),
            |q, b| {
                for k in q {
                    stats.observe(k);
                }
                w.push_block(b)?;
                Ok(())
            },
        )?;
        let (index, len, file) = w.finish()?;
        file.into_inner().map_err(|e| BuildError::Io {
            path: path.display().to_string(),
            source: e.into_error(),
        })?;
        Ok((
            PermResult {
                perm,
                index,
                path,
                len,
                stats,
            },
            runs,
        ))
    };
    let mut results: Vec<Result<(PermResult, usize), BuildError>> = Vec::with_capacity(6);
    report.permutations_one_at_a_time |= one_at_a_time;
    if one_at_a_time {
        // Sorting and writing alternate: each row of the report sums its own part, and the
        // sort row's peak memory covers both.
        progress.start("sort", Some(6));
        let (mut sorting, mut writing) = (Duration::ZERO, Duration::ZERO);
        for perm in Perm::ALL {
            let t = Instant::now();
            let keys = sort_perm(perm)?;
            sorting += t.elapsed();
            let t = Instant::now();
            // A failed write stops here: the permutations after it are not sorted for nothing.
            results.push(Ok(write_perm((perm, keys))?));
            writing += t.elapsed();
        }
        progress.finish();
        quads.remove(&spill);
        phase_done("sort", sorting, report, &spill);
        progress.start("permutations", Some(6));
        progress.inc(6);
        progress.finish();
        phase_done("permutations", writing, report, &spill);
    } else {
        progress.start("sort", Some(6));
        let sorted: Vec<Result<SortedKeys, BuildError>> = {
            use rayon::prelude::*;
            Perm::ALL.par_iter().map(|&p| sort_perm(p)).collect()
        };
        progress.finish();
        let sorted = sorted.into_iter().collect::<Result<Vec<_>, _>>()?;
        quads.remove(&spill);
        phase_done("sort", t.elapsed(), report, &spill);
        check_cancel(progress.as_ref())?;

        let t = Instant::now();
        progress.start("permutations", Some(6));
        let jobs: Vec<(Perm, SortedKeys)> = Perm::ALL.into_iter().zip(sorted).collect();
        results = {
            use rayon::prelude::*;
            jobs.into_par_iter()
                .map(|job| {
                    let r = write_perm(job);
                    if r.is_ok() {
                        progress.inc(1);
                    }
                    r
                })
                .collect()
        };
        progress.finish();
        phase_done("permutations", t.elapsed(), report, &spill);
    }
    let mut perms = Vec::with_capacity(6);
    for r in results {
        let (pr, runs) = r?;
        report.spilled_runs += runs;
        perms.push(pr);
    }
    let (dict_runs, quad_runs) = (
        spill.dictionary_runs.load(Ordering::Relaxed),
        spill.quad_runs.load(Ordering::Relaxed),
    );
    report.dictionary_runs += dict_runs;
    report.quad_runs += quad_runs;
    report.permutation_runs += spill.permutation_runs.load(Ordering::Relaxed);
    report.spilled_runs += dict_runs + quad_runs;
    report.peak_spill_bytes = report.peak_spill_bytes.max(spill.peak());
    check_cancel(progress.as_ref())?;

    // 4. The card: its named counts read their terms back from the written dictionary.
    let spo = &perms[Perm::Spo as usize].stats;
    let mut lookup = TermLookup::open(&dict_path, &dict.index)?;
    let mut nt =
        |id: u64| -> Result<String, BuildError> { Ok(term::decode(&lookup.get(id)?)?.to_string()) };
    let mut named = |m: &BTreeMap<u64, u64>| -> Result<Vec<NamedCount>, BuildError> {
        let mut v = m
            .iter()
            .map(|(&id, &count)| {
                Ok(NamedCount {
                    term: nt(id)?,
                    count,
                })
            })
            .collect::<Result<Vec<_>, BuildError>>()?;
        v.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.term.cmp(&b.term)));
        Ok(v)
    };
    let graphs = named(&spo.graphs)?;
    let classes = named(&perms[Perm::Pos as usize].stats.classes)?;
    let predicates = named(&perms[Perm::Pso as usize].stats.firsts)?;
    hash.update(&spo.quad_hash.to_le_bytes());
    let quads = perms[0].stats.total;
    let mut options = opts.recorded_options.clone();
    options.insert("zstd_level".into(), opts.zstd_level.into());
    options.insert("dict_block_bytes".into(), opts.dict_block_bytes.into());
    options.insert("perm_block_quads".into(), opts.perm_block_quads.into());
    if let Some(b) = &opts.base_iri {
        options.insert("base_iri".into(), b.clone().into());
    }
    let card = Card {
        quads,
        default_graph_quads: spo.default_graph,
        terms: term_count,
        distinct_subjects: spo.distinct_first,
        distinct_predicates: perms[Perm::Pso as usize].stats.distinct_first,
        distinct_objects: perms[Perm::Osp as usize].stats.distinct_first,
        distinct_triples: Some(spo.distinct_triples),
        graphs,
        classes,
        predicates,
        prefixes,
        build: BuildInfo {
            tool: "rete".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            inputs: input_infos,
            options,
            materialized: info.materialized,
            inferred_quads: info.base_quads.map_or(0, |b| quads.saturating_sub(b)),
        },
        content_hash: format!("{:032x}", hash.digest128()),
    };
    let card_json =
        serde_json::to_vec_pretty(&card).map_err(|e| BuildError::Invalid(e.to_string()))?;

    // Block directories are stored in pages (one zstd frame each) with a page table apiece, so
    // that a remote reader fetches only the pages a lookup visits (format 1.1); the tables come
    // first, all in one read.
    let paged_dict = paged::page_dict(&dict.index, paged::DICT_PAGE_BLOCKS, opts.zstd_level)?;
    let mut paged_perms = Vec::with_capacity(perms.len());
    for pr in perms.iter() {
        paged_perms.push(paged::page_perm(
            &pr.index,
            paged::PERM_PAGE_BLOCKS,
            opts.zstd_level,
        )?);
    }
    let mut sections = vec![
        SectionSpec::zstd(kind::CARD, 0, &card_json, opts.zstd_level)?,
        SectionSpec::zstd(kind::DICT_PAGES, 0, &paged_dict.table, opts.zstd_level)?,
    ];
    for (pr, pd) in perms.iter().zip(&paged_perms) {
        sections.push(SectionSpec::zstd(
            kind::PERM_PAGES,
            pr.perm as u16,
            &pd.table,
            opts.zstd_level,
        )?);
    }
    sections.push(SectionSpec::paged(kind::DICT_INDEX, 0, paged_dict));
    let mut blocks = vec![SectionSpec::blocks_file(
        kind::DICT_BLOCKS,
        0,
        dict_path,
        dict.len,
    )];
    for (pr, pd) in perms.iter().zip(paged_perms) {
        sections.push(SectionSpec::paged(kind::PERM_INDEX, pr.perm as u16, pd));
        blocks.push(SectionSpec::blocks_file(
            kind::PERM_BLOCKS,
            pr.perm as u16,
            pr.path.clone(),
            pr.len,
        ));
    }
    let flags = if spo.graphs.is_empty() {
        0
    } else {
        FLAG_NAMED_GRAPHS
    };
    Ok(Parts {
        sections,
        blocks,
        flags,
        quads,
        terms: term_count,
    })
}
