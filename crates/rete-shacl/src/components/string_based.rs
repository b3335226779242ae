//! String-based components: `sh:minLength`, `sh:maxLength`, `sh:pattern`, `sh:languageIn`,
//! `sh:uniqueLang`.

use super::Check;
use crate::shapes::Constraint;
use oxrdf::Term;
use std::collections::HashMap;

/// `str(value)`; blank nodes have none.
fn string_of(t: &Term) -> Option<&str> {
    match t {
        Term::NamedNode(n) => Some(n.as_str()),
        Term::Literal(l) => Some(l.value()),
        _ => None,
    }
}

/// SPARQL `langMatches`: `*` matches any tag; otherwise the range equals the tag or is a
/// prefix of it ending at a `-`, case-insensitively.
fn lang_matches(tag: &str, range: &str) -> bool {
    if range == "*" {
        return !tag.is_empty();
    }
    let (tag, range) = (tag.to_ascii_lowercase(), range.to_ascii_lowercase());
    tag == range || (tag.starts_with(&range) && tag.as_bytes().get(range.len()) == Some(&b'-'))
}

pub(super) fn check(Check { v, at, c, sink }: Check<'_, '_>) {
    if let Constraint::UniqueLang = c {
        let mut counts: HashMap<String, usize> = HashMap::new();
        let mut order = Vec::new();
        for value in at.values {
            if let Term::Literal(l) = value {
                if let Some(lang) = l.language() {
                    let lang = lang.to_ascii_lowercase();
                    let n = counts.entry(lang.clone()).or_insert(0);
                    *n += 1;
                    if *n == 2 {
                        order.push(lang);
                    }
                }
            }
        }
        for _ in order {
            v.emit(sink, at, c, None);
        }
        return;
    }
    for value in at.values {
        let ok = match c {
            Constraint::MinLength(min) => {
                string_of(value).is_some_and(|s| s.chars().count() as u64 >= *min)
            }
            Constraint::MaxLength(max) => {
                string_of(value).is_some_and(|s| s.chars().count() as u64 <= *max)
            }
            Constraint::Pattern(re) => string_of(value).is_some_and(|s| re.is_match(s)),
            Constraint::LanguageIn(ranges) => match value {
                Term::Literal(l) => l
                    .language()
                    .is_some_and(|tag| ranges.iter().any(|r| lang_matches(tag, r))),
                _ => false,
            },
            _ => true,
        };
        if !ok {
            v.emit(sink, at, c, Some(value.clone()));
        }
    }
}
