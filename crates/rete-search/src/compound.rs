//! A query word that no word starts with, read as a compound: `AssistantProfessor8` where the
//! labels say "Assistant Professor 8" or the local name `AssistantProfessor8` gives `assistant`,
//! `professor` and `8`. Split where its own letters change case or turn to digits, as local
//! names are; else, written in one case (`alberteinstein`), at words the labels hold — tried
//! only when the word finds nothing otherwise, typos included: the fewest pieces, the longest
//! first, each a known word but the last, which need only begin one. The pieces then match as
//! the query's words, each anywhere in the label.
//!
//! So an entity's local name needs no joined word in the index (`undergraduatestudent278` for
//! `UndergraduateStudent278`: LUBM's were 40 % of its index); classes and predicates, few, keep
//! theirs, which a typo in a name typed whole still finds (`subOrganisationOf`).

use crate::fuzzy;
#[cfg(doc)]
use crate::normalize::name_parts;
use crate::normalize::Word;
use crate::read::{Index, Token};
use crate::SearchError;
use std::sync::Arc;

/// Pieces a compound splits into at most.
const MAX_PIECES: usize = 4;

/// Bytes a piece has at least, unless it is a number: pieces of one letter would split nearly
/// any word, typos included, into words the labels hold (`resultt` → `result` + `t`).
const MIN_PIECE_BYTES: usize = 2;

/// The words a compound is split at: the index's tokens, or one label's words.
pub(crate) trait Lexicon {
    /// Reads at once what looking up `pieces` will need (over HTTP, one request).
    fn prepare(&mut self, pieces: &[&str]) -> Result<(), SearchError>;
    /// Whether `piece` is a word.
    fn holds(&mut self, piece: &str) -> Result<bool, SearchError>;
    /// Whether some word starts with `prefix`.
    fn begins(&mut self, prefix: &str) -> Result<bool, SearchError>;
}

/// A piece of a compound, and the typos it may match with: a part of the query's own camelCase
/// those of the word it comes from (`GradauteStudent` has two, as when it was one word), one at
/// most if it has four letters (`FuxlProfessor`: the other parts narrow what it matches), none
/// if fewer; a piece found at the words of the labels (exact but the last, a prefix) none.
#[derive(Debug)]
pub(crate) struct Piece {
    pub word: Word,
    pub typos: u32,
}

/// The typos a part of the camelCase of `whole` may match with.
fn part_typos(part: &Word, whole: &Word) -> u32 {
    let most = match part.text.chars().count() {
        0..=3 => 0,
        4 => 1,
        _ => u32::MAX,
    };
    fuzzy::allowed(whole.text.chars().count()).min(most)
}

/// The pieces of word `w` read as a compound (see the module), or `None`: `named`, its run of
/// the query split as a local name ([`name_parts`]), if it splits, each part no word begins
/// (or one of `banned`) split in turn at the words of `lex` (`unlabelledthing42`); else `w`
/// split at them. `w` itself is taken to match nothing.
pub(crate) fn pieces(
    lex: &mut impl Lexicon,
    named: Option<Vec<Word>>,
    w: &Word,
    banned: &[String],
) -> Result<Option<Vec<Piece>>, SearchError> {
    if w.cjk {
        return Ok(None);
    }
    let Some(named) = named else {
        return Ok(known_pieces(lex, &w.text, banned)?.map(|p| p.into_iter().map(known).collect()));
    };
    let mut out = Vec::with_capacity(named.len());
    for part in named {
        let split = if !banned.contains(&part.text) && lex.begins(&part.text)? {
            None
        } else {
            known_pieces(lex, &part.text, banned)?
        };
        match split {
            Some(p) => out.extend(p.into_iter().map(known)),
            None => out.push(Piece {
                typos: part_typos(&part, w),
                word: part,
            }),
        }
    }
    Ok(Some(out))
}

