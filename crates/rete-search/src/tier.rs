//! How well a label matches a query: each word's quality (exact, prefix, with typos) and the
//! label's tier. The indexed search, its posting merge and the scan without an index all rank by
//! it, so it stands apart from them.

use crate::fuzzy;
use crate::normalize::Word;
use crate::Match;

/// Match quality of one word: 0 exact word, 1 word prefix, 2 with typos.
pub(crate) type Quality = u8;

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
/// query (`whole`) or not.
pub(crate) fn tier_of(worst: Quality, whole: bool) -> u8 {
    match (worst, whole) {
        (0, true) => 0,
        (0, false) => 1,
        (1, true) => 2,
        (1, false) => 3,
        _ => 4,
    }
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

/// How a query word matches a token, if it does.
pub(crate) fn quality(w: &Word, chars: &[char], token: &str, typos: bool) -> Option<Quality> {
    if token == w.text {
        return Some(0);
    }
    if token.starts_with(&w.text) {
        return Some(1);
    }
    if typos && !w.cjk {
        let max = fuzzy::allowed(chars.len());
        if max > 0 && fuzzy::distance(chars, token, max, true).is_some() {
            return Some(2);
        }
    }
    None
}
