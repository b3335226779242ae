//! The card: the dataset's counts, its named counts read back from the written dictionary, the
//! content hash, and how it was built.

use super::parse::Inputs;
use super::{BuildInfoExtra, Dict};
use crate::extdict::TermLookup;
use crate::permutations::PermResult;
use crate::{BuildError, BuildOptions};
use rete_core::card::{BuildInfo, Card, NamedCount};
use rete_core::{term, Perm};
use std::collections::BTreeMap;

/// The card of the permutations `perms` (in [`Perm::ALL`] order) over dictionary `dict`, whose
/// hash it completes.
pub(super) fn card(
    opts: &BuildOptions,
    perms: &[PermResult],
    dict: &mut Dict,
    inputs: Inputs,
    info: BuildInfoExtra,
) -> Result<Card, BuildError> {
    let spo = &perms[Perm::Spo as usize].stats;
    let mut lookup = TermLookup::open(&dict.path, &dict.dict)?;
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
    dict.hash.update(&spo.quad_hash.to_le_bytes());
    let quads = perms[0].stats.total;
    let mut options = opts.recorded_options.clone();
    options.insert("zstd_level".into(), opts.zstd_level.into());
    options.insert("dict_block_bytes".into(), opts.dict_block_bytes.into());
    options.insert(
        "trained_dict_block_bytes".into(),
        opts.trained_dict_block_bytes.into(),
    );
    options.insert("train_dict_above".into(), opts.train_dict_above.into());
    options.insert("perm_block_quads".into(), opts.perm_block_quads.into());
    if let Some(b) = &opts.base_iri {
        options.insert("base_iri".into(), b.clone().into());
    }
    Ok(Card {
        quads,
        default_graph_quads: spo.default_graph,
        terms: dict.dict.terms,
        distinct_subjects: spo.distinct_first,
        distinct_predicates: perms[Perm::Pso as usize].stats.distinct_first,
        distinct_objects: perms[Perm::Osp as usize].stats.distinct_first,
        distinct_triples: Some(spo.distinct_triples),
        graphs,
        classes,
        predicates,
        prefixes: inputs.prefixes,
        build: BuildInfo {
            tool: "rete".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            inputs: inputs.infos,
            options,
            materialized: info.materialized,
            inferred_quads: info.base_quads.map_or(0, |b| quads.saturating_sub(b)),
        },
        content_hash: format!("{:032x}", dict.hash.digest128()),
    })
}
