//! The parse phase: the inputs (and the quads an inference adds) parsed and interned into
//! chunk-local ids, spilled to disk in chunks beyond the memory budget.

use super::{Env, PhaseLog};
use crate::extdict::Interner;
use crate::options::check_cancel;
use crate::sort::ProvQuads;
use crate::spill::Spill;
use crate::{input, BuildError, Input};
use oxrdf::Quad;
use rete_core::card::InputInfo;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Quads between two progress reports (and cancellation checks) while parsing.
const PROGRESS_QUADS: u64 = 65536;

/// Bytes of a parsed quad in memory (four chunk-local ids).
pub(super) const QUAD_BYTES: usize = 16;

/// What the parse phase leaves: the terms and quads in chunk-local ids, and what the card
/// records of the inputs.
pub(super) struct Parsed {
    pub(super) interner: Interner,
    pub(super) quads: ProvQuads,
    pub(super) inputs: Inputs,
}

/// What the card records of the inputs: each one's name, syntax and statements, and the
/// prefixes they declared (the first declaration of each wins).
pub(super) struct Inputs {
    pub(super) infos: Vec<InputInfo>,
    pub(super) prefixes: BTreeMap<String, String>,
}

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

/// Parses and interns into chunk-local ids (0 is the default graph). The chunk's terms and
/// quads share half the budget (sorting the terms at the end of the chunk needs room). When
/// they outgrow it, the quads go to disk as a part of the chunk; the chunk ends only when the
/// terms alone take all but an eighth of it, the room left for the next parts.
pub(super) fn parse(
    env: Env<'_>,
    log: &mut PhaseLog<'_>,
    inputs: &[Input],
    extra: &[Quad],
) -> Result<Parsed, BuildError> {
    let (opts, dir, spill, progress) = (env.opts, env.dir, env.spill, &env.opts.progress);
    let t = Instant::now();
    let mut interner = Interner::default();
    let mut quads = ProvQuads::default();
    let mut input_infos = Vec::new();
    let mut prefixes = BTreeMap::new();
    let budget = env.budget;
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
                spill_chunk(interner, quads, dir, spill)?;
            } else if terms + quads.mem.capacity() * QUAD_BYTES > chunk_budget
                && quads.mem.len() > 1024
            {
                spill_quads(quads, dir, spill)?;
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
        spill_chunk(&mut interner, &mut quads, dir, spill)?;
    }
    progress.finish();
    log.done("parse", t.elapsed(), spill);
    Ok(Parsed {
        interner,
        quads,
        inputs: Inputs {
            infos: input_infos,
            prefixes,
        },
    })
}
