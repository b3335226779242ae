//! Typo tolerance: the edit distance between a query word and a token or a prefix of it, cut off
//! at the allowed number of typos. A typo is a letter inserted, deleted or replaced, or two
//! neighbouring letters swapped (`langauge`, `teh`), as Meilisearch and Algolia count them: the
//! optimal string alignment distance. A hand-written dynamic programme of thirty lines: `strsim`
//! has the whole-string distance (the tests' oracle) but not the prefix one a typeahead needs,
//! nor the early cut-off. [`PrefixTypos`] runs the same programme over a sorted run of tokens,
//! sharing the columns of their common prefixes.

/// Typos forgiven in a query word of `chars` characters: one from five, two from nine (as
/// Meilisearch and Typesense do).
pub fn allowed(chars: usize) -> u32 {
    match chars {
        0..=4 => 0,
        5..=8 => 1,
        _ => 2,
    }
}

/// The edit distance from `word` to `token` (whole) or, if `prefix`, to the nearest prefix of
/// `token`; `None` when it exceeds `max`.
pub fn distance(word: &[char], token: &str, max: u32, prefix: bool) -> Option<u32> {
    if !prefix && token.chars().count().abs_diff(word.len()) > max as usize {
        return None;
    }
    // Three columns of the table (after j − 2, j − 1 and j characters of `token`; a swap looks
    // two back), cell i the distance from word[..i]. A query word is at most 64 bytes, so they
    // fit on the stack (a longer one, from a library caller, does not).
    let n = word.len();
    let w = n + 1;
    let mut stack = [0u32; 3 * 66];
    let mut heap: Vec<u32>;
    let cols: &mut [u32] = match stack.get_mut(..3 * w) {
        Some(c) => c,
        None => {
            heap = vec![0; 3 * w];
            &mut heap
        }
    };
    let (mut before, mut last, mut now) = (0, w, 2 * w);
    for i in 0..w {
        cols[last + i] = i as u32;
    }
    let mut best = n as u32;
    let mut previous = None;
    for (j, tc) in token.chars().enumerate() {
        cols[now] = j as u32 + 1;
        let mut min = cols[now];
        for i in 1..=n {
            let cost = u32::from(word[i - 1] != tc);
            let mut cell = (cols[last + i - 1] + cost)
                .min(cols[last + i] + 1)
                .min(cols[now + i - 1] + 1);
            if i > 1 && previous == Some(word[i - 1]) && word[i - 2] == tc {
                cell = cell.min(cols[before + i - 2] + 1);
            }
            cols[now + i] = cell;
            min = min.min(cell);
        }
        best = best.min(cols[now + n]);
        previous = Some(tc);
        (before, last, now) = (last, now, before);
        if min > max {
            // Every later cell is at least this: no prefix or whole match can come back (a swap
            // reaches two columns back, whose cells are at least this one's minus one).
            break;
        }
    }
    let d = if prefix { best } else { cols[last + n] };
    (d <= max).then_some(d)
}

/// The prefix distance ([`distance`] with `prefix`) of one query word to many tokens given in
/// sorted order, as a walk down the trie they spell: the table's columns for the previous tokens
/// are kept, so a token sharing its first `p` characters with them starts at column `p`; and a
/// prefix past the typos in every cell rules out every token starting with it, which
/// [`PrefixTypos::ruled_out`] gives for the caller to skip them all (sorted, they follow each
/// other). The typo pass asks this of every token of a first letter in up to 16 blocks.
#[derive(Debug)]
pub struct PrefixTypos<'w> {
    word: &'w [char],
    max: u32,
    /// The characters the columns were computed for.
    prev: Vec<char>,
    /// Column `j` (after `j` characters of `prev`) at `cols[j * (word.len() + 1)..]`.
    cols: Vec<u32>,
    /// `best[j]`: the least distance to a prefix of `prev[..j]`.
    best: Vec<u32>,
    /// Whether the last column was past `max` in every cell (no later one can come back).
    cut: bool,
    /// `prev` as text when `cut`.
    cut_text: String,
}

