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

#[inline]
fn push_lower(out: &mut String, c: char) {
    // ASCII inline: `to_lowercase` is a call per character, a good part of splitting a label.
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
    } else {
        push_lower_wide(out, c);
    }
}

fn push_lower_wide(out: &mut String, c: char) {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Digit,
    Cjk,
    Other,
}

#[inline]
fn class(c: char) -> Class {
    // ASCII, most of what is split, without the Unicode tables (the same answers).
    match c {
        'A'..='Z' => Class::Upper,
        'a'..='z' => Class::Lower,
        '0'..='9' => Class::Digit,
        _ if c.is_ascii() => Class::Other,
        _ => class_wide(c),
    }
}

fn class_wide(c: char) -> Class {
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
    if s.is_ascii() {
        return s.bytes().any(|b| b.is_ascii_alphanumeric());
    }
    s.nfkd()
        .filter(|c| !is_combining_mark(*c))
        .any(|c| class(c) != Class::Other)
}

fn split(s: &str, camel: bool) -> Vec<Word> {
    let mut flat = Flat::default();
    split_into(s, camel, &mut flat, &mut Scratch::default());
    flat.into_words()
}

/// [`words`] (or, if `name`, [`split_name`]) appended to `out`, nothing allocated per word.
pub fn words_into(s: &str, name: bool, out: &mut Flat, scratch: &mut Scratch) {
    split_into(s, name, out, scratch);
}

/// Words written one after another into one string, each a span of it: splitting a batch of
/// labels allocates nothing per word (the index build splits every label).
#[derive(Debug, Default)]
pub struct Flat {
    text: String,
    spans: Vec<Span>,
}

#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    cjk: bool,
    /// The word's place in its label, from 0 (7: the eighth or later), or [`ANY_PLACE`].
    place: u8,
}

/// A word whose place in its label is not told: a local name's, a CJK label's, or one of a
/// label that repeats a word (their places do not match a query's words one to one).
const ANY_PLACE: u8 = u8::MAX;

impl Flat {
    /// Words held.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether no word is held.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The text of word `i`.
    pub fn word(&self, i: usize) -> &str {
        let w = self.spans[i];
        &self.text[w.start..w.end]
    }

    /// Where word `i` may stand in its label, as a mask (bit `k`: word `k` from 0, 7 for the
    /// eighth or later; every bit when not told): see [`label_words_into`].
    pub fn places(&self, i: usize) -> u8 {
        match self.spans[i].place {
            ANY_PLACE => u8::MAX,
            k => 1 << k.min(7),
        }
    }

    /// Empties it, keeping its memory.
    pub fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
    }

    fn into_words(self) -> Vec<Word> {
        self.spans
            .iter()
            .map(|w| Word {
                text: self.text[w.start..w.end].to_owned(),
                cjk: w.cjk,
            })
            .collect()
    }

    /// Ends the word begun at byte `start` of the text, cut to [`MAX_WORD_BYTES`].
    fn close(&mut self, start: usize, cjk: bool) {
        let mut end = self.text.len().min(start + MAX_WORD_BYTES);
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        self.text.truncate(end);
        self.spans.push(Span {
            start,
            end,
            cjk,
            place: ANY_PLACE,
        });
    }
}

/// What splitting a label reuses from one label to the next.
#[derive(Debug, Default)]
pub struct Scratch {
    /// The decomposed characters of a label that is not ASCII.
    chars: Vec<char>,
    /// Each character's class, looked up once (a boundary looks at three).
    classes: Vec<Class>,
}

/// [`split`] appending to `out`.
fn split_into(s: &str, camel: bool, out: &mut Flat, scratch: &mut Scratch) {
    let Scratch { chars, classes } = scratch;
    if s.is_ascii() {
        // ASCII decomposes to itself and has no combining marks: split its bytes as they are.
        return split_chars(s.as_bytes(), camel, out, classes);
    }
    // Decompose first (marks dropped) but keep case: camelCase splitting needs it.
    chars.clear();
    chars.extend(s.nfkd().filter(|c| !is_combining_mark(*c)));
    split_chars(chars, camel, out, classes)
}

