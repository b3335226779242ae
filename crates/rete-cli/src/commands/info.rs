//! `rete info`: header, sections and card ([`rete_core::FileInfo`]).

use crate::args::InfoArgs;
use anyhow::Result;
use rete_core::Rete;

pub fn run(rete: &Rete, a: &InfoArgs) -> Result<()> {
    let info = rete.info(&a.file)?;
    super::print_json_or_text(a.json.then(|| info.to_json()), &info)
}
