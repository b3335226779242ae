//! Paged block directories over a real HTTP server (axum + tower-http `ServeDir`) on 127.0.0.1:
//! a selective query reads only the directory pages it visits, answers as the local file does,
//! and a damaged directory page is an error, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod server;

use oxrdf::{NamedNodeRef, Term};
use rete_build::BuildOptions;
use rete_core::format::kind;
use rete_core::{Pattern, Rete, ReteOptions};
use rete_http::{HttpOptions, HttpReader};
use server::{assert_patterns_agree, serve_dir};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

struct Fixture {
    dir: tempfile::TempDir,
    base: String,
}

const PEOPLE: u64 = 40_000;

/// A social graph of ~330k triples, with small blocks so that its block directories have the
/// shape of a large file's (thousands of blocks, more than the remote reader loads whole).
fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("social.rete");
        server::build_social(&out, PEOPLE, BuildOptions::default());
        let base = serve_dir(dir.path().to_path_buf());
        Fixture { dir, base }
    })
}

fn path(name: &str) -> PathBuf {
    fixture().dir.path().join(name)
}

/// The id of IRI `iri` in `rete` (`None` if the file lacks it).
fn id_of(rete: &Rete, iri: &str) -> Option<rete_core::Id> {
    rete.id_of(NamedNodeRef::new(iri).unwrap().into()).unwrap()
}

fn url(name: &str) -> String {
    format!("{}/{name}", fixture().base)
}

/// One subject's links in both directions, as terms: what `SELECT ?dir ?p ?x WHERE { { S ?p ?x }
/// UNION { ?x ?p S } }` evaluates (an id lookup, two scans, the terms of the answers).
fn links(rete: &Rete, subject: &str) -> Vec<(&'static str, Term, Term)> {
    let s = id_of(rete, subject).unwrap();
    let mut rows = Vec::new();
    for (dir, pat) in [
        ("out", Pattern::new(Some(s), None, None)),
        ("in", Pattern::new(None, None, Some(s))),
    ] {
        for q in rete.quads(&pat).unwrap() {
            let [qs, p, o, _] = q.unwrap();
            let x = if dir == "out" { o } else { qs };
            rows.push((dir, rete.term(p).unwrap(), rete.term(x).unwrap()));
        }
    }
    rows.sort_by_key(|r| format!("{r:?}"));
    rows
}

fn file_len(name: &str) -> u64 {
    std::fs::metadata(path(name)).unwrap().len()
}

/// Stored bytes of the sections of `kinds`.
fn stored(rete: &Rete, kinds: &[u16]) -> u64 {
    rete.sections()
        .iter()
        .filter(|e| kinds.contains(&e.kind))
        .map(|e| e.len)
        .sum()
}

#[test]
fn a_selective_query_reads_only_the_directory_pages_it_visits() {
    let local = Rete::open_path(path("social.rete")).unwrap();
    let dirs = stored(&local, &[kind::DICT_INDEX, kind::PERM_INDEX]);
    let tables = stored(&local, &[kind::DICT_PAGES, kind::PERM_PAGES]);
    assert!(
        dirs > 64 << 10,
        "the directories ({dirs} B) are large enough to be paged"
    );
    assert!(
        tables * 10 < dirs,
        "page tables {tables} B vs directories {dirs} B"
    );
    let len = file_len("social.rete");
    for n in [0, PEOPLE / 2, PEOPLE - 1] {
        let subject = format!("http://example.org/social/person/{n}");
        let want = links(&local, &subject);
        assert!(want.len() >= 3, "{subject}: {want:?}");

        // A fresh reader per query, like a fresh `rete sparql URL` process.
        let reader = Arc::new(HttpReader::open(&url("social.rete")).unwrap());
        let remote = Rete::open(reader.clone()).unwrap();
        let open = reader.stats();
        assert_eq!(open.requests, 1, "open is one request");
        assert_eq!(links(&remote, &subject), want, "{subject}");
        let lazy = reader.stats();

        // The same with the directories loaded whole (how 1.0 files and local files are read).
        let reader = Arc::new(HttpReader::open(&url("social.rete")).unwrap());
        let whole = Rete::open_with(
            reader.clone(),
            ReteOptions {
                lazy_directories: Some(false),
                ..ReteOptions::default()
            },
        )
        .unwrap();
        assert_eq!(links(&whole, &subject), want, "{subject}");
        let eager = reader.stats();

        // Paged: the tables, one page of the dictionary directory and of each of the two
        // permutations scanned, their blocks and the answers' dictionary blocks. The whole
        // directories alone are larger than all of that.
        assert!(eager.bytes > dirs, "{eager:?}");
        assert!(
            lazy.bytes < eager.bytes / 3,
            "{subject}: paged {lazy:?}, whole {eager:?}"
        );
        // Measured: 8 requests, 20.0–20.4 KB with the 16 KiB read at open (4 KB after it).
        assert!(
            lazy.bytes - open.bytes < tables + (12 << 10),
            "{subject}: {lazy:?} after {open:?}, with {tables} B of page tables"
        );
        assert!(lazy.requests <= 12, "{subject}: {lazy:?}");
        assert!(
            lazy.bytes * 100 < len,
            "{subject}: {lazy:?} of {len} B: under 1 % of the file"
        );
    }
}

