//! Crafted files: every checksum valid (xxh3 is no seal; anyone can recompute it), counts and
//! lengths hostile. Each must give a clear typed error, never a panic or an abort, and reading one
//! must keep the process under 256 MB: each file is also read by a child process started under
//! `ulimit -v 262144`, which also reports its peak resident set.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

#[path = "../../../fuzz/src/lib.rs"]
#[allow(dead_code, reason = "only the file builder serves here")]
mod rete_fuzz;

use rete_core::craft::{assemble, edit_entry, RawSection};
use rete_core::dict::{DictBlockMeta, DictIndex};
use rete_core::format::{
    block_checksum, kind, ratio_ok, varint, Codec, MAX_BLOCK_QUADS, MAX_DICT_BLOCK_EXPANDED,
    MAX_DICT_BLOCK_RAW, MAX_PERM_BLOCK_RAW, MAX_RAW_LEN, MAX_TERM_LEN, MAX_ZSTD_RATIO,
    MIN_FRAME_LEN, ZSTD_RATIO_FLOOR,
};
use rete_core::perm::{PermBlockMeta, PermIndex};
use rete_core::{Error, Pattern, Perm, Rete, ReteOptions};
use rete_pyramid::{Pyramid, PyramidError};
use rete_schema::{Schema, SchemaError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Environment variable naming the file the child half reads.
const CHILD_ENV: &str = "RETE_CRAFTED_FILE";
/// Environment variable giving the child half a decode budget (bytes).
const BUDGET_ENV: &str = "RETE_CRAFTED_BUDGET";
/// Address-space limit of the child (KiB): 256 MiB.
const LIMIT_KB: u64 = 256 * 1024;

/// The valid file the crafted ones start from: a small social graph with a pyramid and a schema.
fn base(dir: &Path) -> Vec<u8> {
    rete_fuzz::social_image(
        dir,
        "base",
        40,
        b"<http://example.org/Person> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/Agent> .\n",
    )
}

/// `base` with some sections replaced (same kind and index) and the header counts overridden.
fn image(base: &[u8], replace: Vec<RawSection>, quads: Option<u64>, terms: Option<u64>) -> Vec<u8> {
    image_without(base, replace, &[], quads, terms)
}

/// [`image`] without the sections `drop` names (kind, index).
fn image_without(
    base: &[u8],
    replace: Vec<RawSection>,
    drop: &[(u16, u16)],
    quads: Option<u64>,
    terms: Option<u64>,
) -> Vec<u8> {
    let rete = Rete::open(Arc::new(rete_core::MemReader::new(base.to_vec(), "base"))).unwrap();
    let mut sections: Vec<RawSection> = rete
        .sections()
        .iter()
        .filter(|e| {
            !replace
                .iter()
                .any(|r| r.kind == e.kind && r.index == e.index)
                && !drop.contains(&(e.kind, e.index))
        })
        .map(|e| {
            let stored = base[e.offset as usize..(e.offset + e.len) as usize].to_vec();
            RawSection::new(e.kind, e.index, e.codec, e.raw_len, stored)
        })
        .collect();
    sections.extend(replace);
    let h = rete.header();
    assemble(
        h.flags,
        quads.unwrap_or(h.quads),
        terms.unwrap_or(h.terms),
        &sections,
    )
}

fn zstd(raw: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(raw, 3).unwrap()
}

/// A permutation directory of one block holding `raw`, and the block section.
fn perm_sections(i: u16, count: u32, raw: &[u8], raw_len: u32) -> Vec<RawSection> {
    let stored = zstd(raw);
    let index = PermIndex {
        blocks: vec![PermBlockMeta {
            first: [1, 1, 1, 0],
            count,
            offset: 0,
            stored_len: stored.len() as u32,
            raw_len,
            checksum: block_checksum(&stored),
            before: 0,
        }],
        total: u64::from(count),
    };
    vec![
        RawSection::raw(kind::PERM_INDEX, i, index.encode()),
        RawSection::new(
            kind::PERM_BLOCKS,
            i,
            Codec::Blocks,
            stored.len() as u64,
            stored,
        ),
    ]
}

/// A dictionary of one block holding `raw` (`count` terms).
fn dict_sections(count: u32, raw: &[u8], raw_len: u32) -> Vec<RawSection> {
    let stored = zstd(raw);
    let index = DictIndex {
        blocks: vec![DictBlockMeta {
            first_id: 1,
            count,
            offset: 0,
            stored_len: stored.len() as u32,
            raw_len,
            checksum: block_checksum(&stored),
            first_term: b"\x01a".to_vec(),
        }],
    };
    vec![
        RawSection::raw(kind::DICT_INDEX, 0, index.encode()),
        RawSection::new(
            kind::DICT_BLOCKS,
            0,
            Codec::Blocks,
            stored.len() as u64,
            stored,
        ),
    ]
}

fn varints(vals: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in vals {
        varint::put(&mut out, *v);
    }
    out
}

/// `n` front-coded entries, each repeating all of the previous one and adding one byte: a few
/// bytes each, quadratic once expanded.
fn prefix_chain(n: u64, first: &[u8]) -> Vec<u8> {
    let mut out = varints(&[0, first.len() as u64]);
    out.extend_from_slice(first);
    for i in 1..n {
        varint::put(&mut out, first.len() as u64 + i - 1);
        out.extend_from_slice(&[1, b'a']);
    }
    out
}

/// A minimal one-level pyramid whose only member block is `members` (raw), and whose directory
/// declares `raw_len` decoded bytes for it.
fn pyramid_sections(entities: u64, members: &[u8], raw_len: u64) -> Vec<RawSection> {
    let mut top = b"RPYT\x01".to_vec();
    top.extend(varints(&[entities, 0, 0]));
    top.extend_from_slice(&1f64.to_le_bytes());
    top.extend(varints(&[1, 1, 1, 0]));
    top.extend_from_slice(&0f64.to_le_bytes());
    top.extend_from_slice(&1f64.to_le_bytes());
    top.extend(varints(&[1, u64::from(b'x')]));
    top.extend(varints(&[0, 0, entities, 0, 0]));
    for f in [0f32, 0.0, 10.0] {
        top.extend_from_slice(&f.to_le_bytes());
    }
    top.extend(varints(&[0]));
    let stored = zstd(members);
    let mut dir = b"RPYD\x01".to_vec();
    dir.extend(varints(&[0, 1, 0, 0, stored.len() as u64, raw_len]));
    dir.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&stored).to_le_bytes());
    dir.extend(varints(&[0]));
    let kinds = rete_pyramid::kind::TOP..=rete_pyramid::kind::MEMBERSHIP;
    kinds
        .map(|k| match k {
            rete_pyramid::kind::TOP => RawSection::raw(k, 0, top.clone()),
            rete_pyramid::kind::DIRECTORY => RawSection::raw(k, 0, dir.clone()),
            rete_pyramid::kind::MEMBERS => RawSection::raw(k, 0, stored.clone()),
            _ => RawSection::raw(k, 0, Vec::new()),
        })
        .collect()
}

