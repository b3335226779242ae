//! The fixed small file every target reads, the helpers that put fuzz input below the checksum
//! layer, and the body of every target. Free of `cfg(fuzzing)` and of libFuzzer, so the normal
//! test suite replays the committed inputs through these same functions
//! (`crates/rete-testsuite/tests/fuzz_regressions.rs` includes this file as a module).

use rete_build::{build, BuildOptions, Input, Syntax};
use rete_core::dict::{read_block, BlockDictionary, DictBlock, DictBlockMeta, DictIndex};
use rete_core::format::{block_checksum, kind, Codec};
use rete_core::perm::{decode_block, PermIndex};
use rete_core::{MemReader, Pattern, RangeReader, Rete, ReteOptions};
use rete_http::{HttpOptions, HttpReader};
use rete_pyramid::{Pyramid, PyramidExtension, PyramidOptions};
use rete_schema::{Schema, SchemaExtension};
use rete_search::{Query, SearchExtension, Searcher};
use rete_sparql::{QueryOptions, QueryResults};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The fixed file: a small social graph plus a tiny ontology, with pyramid, schema and search
/// index.
pub fn fixture() -> &'static (Vec<u8>, Rete, Pyramid) {
    static F: OnceLock<(Vec<u8>, Rete, Pyramid)> = OnceLock::new();
    F.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("rete-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let bytes = social_image(&dir, "fixture", 60, ONTOLOGY.as_bytes());
        let _ = std::fs::remove_dir_all(&dir);
        let rete = open(&bytes).expect("open fixture");
        let pyramid = Pyramid::open(&rete)
            .expect("pyramid")
            .expect("pyramid present");
        (bytes, rete, pyramid)
    })
}

/// Builds a social graph of `people` plus the N-Triples `extra` (input `<stem>.nt`) with pyramid
/// and schema into `dir/<stem>.rete` and returns the file's bytes.
pub fn social_image(dir: &Path, stem: &str, people: u64, extra: &[u8]) -> Vec<u8> {
    let mut nt = Vec::new();
    let params = rete_datagen::social::SocialParams {
        people,
        ..Default::default()
    };
    rete_datagen::social::write_ntriples(&params, &mut nt).expect("datagen");
    nt.extend_from_slice(extra);
    let out = dir.join(format!("{stem}.rete"));
    let opts = BuildOptions {
        inputs: vec![Input::bytes(format!("{stem}.nt"), nt, Syntax::NTriples)],
        extensions: vec![
            Arc::new(PyramidExtension {
                options: PyramidOptions::default(),
            }),
            Arc::new(SchemaExtension),
            Arc::new(SearchExtension::default()),
        ],
        ..BuildOptions::default()
    };
    build(&opts, &out).expect("build fixture");
    std::fs::read(&out).expect("read fixture")
}

const ONTOLOGY: &str = r#"<http://example.org/Person> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/Agent> .
<http://example.org/Agent> <http://www.w3.org/2000/01/rdf-schema#label> "Agent"@en .
<http://example.org/Robot> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/Agent> .
<http://example.org/Robot> <http://www.w3.org/2002/07/owl#disjointWith> <http://example.org/Person> .
<http://example.org/knows> <http://www.w3.org/2000/01/rdf-schema#domain> <http://example.org/Person> .
<http://example.org/age> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#DatatypeProperty> .
"#;

/// Opens an in-memory image.
pub fn open(bytes: &[u8]) -> rete_core::Result<Rete> {
    Rete::open(Arc::new(MemReader::new(bytes.to_vec(), "fuzz.rete")))
}

/// Recomputes every checksum a mutation broke (see [`rete_core::craft::reseal_all`]).
pub fn reseal_all(file: &mut [u8]) {
    rete_core::craft::reseal_all(file);
}

/// The fixture's image with the sections of the given kinds (index 0) replaced by raw payloads
/// (added if missing), every checksum valid.
pub fn with_sections(replace: &[(u16, &[u8])]) -> Vec<u8> {
    let (bytes, rete, _) = fixture();
    let mut sections: Vec<rete_core::craft::RawSection> = Vec::new();
    for e in rete.sections() {
        if replace.iter().any(|(k, _)| *k == e.kind && e.index == 0) {
            continue;
        }
        let stored = bytes[e.offset as usize..(e.offset + e.len) as usize].to_vec();
        sections.push(rete_core::craft::RawSection::new(
            e.kind, e.index, e.codec, e.raw_len, stored,
        ));
    }
    for (k, b) in replace {
        sections.push(raw(*k, b));
    }
    let h = rete.header();
    rete_core::craft::assemble(h.flags, h.quads, h.terms, &sections)
}

