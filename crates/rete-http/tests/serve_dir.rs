//! Against a real HTTP server (axum + tower-http `ServeDir`, which implements Range, Last-Modified
//! and If-Unmodified-Since) on 127.0.0.1: byte ranges equal local reads, a `.rete` answers the same
//! over HTTP as from disk, and request budgets hold.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;
mod server;

use common::noise;
use oxrdf::NamedNodeRef;
use rete_build::BuildOptions;
use rete_core::dict::DictIndex;
use rete_core::format::kind;
use rete_core::perm::PermIndex;
use rete_core::{FileReader, Pattern, Perm, RangeReader, ReadStats, Rete};
use rete_http::{HttpError, HttpErrorKind, HttpOptions, HttpReader};
use server::{assert_patterns_agree, serve_dir};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

fn build_social(out: &Path, people: u64) {
    let opts = BuildOptions {
        memory_budget: 64 << 20,
        ..BuildOptions::default()
    };
    server::build_social(out, people, opts);
}

struct Fixture {
    _dir: tempfile::TempDir,
    base: String,
    rete: PathBuf,
    noise: PathBuf,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let rete = dir.path().join("social.rete");
        build_social(&rete, 3000);
        let noise_path = dir.path().join("noise.bin");
        std::fs::write(&noise_path, noise(3, 1 << 20)).unwrap();
        let base = serve_dir(dir.path().to_path_buf());
        Fixture {
            base,
            rete,
            noise: noise_path,
            _dir: dir,
        }
    })
}

fn url(name: &str) -> String {
    format!("{}/{name}", fixture().base)
}

#[test]
fn random_ranges_equal_local_reads() {
    let f = fixture();
    let local = FileReader::open(&f.noise).unwrap();
    let remote = HttpReader::open_with(
        &url("noise.bin"),
        HttpOptions {
            cache_bytes: 256 << 10, // small, so eviction happens along the way
            ..HttpOptions::default()
        },
    )
    .unwrap();
    assert_eq!(remote.len(), local.len());
    assert!(remote.ranges_supported());
    assert!(remote.last_modified().is_some());
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let len = local.len();
    for _ in 0..300 {
        let size = [1, 100, 5000, 70_000][next(4) as usize];
        let o = next(len - size);
        let l = next(size) as usize + 1;
        assert_eq!(
            remote.read_at(o, l).unwrap(),
            local.read_at(o, l).unwrap(),
            "{o}+{l}"
        );
    }
    for _ in 0..50 {
        let ranges: Vec<(u64, usize)> = (0..8)
            .map(|_| {
                let l = next(3000) as usize + 1;
                (next(len - l as u64), l)
            })
            .collect();
        assert_eq!(
            remote.read_many(&ranges).unwrap(),
            local.read_many(&ranges).unwrap()
        );
    }
    // Threads sharing one reader (and its cache) get the right bytes.
    let remote = &remote;
    let local = &local;
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            scope.spawn(move || {
                for i in 0..100u64 {
                    let o = (t * 7919 + i * 104_729) % (len - 20_000);
                    let l = 1 + ((i * 37 + t) % 20_000) as usize;
                    assert_eq!(remote.read_at(o, l).unwrap(), local.read_at(o, l).unwrap());
                }
            });
        }
    });
    // The whole file in one read, and the very end.
    assert_eq!(
        remote.read_at(0, len as usize).unwrap(),
        local.read_at(0, len as usize).unwrap()
    );
    assert_eq!(
        remote.read_at(len - 1, 1).unwrap(),
        local.read_at(len - 1, 1).unwrap()
    );
    assert!(remote.read_at(len - 1, 2).is_err());
}