/// A member block of one group of `n` members whose terms form a prefix chain.
fn member_block(n: u64, claimed: u64) -> Vec<u8> {
    let mut head = varints(&[0]);
    for f in [0f32, 0.0, 10.0] {
        head.extend_from_slice(&f.to_le_bytes());
    }
    head.extend(varints(&[claimed]));
    head.push(0);
    let ids = varints(&vec![1; n as usize]);
    let mut prefix = varints(&[0, 1]);
    for i in 1..n {
        prefix.extend(varints(&[i, 1]));
    }
    let suffix = vec![b'a'; n as usize];
    let zeros = vec![0u8; n as usize];
    let rank = varints(&(0..n).collect::<Vec<_>>());
    let mut out = varints(&[1]);
    for col in [
        &head,
        &ids,
        &prefix,
        &suffix,
        &zeros,
        &Vec::new(),
        &zeros,
        &rank,
    ] {
        out.extend(varints(&[col.len() as u64]));
        out.extend_from_slice(col);
    }
    out
}

/// A schema class section whose class IRIs are `front_coded` (already encoded with its count).
fn schema_classes(front_coded: &[u8]) -> RawSection {
    let mut b = vec![1, 0];
    b.extend_from_slice(front_coded);
    b.extend(varints(&[0, 0, 0, 0, 0]));
    RawSection::raw(rete_schema::kind::CLASSES, 0, b)
}

/// One crafted file and what its error must say.
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    /// Extra zero bytes after the image (a sparse file), for the 4 GiB section.
    pad: u64,
    expect: &'static str,
}

