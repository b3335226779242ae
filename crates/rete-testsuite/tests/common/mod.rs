//! Test support shared by the Oxigraph comparisons (differential and paths): the same N-Quads
//! loaded into Oxigraph and built into a `.rete`, and Oxigraph's answer in the suite's form.

use oxigraph::io::RdfFormat;
use oxigraph::sparql::{QueryResults as OxResults, SparqlEvaluator};
use oxigraph::store::Store;
use rete_testsuite::compare::{Answer, Table};
use std::path::Path;

/// Loads `nq` into an in-memory Oxigraph store and builds it into `dir/name.rete` (zstd level 1:
/// the tests compare answers, not sizes); returns both.
pub fn oxigraph_and_rete(nq: String, dir: &Path, name: &str) -> (Store, rete_core::Rete) {
    let store = Store::new().expect("store");
    store
        .load_from_reader(RdfFormat::NQuads, nq.as_bytes())
        .expect("oxigraph loads");
    let out = dir.join(format!("{name}.rete"));
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                format!("{name}.nq"),
                nq.into_bytes(),
                rete_build::Syntax::NQuads,
            )],
            zstd_level: 1,
            ..rete_build::BuildOptions::default()
        },
        &out,
    )
    .expect("builds");
    (store, rete_core::Rete::open_path(&out).expect("opens"))
}

/// Oxigraph's answer to `q`, collected as the suite compares answers.
pub fn oxigraph_answer(store: &Store, q: &str) -> Answer {
    let r = SparqlEvaluator::new()
        .parse_query(q)
        .expect("oxigraph parses")
        .on_store(store)
        .execute()
        .expect("oxigraph evaluates");
    match r {
        OxResults::Boolean(b) => Answer::Boolean(b),
        OxResults::Solutions(s) => {
            let variables = s.variables().to_vec();
            let mut rows = Vec::new();
            for sol in s {
                let sol = sol.expect("solution");
                rows.push(variables.iter().map(|v| sol.get(v).cloned()).collect());
            }
            Answer::Table(Table { variables, rows })
        }
        OxResults::Graph(g) => Answer::Graph(g.collect::<Result<Vec<_>, _>>().expect("triples")),
    }
}
