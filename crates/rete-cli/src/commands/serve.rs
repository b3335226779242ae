//! `rete serve`: each file a read-only SPARQL 1.1 endpoint (the HTTP server is rete-server),
//! until Ctrl-C or SIGTERM.

use crate::args::ServeArgs;
use anyhow::{Context, Result};
use rete_server::{endpoint_name, Endpoint, ServeOptions, Server};
use std::io::Write;

/// `NAME=FILE` when the part before `=` is a valid endpoint name (a URL's `?a=b` is not).
fn named(arg: &str) -> (String, &str) {
    if let Some((name, file)) = arg.split_once('=') {
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if valid {
            return (name.to_owned(), file);
        }
    }
    (endpoint_name(arg), arg)
}

pub fn run(a: &ServeArgs) -> Result<()> {
    let mut endpoints = Vec::new();
    let mut caches = Vec::new();
    for arg in &a.files {
        let (name, file) = named(arg);
        let cache = a.cache.unwrap_or_else(|| {
            let bytes = rete_server::default_cache_for(file, a.files.len());
            usize::try_from(bytes).unwrap_or(usize::MAX)
        });
        caches.push(cache);
        let opts = rete_core::ReteOptions {
            cache_bytes: cache,
            ..rete_core::ReteOptions::default()
        };
        let rete = crate::open_with(file, &mut None, opts)
            .with_context(|| format!("cannot open {file}"))?;
        endpoints.push(Endpoint::new(name, file, rete)?);
    }
    let mut opts = ServeOptions {
        timeout: (!a.timeout.is_zero()).then_some(a.timeout),
        max_rows: a.max_rows,
        max_body: a.max_body,
        cors: a.cors.clone(),
        union_default_graph: a.union_default_graph,
        service: crate::service_options(&a.allow_service),
        ..ServeOptions::default()
    };
    if let Some(t) = a.threads {
        opts.threads = t;
        opts.queue = 4 * t;
    }
    if let Some(q) = a.queue {
        opts.queue = q;
    }
    let names: Vec<(String, String)> = endpoints
        .iter()
        .zip(&a.files)
        .map(|(e, f)| (e.name().to_owned(), named(f).1.to_owned()))
        .collect();
    let server = Server::start(endpoints, opts, &a.bind)?;
    let base = format!("http://{}", server.addr());
    // Printing fails once the reader of our output has gone (`rete serve | head -1`): the
    // server goes on regardless.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "serving {} file{} at {base}/ (Ctrl-C to stop)",
        names.len(),
        if names.len() == 1 { "" } else { "s" }
    );
    for ((name, file), cache) in names.iter().zip(&caches) {
        let cache = rete_core::human::bytes(*cache as u64);
        let _ = writeln!(out, "  {base}/{name}/sparql  {file}  (cache {cache})");
    }
    let _ = out.flush();
    drop(out);
    crate::interrupt::wait()?;
    eprintln!("stopping: finishing the requests in flight");
    server.stop()?;
    Ok(())
}
