//! Folding and word splitting, the same for labels at build time and for queries: compatibility
//! decomposition (NFKD) with combining marks dropped, lower case, `ß` → `ss`; words split at
//! anything that is not a letter or digit, at camelCase and letter/digit boundaries; runs of CJK
//! characters indexed as their characters and character bigrams (CJK text has no spaces).

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Longest word kept, in bytes: longer runs (base64, hashes) are cut, so a hostile label cannot
/// make a token block or a query arbitrarily large.
pub const MAX_WORD_BYTES: usize = 64;

/// One word of a label or query, folded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The folded text.
    pub text: String,
    /// Whether it comes from a CJK run (a character or a bigram): never matched with typos.
    pub cjk: bool,
}

/// `s` folded: NFKD, combining marks dropped, lower case, `ß` → `ss`.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.nfkd().filter(|c| !is_combining_mark(*c)) {
        push_lower(&mut out, c);
    }
    out
}

fn push_lower(out: &mut String, c: char) {
    for l in c.to_lowercase() {
        if l == 'ß' {
            out.push_str("ss");
        } else {
            out.push(l);
        }
    }
}

/// Whether `c` belongs to a script written without spaces between words (Han, kana, Hangul),
/// where words are indexed as characters and bigrams.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF      // Hangul Jamo
        | 0x2E80..=0x2FDF    // CJK radicals
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3100..=0x318F    // Bopomofo, Hangul compatibility Jamo
        | 0x31F0..=0x31FF    // Katakana extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xA960..=0xA97F    // Hangul Jamo extended A
        | 0xAC00..=0xD7FF    // Hangul syllables and Jamo extended B
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x3134F // CJK extensions B–G
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Digit,
    Cjk,
    Other,
}

fn class(c: char) -> Class {
    if is_cjk(c) {
        Class::Cjk
    } else if c.is_numeric() {
        Class::Digit
    } else if c.is_uppercase() {
        Class::Upper
    } else if c.is_alphanumeric() {
        Class::Lower
    } else {
        Class::Other
    }
}

/// The words of a label or query in order (duplicates kept): split at anything that is not a
/// letter or digit, not at case changes (a label "McDonald" is one word, found by "mcd").
pub fn words(s: &str) -> Vec<Word> {
    split(s, false)
}

/// Whether `s` has any word ([`words`] and [`name_words`] not empty), without building them.
pub fn has_words(s: &str) -> bool {
    s.nfkd()
        .filter(|c| !is_combining_mark(*c))
        .any(|c| class(c) != Class::Other)
}

fn split(s: &str, camel: bool) -> Vec<Word> {
    if s.is_ascii() {
        // ASCII decomposes to itself and has no combining marks: split its bytes as they are.
        return split_chars(s.as_bytes(), camel);
    }
    // Decompose first (marks dropped) but keep case: camelCase splitting needs it.
    let chars: Vec<char> = s.nfkd().filter(|c| !is_combining_mark(*c)).collect();
    split_chars(&chars, camel)
}

/// [`split`] of decomposed characters (or ASCII bytes).
fn split_chars<C: Copy + Into<char>>(chars: &[C], camel: bool) -> Vec<Word> {
    let class = |c: C| class(c.into());
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = class(chars[i]);
        if c == Class::Other {
            i += 1;
            continue;
        }
        if c == Class::Cjk {
            let start = i;
            while i < chars.len() && class(chars[i]) == Class::Cjk {
                i += 1;
            }
            cjk_words(&chars[start..i], &mut out);
            continue;
        }
        let start = i;
        i += 1;
        while i < chars.len() && !boundary(chars, i, camel) {
            i += 1;
        }
        let mut text = String::with_capacity(i - start);
        for &c in &chars[start..i] {
            push_lower(&mut text, c.into());
        }
        out.push(Word {
            text: cut(text),
            cjk: false,
        });
    }
    out
}