#[test]
fn remote_and_local_agree_on_every_pattern_shape_with_paged_directories() {
    let local = Rete::open_path(path("social.rete")).unwrap();
    let remote = Rete::open(Arc::new(HttpReader::open(&url("social.rete")).unwrap())).unwrap();
    let all: Vec<_> = local
        .quads(&Pattern::default())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for q in all.iter().step_by(4999) {
        let [s, p, o, _] = *q;
        assert_patterns_agree(&local, &remote, [s, p, o]);
        for id in [s, p, o] {
            let term = local.term(id).unwrap();
            assert_eq!(remote.term(id).unwrap(), term);
            assert_eq!(remote.id_of(term.as_ref()).unwrap(), Some(id));
        }
    }
    // A full scan crosses every page of the SPO directory.
    let n = remote.quads(&Pattern::default()).unwrap().count();
    assert_eq!(n, all.len());
    remote.verify().unwrap();
}

/// Copies social.rete to `name` with `f` applied to its bytes.
fn damaged(name: &str, f: impl FnOnce(&Rete, &mut Vec<u8>)) -> String {
    let mut bytes = std::fs::read(path("social.rete")).unwrap();
    let local = Rete::open_path(path("social.rete")).unwrap();
    f(&local, &mut bytes);
    std::fs::write(path(name), bytes).unwrap();
    url(name)
}

fn query_error(url: &str) -> String {
    let rete = Rete::open(Arc::new(HttpReader::open(url).unwrap())).unwrap();
    let subject = NamedNodeRef::new("http://example.org/social/person/7").unwrap();
    let run = || -> rete_core::Result<usize> {
        let s = rete.id_of(subject.into())?.unwrap_or(1);
        let mut n = 0;
        for pat in [
            Pattern::new(Some(s), None, None),
            Pattern::new(None, None, Some(s)),
        ] {
            for q in rete.quads(&pat)? {
                q?;
                n += 1;
            }
        }
        Ok(n)
    };
    run()
        .expect_err("a damaged directory must be an error")
        .to_string()
}

#[test]
fn damaged_directory_pages_are_errors_never_panics() {
    let _ = fixture();
    let flip_pages = |rete: &Rete, b: &mut Vec<u8>| {
        // One byte in every 97 of the dictionary, SPO and OSP directories: every page a lookup
        // visits is damaged.
        for (k, i) in [
            (kind::DICT_INDEX, 0),
            (kind::PERM_INDEX, rete_core::Perm::Spo as u16),
            (kind::PERM_INDEX, rete_core::Perm::Osp as u16),
        ] {
            let e = rete.section(k, i).unwrap();
            for at in (e.offset..e.offset + e.len).step_by(97) {
                b[at as usize] ^= 0x10;
            }
        }
    };
    // The page a lookup fetches fails its own checksum (the whole-section checksum is not
    // checked on a partial read)…
    let e = query_error(&damaged("flipped-pages.rete", flip_pages));
    assert!(e.contains("checksum mismatch in the directory page"), "{e}");
    // …also when a forger recomputed every section checksum.
    let e = query_error(&damaged("forged-pages.rete", |rete, b| {
        flip_pages(rete, b);
        rete_core::craft::reseal_all(b);
    }));
    assert!(e.contains("checksum mismatch in the directory page"), "{e}");
    // A damaged page table is refused when the tables are loaded: by its section checksum, or,
    // checksums resealed, by its decoder.
    let flip_table = |rete: &Rete, b: &mut Vec<u8>| {
        for p in rete_core::Perm::ALL {
            let e = rete.section(kind::PERM_PAGES, p as u16).unwrap();
            b[(e.offset + e.len / 2) as usize] ^= 0x01;
        }
    };
    let e = query_error(&damaged("flipped-table.rete", flip_table));
    assert!(
        e.contains("index pages") && e.contains("checksum mismatch"),
        "{e}"
    );
    let e = query_error(&damaged("forged-table.rete", |rete, b| {
        flip_table(rete, b);
        rete_core::craft::reseal_all(b);
    }));
    assert!(e.contains("index pages"), "{e}");
}

