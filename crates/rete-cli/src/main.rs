//! `rete`: a thin command-line client of the rete library crates. The command line is in
//! [`args`]; each command is one module of [`commands`].

mod args;
mod commands;
mod interrupt;
mod progress;
mod terms;
mod upstream;

use anyhow::Result;
use args::{Cli, Command};
use clap::Parser;
use rete_core::{RangeReader, Rete};
use rete_http::CountedReader;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // `rete shacl` answers with its exit code (1: does not conform), so its errors use 2.
    let error = if matches!(cli.command, Some(Command::Shacl(_))) {
        2
    } else {
        1
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("error: {}", message(&e));
            ExitCode::from(error)
        }
    }
}

/// The error and its causes, `: `-separated; a cause its error already prints at the end (an
/// I/O error named with its path, `path: cause`) is not repeated.
fn message(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if msg.ends_with(&text) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&text);
    }
    msg
}

fn run(cli: Cli) -> Result<ExitCode> {
    use commands::*;
    let stats = cli.stats;
    let _ = HTTP.set(rete_http::HttpOptions {
        redirect_hosts: cli.allow_redirect_host,
        cross_host_redirects: cli.follow_redirects,
        ..rete_http::HttpOptions::default()
    });
    let Some(command) = cli.command else {
        print!("{}", args::TOUR);
        return Ok(ExitCode::SUCCESS);
    };
    let mut src = None;
    let mut code = ExitCode::SUCCESS;
    let result = match command {
        Command::Build(a) => build::run(a),
        Command::Info(a) => open(&a.file, &mut src).and_then(|r| info::run(&r, &a)),
        Command::Query(a) => open(&a.file, &mut src).and_then(|r| query::run(&r, &a)),
        Command::Cost(a) => open(&a.pattern.file, &mut src).and_then(|r| cost::run(&r, &a)),
        Command::Export(a) => open(&a.file, &mut src).and_then(|r| export::run(&r, &a)),
        Command::Sparql(a) => open(&a.file, &mut src).and_then(|r| sparql::run(&r, &a)),
        Command::Prefixes(a) => open(&a.file, &mut src).and_then(|r| prefixes::run(&r, &a)),
        Command::Summary(a) => open(&a.file, &mut src).and_then(|r| summary::run(&r, &a)),
        Command::Index(a) => index::run(&a),
        Command::Search(a) => open(&a.file, &mut src).and_then(|r| search::run(&r, &a)),
        Command::Reach(a) => open(&a.file, &mut src).and_then(|r| reach::run(&r, &a)),
        Command::Path(a) => open(&a.file, &mut src).and_then(|r| path::run(&r, &a)),
        Command::Schema(a) => open(&a.file, &mut src).and_then(|r| schema::run(&r, &a)),
        Command::Coherence(a) => open(&a.file, &mut src).and_then(|r| coherence::run(&r, &a)),
        Command::Shacl(a) => open(&a.file, &mut src).and_then(|r| {
            if !shacl::run(&r, &a)? {
                code = ExitCode::from(1);
            }
            Ok(())
        }),
        Command::Verify(a) => open(&a.file, &mut src).and_then(|r| verify::run(&r)),
        Command::Generate(a) => generate::run(a),
        Command::Serve(a) => serve::run(&a),
    };
    if stats {
        if let Some(src) = &src {
            let s = src.stats();
            eprintln!(
                "fetched {} bytes in {} requests from {}",
                s.bytes,
                s.requests,
                src.name()
            );
        }
    }
    result.map(|()| code)
}

/// `SERVICE` calls allowed to these hosts (`--allow-service`), or none at all.
pub(crate) fn service_options(hosts: &[String]) -> Option<rete_sparql::ServiceOptions> {
    (!hosts.is_empty()).then(|| rete_sparql::ServiceOptions {
        allow: hosts.to_vec(),
        ..rete_sparql::ServiceOptions::default()
    })
}

/// How URLs are read: the global options of the command line (redirects).
static HTTP: std::sync::OnceLock<rete_http::HttpOptions> = std::sync::OnceLock::new();

/// Opens a URL with the command line's HTTP options; a redirect refused for leading to another
/// host names the option that follows it.
pub(crate) fn open_url(url: &str) -> Result<CountedReader> {
    let opts = HTTP.get().cloned().unwrap_or_default();
    match rete_http::HttpReader::open_with(url, opts) {
        Ok(r) => Ok(CountedReader::remote(r)),
        Err(e) => match e.kind.refused_host() {
            Some((_, _, host)) => Err(anyhow::anyhow!(
                "{e}\n(to follow it: --allow-redirect-host {host}, or --follow-redirects for any host)"
            )),
            None => Err(e.into()),
        },
    }
}

/// Opens a local file (an upstream rete file through its converted copy) or a URL; `src` keeps
/// the counted byte source for `--stats`.
pub(crate) fn open(file: &str, src: &mut Option<CountedReader>) -> Result<Rete> {
    open_with(file, src, rete_core::ReteOptions::default())
}

/// [`open`] with reader options (`rete serve --cache`).
pub(crate) fn open_with(
    file: &str,
    src: &mut Option<CountedReader>,
    opts: rete_core::ReteOptions,
) -> Result<Rete> {
    let counted = if rete_http::is_url(file) {
        open_url(file)?
    } else {
        CountedReader::local(upstream::readable(file)?)?
    };
    let rete = Rete::open_with(counted.reader(), opts)?;
    *src = Some(counted);
    Ok(rete)
}