impl<'w> PrefixTypos<'w> {
    pub fn new(word: &'w [char], max: u32) -> Self {
        let m = word.len();
        Self {
            word,
            max,
            prev: Vec::new(),
            cols: (0..=m as u32).collect(),
            best: vec![m as u32],
            cut: false,
            cut_text: String::new(),
        }
    }

    /// `distance(word, token, max, true)`.
    pub fn distance(&mut self, token: &str) -> Option<u32> {
        let m = self.word.len();
        let w = m + 1;
        let mut j = 0;
        for tc in token.chars() {
            if j < self.prev.len() {
                if self.prev[j] == tc {
                    j += 1;
                    continue;
                }
                // The columns past the shared prefix were another token's.
                self.prev.truncate(j);
                self.cols.truncate((j + 1) * w);
                self.best.truncate(j + 1);
                self.cut = false;
            } else if self.cut {
                break;
            }
            let base = j * w;
            self.cols.push(j as u32 + 1);
            let mut min = j as u32 + 1;
            // Only the band |i − (j + 1)| ≤ max is computed (Ukkonen): a cell outside it is
            // more than `max` whatever the letters, and is held as `max + 1`, which keeps every
            // value within `max` exact and every other above it.
            let max = self.max as usize;
            self.cols.resize(base + w + w, self.max + 1);
            let (lo, hi) = ((j + 1).saturating_sub(max).max(1), (j + 1 + max).min(m));
            for i in lo..=hi {
                let cost = u32::from(self.word[i - 1] != tc);
                let mut cell = (self.cols[base + i - 1] + cost)
                    .min(self.cols[base + i] + 1)
                    .min(self.cols[base + w + i - 1] + 1);
                // Two neighbouring letters swapped: one typo, from the column two back.
                if i > 1 && j > 0 && self.prev[j - 1] == self.word[i - 1] && self.word[i - 2] == tc
                {
                    cell = cell.min(self.cols[base - w + i - 2] + 1);
                }
                self.cols[base + w + i] = cell;
                min = min.min(cell);
            }
            self.best.push(self.best[j].min(self.cols[base + w + m]));
            self.prev.push(tc);
            j += 1;
            if min > self.max {
                self.cut = true;
                self.cut_text.clear();
                self.cut_text.extend(&self.prev);
                break;
            }
        }
        // A token the columns cover entirely, or one cut off within them.
        let d = self.best[j];
        (d <= self.max).then_some(d)
    }