/// [`split`] of decomposed characters (or ASCII bytes); `classes` is scratch.
fn split_chars<C: Copy + Into<char>>(
    chars: &[C],
    camel: bool,
    out: &mut Flat,
    classes: &mut Vec<Class>,
) {
    classes.clear();
    classes.extend(chars.iter().map(|&c| class(c.into())));
    let mut i = 0;
    while i < chars.len() {
        let c = classes[i];
        if c == Class::Other {
            i += 1;
            continue;
        }
        if c == Class::Cjk {
            let start = i;
            while i < chars.len() && classes[i] == Class::Cjk {
                i += 1;
            }
            cjk_words(&chars[start..i], out);
            continue;
        }
        let start = i;
        i += 1;
        while i < chars.len() && !boundary(classes, i, camel) {
            i += 1;
        }
        let at = out.text.len();
        for &c in &chars[start..i] {
            push_lower(&mut out.text, c.into());
        }
        out.close(at, false);
    }
}

/// Whether a new word starts at `i` (inside a run of letters and digits); `camel`: also at
/// case and letter/digit changes.
fn boundary(classes: &[Class], i: usize, camel: bool) -> bool {
    let (prev, cur) = (classes[i - 1], classes[i]);
    match (prev, cur) {
        (_, Class::Other | Class::Cjk) => true,
        _ if !camel => false,
        (Class::Digit, Class::Upper | Class::Lower)
        | (Class::Upper | Class::Lower, Class::Digit) => true,
        (Class::Lower, Class::Upper) => true,
        // `HTMLParser`: the last capital of a run starts the next word.
        (Class::Upper, Class::Upper) => classes.get(i + 1) == Some(&Class::Lower),
        _ => false,
    }
}

/// A CJK run as its characters and its bigrams.
fn cjk_words<C: Copy + Into<char>>(run: &[C], out: &mut Flat) {
    for (k, &c) in run.iter().enumerate() {
        let at = out.text.len();
        push_lower(&mut out.text, c.into());
        out.close(at, true);
        if let Some(&n) = run.get(k + 1) {
            let at = out.text.len();
            push_lower(&mut out.text, c.into());
            push_lower(&mut out.text, n.into());
            out.close(at, true);
        }
    }
}

/// Whether [`split`] as a local name might split `run`, a run of letters and digits, further:
/// never without a lower-case letter before an upper-case one, two upper-case letters in a row
/// (`HTMLParser`) or a letter next to a digit. Outside ASCII, maybe. (Most query words are
/// plain; this spares them the split.)
fn may_split_as_name(run: &str) -> bool {
    !run.is_ascii()
        || run.as_bytes().windows(2).any(|p| {
            let (a, b) = (p[0], p[1]);
            (a.is_ascii_alphabetic() && b.is_ascii_uppercase())
                || (a.is_ascii_alphabetic() != b.is_ascii_alphabetic())
        })
}

/// What a document's text is, for splitting it into words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A label literal.
    Label,
    /// The IRI local name of an entity.
    EntityName,
    /// The IRI local name of a class or predicate.
    SchemaName,
}

/// The words of a class's or predicate's IRI local name, split also at camelCase and
/// letter/digit changes, plus, when it splits into several, the whole name folded without
/// separators (`BasketballPlayer` is found by `basketball`, `player` and `basketballplayer`,
/// and `subOrganisationOf`, one word with a typo, by its typos). An entity's name has no
/// joined word ([`split_name`]): they are many and, numbered, nearly all distinct (LUBM's
/// `UndergraduateStudent278`); typed whole, the search splits it (`compound`).
pub fn name_words(local: &str) -> Vec<Word> {
    let mut flat = Flat::default();
    split_into(local, true, &mut flat, &mut Scratch::default());
    join(&mut flat, 0);
    flat.into_words()
}

/// The words of an entity's IRI local name: as [`name_words`], without the joined name.
pub fn split_name(local: &str) -> Vec<Word> {
    split(local, true)
}

