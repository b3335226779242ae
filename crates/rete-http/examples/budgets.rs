//! Measures what reading a `.rete` over HTTP costs: serves FILE from 127.0.0.1 (axum + tower-http
//! `ServeDir`, optionally with an added delay per response to mimic a distant server), opens it
//! with `HttpReader` and prints requests, bytes and wall time of typical steps.
//!
//! `cargo run --release -p rete-http --example budgets -- FILE.rete [DELAY_MS]`

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a tool")]

use axum::serve::ListenerExt;
use oxrdf::NamedNode;
use rete_core::{Pattern, Rete};
use rete_http::HttpReader;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn serve(dir: std::path::PathBuf, delay: Duration) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            // Like production servers: no Nagle delay between headers and body.
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let app = axum::Router::new()
                .fallback_service(tower_http::services::ServeDir::new(dir))
                .layer(axum::middleware::from_fn(
                    move |req: axum::extract::Request, next: axum::middleware::Next| async move {
                        tokio::time::sleep(delay).await;
                        next.run(req).await
                    },
                ));
            axum::serve(listener, app).await.expect("serve");
        });
    });
    base
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = std::path::PathBuf::from(args.next().ok_or("usage: budgets FILE.rete [DELAY_MS]")?);
    let delay = Duration::from_millis(args.next().map_or(Ok(0), |s| s.parse())?);
    let path = path.canonicalize()?;
    let dir = path.parent().ok_or("no parent directory")?.to_path_buf();
    let name = path.file_name().ok_or("no file name")?.to_string_lossy();
    let url = format!("{}/{name}", serve(dir, delay));
    println!(
        "{} ({} bytes), {} ms added per response\n",
        path.display(),
        std::fs::metadata(&path)?.len(),
        delay.as_millis()
    );
    println!("| step | requests | bytes | ms |\n| --- | ---: | ---: | ---: |");

    let mut t = Instant::now();
    let reader = Arc::new(HttpReader::open(&url)?);
    let rete = Rete::open(reader.clone())?;
    let mut step = |label: &str| {
        let s = reader.stats();
        println!(
            "| {label} | {} | {} | {:.1} |",
            s.requests,
            s.bytes,
            t.elapsed().as_secs_f64() * 1e3
        );
        reader.reset_stats();
        t = Instant::now();
    };
    step("open (`HttpReader::open` + `Rete::open`)");
    rete.quads(&Pattern::default())?;
    step("block directories (first query)");
    let card = rete.card()?.clone();
    step("card");
    for p in card.predicates.iter().take(3) {
        let iri = NamedNode::new(p.term.trim_start_matches('<').trim_end_matches('>'))?;
        let id = rete.id_of(iri.as_ref().into())?;
        step(&format!("`id_of` {}", p.term));
        let n = rete.quads(&Pattern::new(None, id, None))?.count();
        step(&format!("`quads` ?s {} ?o ({n} quads)", p.term));
        rete.count(&Pattern::new(None, id, None))?;
        step("`count` of the same pattern");
    }
    let id = rete.term_count() / 2;
    rete.term(id)?;
    step(&format!("`term({id})`"));
    let s = rete.term_count() / 3;
    let n = rete.quads(&Pattern::new(Some(s), None, None))?.count();
    step(&format!("`quads` <term {s}> ?p ?o ({n} quads)"));
    rete.quads(&Pattern::default())?.next().transpose()?;
    step("first quad of a full scan (readahead)");
    Ok(())
}