/// Whether a new word starts at `i` (inside a run of letters and digits); `camel`: also at
/// case and letter/digit changes.
fn boundary<C: Copy + Into<char>>(chars: &[C], i: usize, camel: bool) -> bool {
    let class = |c: C| class(c.into());
    let (prev, cur) = (class(chars[i - 1]), class(chars[i]));
    match (prev, cur) {
        (_, Class::Other | Class::Cjk) => true,
        _ if !camel => false,
        (Class::Digit, Class::Upper | Class::Lower)
        | (Class::Upper | Class::Lower, Class::Digit) => true,
        (Class::Lower, Class::Upper) => true,
        // `HTMLParser`: the last capital of a run starts the next word.
        (Class::Upper, Class::Upper) => chars.get(i + 1).is_some_and(|&n| class(n) == Class::Lower),
        _ => false,
    }
}

/// A CJK run as its characters and its bigrams.
fn cjk_words<C: Copy + Into<char>>(run: &[C], out: &mut Vec<Word>) {
    for (k, &c) in run.iter().enumerate() {
        let mut one = String::new();
        push_lower(&mut one, c.into());
        out.push(Word {
            text: one.clone(),
            cjk: true,
        });
        if let Some(&n) = run.get(k + 1) {
            push_lower(&mut one, n.into());
            out.push(Word {
                text: one,
                cjk: true,
            });
        }
    }
}

/// `s` cut to at most [`MAX_WORD_BYTES`] on a character boundary.
fn cut(mut s: String) -> String {
    if s.len() > MAX_WORD_BYTES {
        let mut n = MAX_WORD_BYTES;
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        s.truncate(n);
    }
    s
}

/// The words of an IRI local name, split also at camelCase and letter/digit changes, plus, when
/// it splits into several, the whole name folded without separators (`BasketballPlayer` is found
/// by `basketball`, `player` and `basketballplayer`).
pub fn name_words(local: &str) -> Vec<Word> {
    with_joined(split(local, true))
}

/// A local name's words plus, when there are several, the whole name folded.
fn with_joined(mut w: Vec<Word>) -> Vec<Word> {
    if w.len() > 1 && w.iter().all(|w| !w.cjk) {
        let joined: String = w.iter().map(|w| w.text.as_str()).collect();
        w.push(Word {
            text: cut(joined),
            cjk: false,
        });
    }
    w
}

/// A document's distinct word texts, sorted, and its [`word_count`], normalising the label
/// once ([`words`] and [`word_count`] would each): the index build does this for every label.
pub fn label_words(label: &str, name: bool) -> (Vec<String>, usize) {
    let (ws, split_count) = if name {
        let ws = split(label, true);
        let n = ws.len();
        (with_joined(ws), n)
    } else {
        (words(label), 0)
    };
    let cjk = ws.iter().any(|w| w.cjk);
    let mut texts: Vec<String> = ws.into_iter().map(|w| w.text).collect();
    texts.sort_unstable();
    texts.dedup();
    let count = if name {
        split_count
    } else if cjk {
        query_words(label, usize::MAX).len()
    } else {
        // Without CJK, a query's words are the label's distinct words.
        texts.len()
    };
    (texts, count)
}

/// How many words a label (or, if `name`, an IRI local name) has, as a query would count them:
/// a query with as many words, each matching one, matches the whole label.
pub fn word_count(label: &str, name: bool) -> usize {
    if name {
        split(label, true).len()
    } else {
        query_words(label, usize::MAX).len()
    }
}

