//! Choosing a community's label in the reader's languages. The file stores, per community, the
//! label the builder chose (English or untagged, then any) and alternatives by language tag; the
//! reader picks one at display time with [`pick`].

/// Whether the language range `range` matches the tag `tag` by basic filtering (RFC 4647 §3.3.1):
/// equal, or `tag` starts with `range` followed by `-` (`de` matches `de-CH`). Case-insensitive;
/// `*` matches everything.
pub fn matches(range: &str, tag: &str) -> bool {
    let (range, tag) = (range.trim(), tag.trim());
    if range == "*" {
        return true;
    }
    tag.len() >= range.len()
        && tag.as_bytes()[..range.len()].eq_ignore_ascii_case(range.as_bytes())
        && (tag.len() == range.len() || tag.as_bytes()[range.len()] == b'-')
}

/// The label to show for the reader's languages `prefs` (BCP 47 tags, most preferred first):
/// for each preference in order, the first alternative its range matches by basic filtering,
/// then the same with the range shortened subtag by subtag ([`lookup_ranges`]), so `de-CH`
/// finds a `de` label; when no preference finds one, `default` — the builder's choice, English
/// or untagged, then any.
pub fn pick<'a>(default: &'a str, alternatives: &'a [(String, String)], prefs: &[&str]) -> &'a str {
    for range in prefs.iter().flat_map(|p| lookup_ranges(p)) {
        if let Some((_, label)) = alternatives.iter().find(|(tag, _)| matches(range, tag)) {
            return label;
        }
    }
    default
}

/// The ranges RFC 4647 lookup tries for one preference, in order: the tag, then shortened
/// subtag by subtag (`de-CH-1996` → `de-CH` → `de`), a single-letter subtag (an extension or
/// private-use marker) dropped with what follows it; nothing for an empty tag or `*`.
pub fn lookup_ranges(pref: &str) -> impl Iterator<Item = &str> {
    let first = Some(pref.trim()).filter(|r| !r.is_empty() && *r != "*");
    std::iter::successors(first, |range| {
        let mut range = &range[..range.rfind('-')?];
        if let Some(cut) = range.rfind('-').filter(|&i| range.len() - i == 2) {
            range = &range[..cut];
        }
        Some(range)
    })
}

/// The BCP 47 tag of a POSIX locale value (`LANG`, `LC_ALL`, `LC_MESSAGES`): `fr_CH.UTF-8` →
/// `fr-CH`, `de_DE@euro` → `de-DE`; `None` for `C`, `POSIX` or an empty value.
pub fn posix_locale_tag(value: &str) -> Option<String> {
    let base = value.split(['.', '@']).next().unwrap_or_default().trim();
    if base.is_empty() || base.eq_ignore_ascii_case("c") || base.eq_ignore_ascii_case("posix") {
        return None;
    }
    let tag = base.replace('_', "-");
    tag.split('-')
        .all(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()))
        .then_some(tag)
}

/// The user's languages from the process environment: `LANGUAGE` (a `:`-separated list, as GNU
/// gettext reads it), then `LC_ALL`, `LC_MESSAGES`, `LANG`; empty when none names a language.
pub fn env_languages() -> Vec<String> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let mut out: Vec<String> = Vec::new();
    let primary = var("LC_ALL")
        .or_else(|| var("LC_MESSAGES"))
        .or_else(|| var("LANG"));
    // gettext ignores LANGUAGE when the locale is C.
    if primary.as_deref().and_then(posix_locale_tag).is_some() {
        if let Some(list) = var("LANGUAGE") {
            out.extend(list.split(':').filter_map(posix_locale_tag));
        }
    }
    out.extend(primary.as_deref().and_then(posix_locale_tag));
    let mut seen = std::collections::HashSet::new();
    out.retain(|t| seen.insert(t.to_ascii_lowercase()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(t, l)| ((*t).to_owned(), (*l).to_owned()))
            .collect()
    }

    #[test]
    fn basic_filtering() {
        assert!(matches("de", "de"));
        assert!(matches("de", "de-CH"));
        assert!(matches("DE", "de-ch"));
        assert!(!matches("de", "den"));
        assert!(!matches("de-CH", "de"));
        assert!(matches("*", "ja"));
    }

    #[test]
    fn picks_in_preference_order_then_the_default() {
        let a = alts(&[("de", "Köln"), ("fr", "Cologne (fr)"), ("zh-hant", "科隆")]);
        assert_eq!(pick("Cologne", &a, &["fr"]), "Cologne (fr)");
        assert_eq!(pick("Cologne", &a, &["de-CH"]), "Köln");
        assert_eq!(pick("Cologne", &a, &["es", "de"]), "Köln");
        assert_eq!(pick("Cologne", &a, &["es"]), "Cologne");
        assert_eq!(pick("Cologne", &a, &[]), "Cologne");
        assert_eq!(pick("Cologne", &a, &["zh"]), "科隆");
        assert_eq!(pick("Cologne", &a, &["zh-Hant-TW"]), "科隆");
        assert_eq!(pick("Cologne", &a, &["de-x-foo"]), "Köln");
        assert_eq!(pick("Cologne", &a, &["*", " "]), "Cologne");
    }

    #[test]
    fn posix_locales() {
        assert_eq!(posix_locale_tag("fr_CH.UTF-8").as_deref(), Some("fr-CH"));
        assert_eq!(posix_locale_tag("de_DE@euro").as_deref(), Some("de-DE"));
        assert_eq!(posix_locale_tag("ja").as_deref(), Some("ja"));
        assert_eq!(posix_locale_tag("C.UTF-8"), None);
        assert_eq!(posix_locale_tag("POSIX"), None);
        assert_eq!(posix_locale_tag(""), None);
    }
}