fn cases(base: &[u8]) -> Vec<Case> {
    let mut out = Vec::new();
    // A permutation block claiming 2^32 - 1 quads in a few bytes.
    let raw = varints(&[u64::from(u32::MAX), 2, 1, 1, 5, 1, 0, 0]);
    let perms: Vec<RawSection> = (0..6)
        .flat_map(|i| perm_sections(i, u32::MAX, &raw, raw.len() as u32))
        .collect();
    out.push(Case {
        name: "perm-block-2^32-quads",
        bytes: image(base, perms, Some(u64::from(u32::MAX)), None),
        pad: 0,
        // Refused by the directory: beyond the quads a block may hold.
        expect: "implausible block sizes",
    });
    // A dictionary block claiming 2^32 - 1 terms.
    let raw = varints(&[0, 1, u64::from(b'a')]);
    out.push(Case {
        name: "dict-block-2^32-terms",
        bytes: image(
            base,
            dict_sections(u32::MAX, &raw, raw.len() as u32),
            None,
            Some(u64::from(u32::MAX)),
        ),
        pad: 0,
        // Refused by the directory: beyond the terms a block's raw size may hold.
        expect: "implausible block sizes",
    });
    // A dictionary block whose terms form a quadratic prefix chain (2e10 bytes expanded), its
    // raw size just under the ratio floor (a frame of any ratio is accepted below it).
    let n = 200_000u64;
    let raw = prefix_chain(n, b"\x01http://example.org/");
    out.push(Case {
        name: "dict-prefix-chain",
        bytes: image(
            base,
            dict_sections(n as u32, &raw, raw.len() as u32),
            None,
            Some(n),
        ),
        pad: 0,
        expect: "undecodable block",
    });
    // A dictionary block declaring 4 GiB - 1 decoded bytes.
    let raw = varints(&[0, 1, u64::from(b'a')]);
    out.push(Case {
        name: "dict-block-4GiB",
        bytes: image(base, dict_sections(1, &raw, u32::MAX), None, Some(1)),
        pad: 0,
        expect: "implausible block sizes",
    });
    // The card as a zstd frame declaring 4 GiB.
    let card = RawSection::new(kind::CARD, 0, Codec::Zstd, 4 << 30, zstd(b"{}"));
    out.push(Case {
        name: "zstd-section-4GiB",
        bytes: image(base, vec![card], None, None),
        pad: 0,
        expect: "exceeds the",
    });
    // The card as 4 GiB of stored bytes (a sparse file), checksum and all.
    let mut img = image(base, Vec::new(), None, None);
    let card_at = Rete::open(Arc::new(rete_core::MemReader::new(img.clone(), "i")))
        .unwrap()
        .sections()
        .iter()
        .position(|e| e.kind == kind::CARD)
        .unwrap();
    let pad = 4u64 << 30;
    let at = img.len() as u64;
    let sum = zeros_checksum(pad);
    assert!(edit_entry(&mut img, card_at, |e| {
        e.offset = at;
        e.len = pad;
        e.raw_len = pad;
        e.codec = Codec::Raw;
        e.checksum = sum;
    }));
    let file_len = at + pad;
    img[40..48].copy_from_slice(&file_len.to_le_bytes());
    rete_core::craft::reseal(&mut img);
    out.push(Case {
        name: "raw-section-4GiB",
        bytes: img,
        pad,
        expect: "exceeds the",
    });
    // Two sections sharing bytes: the card pointed into the dictionary blocks.
    let mut img = base.to_vec();
    let rete = Rete::open(Arc::new(rete_core::MemReader::new(img.clone(), "i"))).unwrap();
    let dict = *rete.section(kind::DICT_BLOCKS, 0).unwrap();
    let card_at = rete
        .sections()
        .iter()
        .position(|e| e.kind == kind::CARD)
        .unwrap();
    let range = dict.offset as usize..(dict.offset + dict.len.min(16)) as usize;
    let sum = xxhash_rust::xxh3::xxh3_64(&img[range.clone()]);
    assert!(edit_entry(&mut img, card_at, |e| {
        e.offset = dict.offset;
        e.len = range.len() as u64;
        e.raw_len = range.len() as u64;
        e.codec = Codec::Raw;
        e.checksum = sum;
    }));
    out.push(Case {
        name: "overlapping-sections",
        bytes: img,
        pad: 0,
        expect: "overlaps",
    });
    // Pyramid: a top section claiming 2^32 levels.
    let mut top = b"RPYT\x01".to_vec();
    top.extend(varints(&[0, 0, 0]));
    top.extend_from_slice(&1f64.to_le_bytes());
    top.extend(varints(&[1, 1 << 32]));
    let mut p = pyramid_sections(1, &member_block(1, 1), 0);
    p[0] = RawSection::raw(rete_pyramid::kind::TOP, 0, top);
    out.push(Case {
        name: "pyramid-top-2^32-levels",
        bytes: image(base, p, None, None),
        pad: 0,
        expect: "exceeds what the remaining",
    });
    // Pyramid: a member group claiming 2^32 members.
    let block = member_block(3, 1 << 32);
    out.push(Case {
        name: "pyramid-members-2^32",
        bytes: image(
            base,
            pyramid_sections(3, &block, block.len() as u64),
            None,
            Some(1 << 20),
        ),
        pad: 0,
        expect: "items cannot fit",
    });
    // Pyramid: member terms forming a quadratic prefix chain, raw size under the ratio floor.
    let n = 80_000;
    let block = member_block(n, n);
    out.push(Case {
        name: "pyramid-member-prefix-chain",
        bytes: image(
            base,
            pyramid_sections(n, &block, block.len() as u64),
            None,
            Some(1 << 20),
        ),
        pad: 0,
        expect: "shared bytes",
    });
    // Pyramid: a block declaring 4 GiB decoded bytes.
    let block = member_block(1, 1);
    out.push(Case {
        name: "pyramid-block-4GiB",
        bytes: image(base, pyramid_sections(1, &block, 4 << 30), None, None),
        pad: 0,
        expect: "decoded bytes",
    });
    // Schema: 2^32 class IRIs, then a quadratic prefix chain of class IRIs.
    out.push(Case {
        name: "schema-2^32-classes",
        bytes: image(base, vec![schema_classes(&varints(&[1 << 32]))], None, None),
        pad: 0,
        expect: "exceeds what the remaining",
    });
    let mut fc = varints(&[300_000]);
    fc.extend(prefix_chain(300_000, b"http://example.org/"));
    out.push(Case {
        name: "schema-prefix-chain",
        bytes: image(base, vec![schema_classes(&fc)], None, None),
        pad: 0,
        expect: "shared bytes",
    });
    out.extend(just_under_the_limits(base));
    out
}

