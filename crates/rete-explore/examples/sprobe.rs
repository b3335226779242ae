use rete_explore::engine::SearchRequest;
use rete_explore::ops;
use rete_explore::store::Store;
use std::time::Instant;
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = std::env::args().nth(1).ok_or("file")?;
    let q = std::fs::read_to_string(std::env::args().nth(2).ok_or("queries")?)?;
    let store = Store::default();
    let doc = ops::open_path(&store, &file)?.doc;
    let _ = ops::overview(&store, doc)?;
    let mut ts = vec![];
    for (i, text) in q.lines().take(400).enumerate() {
        let req = SearchRequest {
            text: text.to_owned(),
            kind: None,
            within: None,
            limit: 12,
        };
        let t0 = Instant::now();
        let v = ops::search(&store, doc, i as u32 + 1, &req)?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        let t1 = Instant::now();
        let bytes = serde_json::to_vec(&v)?.len();
        let ser = t1.elapsed().as_secs_f64() * 1e3;
        ts.push((ms, ser, bytes, text.to_owned()));
    }
    let mut s: Vec<f64> = ts.iter().map(|t| t.0).collect();
    s.sort_by(f64::total_cmp);
    println!(
        "p50 {:.2} p90 {:.2} p99 {:.2} max {:.2}",
        s[s.len() / 2],
        s[s.len() * 9 / 10],
        s[s.len() * 99 / 100],
        s[s.len() - 1]
    );
    ts.sort_by(|a, b| a.0.total_cmp(&b.0));
    for t in ts.iter().rev().take(8) {
        println!("{:.2} ms ser {:.3} {} B {:?}", t.0, t.1, t.2, t.3);
    }
    Ok(())
}
