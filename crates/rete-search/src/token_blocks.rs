//! The token dictionary and its postings as stored: tokens in sorted order, front-coded in
//! blocks of about [`TOKEN_BLOCK_BYTES`], each entry its token, the label word counts it holds
//! and its two posting lists (one-word labels, then the others), inline when short, else in
//! compressed chunks of [`CHUNK_POSTINGS`] (docs/format.md, search index layout 5).

use crate::codec::{
    BatchWriter, BlockRef, Buf, CHUNK_POSTINGS, INLINE_POSTINGS, TOKEN_BLOCK_BYTES,
};
use crate::SearchError;
use rete_core::front_coding;

/// The encoded token dictionary: the token blocks, their number and directory (each block's
/// first token and place, for the meta section), and the posting chunks.
pub(crate) struct Encoded {
    pub(crate) tokens: Vec<u8>,
    pub(crate) count: u64,
    pub(crate) dir: Buf,
    pub(crate) postings: Vec<u8>,
}

/// Encodes `tokens` (sorted, each with its list in `postings`: `(document, label word count)`,
/// documents ascending, and its places in its labels in `places`), compressing at zstd `level`.
pub(crate) fn encode_tokens(
    tokens: &[(String, u32)],
    postings: &[Vec<(u32, u8)>],
    places: &[u8],
    level: i32,
) -> Result<Encoded, SearchError> {
    let mut tok_blocks = TokenBlocks {
        w: BatchWriter::new(level),
        firsts: Vec::new(),
        in_block: 0,
        first: String::new(),
        entries: Buf::default(),
    };
    // The posting chunks first, compressed in parallel batches (the bytes do not depend on the
    // threads): a token's entry names the places of its chunks.
    let mut parts = (Vec::new(), Vec::new());
    let mut post_w = BatchWriter::new(level);
    for (_, ix) in tokens {
        split_parts(&postings[*ix as usize], &mut parts);
        for part in [&parts.0, &parts.1] {
            if part.len() as u64 > INLINE_POSTINGS {
                for c in part.chunks(CHUNK_POSTINGS as usize) {
                    let mut raw = Buf::default();
                    put_chunk(&mut raw, c);
                    post_w.push(raw.0)?;
                }
            }
        }
    }
    let (post_data, post_refs) = post_w.finish()?;
    let mut post_refs = post_refs.into_iter();
    let mut prev = String::new();
    for (text, ix) in tokens {
        if tok_blocks.in_block == 0 {
            tok_blocks.first.clone_from(text);
            prev.clear();
        }
        let shared = front_coding::shared_prefix_str(&prev, text);
        front_coding::put(
            &mut tok_blocks.entries.0,
            shared,
            &text.as_bytes()[shared..],
        );
        prev.clone_from(text);
        // The one-word labels' postings apart, then the others (format version 3).
        let list = &postings[*ix as usize];
        // Which label word counts occur (bit n: n words), so that a query knows which tiers
        // can hold anything before walking the lists.
        tok_blocks
            .entries
            .u8(list.iter().fold(0, |m, p| m | 1u8 << p.1.min(7)));
        split_parts(list, &mut parts);
        put_part(&mut tok_blocks.entries, &mut post_refs, &parts.0, true)?;
        put_part(&mut tok_blocks.entries, &mut post_refs, &parts.1, false)?;
        // A token with a list in chunks tells its places (layout 5): a query of words that
        // cannot stand together in one label proves its whole-label tiers empty without
        // reading them. Inline lists are walked in the block at hand.
        if parts.0.len() as u64 > INLINE_POSTINGS || parts.1.len() as u64 > INLINE_POSTINGS {
            let p = places
                .get(*ix as usize)
                .copied()
                .ok_or_else(|| SearchError::Internal("a token without its places".into()))?;
            tok_blocks.entries.u8(p);
        }
        tok_blocks.in_block += 1;
        if tok_blocks.entries.0.len() >= TOKEN_BLOCK_BYTES {
            tok_blocks.flush()?;
        }
    }
    let (tokens, count, dir) = tok_blocks.finish()?;
    Ok(Encoded {
        tokens,
        count,
        dir,
        postings: post_data,
    })
}