/// The worst point of each budget: a block or section just under its cap (it decodes as far as
/// its damage allows), and one just over (refused before anything is decoded).
fn just_under_the_limits(base: &[u8]) -> Vec<Case> {
    let mut out = Vec::new();
    // A permutation block of the most quads a block may hold, all equal: decoded whole, then
    // refused for its order.
    let n = MAX_BLOCK_QUADS as u64;
    let mut streams = varints(&[1, n]);
    let (a_len, b_len) = (streams.len() as u64, n);
    streams.extend(vec![0u8; 2 * n as usize]);
    streams.extend(varints(&[0, n]));
    let mut raw = varints(&[n, a_len, b_len, b_len]);
    raw.extend(streams);
    let perms = (0..6)
        .flat_map(|i| perm_sections(i, n as u32, &raw, raw.len() as u32))
        .collect();
    out.push(Case {
        name: "perm-block-max-quads",
        bytes: image(base, perms, Some(n), None),
        pad: 0,
        expect: "keys out of order",
    });
    // One quad more than a block may hold, or one decoded byte more than such a block can take.
    let perms = (0..6)
        .flat_map(|i| perm_sections(i, n as u32 + 1, &raw, raw.len() as u32))
        .collect();
    out.push(Case {
        name: "perm-block-over-max-quads",
        bytes: image(base, perms, Some(n + 1), None),
        pad: 0,
        expect: "implausible block sizes",
    });
    let perms = (0..6)
        .flat_map(|i| perm_sections(i, n as u32, &raw, MAX_PERM_BLOCK_RAW as u32 + 1))
        .collect();
    out.push(Case {
        name: "perm-block-over-max-raw",
        bytes: image(base, perms, Some(n), None),
        pad: 0,
        expect: "implausible block sizes",
    });
    // A permutation directory of as many entries as its blocks section can hold (one frame of
    // the shortest length each): read whole, then refused for its quad total.
    let blocks = 100_000u64;
    let index = PermIndex {
        blocks: (0..blocks)
            .map(|i| PermBlockMeta {
                first: [i + 1, 1, 1, 0],
                count: 1,
                offset: i * MIN_FRAME_LEN,
                stored_len: MIN_FRAME_LEN as u32,
                raw_len: 4,
                checksum: 0,
                before: i,
            })
            .collect(),
        total: blocks,
    };
    let dir = index.encode();
    let stored = vec![0u8; (blocks * MIN_FRAME_LEN) as usize];
    let perm = |stored: Vec<u8>| {
        vec![
            // Stored raw: compressed, its frame would break the ratio limit first.
            RawSection::raw(kind::PERM_INDEX, 0, dir.clone()),
            RawSection::new(
                kind::PERM_BLOCKS,
                0,
                Codec::Blocks,
                stored.len() as u64,
                stored,
            ),
        ]
    };
    // Without the directory's page table, so a remote reader reads the directory whole too
    // (with it, the table's span refuses the directory before it is fetched).
    let no_pages = [(kind::PERM_PAGES, 0)];
    out.push(Case {
        name: "perm-directory-max-blocks",
        bytes: image_without(base, perm(stored.clone()), &no_pages, None, None),
        pad: 0,
        expect: "header says",
    });
    out.push(Case {
        name: "perm-directory-over-max-blocks",
        bytes: image_without(base, perm(stored[1..].to_vec()), &no_pages, None, None),
        pad: 0,
        expect: "implausible block count",
    });
    // A dictionary block of terms as long as a writer allows, each repeating the one before: it
    // expands to the block's cap and is refused there. Its frame stays within the ratio.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let chunk: Vec<u8> = (0..512u32 << 10)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let first: Vec<u8> = chunk
        .iter()
        .copied()
        .cycle()
        .take(MAX_TERM_LEN / 2)
        .collect();
    let terms = (MAX_DICT_BLOCK_EXPANDED / first.len() as u64) + 2;
    let mut raw = varints(&[0, first.len() as u64]);
    raw.extend_from_slice(&first);
    for i in 1..terms {
        raw.extend(varints(&[first.len() as u64 + i - 1, 1, u64::from(b'a')]));
    }
    assert!(raw.len() as u64 <= MAX_DICT_BLOCK_RAW);
    assert!(ratio_ok(zstd(&raw).len() as u64, raw.len() as u64));
    out.push(Case {
        name: "dict-block-max-expansion",
        bytes: image(
            base,
            dict_sections(terms as u32, &raw, raw.len() as u32),
            None,
            Some(terms),
        ),
        pad: 0,
        expect: "expand beyond what a writer produces",
    });
    let raw = varints(&[0, 1, u64::from(b'a')]);
    out.push(Case {
        name: "dict-block-over-max-raw",
        bytes: image(
            base,
            dict_sections(1, &raw, MAX_DICT_BLOCK_RAW as u32 + 1),
            None,
            Some(1),
        ),
        pad: 0,
        expect: "implausible block sizes",
    });
    // A zstd section declaring one byte past what its ratio allows.
    let frame = zstd(b"{}");
    let declared = (frame.len() as u64 * MAX_ZSTD_RATIO).max(ZSTD_RATIO_FLOOR) + 1;
    let card = RawSection::new(kind::CARD, 0, Codec::Zstd, declared, frame);
    out.push(Case {
        name: "zstd-section-over-ratio",
        bytes: image(base, vec![card], None, None),
        pad: 0,
        expect: "beyond the 32:1 limit",
    });
    // A schema class section of as many one-byte class IRIs as the ratio floor holds,
    // compressed far beyond the ratio: decoded, then refused where it ends early.
    let count = (ZSTD_RATIO_FLOOR - 16) / 3;
    let mut b = vec![1, 0];
    b.extend(varints(&[count]));
    for _ in 0..count {
        b.extend_from_slice(&[0, 1, b'x']);
    }
    let section = RawSection::new(
        rete_schema::kind::CLASSES,
        0,
        Codec::Zstd,
        b.len() as u64,
        zstd(&b),
    );
    out.push(Case {
        name: "schema-classes-at-ratio-floor",
        bytes: image(base, vec![section], None, None),
        pad: 0,
        expect: "truncated",
    });
    // Schema properties that all name one long datatype: each reference is a byte, each copy
    // the whole datatype. Refused once the copies pass the section's budget.
    let mut b = vec![1];
    b.extend(varints(&[1, 0, 256 << 10]));
    b.extend(vec![b'd'; 256 << 10]);
    let props = 40_000u64;
    b.extend(varints(&[props]));
    for _ in 0..props {
        b.extend_from_slice(&[0, 1, b'p']);
    }
    for _ in 0..props {
        b.extend_from_slice(&[0, 0, 0, 0, 1, 0, 0, 0, 0]);
    }
    b.push(0);
    assert!(b.len() as u64 <= ZSTD_RATIO_FLOOR);
    let section = RawSection::new(
        rete_schema::kind::PROPERTIES,
        0,
        Codec::Zstd,
        b.len() as u64,
        zstd(&b),
    );
    out.push(Case {
        name: "schema-datatype-copies",
        bytes: image(base, vec![section], None, None),
        pad: 0,
        expect: "references copy more than",
    });
    out
}