/// The parts of a word split as a local name ([`name_parts`]), as pieces, without looking at
/// any words.
pub(crate) fn named_pieces(named: Option<Vec<Word>>, w: &Word) -> Option<Vec<Piece>> {
    named.map(|p| {
        p.into_iter()
            .map(|word| Piece {
                typos: part_typos(&word, w),
                word,
            })
            .collect()
    })
}

/// A piece found at the words of the labels.
fn known(text: &str) -> Piece {
    Piece {
        word: Word {
            text: text.to_owned(),
            cjk: false,
        },
        typos: 0,
    }
}

fn allowed(piece: &str) -> bool {
    piece.len() >= MIN_PIECE_BYTES || piece.bytes().all(|b| b.is_ascii_digit())
}

/// `w` split at known words (see the module), breadth first: every way with `k` pieces is
/// tried before any with `k + 1`, and at each end the first piece found, the longest, is kept;
/// no piece but the last is one of `banned` (the pieces of a split that found nothing).
fn known_pieces<'w>(
    lex: &mut impl Lexicon,
    w: &'w str,
    banned: &[String],
) -> Result<Option<Vec<&'w str>>, SearchError> {
    let ends: Vec<usize> = w
        .char_indices()
        .skip(1)
        .map(|(i, _)| i)
        .chain([w.len()])
        .collect();
    // start[e]: where the piece ending at `e` begins, on the first way found to `e`.
    let mut start: Vec<Option<usize>> = vec![None; w.len() + 1];
    let mut level = vec![0usize];
    for depth in 1..=MAX_PIECES {
        let candidates: Vec<(usize, usize)> = level
            .iter()
            .flat_map(|&p| {
                ends.iter()
                    .rev()
                    .filter(move |&&e| e > p)
                    .map(move |&e| (p, e))
            })
            .filter(|&(p, e)| allowed(&w[p..e]) && !(p == 0 && e == w.len()))
            .collect();
        lex.prepare(
            &candidates
                .iter()
                .map(|&(p, e)| &w[p..e])
                .collect::<Vec<_>>(),
        )?;
        // The last piece first: a way with `depth` pieces ends the search.
        for &(p, e) in &candidates {
            if e == w.len() && lex.begins(&w[p..e])? {
                start[e] = Some(p);
                return Ok(Some(unwind(w, &start)));
            }
        }
        if depth == MAX_PIECES {
            break;
        }
        let mut next = Vec::new();
        for &(p, e) in &candidates {
            if e < w.len()
                && start[e].is_none()
                && !banned.iter().any(|b| b == &w[p..e])
                && lex.holds(&w[p..e])?
            {
                start[e] = Some(p);
                next.push(e);
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    Ok(None)
}

/// The pieces of the way found to the end of `w`, in order.
fn unwind<'w>(w: &'w str, start: &[Option<usize>]) -> Vec<&'w str> {
    let mut out = Vec::new();
    let mut e = w.len();
    while e > 0 {
        let Some(p) = start[e] else { break };
        out.push(&w[p..e]);
        e = p;
    }
    out.reverse();
    out
}

/// The index's token dictionary as a [`Lexicon`], with the token blocks it looked in at hand
/// (a split looks up dozens of pieces, most in the same few blocks).
pub(crate) struct Tokens<'a> {
    ix: &'a Index,
    blocks: Vec<NumberedBlock>,
}

/// A token block and its number.
type NumberedBlock = (usize, Arc<Vec<Token>>);

impl<'a> Tokens<'a> {
    pub(crate) fn new(ix: &'a Index) -> Self {
        Self {
            ix,
            blocks: Vec::new(),
        }
    }

    /// The token block `word` would lie in, and its number; `None` without tokens.
    fn block_of(&mut self, word: &str) -> Result<Option<NumberedBlock>, SearchError> {
        if self.ix.block_count() == 0 {
            return Ok(None);
        }
        let b = self.ix.block_of(word);
        if let Some((_, t)) = self.blocks.iter().find(|(n, _)| *n == b) {
            return Ok(Some((b, t.clone())));
        }
        let t = self.ix.token_block(b)?;
        self.blocks.push((b, t.clone()));
        Ok(Some((b, t)))
    }
}