#[test]
fn rete_over_http_answers_like_the_local_file() {
    let f = fixture();
    let local = Rete::open_path(&f.rete).unwrap();
    let remote = Rete::open(Arc::new(HttpReader::open(&url("social.rete")).unwrap())).unwrap();
    assert_eq!(remote.header(), local.header());
    assert_eq!(remote.sections(), local.sections());
    assert_eq!(remote.card().unwrap(), local.card().unwrap());

    let all: Vec<_> = local
        .quads(&Pattern::default())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let all_remote: Vec<_> = remote
        .quads(&Pattern::default())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(all_remote, all);
    assert!(all.len() > 10_000);

    for id in 1..=local.term_count() {
        assert_eq!(remote.term(id).unwrap(), local.term(id).unwrap());
    }
    // Patterns of every shape, from a sample of the quads.
    for q in all.iter().step_by(997) {
        let [s, p, o, _] = *q;
        assert_patterns_agree(&local, &remote, [s, p, o]);
        let term = local.term(o).unwrap();
        assert_eq!(remote.id_of(term.as_ref()).unwrap(), Some(o));
    }
    remote.verify().unwrap();
}

/// The blocks of permutation `perm` a pattern with leading key `lead` touches: their byte range.
fn pattern_blocks(rete: &Rete, perm: Perm, lead: &[u64]) -> (u64, u64) {
    let sec = *rete.section(kind::PERM_BLOCKS, perm as u16).unwrap();
    let idx = rete
        .section_payload(kind::PERM_INDEX, perm as u16)
        .unwrap()
        .unwrap();
    let pi = PermIndex::decode(&idx, sec.len, "perm index", "test").unwrap();
    let (mut lo, mut hi) = ([0; 4], [u64::MAX; 4]);
    lo[..lead.len()].copy_from_slice(lead);
    hi[..lead.len()].copy_from_slice(lead);
    let (first, end) = (pi.first_block_for(&lo), pi.end_block_for(&hi));
    let last = &pi.blocks[end - 1];
    (
        sec.offset + pi.blocks[first].offset,
        sec.offset + last.offset + u64::from(last.stored_len),
    )
}

/// What reading `[start, end)` costs at least once the open prefetch is cached: the bytes
/// outside it, in one request if the reader fetched the range whole.
fn fetch_cost(start: u64, end: u64) -> ReadStats {
    let prefetch = HttpOptions::default().prefetch as u64;
    let bytes = end.saturating_sub(start.max(prefetch));
    ReadStats {
        requests: u64::from(bytes > 0),
        bytes,
    }
}

