//! `rete schema`: the schema block's class tree, relations and axioms.

use crate::args::JsonFileArgs;
use anyhow::{bail, Result};
use rete_core::Rete;

pub fn run(rete: &Rete, a: &JsonFileArgs) -> Result<()> {
    let Some(schema) = rete_schema::Schema::open(rete)? else {
        bail!(
            "{} has no schema block (it was built with --no-schema)",
            rete.name()
        );
    };
    super::print_report(&schema, a.json)
}