impl Lexicon for Tokens<'_> {
    fn prepare(&mut self, pieces: &[&str]) -> Result<(), SearchError> {
        // A local file reads a block as fast when looked up.
        if !self.ix.is_remote() {
            return Ok(());
        }
        let blocks: Vec<usize> = pieces.iter().map(|p| self.ix.block_of(p)).collect();
        self.ix.prefetch_token_blocks(&blocks)
    }

    fn holds(&mut self, piece: &str) -> Result<bool, SearchError> {
        Ok(self.block_of(piece)?.is_some_and(|(_, block)| {
            block
                .binary_search_by(|t| t.text.as_str().cmp(piece))
                .is_ok()
        }))
    }

    fn begins(&mut self, prefix: &str) -> Result<bool, SearchError> {
        let Some((b, block)) = self.block_of(prefix)? else {
            return Ok(false);
        };
        let at = block.partition_point(|t| t.text.as_str() < prefix);
        Ok(match block.get(at) {
            Some(t) => t.text.starts_with(prefix),
            // Past the block's last token: the next block's first is the next token.
            None => b + 1 < self.ix.block_count() && self.ix.block_first(b + 1).starts_with(prefix),
        })
    }
}

/// One label's words as a [`Lexicon`] (the search without an index).
pub(crate) struct LabelWords<'a>(pub(crate) &'a [Word]);

impl Lexicon for LabelWords<'_> {
    fn prepare(&mut self, _: &[&str]) -> Result<(), SearchError> {
        Ok(())
    }

    fn holds(&mut self, piece: &str) -> Result<bool, SearchError> {
        Ok(self.0.iter().any(|l| l.text == piece))
    }

    fn begins(&mut self, prefix: &str) -> Result<bool, SearchError> {
        Ok(self.0.iter().any(|l| l.text.starts_with(prefix)))
    }
}

impl LabelWords<'_> {
    /// Whether `w` may split at these words: one of them starts it (most labels have none, and
    /// are passed over without a search).
    pub(crate) fn may_split(&self, w: &str) -> bool {
        self.0
            .iter()
            .any(|l| l.text.len() < w.len() && allowed(&l.text) && w.starts_with(&l.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(words: &[&str], w: &str) -> Option<Vec<String>> {
        let label: Vec<Word> = words
            .iter()
            .map(|t| Word {
                text: (*t).to_owned(),
                cjk: false,
            })
            .collect();
        known_pieces(&mut LabelWords(&label), w, &[])
            .unwrap()
            .map(|p| p.into_iter().map(str::to_owned).collect())
    }

    #[test]
    fn fewest_pieces_longest_first() {
        let words = [
            "basket",
            "basketball",
            "ball",
            "player",
            "play",
            "sub",
            "class",
            "of",
        ];
        assert_eq!(
            split(&words, "basketballplayer").unwrap(),
            ["basketball", "player"]
        );
        assert_eq!(split(&words, "basketballpl").unwrap(), ["basketball", "pl"]);
        assert_eq!(split(&words, "subclassof").unwrap(), ["sub", "class", "of"]);
        // One letter is no piece, a number is.
        assert_eq!(split(&words, "basketballp"), None);
        assert_eq!(split(&["q", "42"], "q42"), None);
        assert_eq!(
            split(&["student", "278"], "student27").unwrap(),
            ["student", "27"]
        );
        assert_eq!(
            split(&["ab"; 1], &"ab".repeat(5)),
            None,
            "at most four pieces"
        );
        assert_eq!(split(&["ab"; 1], &"ab".repeat(4)).unwrap().len(), 4);
        assert_eq!(
            split(&["москва", "река"], "москварек").unwrap(),
            ["москва", "рек"]
        );
    }
}