/// Decoded payloads of the fixture's sections of `kind` (index 0).
pub fn payload(kind_: u16) -> Vec<u8> {
    fixture()
        .1
        .section_payload(kind_, 0)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Every block of one permutation (or the dictionary) of the fixture, decompressed, with its
/// count: `(count, raw)`.
pub fn raw_blocks(dict: bool) -> Vec<(u32, Vec<u8>)> {
    let rete = &fixture().1;
    let blocks_kind = if dict {
        kind::DICT_BLOCKS
    } else {
        kind::PERM_BLOCKS
    };
    let Some(e) = rete.section(blocks_kind, 0) else {
        return Vec::new();
    };
    // (offset, stored_len, raw_len, count) of each block, from its directory.
    let metas: Vec<(u64, u32, u32, u32)> = if dict {
        DictIndex::decode(&payload(kind::DICT_INDEX), rete.term_count(), e.len, "f")
            .expect("dict index")
            .blocks
            .iter()
            .map(|m| (m.offset, m.stored_len, m.raw_len, m.count))
            .collect()
    } else {
        PermIndex::decode(&payload(kind::PERM_INDEX), e.len, "s", "f")
            .expect("perm index")
            .blocks
            .iter()
            .map(|m| (m.offset, m.stored_len, m.raw_len, m.count))
            .collect()
    };
    metas
        .into_iter()
        .map(|(offset, stored_len, raw_len, count)| {
            let stored = rete
                .section_range(blocks_kind, 0, offset, stored_len as usize)
                .expect("block");
            (
                count,
                zstd::bulk::decompress(&stored, raw_len as usize).expect("zstd"),
            )
        })
        .collect()
}

/// Splits `data` into `N` parts at two-byte little-endian lengths; the last part takes the rest.
pub fn split<const N: usize>(mut data: &[u8]) -> [&[u8]; N] {
    let mut out = [&[][..]; N];
    for (i, part) in out.iter_mut().enumerate() {
        if i + 1 == N {
            *part = data;
            break;
        }
        let Some((len, rest)) = data.split_first_chunk::<2>() else {
            break;
        };
        let len = usize::from(u16::from_le_bytes(*len)).min(rest.len());
        *part = &rest[..len];
        data = &rest[len..];
    }
    out
}

/// Joins parts the way [`split`] reads them.
pub fn join(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if i + 1 < parts.len() {
            out.extend_from_slice(&(p.len().min(u16::MAX as usize) as u16).to_le_bytes());
        }
        out.extend_from_slice(p);
    }
    out
}

/// A Raw section for a crafted image.
pub fn raw(kind_: u16, bytes: &[u8]) -> rete_core::craft::RawSection {
    rete_core::craft::RawSection::new(kind_, 0, Codec::Raw, bytes.len() as u64, bytes.to_vec())
}

/// The `header` target: an image whose checksums are recomputed, opened, verified and read.
pub fn header(data: &[u8]) {
    let mut img = data.to_vec();
    reseal_all(&mut img);
    if let Ok(rete) = open(&img) {
        let _ = rete.card();
        let _ = rete.verify();
        let _ = rete.term(1);
        if let Ok(it) = rete.quads(&Pattern::default()) {
            for q in it.take(64) {
                if q.is_err() {
                    break;
                }
            }
        }
    }
    // The same image read as a remote reader reads it: page tables, then single pages.
    let lazy = ReteOptions {
        lazy_directories: Some(true),
        ..ReteOptions::default()
    };
    if let Ok(rete) = Rete::open_with(Arc::new(MemReader::new(img, "fuzz.rete")), lazy) {
        let _ = rete.term(1);
        if let Ok(t) = rete.term(rete.term_count()) {
            let _ = rete.id_of(t.as_ref());
        }
        for pat in [Pattern::default(), Pattern::new(Some(1), None, None)] {
            let _ = rete.count(&pat);
            if let Ok(it) = rete.quads(&pat) {
                for q in it.take(64) {
                    if q.is_err() {
                        break;
                    }
                }
            }
        }
    }
}

/// A selector byte, a little-endian `u32` and the rest (the `perm` and `dict` inputs).
fn split4(data: &[u8]) -> Option<(u8, u32, &[u8])> {
    let [sel, a, b, c, d, rest @ ..] = data else {
        return None;
    };
    Some((*sel, u32::from_le_bytes([*a, *b, *c, *d]), rest))
}

/// The `perm` target: a permutation block (even selector) or block directory.
pub fn perm(data: &[u8]) {
    let Some((sel, n, rest)) = split4(data) else {
        return;
    };
    if sel & 1 == 0 {
        let _ = decode_block(rest, n, "s", "f");
    } else {
        let _ = PermIndex::decode(rest, u64::from(n), "s", "f");
    }
}

