//! The permutations phase: the six sorted (in memory, or into spilled runs), then each written
//! in compressed blocks with its statistics.

use super::parse::QUAD_BYTES;
use super::{Env, PhaseLog};
use crate::options::check_cancel;
use crate::permutations::{compress_block, PermResult, PermStats};
use crate::sort::{ProvQuads, SortedKeys};
use crate::BuildError;
use rete_core::perm::PermWriter;
use rete_core::Perm;
use std::fs::File;
use std::io::BufWriter;
use std::time::{Duration, Instant};

/// Sorts each permutation of `quads` (in final ids; `rdf_type` the id of `rdf:type`), then
/// writes each; the results in [`Perm::ALL`] order.
pub(super) fn permutations(
    env: Env<'_>,
    log: &mut PhaseLog<'_>,
    quads: ProvQuads,
    rdf_type: Option<u64>,
) -> Result<Vec<PermResult>, BuildError> {
    let (opts, dir, spill, progress) = (env.opts, env.dir, env.spill, &env.opts.progress);
    let budget = env.budget;
    let t = Instant::now();
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
        let keys = SortedKeys::new(&quads, perm, &packing, run_len, spill_all, dir, spill)?;
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
            spill,
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
    log.report.permutations_one_at_a_time |= one_at_a_time;
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
        quads.remove(spill);
        log.done("sort", sorting, spill);
        progress.start("permutations", Some(6));
        progress.inc(6);
        progress.finish();
        log.done("permutations", writing, spill);
    } else {
        progress.start("sort", Some(6));
        let sorted: Vec<Result<SortedKeys, BuildError>> = {
            use rayon::prelude::*;
            Perm::ALL.par_iter().map(|&p| sort_perm(p)).collect()
        };
        progress.finish();
        let sorted = sorted.into_iter().collect::<Result<Vec<_>, _>>()?;
        quads.remove(spill);
        log.done("sort", t.elapsed(), spill);
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
        log.done("permutations", t.elapsed(), spill);
    }
    let mut perms = Vec::with_capacity(6);
    for r in results {
        let (pr, runs) = r?;
        log.report.spilled_runs += runs;
        perms.push(pr);
    }
    Ok(perms)
}
