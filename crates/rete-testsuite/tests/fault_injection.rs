//! Fault injection as SQLite does it: a byte source that fails every n-th read, for n = 1, 2, …
//! until a whole session of reads runs without a fault. Every call either answers exactly what
//! the faultless session answered or fails with the injected error: never a panic, never a
//! partial or wrong answer, never a fault that poisons the caches (the next call, with the reads
//! succeeding again, answers right). Run as a local file reads and as a remote reader reads
//! (directory pages one at a time).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

#[path = "../../../fuzz/src/lib.rs"]
#[allow(dead_code, reason = "only the file builder serves here")]
mod rete_fuzz;

use rete_core::{MemReader, Pattern, Perm, RangeError, RangeReader, Rete, ReteOptions};
use rete_pyramid::Pyramid;
use rete_schema::Schema;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const FAULT: &str = "injected fault";

/// Fails every `every`-th read (`0`: never).
#[derive(Debug)]
struct Faulty {
    inner: MemReader,
    every: u64,
    remote: bool,
    reads: AtomicU64,
    faults: AtomicU64,
}

impl RangeReader for Faulty {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, RangeError> {
        let k = self.reads.fetch_add(1, Ordering::SeqCst) + 1;
        if self.every > 0 && k % self.every == 0 {
            self.faults.fetch_add(1, Ordering::SeqCst);
            return Err(RangeError::new(
                self.name(),
                format!("{FAULT} at read {k} ({len} bytes at {offset})"),
            ));
        }
        self.inner.read_at(offset, len)
    }

    fn name(&self) -> &str {
        "faulty.rete"
    }

    fn is_remote(&self) -> bool {
        self.remote
    }
}

/// One call of a session, named, and its answer as text (`Err`: its message).
type Call = (String, Result<String, String>);

/// A session: every read a user of the file triggers, each call's answer. Stops at a failed
/// open; a pyramid that fails to open has no levels to ask for.
fn session(reader: Arc<Faulty>) -> Vec<Call> {
    let mut out = Vec::new();
    // Small reads and a small cache: many reads to fail, blocks read again after a fault.
    let opts = ReteOptions {
        cache_bytes: 16 << 10,
        prefetch: 0,
        readahead: 0,
        lazy_directories: Some(reader.remote),
        ..ReteOptions::default()
    };
    let rete = match Rete::open_with(reader, opts) {
        Ok(r) => r,
        Err(e) => return vec![("open".into(), Err(e.to_string()))],
    };
    let mut note = |name: String, r: Result<String, String>| out.push((name, r));
    note(
        "card".into(),
        rete.card()
            .map(|c| format!("{c:?}"))
            .map_err(|e| e.to_string()),
    );
    for id in [1, 2, 7, 40, 100] {
        note(
            format!("term {id}"),
            rete.term(id)
                .map(|t| t.to_string())
                .map_err(|e| e.to_string()),
        );
    }
    for perm in [Perm::Spo, Perm::Pos, Perm::Osp] {
        note(
            format!("scan {perm:?}"),
            rete.scan(perm, &Pattern::default())
                .and_then(|it| it.collect::<Result<Vec<_>, _>>())
                .map(|q| format!("{} quads, last {:?}", q.len(), q.last()))
                .map_err(|e| e.to_string()),
        );
    }
    note(
        "verify".into(),
        rete.verify()
            .map(|v| format!("{v:?}"))
            .map_err(|e| e.to_string()),
    );
    match Pyramid::open(&rete) {
        Ok(Some(p)) => {
            for l in 0..p.levels() {
                note(
                    format!("level {l}"),
                    p.level(l)
                        .map(|v| format!("{v:?}"))
                        .map_err(|e| e.to_string()),
                );
            }
            note(
                "members 0".into(),
                p.members(0)
                    .map(|v| format!("{v:?}"))
                    .map_err(|e| e.to_string()),
            );
        }
        Ok(None) => note("pyramid".into(), Ok("none".into())),
        Err(e) => note("pyramid".into(), Err(e.to_string())),
    }
    note(
        "schema".into(),
        Schema::open(&rete)
            .map(|s| format!("{:?}", s.map(|s| s.classes.len())))
            .map_err(|e| e.to_string()),
    );
    out
}

#[test]
fn every_nth_read_failing_gives_the_fault_or_the_right_answer() {
    let dir = tempfile::tempdir().unwrap();
    let image = rete_fuzz::social_image(dir.path(), "faults", 40, b"");
    for remote in [false, true] {
        let reader = |every| {
            Arc::new(Faulty {
                inner: MemReader::new(image.clone(), "faulty.rete"),
                every,
                remote,
                reads: AtomicU64::new(0),
                faults: AtomicU64::new(0),
            })
        };
        let clean = reader(0);
        let want = session(clean.clone());
        assert!(want.iter().all(|(_, r)| r.is_ok()), "{want:?}");
        let answer = |name: &str| want.iter().find(|(n, _)| n == name).map(|(_, r)| r);
        let reads = clean.reads.load(Ordering::SeqCst);
        assert!(reads > 10, "{reads} reads");
        eprintln!("remote {remote}: {reads} reads in a session, each failed in turn");
        for every in 1..=reads + 1 {
            let r = reader(every);
            let got = session(r.clone());
            let faults = r.faults.load(Ordering::SeqCst);
            if every > r.reads.load(Ordering::SeqCst) {
                assert_eq!(faults, 0);
                assert_eq!(got, want, "remote {remote}: no fault, same answers");
                continue;
            }
            assert!(faults > 0, "every {every}");
            let mut failed = 0;
            for (name, g) in &got {
                match g {
                    Ok(v) => assert_eq!(
                        Some(&Ok(v.clone())),
                        answer(name),
                        "remote {remote}, every {every}: {name} answered differently"
                    ),
                    Err(e) => {
                        assert!(e.contains(FAULT), "remote {remote}, every {every}: {e}");
                        failed += 1;
                    }
                }
            }
            assert!(
                failed > 0,
                "remote {remote}, every {every}: a fault went unreported"
            );
        }
    }
}
