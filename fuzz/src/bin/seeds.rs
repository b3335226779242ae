//! Writes the seed corpus (fuzz/corpus/<target>/) from the fixed file: real payloads of every
//! decoder, so the fuzzers start from valid structure.

// Built with the fuzz targets' coverage flags, so it links libFuzzer's runtime for the coverage
// callbacks; it never fuzzes, so the entry point libFuzzer expects is a stub.
extern crate libfuzzer_sys;

#[no_mangle]
#[allow(improper_ctypes_definitions)]
pub extern "C" fn rust_fuzzer_test_input(_bytes: &[u8]) -> i32 {
    0
}

use rete_core::format::kind;
use rete_fuzz::{fixture, join, payload, raw_blocks};
use std::path::Path;

/// A `perm` or `dict` input: the selector byte, a little-endian `u32`, then `body`.
fn selected(sel: u8, n: u32, body: &[u8]) -> Vec<u8> {
    let mut v = vec![sel];
    v.extend_from_slice(&n.to_le_bytes());
    v.extend_from_slice(body);
    v
}

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let (bytes, rete, pyramid) = fixture();
    let mut seeds: Vec<(&str, Vec<u8>)> = vec![("header", bytes.clone())];
    for (count, raw) in raw_blocks(false).into_iter().take(3) {
        seeds.push(("perm", selected(0, count, &raw)));
    }
    let perm_len = rete.section(kind::PERM_BLOCKS, 0).map_or(0, |e| e.len);
    seeds.push((
        "perm",
        selected(1, perm_len as u32, &payload(kind::PERM_INDEX)),
    ));
    for (count, raw) in raw_blocks(true).into_iter().take(3) {
        seeds.push(("dict", selected(0, count, &raw)));
    }
    let dict_len = rete.section(kind::DICT_BLOCKS, 0).map_or(0, |e| e.len);
    let n = (rete.term_count() as u32 & 0xffff) | ((dict_len as u32) << 16);
    seeds.push(("dict", selected(1, n, &payload(kind::DICT_INDEX))));
    for s in pyramid.fuzz_seeds().map_err(std::io::Error::other)? {
        seeds.push(("pyramid", s));
    }
    let schema: Vec<Vec<u8>> = [32u16, 33, 34].iter().map(|k| payload(*k)).collect();
    seeds.push(("schema", join(&[&schema[0], &schema[1], &schema[2]])));
    let search: Vec<Vec<u8>> = (48u16..=52).map(payload).collect();
    let search: Vec<&[u8]> = search.iter().map(Vec::as_slice).collect();
    seeds.push(("search", join(&search)));
    for cr in ["bytes 0-99/1000", "bytes 5-5/*", "bytes 0-0/1", "bytes */0"] {
        seeds.push(("content_range", cr.as_bytes().to_vec()));
    }
    for q in [
        "SELECT * WHERE { ?s ?p ?o } LIMIT 5",
        "PREFIX ex: <http://example.org/> SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s ex:knows ?o } GROUP BY ?s ORDER BY DESC(?n) LIMIT 3",
        "ASK { ?s a ?c FILTER(isIRI(?c)) }",
        "SELECT ?x WHERE { { ?x ?p 1 } UNION { ?x ?p \"a\"@en } OPTIONAL { ?x ?q ?y } FILTER(!BOUND(?y) || STRLEN(STR(?y)) > 2) } OFFSET 2",
        "CONSTRUCT { ?o ?p ?s } WHERE { ?s ?p ?o } LIMIT 4",
        "SELECT ?s WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#subClassOf>+ ?c VALUES ?c { <http://example.org/Agent> } }",
    ] {
        seeds.push(("sparql", q.as_bytes().to_vec()));
    }
    seeds.extend(text_seeds(bytes));
    seeds.extend(upstream_seeds()?);
    for (i, (target, data)) in seeds.iter().enumerate() {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("seed-{i:03}")), data)?;
    }
    println!("{} seeds in {}", seeds.len(), root.display());
    Ok(())
}