/// xxh3 of `n` zero bytes, streamed.
fn zeros_checksum(n: u64) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let chunk = vec![0u8; 1 << 20];
    let mut left = n;
    while left > 0 {
        let k = left.min(chunk.len() as u64) as usize;
        h.update(&chunk[..k]);
        left -= k as u64;
    }
    h.digest()
}

fn write_case(dir: &Path, c: &Case) -> PathBuf {
    let path = dir.join(format!("{}.rete", c.name));
    let f = std::fs::File::create(&path).unwrap();
    std::io::Write::write_all(&mut &f, &c.bytes).unwrap();
    f.set_len(c.bytes.len() as u64 + c.pad).unwrap();
    path
}

/// `scripts/range-server.py` serving a folder on 127.0.0.1 (Range, ETag, Last-Modified), ended
/// when dropped.
struct RangeServer {
    child: std::process::Child,
    base: String,
}

impl RangeServer {
    fn start(dir: &Path) -> Self {
        use std::io::BufRead as _;
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/range-server.py");
        let mut child = std::process::Command::new("python3")
            .arg(script)
            .arg(dir)
            .arg(dir.join("requests.log"))
            .arg("0")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs scripts/range-server.py");
        let mut port = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut port)
            .unwrap();
        let base = format!("http://127.0.0.1:{}", port.trim());
        Self { child, base }
    }
}