/// The words of the run of `query` that folds to the one word `word`, split as a local name is
/// (at camelCase and letter/digit changes), when that gives several and none is CJK:
/// `AssistantProfessor8` gives `assistant`, `professor`, `8`, and `Q42` gives `q`, `42`.
pub fn name_parts(query: &str, word: &str) -> Option<Vec<Word>> {
    query
        .split(|c: char| !c.is_alphanumeric() && !is_combining_mark(c))
        .filter(|run| may_split_as_name(run))
        .find(|run| matches!(&words(run)[..], [w] if w.text == word))
        .map(|run| split(run, true))
        .filter(|p| p.len() > 1 && p.iter().all(|w| !w.cjk))
}

/// After a local name's words (`flat`'s from `from` on), the whole name folded, when there are
/// several and none is CJK: the words lie one after another in the text, so it is their span.
fn join(flat: &mut Flat, from: usize) {
    let ws = &flat.spans[from..];
    if ws.len() > 1 && ws.iter().all(|w| !w.cjk) {
        let (a, b) = (ws[0].start, ws[ws.len() - 1].end);
        // Copied through the stack (a word is cut to MAX_WORD_BYTES anyway): the text cannot
        // lend itself to its own end.
        let mut end = b.min(a + MAX_WORD_BYTES);
        while !flat.text.is_char_boundary(end) {
            end -= 1;
        }
        let mut copy = [0u8; MAX_WORD_BYTES];
        copy[..end - a].copy_from_slice(&flat.text.as_bytes()[a..end]);
        let at = flat.text.len();
        flat.text
            .push_str(std::str::from_utf8(&copy[..end - a]).unwrap_or_default());
        flat.close(at, false);
    }
}

/// A document's distinct word texts, sorted, and its [`word_count`], normalising the label
/// once ([`words`] and [`word_count`] would each).
pub fn label_words(label: &str, source: Source) -> (Vec<String>, usize) {
    let mut flat = Flat::default();
    let count = label_words_into(label, source, &mut flat, &mut Scratch::default());
    let texts = (0..flat.len()).map(|i| flat.word(i).to_owned()).collect();
    (texts, count)
}