/// The `dict` target, by the selector modulo 3: a dictionary block, the block directory, or a
/// block read with a zstd dictionary (format 1.2).
pub fn dict(data: &[u8]) {
    let Some((sel, n, rest)) = split4(data) else {
        return;
    };
    match sel % 3 {
        0 => {
            if let Ok(block) = DictBlock::decode(rest, n, "f") {
                for i in 0..block.len() {
                    if let Some(t) = block.get(i) {
                        let _ = block.find(t);
                    }
                }
            }
        }
        1 => {
            if let Ok(index) =
                DictIndex::decode(rest, u64::from(n & 0xffff), u64::from(n >> 16), "f")
            {
                let _ = index.block_of_id(u64::from(n & 0xff));
                let _ = index.block_for_term(rest);
            }
        }
        _ => {
            // Format 1.2: a block read with the file's zstd dictionary, both hostile: the
            // dictionary's length (u16), the dictionary, the frame.
            let [a, b, rest @ ..] = rest else {
                return;
            };
            let cut = usize::from(u16::from_le_bytes([*a, *b])).min(rest.len());
            let (dict, frame) = rest.split_at(cut);
            let meta = DictBlockMeta {
                first_id: 1,
                count: n & 0xffff,
                offset: 0,
                stored_len: frame.len() as u32,
                raw_len: n >> 16,
                checksum: block_checksum(frame),
                first_term: Vec::new(),
            };
            if let Some(dict) = BlockDictionary::new(dict) {
                let _ = read_block(frame, &meta, Some(&dict), "f");
            }
        }
    }
}

/// The `pyramid` target: the pyramid sections decoded on the fixed file's pyramid.
pub fn pyramid(data: &[u8]) {
    let _ = fixture().2.fuzz_decode(data);
}

/// The `schema` target: the fixed file with its three schema sections replaced by the input's
/// parts, read through the public API.
pub fn schema(data: &[u8]) {
    let [c, p, s] = split::<3>(data);
    let img = with_sections(&[
        (rete_schema::kind::CLASSES, c),
        (rete_schema::kind::PROPERTIES, p),
        (rete_schema::kind::STATISTICS, s),
    ]);
    if let Ok(rete) = open(&img) {
        if let Ok(Some(schema)) = Schema::open(&rete) {
            let _ = schema.to_string();
        }
    }
}

/// The `search` target: the fixed file with its five search sections replaced by the input's
/// parts (stored raw, checksums valid), searched through the public API: prefixes, several
/// words, typos.
pub fn search(data: &[u8]) {
    let [m, t, p, d, dd] = split::<5>(data);
    let k = rete_search::kind::META;
    let img = with_sections(&[(k, m), (k + 1, t), (k + 2, p), (k + 3, d), (k + 4, dd)]);
    if let Ok(rete) = open(&img) {
        if let Ok(s) = Searcher::open(&rete) {
            let cancel = std::sync::atomic::AtomicBool::new(false);
            for q in ["a", "ada le", "goldwaser", "person"] {
                let _ = s.search(&Query::new(q), &cancel);
                // As the app searches: with the user's languages (the candidates past the limit
                // for a label in a preferred one).
                let with_language = Query {
                    languages: vec!["en".into()],
                    ..Query::new(q)
                };
                let _ = s.search(&with_language, &cancel);
            }
        }
    }
}

/// The `content_range` target: a parsed `Content-Range` is a well-ordered range.
pub fn content_range(data: &[u8]) {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Some((a, b, total)) = rete_http::parse_content_range(s) {
            assert!(a <= b);
            assert!(total.is_none_or(|t| b < t));
        }
    }
}

/// The `sparql` target: parse, plan and evaluate on the fixed file under a `deadline`, reading
/// at most 256 results.
pub fn sparql(data: &[u8], deadline: Duration) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(q) = rete_sparql::parse(text, None) else {
        return;
    };
    let opts = QueryOptions {
        deadline: Some(Instant::now() + deadline),
        ..QueryOptions::default()
    };
    match rete_sparql::evaluate(&fixture().1, &q, &opts) {
        Ok(QueryResults::Solutions(s)) => {
            for r in s.take(256) {
                if r.is_err() {
                    break;
                }
            }
        }
        Ok(QueryResults::Graph(t)) => {
            for r in t.take(256) {
                if r.is_err() {
                    break;
                }
            }
        }
        _ => {}
    }
}

/// The syntaxes of the `rdf` target, chosen by the input's first byte.
pub const RDF_SYNTAXES: [Syntax; 6] = [
    Syntax::NTriples,
    Syntax::NQuads,
    Syntax::Turtle,
    Syntax::TriG,
    Syntax::RdfXml,
    Syntax::JsonLd,
];

/// The `rdf` target: the first byte picks a syntax, the rest is parsed as a build parses it
/// (depth and entity limits, errors with line and column), every quad read.
pub fn rdf(data: &[u8]) {
    let Some((sel, text)) = data.split_first() else {
        return;
    };
    let syntax = RDF_SYNTAXES[usize::from(*sel) % RDF_SYNTAXES.len()];
    let input = Input::bytes("fuzz", text.to_vec(), syntax);
    let mut quads = 0u64;
    let _ = rete_build::fuzzing::parse(&input, Some("http://example.org/base/"), &mut |_| {
        quads += 1;
    });
}