/// The token blocks being written: the open block's entries (and its first token), and the
/// blocks queued for compression in parallel with their first tokens, for the directory.
struct TokenBlocks {
    w: BatchWriter,
    firsts: Vec<String>,
    in_block: u64,
    first: String,
    entries: Buf,
}

impl TokenBlocks {
    /// Queues the open block, if it holds an entry.
    fn flush(&mut self) -> Result<(), SearchError> {
        if self.in_block == 0 {
            return Ok(());
        }
        let mut raw = Buf::default();
        raw.varint(self.in_block);
        raw.0.extend_from_slice(&self.entries.0);
        self.w.push(raw.0)?;
        self.firsts.push(std::mem::take(&mut self.first));
        self.entries.0.clear();
        self.in_block = 0;
        Ok(())
    }

    /// The section's bytes, the number of blocks and their directory (each block's first
    /// token and place).
    fn finish(mut self) -> Result<(Vec<u8>, u64, Buf), SearchError> {
        self.flush()?;
        let (data, refs) = self.w.finish()?;
        let mut dir = Buf::default();
        for (first, r) in self.firsts.iter().zip(&refs) {
            dir.str(first);
            r.write(&mut dir);
        }
        Ok((data, refs.len() as u64, dir))
    }
}

/// A token's postings: its one-word labels', then the others'.
type Parts = (Vec<(u32, u8)>, Vec<(u32, u8)>);

/// A token's postings split into its one-word labels' and the others' (format version 3), into
/// `parts` (reused from token to token).
fn split_parts(list: &[(u32, u8)], parts: &mut Parts) {
    parts.0.clear();
    parts.1.clear();
    for &p in list {
        if p.1 == 1 {
            parts.0.push(p);
        } else {
            parts.1.push(p);
        }
    }
}

/// Some of a token's postings: their count, then the postings inline when few, else the
/// references of their chunks, the next ones of `chunks` (compressed before, in this order).
/// The one-word labels' part (`ones`) has no word counts to store inline.
fn put_part(
    entries: &mut Buf,
    chunks: &mut impl Iterator<Item = BlockRef>,
    list: &[(u32, u8)],
    ones: bool,
) -> Result<(), SearchError> {
    entries.varint(list.len() as u64);
    if list.len() as u64 <= INLINE_POSTINGS {
        put_postings(entries, list, ones);
        return Ok(());
    }
    let refs: Vec<BlockRef> = chunks
        .take(list.len().div_ceil(CHUNK_POSTINGS as usize))
        .collect();
    if refs.len() != list.len().div_ceil(CHUNK_POSTINGS as usize) {
        return Err(SearchError::Internal("posting chunks out of step".into()));
    }
    entries.varint(refs.first().map_or(0, |r| r.offset));
    for r in refs {
        entries.varint(r.len);
        entries.varint(r.raw_len);
        entries.u64(r.checksum);
    }
    Ok(())
}

/// Inline postings (in a token block): for each, `varint((doc − previous) << 3 | words)`, or
/// of one-word labels (`ones`) `varint(doc − previous)`.
fn put_postings(b: &mut Buf, list: &[(u32, u8)], ones: bool) {
    let mut prev = 0u64;
    for &(doc, ntok) in list {
        let doc = u64::from(doc);
        b.varint(if ones {
            doc - prev
        } else {
            ((doc - prev) << 3) | u64::from(ntok)
        });
        prev = doc;
    }
}

/// A posting chunk: the document gaps (`varint(doc − previous)`), then the label word counts
/// (`u8` each). Apart, the gaps stay one byte where the combined form took two, and the counts,
/// alike along a list, cost zstd next to nothing.
fn put_chunk(b: &mut Buf, list: &[(u32, u8)]) {
    let mut prev = 0u64;
    for &(doc, _) in list {
        let doc = u64::from(doc);
        b.varint(doc - prev);
        prev = doc;
    }
    b.0.extend(list.iter().map(|&(_, ntok)| ntok));
}
