//! `rete summary`: the community pyramid ([`rete_pyramid::Summary`]).

use crate::args::SummaryArgs;
use anyhow::{bail, Result};
use rete_core::Rete;

pub fn run(rete: &Rete, a: &SummaryArgs) -> Result<()> {
    let Some(pyramid) = rete_pyramid::Pyramid::open(rete)? else {
        bail!(
            "{} has no community pyramid (it was built with --no-pyramid)",
            rete.name()
        );
    };
    let langs = a
        .lang
        .clone()
        .unwrap_or_else(rete_pyramid::lang::env_languages);
    let langs: Vec<&str> = langs.iter().map(String::as_str).collect();
    let summary = pyramid
        .with_languages(&langs)
        .summary(a.level, a.community)?;
    super::print_report(&summary, a.json)
}
