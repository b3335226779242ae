//! What a document holds decoded, measured as the app uses one: the card, a term, a pattern
//! count (every block directory), the pyramid's top, directory and first level, the whole
//! schema and a search. Prints the decode budget's peak and what stays held, per file: the
//! figures behind the default budget (docs/reliability.md).
//!
//!     cargo run -p rete-testsuite --example decode_budget -- FILE.rete...

use rete_core::{Pattern, Rete};
use std::sync::atomic::AtomicBool;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("file\tbytes\tpeak\theld\tdefault budget");
    for path in std::env::args().skip(1) {
        let rete = Rete::open_path(&path)?;
        rete.card()?;
        rete.term(1)?;
        rete.count(&Pattern::default())?;
        let pyramid = rete_pyramid::Pyramid::open(&rete)?;
        if let Some(p) = &pyramid {
            p.level(p.levels().saturating_sub(2))?;
        }
        let schema = rete_schema::Schema::open(&rete)?;
        let searcher = rete_search::Searcher::open(&rete)?;
        searcher.search(&rete_search::Query::new("a"), &AtomicBool::new(false))?;
        let budget = rete.decode_budget();
        println!(
            "{path}\t{}\t{}\t{}\t{}",
            rete.reader().len(),
            budget.peak(),
            budget.held(),
            budget.limit()
        );
        drop((pyramid, schema, searcher));
    }
    Ok(())
}
