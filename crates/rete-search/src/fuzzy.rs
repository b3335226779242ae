//! Typo tolerance: the edit distance (Levenshtein: insert, delete, substitute) between a query
//! word and a token or a prefix of it, cut off at the allowed number of typos. A hand-written
//! dynamic programme of twenty lines: `strsim` has the whole-string distance but not the prefix
//! one a typeahead needs, and neither has the early cut-off.

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
    // row[i] = distance between word[..i] and token[..j] for the current j. A query word is at
    // most 64 bytes, so its row fits on the stack (a longer one, from a library caller, does
    // not).
    let mut stack = [0u32; 66];
    let mut heap: Vec<u32>;
    let row: &mut [u32] = match stack.get_mut(..=word.len()) {
        Some(r) => r,
        None => {
            heap = vec![0; word.len() + 1];
            &mut heap
        }
    };
    for (i, r) in row.iter_mut().enumerate() {
        *r = i as u32;
    }
    let n = word.len();
    let mut best = row[n];
    for (j, tc) in token.chars().enumerate() {
        let mut diag = row[0];
        row[0] = j as u32 + 1;
        let mut min = row[0];
        for i in 1..=n {
            let up = row[i];
            let cost = u32::from(word[i - 1] != tc);
            row[i] = (diag + cost).min(up + 1).min(row[i - 1] + 1);
            diag = up;
            min = min.min(row[i]);
        }
        best = best.min(row[n]);
        if min > max {
            // Every later cell is at least this: no prefix or whole match can come back.
            break;
        }
    }
    let d = if prefix { best } else { row[n] };
    (d <= max).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(w: &str, t: &str, max: u32, prefix: bool) -> Option<u32> {
        distance(&w.chars().collect::<Vec<_>>(), t, max, prefix)
    }

    #[test]
    fn distances() {
        assert_eq!(allowed(4), 0);
        assert_eq!(allowed(5), 1);
        assert_eq!(allowed(9), 2);
        assert_eq!(d("einstien", "einstein", 1, false), None);
        assert_eq!(d("einstien", "einstein", 2, false), Some(2));
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
