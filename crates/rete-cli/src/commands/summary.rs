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
    let summary = pyramid.summary(a.level, a.community)?;
    super::print_report(&summary, a.json)
}
