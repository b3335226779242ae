//! Words, names and dates for the BSBM generator: a fixed made-up vocabulary (the Java
//! generator reads an English word list we do not ship) and proleptic Gregorian dates.

use crate::Rng;

const ONSETS: [&str; 16] = [
    "b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
];
const VOWELS: [&str; 6] = ["a", "e", "i", "o", "u", "y"];

/// Words in the vocabulary labels, comments, titles and texts draw from.
pub const VOCABULARY: u64 = 5000;

/// Word `i` of the vocabulary (`i < VOCABULARY`): 2–4 syllables, the same on every run and
/// for every seed, so query parameters drawn from it (Q6's regex word) hit the data.
pub fn word(i: u64) -> String {
    let mut rng = Rng::new(0xb5b0_0000 + i);
    let syllables = 2 + rng.below(3);
    let mut w = String::new();
    for _ in 0..syllables {
        w.push_str(ONSETS[rng.below(16) as usize]);
        w.push_str(VOWELS[rng.below(6) as usize]);
    }
    if rng.chance(0.3) {
        w.push_str(ONSETS[rng.below(16) as usize]);
    }
    w
}

/// `min..=max` words drawn uniformly from the vocabulary, separated by spaces.
pub fn words(rng: &mut Rng, min: u64, max: u64) -> String {
    let n = min + rng.below(max - min + 1);
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&word(rng.below(VOCABULARY)));
    }
    s
}

/// A person's name: two capitalised words.
pub fn name(rng: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..2 {
        if i > 0 {
            s.push(' ');
        }
        let w = word(rng.below(VOCABULARY));
        let mut c = w.chars();
        if let Some(f) = c.next() {
            s.extend(f.to_uppercase());
            s.push_str(c.as_str());
        }
    }
    s
}

/// Days since 1970-01-01 of a civil date.
pub fn days(y: i64, m: i64, d: i64) -> i64 {
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The `YYYY-MM-DD` of a day count since 1970-01-01.
pub fn date(days: i64) -> String {
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(days(2008, 6, 20)), "2008-06-20");
        assert_eq!(date(days(2000, 2, 29) + 1), "2000-03-01");
        assert_eq!(days(2008, 6, 20) - days(2007, 6, 20), 366);
    }

    #[test]
    fn vocabulary_is_fixed() {
        assert_eq!(word(0), word(0));
        assert!(word(1).len() >= 4);
        let mut rng = Rng::new(1);
        assert!(name(&mut rng)
            .chars()
            .next()
            .is_some_and(char::is_uppercase));
    }
}