/// The `lenient` target: an N-Triples (even first byte) or N-Quads chunk parsed by the build's
/// fast lenient path and strictly; they must agree whenever the lenient path answers.
pub fn lenient(data: &[u8]) {
    if let Some((sel, text)) = data.split_first() {
        rete_build::fuzzing::lenient_agrees(sel & 1 == 1, text);
    }
}

/// The file names of the `detect` target, chosen by the input's first byte: generic, each
/// syntax's extension, compressed, a `.rete`.
pub const DETECT_NAMES: [&str; 10] = [
    "data",
    "data.ttl",
    "data.nt",
    "data.rdf",
    "data.xml",
    "data.json",
    "data.jsonld",
    "data.nq.gz",
    "data.trig.zst",
    "data.rete",
];

/// The `detect` target: the rest of the input written to a file of the chosen name, its kind
/// told as the app and the CLI tell it (content, name, gzip and zstd looked through).
pub fn detect(data: &[u8]) {
    let Some((sel, body)) = data.split_first() else {
        return;
    };
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let path = dir
        .path()
        .join(DETECT_NAMES[usize::from(*sel) % DETECT_NAMES.len()]);
    if std::fs::write(&path, body).is_ok() {
        let _ = rete_build::detect(&path);
    }
}

/// The `upstream` target: an upstream rete file (format 0x05) read whole, at most 100,000 quads.
pub fn upstream(data: &[u8]) {
    if let Ok(file) = rete_upstream::UpstreamFile::from_bytes(data.to_vec()) {
        let mut n = 0u32;
        let _ = file.for_each_quad(&mut |_| {
            n += 1;
            n < 100_000
        });
    }
}

/// Separates the HTTP responses of an `http` input.
pub const HTTP_SEPARATOR: &[u8] = b"\n--next--\n";

/// Raw HTTP responses waiting to be given, in order.
type Responses = Mutex<Vec<Vec<u8>>>;

/// The loopback server of the `http` target (its port) and the responses it gives, one per
/// connection, in order.
fn http_server() -> Option<(u16, &'static Responses)> {
    static SERVER: OnceLock<Option<(u16, Responses)>> = OnceLock::new();
    let s = SERVER.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").ok()?;
        let port = listener.local_addr().ok()?.port();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                answer(conn);
            }
        });
        Some((port, Mutex::new(Vec::new())))
    });
    s.as_ref().map(|(port, queue)| (*port, queue))
}

/// Reads one request's head and writes the next queued response (none left: closes).
fn answer(mut conn: TcpStream) {
    let Some((_, queue)) = http_server() else {
        return;
    };
    let _ = conn.set_read_timeout(Some(Duration::from_millis(200)));
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65_536 {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let next = {
        let mut q = queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (!q.is_empty()).then(|| q.remove(0))
    };
    if let Some(response) = next {
        let _ = conn.write_all(&response);
    }
}

/// The `http` target: the input is up to eight raw HTTP responses (status line, headers, body)
/// split at [`HTTP_SEPARATOR`]; the HTTP reader opens a URL on a loopback server that gives
/// them in turn, then reads ranges and opens the file as a `.rete` through them.
pub fn http(data: &[u8]) {
    let Some((port, queue)) = http_server() else {
        return;
    };
    let mut responses = Vec::new();
    let mut rest = data;
    while responses.len() < 8 {
        match rest
            .windows(HTTP_SEPARATOR.len())
            .position(|w| w == HTTP_SEPARATOR)
        {
            Some(i) => {
                responses.push(rest[..i].to_vec());
                rest = &rest[i + HTTP_SEPARATOR.len()..];
            }
            None => {
                responses.push(rest.to_vec());
                break;
            }
        }
    }
    *queue
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = responses;
    let opts = HttpOptions {
        connect_timeout: Duration::from_millis(200),
        read_timeout: Duration::from_millis(200),
        request_timeout: Some(Duration::from_secs(1)),
        retries: 1,
        backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(1),
        prefetch: 64,
        ..HttpOptions::default()
    };
    let url = format!("http://127.0.0.1:{port}/file.rete");
    if let Ok(reader) = HttpReader::open_with(&url, opts) {
        let _ = reader.fetch(&[(0, 16), (100, 50)]);
        // Two spans far apart: one multi-range request, answered multipart/byteranges.
        let n = reader.len();
        if n > 40_000 {
            let _ = reader.fetch(&[(200, 8), (n - 16, 16)]);
        }
        let _ = Rete::open(Arc::new(reader));
    }
    queue
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clear();
}