#[test]
fn request_budgets() {
    let f = fixture();
    let file_len = std::fs::metadata(&f.rete).unwrap().len();
    // Ids to query, found in the local copy (so they cost no request).
    let local = Rete::open_path(&f.rete).unwrap();
    let knows = local
        .id_of(
            NamedNodeRef::new("http://xmlns.com/foaf/0.1/knows")
                .unwrap()
                .into(),
        )
        .unwrap()
        .unwrap();
    let person = local
        .id_of(
            NamedNodeRef::new("http://xmlns.com/foaf/0.1/Person")
                .unwrap()
                .into(),
        )
        .unwrap()
        .unwrap();
    let [someone, _, known, _] = local
        .quads(&Pattern::new(None, Some(knows), None))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();

    let reader = Arc::new(HttpReader::open(&url("social.rete")).unwrap());
    let rete = Rete::open(reader.clone()).unwrap();
    // Header and section directory come with the request made at open.
    assert_eq!(reader.stats().requests, 1);
    // The block directories: one more request, on first use.
    rete.quads(&Pattern::default()).unwrap();
    assert!(reader.stats().requests <= 2, "{:?}", reader.stats());
    reader.reset_stats();
    Rete::open(reader.clone())
        .unwrap()
        .quads(&Pattern::default())
        .unwrap();
    assert_eq!(
        reader.stats().requests,
        0,
        "a second open is served from the range cache"
    );

    // A single-pattern query fetches exactly the byte span of its own blocks, in one request.
    for (perm, pat, lead) in [
        (
            Perm::Pso,
            Pattern::new(None, Some(knows), None),
            vec![knows],
        ),
        (
            Perm::Spo,
            Pattern::new(Some(someone), None, None),
            vec![someone],
        ),
        (
            Perm::Pos,
            Pattern::new(None, Some(knows), Some(known)),
            vec![knows, known],
        ),
        (
            Perm::Osp,
            Pattern::new(None, None, Some(person)),
            vec![person],
        ),
    ] {
        let (start, end) = pattern_blocks(&rete, perm, &lead);
        // rete-core's own estimate (for a reader without a cache) agrees with the directory.
        // The scan's readahead starts at one block and doubles, so a long range takes a few
        // requests: as many as rete-core's estimate says, never more.
        let cost = rete.pattern_cost(&pat).unwrap();
        assert_eq!(cost.bytes, end - start, "{pat:?}");
        assert!(
            cost.requests >= 1 && cost.requests <= 2 + cost.blocks.ilog2() as u64,
            "{pat:?}: {cost:?}"
        );
        reader.reset_stats();
        let n = rete.quads(&pat).unwrap().map(Result::unwrap).count();
        assert!(n > 0, "{pat:?}");
        let got = reader.stats();
        let want = fetch_cost(start, end);
        assert_eq!(got.bytes, want.bytes, "{pat:?}");
        assert!(
            got.requests >= want.requests && got.requests <= cost.requests,
            "{pat:?}: {got:?} vs {cost:?}"
        );
        assert!(
            end - start < file_len / 4,
            "a pattern reads a small part of the file"
        );
        // Again: served by the reader's block cache.
        reader.reset_stats();
        rete.quads(&pat).unwrap().for_each(drop);
        assert_eq!(reader.stats().requests, 0);
    }

    // A term lookup fetches its one dictionary block (nothing if the block lies in the prefetch).
    let sec = *rete.section(kind::DICT_BLOCKS, 0).unwrap();
    let idx = rete.section_payload(kind::DICT_INDEX, 0).unwrap().unwrap();
    let di = DictIndex::decode(&idx, rete.term_count(), sec.len, "test").unwrap();
    let id = rete.term_count() / 2;
    let block = &di.blocks[di.block_of_id(id).unwrap()];
    reader.reset_stats();
    rete.term(id).unwrap();
    let start = sec.offset + block.offset;
    assert_eq!(
        reader.stats(),
        fetch_cost(start, start + u64::from(block.stored_len))
    );
}

#[test]
fn open_prefetch_serves_the_first_read() {
    let reader = HttpReader::open(&url("noise.bin")).unwrap();
    assert_eq!(
        reader.stats(),
        ReadStats {
            requests: 1,
            bytes: 16 << 10
        }
    );
    reader.read_at(0, 8192).unwrap();
    reader.read_at(100, 16_000).unwrap();
    assert_eq!(reader.stats().requests, 1);
}

#[test]
fn missing_file_is_404() {
    let e = HttpReader::open(&url("nope.rete")).unwrap_err();
    assert_eq!(e.kind, HttpErrorKind::Status { status: 404 });
    assert!(
        e.to_string().contains("nope.rete: HTTP 404 Not Found"),
        "{e}"
    );
}

#[test]
fn file_replaced_on_the_server_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("social.rete");
    std::fs::copy(&fixture().rete, &path).unwrap();
    let base = serve_dir(dir.path().to_path_buf());
    let reader = Arc::new(HttpReader::open(&format!("{base}/social.rete")).unwrap());
    let rete = Rete::open(reader.clone()).unwrap();
    // Replace the file (same length, new bytes, a later modification time).
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    std::fs::write(&path, noise(9, len)).unwrap();
    let later = SystemTime::now() + Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let err = match rete.quads(&Pattern::default()) {
        Err(e) => e,
        Ok(mut quads) => quads
            .find_map(Result::err)
            .expect("reading a replaced file fails"),
    };
    let rete_core::Error::Range(range) = &err else {
        panic!("expected a read error, got {err}")
    };
    let http: &HttpError = HttpError::from_range_error(range).unwrap();
    assert!(matches!(http.kind, HttpErrorKind::Changed(_)), "{http}");
    assert!(err.to_string().contains("changed on the server"), "{err}");
}
