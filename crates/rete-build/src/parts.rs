//! The base dataset's parts, built in phases run in order by [`build_parts`]: parse the inputs
//! into chunk-local ids (`parse`), write the dictionary and give final ids (here), sort and
//! write the six permutations (`perms`), then the card (`card`) and the sections that
//! lay them out (here).

mod card;
mod parse;
mod perms;

use crate::extdict::{self, Dictionary, Interner};
use crate::options::check_cancel;
use crate::permutations::PermResult;
use crate::rss::RssSampler;
use crate::sort::ProvQuads;
use crate::spill::Spill;
use crate::{BuildError, BuildOptions, BuildReport, Input};
use oxrdf::Quad;
use rete_core::card::Card;
use rete_core::format::{kind, FLAG_NAMED_GRAPHS};
use rete_core::paged;
use rete_core::writer::SectionSpec;
use rete_core::Perm;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use xxhash_rust::xxh3::Xxh3;

/// The base dataset's parts, in temp files and memory.
pub(crate) struct Parts {
    pub(crate) sections: Vec<SectionSpec>,
    pub(crate) blocks: Vec<SectionSpec>,
    pub(crate) flags: u32,
    pub(crate) quads: u64,
    pub(crate) terms: u64,
}

#[derive(Default, Clone, Copy)]
pub(crate) struct BuildInfoExtra {
    pub(crate) materialized: bool,
    pub(crate) base_quads: Option<u64>,
}

/// What every phase reads: the options, the memory budget, the work directory and the spill
/// accounting.
#[derive(Clone, Copy)]
struct Env<'a> {
    opts: &'a BuildOptions,
    budget: usize,
    dir: &'a Path,
    spill: &'a Spill,
}

/// The report, and its rows of the phases: time, bytes spilled and peak memory of each.
struct PhaseLog<'a> {
    report: &'a mut BuildReport,
    rss: &'a RssSampler,
    spilled_before: u64,
}

impl PhaseLog<'_> {
    /// Records phase `name`, which took `took`.
    fn done(&mut self, name: &str, took: Duration, spill: &Spill) {
        let report = &mut *self.report;
        report.phases.push((name.into(), took.as_secs_f64() * 1e3));
        report
            .spill_bytes
            .push((name.into(), spill.written() - self.spilled_before));
        report.peak_rss.push((name.into(), self.rss.take()));
        self.spilled_before = spill.written();
    }
}

/// The dictionary written, its file, and the content hash so far (the terms').
struct Dict {
    dict: Dictionary,
    path: PathBuf,
    hash: Xxh3,
}

pub(crate) fn build_parts(
    opts: &BuildOptions,
    inputs: &[Input],
    extra: &[Quad],
    dir: &Path,
    report: &mut BuildReport,
    rss: &RssSampler,
    info: BuildInfoExtra,
) -> Result<Parts, BuildError> {
    let spill = Spill::default();
    let env = Env {
        opts,
        budget: opts.memory_budget.max(1 << 20),
        dir,
        spill: &spill,
    };
    let mut log = PhaseLog {
        report,
        rss,
        spilled_before: 0,
    };
    let parsed = parse::parse(env, &mut log, inputs, extra)?;
    check_cancel(opts.progress.as_ref())?;
    let (mut dict, quads) = dictionary(env, &mut log, parsed.interner, parsed.quads)?;
    check_cancel(opts.progress.as_ref())?;
    let perms = perms::permutations(env, &mut log, quads, dict.dict.rdf_type)?;
    let report = log.report;
    let (dict_runs, quad_runs) = (
        spill.dictionary_runs.load(Ordering::Relaxed),
        spill.quad_runs.load(Ordering::Relaxed),
    );
    report.dictionary_runs += dict_runs;
    report.quad_runs += quad_runs;
    report.permutation_runs += spill.permutation_runs.load(Ordering::Relaxed);
    report.spilled_runs += dict_runs + quad_runs;
    report.peak_spill_bytes = report.peak_spill_bytes.max(spill.peak());
    check_cancel(opts.progress.as_ref())?;
    let card = card::card(opts, &perms, &mut dict, parsed.inputs, info)?;
    sections(opts, &card, dict, &perms)
}

/// The dictionary: merge the chunks' sorted terms, give final ids, rewrite the quads.
fn dictionary(
    env: Env<'_>,
    log: &mut PhaseLog<'_>,
    interner: Interner,
    quads: ProvQuads,
) -> Result<(Dict, ProvQuads), BuildError> {
    let (opts, dir, progress) = (env.opts, env.dir, &env.opts.progress);
    let t = Instant::now();
    progress.start("dictionary", Some(interner.entries()));
    let dict_path = dir.join("dict.bin");
    let mut hash = Xxh3::new();
    let (dict, quads) = extdict::write_dictionary(
        interner,
        quads,
        dir,
        &dict_path,
        extdict::Layout {
            block_bytes: opts.dict_block_bytes,
            trained_block_bytes: opts.trained_dict_block_bytes,
            train_above: opts.train_dict_above,
            level: opts.zstd_level,
        },
        &mut hash,
        env.spill,
    )?;
    progress.finish();
    log.done("dictionary", t.elapsed(), env.spill);
    Ok((
        Dict {
            dict,
            path: dict_path,
            hash,
        },
        quads,
    ))
}

/// The sections of the base dataset: the card, the block directories and the blocks.
fn sections(
    opts: &BuildOptions,
    card: &Card,
    dict: Dict,
    perms: &[PermResult],
) -> Result<Parts, BuildError> {
    let card_json =
        serde_json::to_vec_pretty(card).map_err(|e| BuildError::Invalid(e.to_string()))?;

    // Block directories are stored in pages (one zstd frame each) with a page table apiece, so
    // that a remote reader fetches only the pages a lookup visits (format 1.1); the tables come
    // first, all in one read.
    let paged_dict = paged::page_dict(&dict.dict.index, paged::DICT_PAGE_BLOCKS, opts.zstd_level)?;
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
    // Next to the directories: a remote reader fetches it with them.
    if let Some(d) = &dict.dict.zstd_dict {
        sections.push(SectionSpec::raw(kind::DICT_ZSTD, 0, d.clone()));
    }
    sections.push(SectionSpec::paged(kind::DICT_INDEX, 0, paged_dict));
    let mut blocks = vec![SectionSpec::blocks_file(
        kind::DICT_BLOCKS,
        0,
        dict.path,
        dict.dict.len,
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
    let flags = if perms[Perm::Spo as usize].stats.graphs.is_empty() {
        0
    } else {
        FLAG_NAMED_GRAPHS
    };
    Ok(Parts {
        sections,
        blocks,
        flags,
        quads: card.quads,
        terms: dict.dict.terms,
    })
}
