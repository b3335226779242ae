//! `rete`: a thin command-line client of the rete library crates. The command line is in
//! [`args`]; each command is one module of [`commands`].

mod args;
mod commands;
mod progress;
mod terms;

use anyhow::Result;
use args::{Cli, Command};
use clap::Parser;
use rete_core::{CountingReader, FileReader, RangeReader, ReadStats, Rete};
use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    use commands::*;
    let stats = cli.stats;
    let Some(command) = cli.command else {
        print!("{}", args::TOUR);
        return Ok(());
    };
    let mut src = None;
    let result = match command {
        Command::Build(a) => build::run(a),
        Command::Info(a) => open(&a.file, &mut src).and_then(|r| info::run(&r, &a)),
        Command::Query(a) => open(&a.file, &mut src).and_then(|r| query::run(&r, &a)),
        Command::Cost(a) => open(&a.pattern.file, &mut src).and_then(|r| cost::run(&r, &a)),
        Command::Export(a) => open(&a.file, &mut src).and_then(|r| export::run(&r, &a)),
        Command::Sparql(a) => open(&a.file, &mut src).and_then(|r| sparql::run(&r, &a)),
        Command::Prefixes(a) => open(&a.file, &mut src).and_then(|r| prefixes::run(&r, &a)),
        Command::Summary(a) => open(&a.file, &mut src).and_then(|r| summary::run(&r, &a)),
        Command::Reach(a) => open(&a.file, &mut src).and_then(|r| reach::run(&r, &a)),
        Command::Schema(a) => open(&a.file, &mut src).and_then(|r| schema::run(&r, &a)),
        Command::Coherence(a) => open(&a.file, &mut src).and_then(|r| coherence::run(&r, &a)),
        Command::Verify(a) => open(&a.file, &mut src).and_then(|r| verify::run(&r)),
        Command::Generate(a) => generate::run(a),
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
    result
}

/// Where a file is read from: a local path, or a URL through `rete-http`. Both count what they
/// read, for `--stats`.
enum Src {
    Local(Arc<CountingReader<FileReader>>),
    Remote(Arc<rete_http::HttpReader>),
}

impl Src {
    fn stats(&self) -> ReadStats {
        match self {
            Src::Local(r) => r.stats(),
            Src::Remote(r) => r.stats(),
        }
    }
    fn name(&self) -> &str {
        match self {
            Src::Local(r) => r.name(),
            Src::Remote(r) => r.name(),
        }
    }
}

/// Opens a local file or a URL; `src` keeps the byte source for `--stats`.
fn open(file: &str, src: &mut Option<Src>) -> Result<Rete> {
    let reader: Arc<dyn RangeReader> = if rete_http::is_url(file) {
        let r = Arc::new(rete_http::HttpReader::open(file)?);
        *src = Some(Src::Remote(r.clone()));
        r
    } else {
        let r = Arc::new(CountingReader::new(FileReader::open(file)?));
        *src = Some(Src::Local(r.clone()));
        r
    };
    Ok(Rete::open(reader)?)
}