impl Drop for RangeServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every read a user of the file can trigger; each failure as its message. Never panics.
/// `source`: a path, or a URL read through the HTTP reader (range requests).
fn read_everything(source: &Path) -> Vec<String> {
    read_within(source, None).0
}

/// [`read_everything`] under a decode budget (`None`: the default), and the most the document
/// held decoded at once ([`rete_core::DecodeBudget::peak`]).
fn read_within(source: &Path, budget: Option<u64>) -> (Vec<String>, u64) {
    let mut errors = Vec::new();
    let opts = ReteOptions {
        decode_budget: budget,
        ..ReteOptions::default()
    };
    let opened = match source.to_str().filter(|s| rete_http::is_url(s)) {
        Some(url) => match rete_http::HttpReader::open(url) {
            Ok(r) => Rete::open_with(Arc::new(r), opts),
            Err(e) => return (vec![format!("other: {e}")], 0),
        },
        None => rete_core::FileReader::open(source)
            .map_err(Error::from)
            .and_then(|r| Rete::open_with(Arc::new(r), opts)),
    };
    let rete = match opened {
        Ok(r) => r,
        Err(e) => return (vec![typed(&e)], 0),
    };
    let mut note = |r: Result<(), String>| {
        if let Err(e) = r {
            errors.push(e);
        }
    };
    note(rete.card().map(drop).map_err(|e| typed(&e)));
    note(rete.term(1).map(drop).map_err(|e| typed(&e)));
    note(
        rete.scan(Perm::Spo, &Pattern::default())
            .and_then(|it| it.take(1 << 20).try_for_each(|q| q.map(drop)))
            .map_err(|e| typed(&e)),
    );
    note(rete.verify().map(drop).map_err(|e| typed(&e)));
    match Pyramid::open(&rete) {
        Ok(Some(p)) => {
            for l in 0..p.levels() {
                note(p.level(l).map(drop).map_err(|e| pyramid(&e)));
            }
            note(p.members(0).map(drop).map_err(|e| pyramid(&e)));
            note(p.community_path(1).map(drop).map_err(|e| pyramid(&e)));
        }
        Ok(None) => {}
        Err(e) => note(Err(pyramid(&e))),
    }
    // The schema and the search index stay open to the end, as the app keeps them.
    let schema = Schema::open(&rete);
    if let Err(e) = &schema {
        note(Err(match e {
            SchemaError::Format(f) => typed(f),
            _ => format!("other: {e}"),
        }));
    }
    let search = rete_search::Searcher::open(&rete);
    match &search {
        Ok(s) => {
            let q = rete_search::Query::new("person");
            if let Err(e) = s.search(&q, &std::sync::atomic::AtomicBool::new(false)) {
                note(Err(search_error(&e)));
            }
        }
        Err(e) => note(Err(search_error(e))),
    }
    (errors, rete.decode_budget().peak())
}

