//! The fixed small file every target reads, and the helpers that put fuzz input below the
//! checksum layer.

use rete_build::{build, BuildOptions, Input, Syntax};
use rete_core::format::{kind, Codec};
use rete_core::{MemReader, Rete};
use rete_pyramid::{Pyramid, PyramidExtension, PyramidOptions};
use rete_schema::SchemaExtension;
use std::sync::{Arc, OnceLock};

/// The fixed file: a small social graph plus a tiny ontology, with pyramid and schema.
pub fn fixture() -> &'static (Vec<u8>, Rete, Pyramid) {
    static F: OnceLock<(Vec<u8>, Rete, Pyramid)> = OnceLock::new();
    F.get_or_init(|| {
        let mut nt = Vec::new();
        let params = rete_datagen::social::SocialParams {
            people: 60,
            ..Default::default()
        };
        rete_datagen::social::write_ntriples(&params, &mut nt).expect("datagen");
        nt.extend_from_slice(ONTOLOGY.as_bytes());
        let dir = std::env::temp_dir().join(format!("rete-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let out = dir.join("fixture.rete");
        let opts = BuildOptions {
            inputs: vec![Input::bytes("fixture.nt", nt, Syntax::NTriples)],
            extensions: vec![
                Arc::new(PyramidExtension {
                    options: PyramidOptions::default(),
                }),
                Arc::new(SchemaExtension),
            ],
            ..BuildOptions::default()
        };
        build(&opts, &out).expect("build fixture");
        let bytes = std::fs::read(&out).expect("read fixture");
        let _ = std::fs::remove_dir_all(&dir);
        let rete = open(&bytes).expect("open fixture");
        let pyramid = Pyramid::open(&rete)
            .expect("pyramid")
            .expect("pyramid present");
        (bytes, rete, pyramid)
    })
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
    let mut out = Vec::new();
    if dict {
        let Some(e) = rete.section(kind::DICT_BLOCKS, 0) else {
            return out;
        };
        let idx = rete_core::dict::DictIndex::decode(
            &payload(kind::DICT_INDEX),
            rete.term_count(),
            e.len,
            "f",
        )
        .expect("dict index");
        for m in idx.blocks {
            let stored = rete
                .section_range(kind::DICT_BLOCKS, 0, m.offset, m.stored_len as usize)
                .expect("block");
            out.push((
                m.count,
                zstd::bulk::decompress(&stored, m.raw_len as usize).expect("zstd"),
            ));
        }
    } else {
        let Some(e) = rete.section(kind::PERM_BLOCKS, 0) else {
            return out;
        };
        let idx = rete_core::perm::PermIndex::decode(&payload(kind::PERM_INDEX), e.len, "s", "f")
            .expect("perm index");
        for m in idx.blocks {
            let stored = rete
                .section_range(kind::PERM_BLOCKS, 0, m.offset, m.stored_len as usize)
                .expect("block");
            out.push((
                m.count,
                zstd::bulk::decompress(&stored, m.raw_len as usize).expect("zstd"),
            ));
        }
    }
    out
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
