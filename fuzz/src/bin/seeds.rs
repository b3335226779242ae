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
    for (i, (target, data)) in seeds.iter().enumerate() {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("seed-{i:03}")), data)?;
    }
    println!("{} seeds in {}", seeds.len(), root.display());
    Ok(())
}