fn typed(e: &Error) -> String {
    match e {
        Error::Corrupt { .. } => format!("Corrupt: {e}"),
        Error::DecodeBudget { .. } => format!("Budget: {e}"),
        _ => format!("other: {e}"),
    }
}

fn pyramid(e: &PyramidError) -> String {
    match e {
        PyramidError::Format(f) => typed(f),
        _ => format!("other: {e}"),
    }
}

fn search_error(e: &rete_search::SearchError) -> String {
    match e {
        rete_search::SearchError::Format(f) => typed(f),
        rete_search::SearchError::Pyramid(p) => pyramid(p),
        _ => format!("other: {e}"),
    }
}

/// Peak resident set of this process (kB), from /proc.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

#[test]
fn crafted_files_give_typed_errors_within_256_mb() {
    let dir = tempfile::tempdir().unwrap();
    let base = base(dir.path());
    assert!(read_everything(&write_case(
        dir.path(),
        &Case {
            name: "base",
            bytes: base.clone(),
            pad: 0,
            expect: ""
        }
    ))
    .is_empty());
    let exe = std::env::current_exe().unwrap();
    // The same files through the HTTP reader, from a range server on 127.0.0.1.
    let server = RangeServer::start(dir.path());
    for case in cases(&base) {
        let path = write_case(dir.path(), &case);
        let url = PathBuf::from(format!("{}/{}.rete", server.base, case.name));
        for source in [&path, &url] {
            read_in_both(&exe, source, &case);
        }
    }
}

/// The per-document decode budget at its worst point. Every section passes its own rules (the
/// card, padded to 24 MiB decoded, is a zstd frame within the 32:1 ratio), but the document's
/// total is what the budget bounds: read with a budget of exactly the most it holds at once,
/// everything reads (and stays under 256 MB); with one byte less, the charge that would pass it
/// is refused with the typed error before that section is decoded. Locally and over HTTP.
#[test]
fn the_decode_budget_holds_at_its_worst_point() {
    let dir = tempfile::tempdir().unwrap();
    let base = base(dir.path());
    let rete = Rete::open(Arc::new(rete_core::MemReader::new(base.clone(), "b"))).unwrap();
    let card = rete.section_payload(kind::CARD, 0).unwrap().unwrap();
    // Padding that zstd compresses well, but not past the ratio limit: a pseudo-random hex
    // digit every 16 bytes (about 24:1).
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let pad: String = (0..24u64 << 20)
        .map(|i| {
            if i % 16 == 0 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b"0123456789abcdef"[(x % 16) as usize])
            } else {
                'a'
            }
        })
        .collect();
    let mut padded = format!("{{\"pad\":\"{pad}\",").into_bytes();
    padded.extend_from_slice(&card[1..]);
    let frame = zstd(&padded);
    assert!(ratio_ok(frame.len() as u64, padded.len() as u64));
    let card = RawSection::new(kind::CARD, 0, Codec::Zstd, padded.len() as u64, frame);
    let case = Case {
        name: "decode-budget",
        bytes: image(&base, vec![card], None, None),
        pad: 0,
        expect: "",
    };
    let path = write_case(dir.path(), &case);
    let server = RangeServer::start(dir.path());
    let url = PathBuf::from(format!("{}/{}.rete", server.base, case.name));
    let exe = std::env::current_exe().unwrap();
    for source in [&path, &url] {
        let (errors, peak) = read_within(source, Some(u64::MAX));
        assert!(errors.is_empty(), "{errors:?}");
        assert!(peak > padded.len() as u64, "the card is held: {peak}");
        let name = format!("decode budget ({})", source.display());
        in_both(&exe, source, &name, Some(peak), None);
        let refused = format!("past the document's decode budget of {} bytes", peak - 1);
        in_both(
            &exe,
            source,
            &name,
            Some(peak - 1),
            Some(("Budget: ", &refused)),
        );
    }
}