    /// After a token found beyond the typos: a prefix of it that every token starting with it
    /// is beyond them too, if the walk found one.
    pub fn ruled_out(&self) -> Option<&str> {
        let beyond = self.best.last().is_some_and(|&b| b > self.max);
        (self.cut && beyond).then_some(self.cut_text.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk gives [`distance`]'s answer for every token of a sorted list, whatever it
    /// shares with the one before.
    #[test]
    fn prefix_typos_is_the_prefix_distance() {
        let mut tokens: Vec<String> = Vec::new();
        let letters = ['a', 'b', 'e', 'i', 'n', 's', 't', 'ü'];
        let mut x: u64 = 49;
        for _ in 0..3000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = 1 + (x >> 60) as usize % 9;
            let t: String = (0..len)
                .map(|k| letters[(x >> (k * 3 + 5)) as usize % letters.len()])
                .collect();
            tokens.push(t);
        }
        tokens.extend(["einstein", "einsr", "ein", "einst", "einsteinium", "e"].map(String::from));
        tokens.sort();
        for word in ["einsr", "einstien", "tin", "büste", "abeinstab", "s"] {
            let chars: Vec<char> = word.chars().collect();
            for max in 0..=2 {
                let mut walk = PrefixTypos::new(&chars, max);
                for (i, t) in tokens.iter().enumerate() {
                    let d = walk.distance(t);
                    assert_eq!(d, distance(&chars, t, max, true), "{word} {t} {max}");
                    if let Some(p) = walk.ruled_out() {
                        assert!(d.is_none() && t.starts_with(p), "{word} {t} {max}");
                        // Every token starting with it (sorted: those that follow) is beyond
                        // the typos.
                        let after = tokens[i..].iter().take_while(|u| u.starts_with(p));
                        for u in after {
                            assert_eq!(distance(&chars, u, max, true), None, "{word} {u}");
                        }
                    }
                }
            }
        }
    }

    /// Both distances against `strsim`'s optimal string alignment, over words and tokens of a
    /// few letters (swaps, repeats and non-ASCII among them), every cut-off: whole, and the
    /// least over the token's prefixes.
    #[test]
    fn distance_is_the_optimal_string_alignment() {
        let letters = ['a', 'b', 'c', 'ü'];
        let strings: Vec<String> = (0..1 + 4 + 16 + 64 + 256 + 1024)
            .map(|mut k: usize| {
                let mut t = String::new();
                while k > 0 {
                    k -= 1;
                    t.push(letters[k % 4]);
                    k /= 4;
                }
                t
            })
            .collect();
        let mut tokens = strings.clone();
        tokens.sort();
        for word in strings.iter().filter(|w| w.chars().count() <= 4) {
            let chars: Vec<char> = word.chars().collect();
            for max in 0..=2 {
                let mut walk = PrefixTypos::new(&chars, max);
                for t in &tokens {
                    let whole = strsim::osa_distance(word, t) as u32;
                    let cut = |x: u32| (x <= max).then_some(x);
                    assert_eq!(distance(&chars, t, max, false), cut(whole), "{word} {t}");
                    let prefixes = t.char_indices().map(|(i, _)| i).chain([t.len()]);
                    let nearest = prefixes
                        .map(|i| strsim::osa_distance(word, &t[..i]) as u32)
                        .min()
                        .unwrap_or(whole);
                    assert_eq!(distance(&chars, t, max, true), cut(nearest), "{word} {t}");
                    assert_eq!(walk.distance(t), cut(nearest), "{word} {t} {max}");
                }
            }
        }
    }

    fn d(w: &str, t: &str, max: u32, prefix: bool) -> Option<u32> {
        distance(&w.chars().collect::<Vec<_>>(), t, max, prefix)
    }

    #[test]
    fn distances() {
        assert_eq!(allowed(4), 0);
        assert_eq!(allowed(5), 1);
        assert_eq!(allowed(9), 2);
        // Two letters swapped are one typo.
        assert_eq!(d("einstien", "einstein", 1, false), Some(1));
        assert_eq!(d("langauge", "language", 1, false), Some(1));
        assert_eq!(d("teh", "the", 1, false), Some(1));
        assert_eq!(d("langau", "language", 1, true), Some(1));
        assert_eq!(d("langau", "language", 0, true), None);
        // A swapped pair is not edited again (the restricted distance: 3, not 2).
        assert_eq!(d("ca", "abc", 2, false), None);
        assert_eq!(d("einstien", "einstein", 0, false), None);
        assert_eq!(d("einsten", "einstein", 1, false), Some(1));
        assert_eq!(d("dusseldrf", "dusseldorf", 2, false), Some(1));
        assert_eq!(d("albrt", "albert", 1, false), Some(1));
        // As a prefix: "einsr" is one typo from "einst…".
        assert_eq!(d("einsr", "einstein", 1, true), Some(1));
        assert_eq!(d("einsr", "einstein", 1, false), None);
        assert_eq!(d("paris", "london", 1, true), None);
        // A word longer than the row kept on the stack.
        let long = "a".repeat(80);
        assert_eq!(d(&long, &"a".repeat(79), 2, false), Some(1));
        assert_eq!(d(&long, &"a".repeat(90), 2, true), Some(0));
        assert_eq!(d(&long, "b", 2, false), None);
    }
}
