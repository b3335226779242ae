//! Whether a label reads as a name for people: the names store flags each entity by it and the
//! labeller picks by it, so it stands apart from both.

/// A label on one line: published titles carry line breaks, indentation and tabs
/// (`"…Ontology\n            (ICA RiC-O) version 0.2"`), which a map label cannot show.
pub(crate) fn one_line(text: &str) -> String {
    let plain = !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.contains("  ")
        && !text.contains(|c: char| c.is_whitespace() && c != ' ');
    if plain {
        return text.to_owned();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a label reads as a name for people: not a number, boolean, code, IRI or file name.
pub(crate) fn is_human(label: &str) -> bool {
    let s = label.trim();
    let letters = s.chars().filter(|c| c.is_alphabetic()).count();
    if s.chars().count() < 2 || letters == 0 {
        return false;
    }
    let lower = s.to_lowercase();
    if matches!(lower.as_str(), "true" | "false" | "null" | "none" | "n/a")
        || s.parse::<f64>().is_ok()
    {
        return false;
    }
    if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("urn:") {
        return false;
    }
    if !s.contains(char::is_whitespace) {
        // One word: a file name (`report.pdf`), a code (`Q42`, `AB-12`, `ISO_3166`) or an
        // abbreviation of one or two letters is not a name.
        if let Some((stem, ext)) = s.rsplit_once('.') {
            if !stem.is_empty()
                && (2..=4).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
            {
                return false;
            }
        }
        if s.chars().any(|c| c.is_ascii_digit()) || s.contains('_') {
            return false;
        }
        // (Latin ones: in Chinese or Japanese two characters are a name, `日本`, `東京`.)
        if letters <= 2 && s.is_ascii() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_on_one_line() {
        assert_eq!(
            one_line("Records in Contexts Ontology\n            (ICA RiC-O)\t"),
            "Records in Contexts Ontology (ICA RiC-O)"
        );
        assert_eq!(one_line(" Paris  "), "Paris");
        assert_eq!(one_line("Paris"), "Paris");
    }
}