/// The words of a query: as [`words`], but a CJK run longer than one character is matched by
/// its bigrams only (each must occur), and at most `max` words are kept.
pub fn query_words(q: &str, max: usize) -> Vec<Word> {
    let mut all = words(q);
    // Word `k` of `all`, moved out (each is taken once, after the look-ahead past it).
    let take = |all: &mut Vec<Word>, k: usize| Word {
        text: std::mem::take(&mut all[k].text),
        cjk: all[k].cjk,
    };
    let mut out: Vec<Word> = Vec::with_capacity(all.len());
    let mut k = 0;
    while k < all.len() {
        let w = &all[k];
        if w.cjk && w.text.chars().count() == 1 {
            // A character followed by its bigram: keep the bigram unless it is the only one.
            match all.get(k + 1) {
                Some(b) if b.cjk && b.text.chars().count() == 2 => {
                    out.push(take(&mut all, k + 1));
                    k += 2;
                    // The run's last character is covered by the bigram before it.
                    if all
                        .get(k)
                        .is_some_and(|n| n.cjk && n.text.chars().count() == 1)
                        && all
                            .get(k + 1)
                            .is_none_or(|n| !(n.cjk && n.text.chars().count() == 2))
                    {
                        k += 1;
                    }
                    continue;
                }
                _ => out.push(take(&mut all, k)),
            }
        } else {
            out.push(take(&mut all, k));
        }
        k += 1;
    }
    // The first of each text kept: a query's few words compared with each other, a long
    // label's through a set.
    if out.len() <= 16 {
        let mut kept: Vec<Word> = Vec::with_capacity(out.len());
        for w in out {
            if !kept.iter().any(|k| k.text == w.text) {
                kept.push(w);
            }
        }
        out = kept;
    } else {
        let mut seen = std::collections::HashSet::new();
        out.retain(|w| seen.insert(w.text.clone()));
    }
    out.truncate(max);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(v: Vec<Word>) -> Vec<String> {
        v.into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn folding() {
        assert_eq!(fold("Düsseldorf"), "dusseldorf");
        assert_eq!(fold("Straße"), "strasse");
        assert_eq!(fold("STRASSE"), "strasse");
        assert_eq!(fold("ﬁne Ⅻ"), "fine xii");
        assert_eq!(fold("Ångström"), "angstrom");
    }

    proptest::proptest! {
        #[test]
        fn ascii_is_split_as_its_characters(s in "[ -~]{0,40}") {
            let chars: Vec<char> = s.chars().collect();
            for camel in [false, true] {
                proptest::prop_assert_eq!(split(&s, camel), split_chars(&chars, camel));
            }
        }
    }

    #[test]
    fn splitting() {
        assert_eq!(texts(words("BasketballPlayer")), ["basketballplayer"]);
        assert_eq!(
            texts(split("HTMLParser2x", true)),
            ["html", "parser", "2", "x"]
        );
        assert_eq!(texts(words("has_part-of")), ["has", "part", "of"]);
        assert_eq!(texts(words("Albert  Einstein!")), ["albert", "einstein"]);
        assert_eq!(
            texts(name_words("BasketballPlayer")),
            ["basketball", "player", "basketballplayer"]
        );
        assert_eq!(texts(words("東京都")), ["東", "東京", "京", "京都", "都"]);
        assert_eq!(texts(query_words("東京都", 8)), ["東京", "京都"]);
        assert_eq!(texts(query_words("東", 8)), ["東"]);
        assert_eq!(texts(query_words("東京", 8)), ["東京"]);
        assert_eq!(texts(words("القاهرة")), ["القاهرة"]);
        assert!(words("!!! ... ---").is_empty());
        assert_eq!(words(&"a".repeat(500))[0].text.len(), MAX_WORD_BYTES);
    }

    /// The build's one-pass split gives what the separate calls give, on labels and names with
    /// repeated words, CJK runs, accents, camelCase and digits.
    #[test]
    fn label_words_is_words_and_word_count() {
        let cases = [
            "Albert Einstein",
            "New York, New York",
            "東京都 Tokyo 東京",
            "東",
            "Düsseldorf Straße",
            "HTMLParser2x",
            "BasketballPlayer",
            "a_b_a",
            "x 東京 x",
            "!!!",
            "",
        ];
        for l in cases {
            for name in [false, true] {
                let mut want = texts(if name { name_words(l) } else { words(l) });
                want.sort_unstable();
                want.dedup();
                assert_eq!(
                    label_words(l, name),
                    (want, word_count(l, name)),
                    "{l:?} {name}"
                );
            }
        }
    }

    #[test]
    fn has_words_is_words_not_empty() {
        for s in [
            "",
            "!!! ... ---",
            " a",
            "東",
            "é",
            "\u{301}",
            "_1_",
            "ﬁ",
            "Ⅻ",
            "--x--",
        ] {
            assert_eq!(has_words(s), !words(s).is_empty(), "{s:?}");
            assert_eq!(has_words(s), !name_words(s).is_empty(), "{s:?}");
        }
    }
}