#[test]
fn files_without_page_tables_fetch_only_the_directories_a_query_uses() {
    // social.rete as format 1.0 wrote it: the same sections without the page tables.
    let bytes = std::fs::read(path("social.rete")).unwrap();
    let local = Rete::open_path(path("social.rete")).unwrap();
    let sections: Vec<_> = local
        .sections()
        .iter()
        .filter(|e| e.kind != kind::DICT_PAGES && e.kind != kind::PERM_PAGES)
        .map(|e| {
            rete_core::craft::RawSection::new(
                e.kind,
                e.index,
                e.codec,
                e.raw_len,
                bytes[e.offset as usize..(e.offset + e.len) as usize].to_vec(),
            )
        })
        .collect();
    let h = local.header();
    let image = rete_core::craft::assemble(h.flags, h.quads, h.terms, &sections);
    std::fs::write(path("no-tables.rete"), &image).unwrap();
    let old = Rete::open_path(path("no-tables.rete")).unwrap();
    assert!(old.section(kind::DICT_PAGES, 0).is_none());
    old.verify().unwrap();

    let subject = "http://example.org/social/person/123";
    let want = links(&local, subject);
    let reader = Arc::new(HttpReader::open(&url("no-tables.rete")).unwrap());
    let remote = Rete::open(reader.clone()).unwrap();
    assert_eq!(links(&remote, subject), want);
    // The dictionary directory and the two scanned permutations' (SPO, OSP), whole; not the
    // other four.
    let used: u64 = [
        (kind::DICT_INDEX, 0),
        (kind::PERM_INDEX, rete_core::Perm::Spo as u16),
        (kind::PERM_INDEX, rete_core::Perm::Osp as u16),
    ]
    .iter()
    .map(|&(k, i)| old.section(k, i).unwrap().len)
    .sum();
    let all = stored(&old, &[kind::DICT_INDEX, kind::PERM_INDEX]);
    let got = reader.stats();
    assert!(
        got.bytes >= used,
        "{got:?}: the used directories take {used} B"
    );
    assert!(
        got.bytes < used + (all - used) / 2,
        "{got:?}: the used directories take {used} B of {all} B"
    );
}

/// The fixture read the paged way (lazy directories) through a counting reader without a cache
/// of its own.
fn open_paged() -> (Arc<rete_core::CountingReader<rete_core::FileReader>>, Rete) {
    let counting = Arc::new(rete_core::CountingReader::new(
        rete_core::FileReader::open(path("social.rete")).unwrap(),
    ));
    let options = ReteOptions {
        lazy_directories: Some(true),
        prefetch: 64,
        ..ReteOptions::default()
    };
    let rete = Rete::open_with(counting.clone(), options).unwrap();
    (counting, rete)
}

#[test]
fn pattern_cost_counts_the_directory_pages_a_scan_fetches() {
    let local = Rete::open_path(path("social.rete")).unwrap();
    let knows = id_of(&local, "http://xmlns.com/foaf/0.1/knows");
    let someone = id_of(&local, "http://example.org/social/person/777");
    for pattern in [
        Pattern::new(someone, None, None),
        Pattern::new(None, None, someone),
        Pattern::new(None, knows, someone),
        Pattern::new(None, knows, None),
    ] {
        // Read the paged way, through a reader without a cache of its own: the estimate is
        // exact, page tables and directory pages included.
        let (_, rete) = open_paged();
        let cost = rete.pattern_cost(&pattern).unwrap();
        // pattern_cost loads what it needs to count: measure a fresh reader's scan.
        let (counting, rete) = open_paged();
        counting.reset();
        let n = rete.quads(&pattern).unwrap().count();
        assert!(n > 0);
        let got = counting.stats();
        assert_eq!(
            (cost.bytes, cost.requests),
            (got.bytes, got.requests),
            "{pattern:?}"
        );
    }
}