/// Reads `source` here and in a child process under the 256 MiB address-space limit: each
/// gives a typed Corrupt error saying what is wrong, and the child stays under the limit.
fn read_in_both(exe: &Path, source: &Path, case: &Case) {
    let name = format!("{} ({})", case.name, source.display());
    in_both(exe, source, &name, None, Some(("Corrupt: ", case.expect)));
}

/// Reads `source` under the decode budget `budget` (`None`: the default) here and in a child
/// process under the 256 MiB address-space limit. `expect`: an error of this kind (prefix, as
/// [`typed`] writes it) saying this, or `None` for no error at all; the child stays under the
/// limit either way.
fn in_both(
    exe: &Path,
    source: &Path,
    name: &str,
    budget: Option<u64>,
    expect: Option<(&str, &str)>,
) {
    {
        let errors = read_within(source, budget).0;
        match expect {
            Some((kind, says)) => assert!(
                errors
                    .iter()
                    .any(|e| e.starts_with(kind) && e.contains(says)),
                "{name}: expected a {kind:?} error containing {says:?}, got {errors:?}"
            ),
            None => assert!(errors.is_empty(), "{name}: {errors:?}"),
        }
        // In a child under a 256 MiB address-space limit: the same, no abort.
        let mut child = std::process::Command::new("sh");
        if let Some(b) = budget {
            child.env(BUDGET_ENV, b.to_string());
        }
        let out = child
            .arg("-c")
            .arg(format!("ulimit -v {LIMIT_KB} && exec \"$0\" \"$@\""))
            .arg(exe)
            .args([
                "child_reads_one_file",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, source)
            .env("MALLOC_ARENA_MAX", "2")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{name}: child failed ({}): {stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        match expect {
            Some((kind, says)) => assert!(
                stdout
                    .lines()
                    .any(|l| l.contains(&format!("error {kind}")) && l.contains(says)),
                "{name}: child said {stdout}"
            ),
            None => assert!(!stdout.contains("error "), "{name}: child said {stdout}"),
        }
        let peak: u64 = stdout
            .lines()
            .find_map(|l| l.split("peak-rss-kb ").nth(1))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(u64::MAX);
        assert!(peak < LIMIT_KB, "{name}: peak RSS {peak} kB");
        eprintln!("{name}: peak RSS {peak} kB");
    }
}

/// The child half of the test above: reads the file named by `RETE_CRAFTED_FILE` and prints the
/// errors and its peak RSS. Run alone (no variable), it reads the fixed base file, which must
/// read without error.
#[test]
fn child_reads_one_file() {
    match std::env::var_os(CHILD_ENV) {
        Some(path) => {
            let budget = std::env::var(BUDGET_ENV).ok().map(|b| b.parse().unwrap());
            for e in read_within(Path::new(&path), budget).0 {
                println!("error {e}");
            }
            println!("peak-rss-kb {}", peak_rss_kb());
        }
        None => {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("b.rete");
            std::fs::write(&path, base(dir.path())).unwrap();
            assert!(read_everything(&path).is_empty());
        }
    }
}

#[test]
fn limits_are_what_the_docs_say() {
    assert_eq!(MAX_RAW_LEN, 1 << 30);
    assert_eq!(MAX_TERM_LEN, 16 << 20);
    assert_eq!(MAX_BLOCK_QUADS, 65_536);
    assert_eq!(MAX_ZSTD_RATIO, 32);
    assert_eq!(ZSTD_RATIO_FLOOR, 1 << 20);
    use rete_core::budget::{default_decode_budget, DECODE_BUDGET_FLOOR};
    assert_eq!(DECODE_BUDGET_FLOOR, 256 << 20);
    assert_eq!(default_decode_budget(1 << 20), 256 << 20);
    assert_eq!(default_decode_budget(1 << 40), 1 << 40);
}