/// [`label_words`] appending the words to `out` (the index build splits every label this way,
/// a batch into one [`Flat`]), each with its place in the label ([`Flat::places`]). Returns
/// the [`word_count`].
pub fn label_words_into(
    label: &str,
    source: Source,
    out: &mut Flat,
    scratch: &mut Scratch,
) -> usize {
    let name = source != Source::Label;
    let from = out.spans.len();
    split_into(label, name, out, scratch);
    let split_count = out.spans.len() - from;
    for (k, w) in out.spans[from..].iter_mut().enumerate() {
        w.place = k.min(7) as u8;
    }
    if source == Source::SchemaName {
        join(out, from);
    }
    let cjk = out.spans[from..].iter().any(|w| w.cjk);
    let Flat { text, spans } = out;
    let word = |w: &Span| &text[w.start..w.end];
    spans[from..].sort_unstable_by(|a, b| word(a).cmp(word(b)));
    let mut kept = from;
    for i in from..spans.len() {
        if kept == from || word(&spans[i]) != word(&spans[kept - 1]) {
            spans[kept] = spans[i];
            kept += 1;
        }
    }
    spans.truncate(kept);
    // Places are kept where a query's words, distinct, can only match distinct words of the
    // label in its order: a plain label whose words are all different.
    if name || cjk || kept - from != split_count {
        for w in &mut spans[from..] {
            w.place = ANY_PLACE;
        }
    }
    if name {
        split_count
    } else if cjk {
        query_words(label, usize::MAX).len()
    } else {
        // Without CJK, a query's words are the label's distinct words.
        kept - from
    }
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
                let mut flat = Flat::default();
                split_chars(&chars, camel, &mut flat, &mut Vec::new());
                proptest::prop_assert_eq!(split(&s, camel), flat.into_words());
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
        assert_eq!(
            texts(split_name("BasketballPlayer")),
            ["basketball", "player"]
        );
        assert_eq!(texts(words("東京都")), ["東", "東京", "京", "京都", "都"]);
        assert_eq!(texts(query_words("東京都", 8)), ["東京", "京都"]);
        assert_eq!(texts(query_words("東", 8)), ["東"]);
        assert_eq!(texts(query_words("東京", 8)), ["東京"]);
        assert_eq!(texts(words("القاهرة")), ["القاهرة"]);
        assert!(words("!!! ... ---").is_empty());
        assert_eq!(words(&"a".repeat(500))[0].text.len(), MAX_WORD_BYTES);
    }

    const SOURCES: [Source; 3] = [Source::Label, Source::EntityName, Source::SchemaName];

    /// What [`label_words`] gives, by the separate calls.
    fn expected(l: &str, source: Source) -> (Vec<String>, usize) {
        let mut want = texts(match source {
            Source::Label => words(l),
            Source::EntityName => split_name(l),
            Source::SchemaName => name_words(l),
        });
        want.sort_unstable();
        want.dedup();
        (want, word_count(l, source != Source::Label))
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
            for source in SOURCES {
                assert_eq!(
                    label_words(l, source),
                    expected(l, source),
                    "{l:?} {source:?}"
                );
            }
        }
    }

    /// Each word's places in `l`, by word: a plain label's words all different tell theirs.
    fn places(l: &str, source: Source) -> Vec<(String, u8)> {
        let mut flat = Flat::default();
        label_words_into(l, source, &mut flat, &mut Scratch::default());
        (0..flat.len())
            .map(|i| (flat.word(i).to_owned(), flat.places(i)))
            .collect()
    }

    #[test]
    fn a_labels_words_tell_their_places_when_a_query_can_seat_them() {
        let of = |l| places(l, Source::Label);
        assert_eq!(
            of("Ada Franklin"),
            [("ada".into(), 1), ("franklin".into(), 2)]
        );
        assert_eq!(of("Zoë, Ada Lovelace")[0], ("ada".into(), 2));
        // The eighth word and after share the last place.
        let long = of("a b c d e f g h i");
        assert_eq!(long.iter().map(|w| w.1).collect::<Vec<_>>(), {
            let mut v: Vec<u8> = (0..7).map(|k| 1 << k).collect();
            v.extend([128, 128]);
            v
        });
        // A repeated word, a CJK run, a local name: any place.
        for (l, source) in [
            ("New York, New York", Source::Label),
            ("x 東京 y", Source::Label),
            ("BasketballPlayer", Source::SchemaName),
            ("UndergraduateStudent12", Source::EntityName),
        ] {
            assert!(places(l, source).iter().all(|w| w.1 == u8::MAX), "{l}");
        }
    }

    proptest::proptest! {
        /// As above, on any text: long words, marks, mixed scripts.
        #[test]
        fn label_words_agrees_on_any_text(l in "\\PC{0,80}", k in 0..3usize) {
            proptest::prop_assert_eq!(label_words(&l, SOURCES[k]), expected(&l, SOURCES[k]));
        }
    }

    proptest::proptest! {
        /// A run said not to split does not.
        #[test]
        fn may_split_as_name_misses_no_split(run in "[A-Za-z0-9]{1,12}") {
            if !may_split_as_name(&run) {
                proptest::prop_assert_eq!(split(&run, true).len(), 1);
            }
        }
    }

    #[test]
    fn a_query_run_split_as_a_local_name() {
        let parts = |q: &str, w: &str| name_parts(q, w).map(texts);
        assert_eq!(
            parts("dept AssistantProfessor8", "assistantprofessor8").unwrap(),
            ["assistant", "professor", "8"]
        );
        assert_eq!(parts("Q42", "q42").unwrap(), ["q", "42"]);
        assert_eq!(
            parts("Ünïcode-DatenTyp", "datentyp").unwrap(),
            ["daten", "typ"]
        );
        // Nothing to split, or CJK.
        assert_eq!(parts("basketballplayer", "basketballplayer"), None);
        assert_eq!(parts("東京Tower", "tower"), None);
        assert_eq!(parts("AlbertEinstein", "albert"), None);
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