/// Many subjects spread over the file, as a community's members are: fetching their blocks ahead
/// (`Rete::prefetch`: the directory pages, then the blocks, each batch coalesced and fetched on
/// parallel connections) takes a fraction of the requests the scans make one by one, the scans
/// then read nothing more, and every answer is the local file's.
#[test]
fn fetching_many_subjects_ahead_takes_few_requests_and_changes_no_answer() {
    let local = Rete::open_path(path("social.rete")).unwrap();
    let subjects: Vec<u64> = (0..PEOPLE)
        .step_by(97)
        .map(|n| id_of(&local, &format!("http://example.org/social/person/{n}")).unwrap())
        .collect();
    let patterns: Vec<Pattern> = subjects
        .iter()
        .map(|&s| Pattern::new(Some(s), None, None))
        .collect();
    let scan = |rete: &Rete| -> Vec<[u64; 4]> {
        patterns
            .iter()
            .flat_map(|p| rete.quads(p).unwrap().map(Result::unwrap))
            .collect()
    };
    let want = scan(&local);
    assert!(want.len() > 2 * subjects.len());
    // On a local file nothing is fetched ahead.
    assert_eq!(local.prefetch(&patterns).unwrap(), 0);

    let reader = Arc::new(HttpReader::open(&url("social.rete")).unwrap());
    let remote = Rete::open(reader.clone()).unwrap();
    let open = reader.stats().requests;
    assert_eq!(scan(&remote), want);
    let one_by_one = reader.stats().requests - open;

    let reader = Arc::new(HttpReader::open(&url("social.rete")).unwrap());
    let remote = Rete::open(reader.clone()).unwrap();
    let open = reader.stats().requests;
    let blocks = remote.prefetch(&patterns).unwrap();
    assert!(blocks >= 10, "{blocks} blocks fetched ahead");
    let ahead = reader.stats().requests - open;
    assert_eq!(scan(&remote), want);
    assert_eq!(
        reader.stats().requests - open,
        ahead,
        "the scans read nothing more"
    );
    // Measured: 413 subjects, 424 requests one by one, 2 ahead (one for the pages, one for the
    // blocks: in this small file they lie close enough to be fetched as one span each).
    assert!(
        ahead * 4 < one_by_one,
        "{ahead} requests ahead vs {one_by_one} one by one"
    );

    // Spans not merged (as in a large file, where the blocks lie megabytes apart): one request
    // each, several in flight at once, answers in their places.
    let apart = HttpOptions {
        coalesce_gap: 0,
        ..HttpOptions::default()
    };
    let reader = Arc::new(HttpReader::open_with(&url("social.rete"), apart).unwrap());
    let remote = Rete::open(reader.clone()).unwrap();
    let open = reader.stats().requests;
    assert_eq!(remote.prefetch(&patterns).unwrap(), blocks);
    let spans = reader.stats().requests - open;
    assert!(
        spans > 10 && spans as usize <= 2 * blocks,
        "{spans} requests"
    );
    assert_eq!(scan(&remote), want);
    assert_eq!(reader.stats().requests - open, spans);

    // A batch that would pass the byte budget fetches nothing.
    let reader = Arc::new(HttpReader::open(&url("social.rete")).unwrap());
    let remote = Rete::open(reader.clone()).unwrap();
    let _ = remote.quads(&patterns[0]).unwrap().count();
    let fetched = reader.fetched();
    reader.set_budget(Some(fetched + 2048));
    let err = remote.prefetch(&patterns).unwrap_err().to_string();
    assert!(err.contains("budget"), "{err}");
    assert!(reader.fetched() <= fetched + 2048);
}

/// A hub a caller skips by its count (a path search's degree bound): fetched ahead bounded, its
/// range gets its first and last block only, which is what counting it reads.
#[test]
fn a_bounded_prefetch_fetches_the_ends_of_a_long_range() {
    let local = Rete::open_path(path("social.rete")).unwrap();
    let knows = id_of(&local, "http://xmlns.com/foaf/0.1/knows");
    let hub = Pattern::new(None, knows, None);
    let reader = Arc::new(HttpReader::open(&url("social.rete")).unwrap());
    let remote = Rete::open(reader.clone()).unwrap();
    assert_eq!(remote.prefetch_bounded(&[hub], 2).unwrap(), 2);
    let ahead = reader.stats().requests;
    assert_eq!(remote.count(&hub).unwrap(), local.count(&hub).unwrap());
    assert_eq!(
        reader.stats().requests,
        ahead,
        "the count read nothing more"
    );
    // Unbounded, the whole range (far more blocks) would be fetched.
    let reader = Arc::new(HttpReader::open(&url("social.rete")).unwrap());
    let remote = Rete::open(reader).unwrap();
    assert!(remote.prefetch_bounded(&[hub], usize::MAX).unwrap() > 10);
}
