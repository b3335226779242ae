//! How well a label matches a query: each word's quality (exact, prefix, with typos) and the
//! label's tier. The indexed search, its posting merge and the scan without an index all rank by
//! it, so it stands apart from them.

use crate::fuzzy;
use crate::normalize::{Flat, Word};
use crate::read::TokenRef;
use crate::Match;

/// Match quality of one word: 0 exact word, 1 word prefix, 2 one typo, 3 two typos.
pub(crate) type Quality = u8;

/// One query word's matching tokens, each with how it matched.
pub(crate) type WordLists = Vec<(Quality, TokenRef)>;

/// The worst quality a word can match with.
pub(crate) const WORST: Quality = 3;

/// The quality of a word for a label it does not match (`min` with it changes nothing).
pub(crate) const NO_MATCH: Quality = Quality::MAX;

/// Tiers of a match, best first: each quality's whole labels, then its others.
pub(crate) const TIERS: usize = 2 * (WORST as usize + 1);

/// The quality of a word matching a token with `typos` typos (1 or 2).
pub(crate) fn typo_quality(typos: u32) -> Quality {
    if typos <= 1 {
        2
    } else {
        WORST
    }
}

/// A candidate label: its tier (see [`Match`]) and its order within the tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cand {
    pub tier: u8,
    pub doc: u32,
}

/// The tier of a label whose words matched with `qualities` and which has `ntok` words.
pub(crate) fn tier(qualities: &[Quality], ntok: usize) -> u8 {
    let worst = qualities.iter().copied().max().unwrap_or(0);
    tier_of(worst, ntok == qualities.len())
}

/// The tier of a label whose worst matching word has quality `worst`, of as many words as the
/// query (`whole`) or not: exact, prefix, one typo, two typos, each whole first. Fewer typos
/// rank first, as in Meilisearch and Typesense: `organisaton` finds "organisation" (one typo)
/// before "Organization Role Code" (two).
pub(crate) fn tier_of(worst: Quality, whole: bool) -> u8 {
    2 * worst.min(WORST) + u8::from(!whole)
}

pub(crate) fn tier_match(t: u8) -> Match {
    match t {
        0 => Match::WholeLabel,
        1 => Match::Exact,
        2 => Match::WholePrefix,
        3 => Match::Prefix,
        _ => Match::Fuzzy,
    }
}

/// How a query word matches a token, if it does, with at most `typos` typos.
pub(crate) fn quality(w: &Word, chars: &[char], token: &str, typos: u32) -> Option<Quality> {
    if token == w.text {
        return Some(0);
    }
    if token.starts_with(&w.text) {
        return Some(1);
    }
    if typos > 0 && !w.cjk {
        return fuzzy::distance(chars, token, typos, true).map(typo_quality);
    }
    None
}

/// The typos a word typed may match with: by its length, none in CJK.
pub(crate) fn typos_of(w: &Word) -> u32 {
    if w.cjk {
        0
    } else {
        fuzzy::allowed(w.text.chars().count())
    }
}

/// Whether a label's words start with the query's, in the query's order (the last a prefix):
/// among labels of one tier, the one read as typed comes first (`Pound Force Foot` before
/// "Foot Pound Force", both whole labels). The index holds no word positions, so this orders
/// the hits found, not which are found.
pub(crate) fn in_order(query: &[Word], label: &Flat) -> bool {
    let Some((last, before)) = query.split_last() else {
        return false;
    };
    label.len() >= query.len()
        && before
            .iter()
            .enumerate()
            .all(|(i, q)| q.text == label.word(i))
        && label.word(before.len()).starts_with(&last.text)
}
