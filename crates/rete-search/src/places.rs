//! Where a token stands in its labels (index layout 5: bit `k`, word `k` of a label whose words
//! are all different) proves, before any list is walked, that some words never stand together:
//! two distinct words of a query match two distinct words of a label, at two distinct places.
//! `Ada Fran`, typed on the way to "Ada Franklin" where `fran` is another first name, then
//! neither walks the whole lists of `ada` and `fran` to find no label holding both, nor reads
//! the lists of the first names that `fran` starts.

use crate::read::TokenRef;
use crate::tier::{Quality, WordLists};
use std::borrow::Cow;

/// The eighth word of a label and after: one place shared by any number of words.
const LATER: u8 = 0x80;

/// `tokens` without the tokens that cannot stand in a label with any token of some other word:
/// when every token of that word stands at one and the same place (`erna`, only ever a first
/// name), a token of another text standing only there (`bjarne`, among those `b` starts) is
/// never in a label with it. A word left without tokens has no answer.
pub(crate) fn apart(tokens: &[WordLists]) -> Cow<'_, [WordLists]> {
    let only: Vec<Option<u8>> = tokens.iter().map(one_place).collect();
    if tokens.len() < 2 || only.iter().all(Option::is_none) {
        return Cow::Borrowed(tokens);
    }
    tokens
        .iter()
        .enumerate()
        .map(|(i, w)| {
            w.iter()
                .filter(|(_, t)| {
                    tokens
                        .iter()
                        .zip(&only)
                        .enumerate()
                        .all(|(j, (other, place))| {
                            j == i
                                || *place != Some(t.places)
                                || other.iter().any(|(_, o)| o.text == t.text)
                        })
                })
                .cloned()
                .collect()
        })
        .collect()
}

/// The one place every token of `w` stands at, if they share one that is not [`LATER`].
fn one_place(w: &WordLists) -> Option<u8> {
    let (_, first) = w.first()?;
    let p = first.places;
    (p.count_ones() == 1 && p != LATER && w.iter().all(|(_, t)| t.places == p)).then_some(p)
}

/// Whether the exact tokens of `words` can stand together in a label whose word count is one
/// of `counts` (bits as [`crate::read::Token::word_counts`]): each word at a place of its own
/// among `places` (a mask, bit `k`: word `k`; the eighth and later share the last bit), where
/// one of its tokens with such labels stands ([`crate::read::Token::places`]). A token's places
/// are of all its labels, so this proves only that no label holds them all. Tokens shared by
/// two words, or more than 7 words, prove nothing.
pub(crate) fn seated(words: &[Vec<&(Quality, TokenRef)>], counts: u8, places: u8) -> bool {
    if !(2..=7).contains(&words.len()) {
        return true;
    }
    let texts: Vec<&str> = words
        .iter()
        .flatten()
        .map(|(_, t)| t.text.as_str())
        .collect();
    if texts
        .iter()
        .enumerate()
        .any(|(i, a)| texts[..i].contains(a))
    {
        return true;
    }
    let masks: Vec<u8> = words
        .iter()
        .map(|w| {
            w.iter()
                .filter(|(_, t)| t.word_counts & counts != 0)
                .fold(0, |m, (_, t)| m | t.places)
                & places
        })
        .collect();
    seat(&masks, 0)
}

/// Whether each of `masks` (the places a word may take) can take a place of its own, none of
/// `taken` (the last place, the eighth word and after, holds any number): a search over at
/// most 7 words and 8 places.
fn seat(masks: &[u8], taken: u8) -> bool {
    let Some((&m, rest)) = masks.split_first() else {
        return true;
    };
    let mut free = m & !taken;
    while free != 0 {
        let place = free & free.wrapping_neg();
        if seat(rest, taken | (place & !LATER)) {
            return true;
        }
        free &= !place;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{apart, seat};
    use crate::read::{Part, Postings, Token, TokenRef};
    use std::sync::Arc;

    /// Word lists of tokens `(text, places)`, one list a word.
    fn lists(words: &[&[(&str, u8)]]) -> Vec<super::WordLists> {
        words
            .iter()
            .map(|w| {
                let block: Arc<Vec<Token>> = Arc::new(
                    w.iter()
                        .map(|&(text, places)| Token {
                            text: text.into(),
                            df: 1,
                            word_counts: 0b100,
                            places,
                            ones: None,
                            rest: Part {
                                df: 1,
                                postings: Postings::Inline(Arc::new(vec![(0, 2)])),
                            },
                        })
                        .collect(),
                );
                (0..w.len())
                    .map(|i| (0, TokenRef::new(&block, i).unwrap()))
                    .collect()
            })
            .collect()
    }

    fn texts(l: &[super::WordLists]) -> Vec<Vec<String>> {
        l.iter()
            .map(|w| w.iter().map(|(_, t)| t.text.clone()).collect())
            .collect()
    }

    #[test]
    fn tokens_never_beside_a_word_leave() {
        // `Erna B`: `erna` only ever first; of `b`'s tokens the first names leave, the surname
        // and a token standing anywhere stay.
        let l = lists(&[
            &[("erna", 1)],
            &[("bauer", 2), ("bjarne", 1), ("borg", 3), ("bo", u8::MAX)],
        ]);
        assert_eq!(
            texts(&apart(&l)),
            [vec!["erna"], vec!["bauer", "borg", "bo"]]
        );
        // The same token for two words (`ada ad`): one label word matches both.
        let l = lists(&[&[("ada", 1)], &[("ad", 1), ("ada", 1)]]);
        assert_eq!(texts(&apart(&l)), [vec!["ada"], vec!["ada"]]);
        // A word standing at several places rules nothing out; nor does the eighth place,
        // shared by any number of words.
        for first in [0b11, 0x80] {
            let l = lists(&[&[("x", first)], &[("y", first)]]);
            assert_eq!(texts(&apart(&l)), [vec!["x"], vec!["y"]]);
        }
        // Both only ever first: each rules the other out.
        let l = lists(&[&[("ada", 1)], &[("fran", 1)]]);
        assert!(apart(&l).iter().all(Vec::is_empty));
    }

    #[test]
    fn words_take_places_of_their_own() {
        // `ada` and `fran`, both only ever first: not together in a label of two words.
        assert!(!seat(&[0b01, 0b01], 0));
        assert!(seat(&[0b01, 0b10], 0));
        // The first word's choice is undone when the second needs its place.
        assert!(seat(&[0b11, 0b01], 0));
        assert!(!seat(&[0b011, 0b011, 0b011], 0));
        assert!(seat(&[0b011, 0b110, 0b011], 0));
        assert!(!seat(&[0b01, 0], 0));
        assert!(seat(&[], 0));
        // The eighth word and after: one place for any number of words.
        assert!(seat(&[0x80, 0x80, 0x80], 0));
        assert!(!seat(&[0x01, 0x01, 0x80], 0));
    }
}
