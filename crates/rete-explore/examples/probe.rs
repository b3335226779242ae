//! The engine's side of the scale benchmark's steps, without the webview: open, top level, zoom
//! into the largest community down to level 0, a community's details, its members, a member's
//! details, coherence Tier 0 and one subject's links as a query. Each step's time and the size
//! of its answer as JSON (what the IPC carries) go to stdout, one line each.
//! Usage: `cargo run --release -p rete-explore --example probe -- FILE.rete` (or a URL: the
//! file read over HTTP, as the app reads it).
use rete_explore::ops;
use rete_explore::store::Store;
use std::time::Instant;

fn step<T: serde::Serialize>(name: &str, f: impl FnOnce() -> T) -> T {
    let t0 = Instant::now();
    let v = f();
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let bytes = serde_json::to_vec(&v).map_or(0, |b| b.len());
    println!("{name:<28} {ms:>9.1} ms {bytes:>10} B");
    v
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = std::env::args().nth(1).ok_or("usage: probe FILE.rete")?;
    let store = Store::default();
    let info = step("open", || {
        if file.starts_with("http://") || file.starts_with("https://") {
            ops::open_url(&store, &file)
        } else {
            ops::open_path(&store, &file)
        }
    })?;
    let doc = info.doc;
    let mut view = step("overview", || ops::overview(&store, doc))?;
    let mut member = None;
    for depth in 0..12 {
        let Some(big) = view
            .nodes
            .iter()
            .filter(|n| n.expandable)
            .max_by(|a, b| a.size.cmp(&b.size))
            .cloned()
        else {
            member = view.nodes.iter().find(|n| n.kind == "entity").map(|n| n.id);
            break;
        };
        step(&format!("group {} (depth {depth})", big.key), || {
            ops::group(&store, doc, &big.key)
        })?;
        let (x, y, r) = (
            big.x.unwrap_or(0.0),
            big.y.unwrap_or(0.0),
            big.r.unwrap_or(1.0),
        );
        view = step(&format!("expand {} ({})", big.key, big.size), || {
            ops::expand(&store, doc, &big.key, x, y, r)
        })?;
        println!(
            "    → {} nodes, {} edges",
            view.nodes.len(),
            view.edges.len()
        );
    }
    // Every member's details in turn, as the user clicks them: each first read is cold.
    let members: Vec<u64> = view
        .nodes
        .iter()
        .filter(|n| n.kind == "entity")
        .map(|n| n.id)
        .collect();
    let mut ms: Vec<f64> = Vec::new();
    for &id in members.iter().skip(1).take(40) {
        let t0 = Instant::now();
        ops::entity(&store, doc, id)?;
        ms.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    if !ms.is_empty() {
        println!(
            "{:<28} {:>9.1} ms median, {:.1} ms max ({} members)",
            "entity (each member)",
            ms[ms.len() / 2],
            ms[ms.len() - 1],
            ms.len()
        );
    }
    if let Some(id) = member {
        step("entity (cold)", || ops::entity(&store, doc, id))?;
        step("entity (again)", || ops::entity(&store, doc, id))?;
        let q = format!(
            "SELECT ?p ?o WHERE {{ {} ?p ?o }}",
            ops::entity(&store, doc, id)?.term.nt
        );
        let out = step("selective query", || ops::sparql_run(&store, doc, 1, &q))?;
        println!(
            "    → {} rows ({} ms in the engine)",
            out.total, out.elapsed_ms
        );
    }
    for i in 0..2 {
        let t0 = Instant::now();
        let mut tier0 = None;
        let _ = ops::coherence_run(&store, doc, 100 + i, |_| {
            if tier0.is_none() {
                tier0 = Some(t0.elapsed().as_secs_f64() * 1e3);
                // Only Tier 0 matters here: stop the later tiers.
                ops::coherence_cancel(&store, 100 + i);
            }
        });
        println!(
            "{:<28} {:>9.1} ms",
            "coherence tier 0",
            tier0.unwrap_or(f64::NAN)
        );
    }
    Ok(())
}