/// One small document in each RDF syntax (the `rdf` target's selector byte first).
const DOCS: [(u8, &str); 6] = [
    (0, "<http://e.org/a> <http://e.org/p> \"x\"@en .\n_:b <http://e.org/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"),
    (1, "<http://e.org/a> <http://e.org/p> <http://e.org/b> <http://e.org/g> .\n_:s <http://e.org/p> \"y\" _:g .\n"),
    (2, "@prefix ex: <http://e.org/> .\n@base <http://e.org/base/> .\nex:a ex:p ( 1 2.5 \"t\" ) ; ex:q [ ex:r <rel> ] , \"\"\"long\nstring\"\"\"@fr .\n"),
    (3, "@prefix ex: <http://e.org/> .\nex:g { ex:a ex:p ex:b . }\n{ ex:c ex:p true }\n"),
    (4, "<?xml version=\"1.0\"?>\n<!DOCTYPE rdf:RDF [<!ENTITY e \"http://e.org/\">]>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:ex=\"http://e.org/\">\n<rdf:Description rdf:about=\"&e;a\"><ex:p xml:lang=\"en\">x</ex:p><ex:q rdf:resource=\"b\"/><ex:r rdf:parseType=\"Resource\"><ex:s>1</ex:s></ex:r></rdf:Description>\n</rdf:RDF>\n"),
    (5, "{\"@context\": {\"ex\": \"http://e.org/\", \"name\": {\"@id\": \"ex:name\", \"@language\": \"en\"}}, \"@id\": \"ex:a\", \"name\": \"x\", \"ex:knows\": [{\"@id\": \"ex:b\", \"@type\": \"ex:C\"}], \"@graph\": [{\"@id\": \"ex:c\", \"ex:v\": {\"@value\": \"2\", \"@type\": \"http://www.w3.org/2001/XMLSchema#integer\"}}]}"),
];

/// Seeds of the `rdf`, `lenient`, `detect` and `http` targets.
fn text_seeds(rete: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let with = |sel: u8, body: &[u8]| {
        let mut v = vec![sel];
        v.extend_from_slice(body);
        v
    };
    let mut seeds = Vec::new();
    for (sel, doc) in DOCS {
        seeds.push(("rdf", with(sel, doc.as_bytes())));
    }
    seeds.push(("lenient", with(0, DOCS[0].1.as_bytes())));
    seeds.push(("lenient", with(1, DOCS[1].1.as_bytes())));
    seeds.push((
        "lenient",
        with(
            0,
            "<http://e.org/s\\u00e9> <http://e.org/p> \"a\\tb\"^^<http://e.org/d> .\n".as_bytes(),
        ),
    ));
    // detect: names 0 (none), 1 .ttl, 2 .nt, 3 .rdf, 4 .xml, 5 .json, 6 .jsonld, 7 .nq.gz,
    // 8 .trig.zst, 9 .rete.
    seeds.push(("detect", with(0, DOCS[2].1.as_bytes())));
    seeds.push(("detect", with(4, DOCS[4].1.as_bytes())));
    seeds.push(("detect", with(5, DOCS[5].1.as_bytes())));
    seeds.push(("detect", with(9, &rete[..64])));
    seeds.push(("detect", with(9, b"RETE\x05\x00\x00\x00")));
    if let Ok(z) = zstd::encode_all(DOCS[3].1.as_bytes(), 3) {
        seeds.push(("detect", with(8, &z)));
    }
    let ok = |range: &str, total: usize, body: &[u8]| {
        let mut v = format!(
            "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {range}/{total}\r\nETag: \"v1\"\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        v.extend_from_slice(body);
        v
    };
    let sep = rete_fuzz::HTTP_SEPARATOR;
    let total = rete.len();
    seeds.push((
        "http",
        join_with(
            &[
                &ok("0-63", total, &rete[..64]),
                &ok("100-149", total, &rete[100..150]),
            ],
            sep,
        ),
    ));
    let mut whole = format!("HTTP/1.1 200 OK\r\nContent-Length: {total}\r\n\r\n").into_bytes();
    whole.extend_from_slice(rete);
    seeds.push(("http", whole));
    seeds.push((
        "http",
        join_with(
            &[
                b"HTTP/1.1 302 Found\r\nLocation: /other.rete\r\nContent-Length: 0\r\n\r\n",
                &ok("0-63", total, &rete[..64]),
                b"HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */10\r\n\r\n",
            ],
            sep,
        ),
    ));
    seeds
}

/// `parts` joined with `sep` between them (the `http` target's responses).
fn join_with(parts: &[&[u8]], sep: &[u8]) -> Vec<u8> {
    parts.join(sep)
}

/// Seeds of the `upstream` target: files written by upstream's own builder (PyPI `rete-graph`
/// 0.3.6, as the rete-upstream oracle test uses it).
fn upstream_seeds() -> std::io::Result<Vec<(&'static str, Vec<u8>)>> {
    use std::io::Write;
    let mut seeds = Vec::new();
    for (format, doc) in [("nt", DOCS[0].1), ("nq", DOCS[1].1)] {
        let mut child = std::process::Command::new("python3")
            .args([
                "-c",
                "import sys, rete_graph as r; sys.stdout.buffer.write(r.build(sys.stdin.read(), sys.argv[1]))",
                format,
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()?;
        child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?
            .write_all(doc.as_bytes())?;
        let out = child.wait_with_output()?;
        if !out.status.success() {
            return Err(std::io::Error::other(
                "upstream seeds need PyPI rete-graph 0.3.6 (pip install rete-graph==0.3.6)",
            ));
        }
        seeds.push(("upstream", out.stdout));
    }
    Ok(seeds)
}
