//! SPARQL syntax errors as sentences. spargebra (through the peg runtime) reports the furthest
//! position it reached and the set of tokens it tried there, as character classes and grammar
//! literals; this module turns that into what a person reads: the position, the offending text,
//! and what was expected in words. An unknown prefix names the `PREFIX` line to add; an unclosed
//! group names where it was opened.

use crate::SparqlError;
use rete_core::vocab::Prefixes;
use spargebra::SparqlParser;

/// A syntax error in words, at a 1-based line and column (0 when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line (0 if unknown).
    pub line: u64,
    /// 1-based column in characters (0 if unknown).
    pub column: u64,
    /// The sentence, without the position.
    pub message: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl From<SyntaxError> for SparqlError {
    fn from(e: SyntaxError) -> Self {
        SparqlError::Syntax {
            line: e.line,
            column: e.column,
            message: e.message,
        }
    }
}

/// Explains spargebra's error `raw` (its `Display` text) about `query`, which could use
/// `prefixes` without declaring them.
///
/// The parser's own position is the furthest it read, and keywords are read as many characters
/// at a time as they have, so that position often lies past the mistake. The mistake is found
/// instead as the first token after which the query can no longer be completed (each shorter
/// query re-parsed), and what was expected there is asked of the parser the same way.
pub fn explain(query: &str, raw: &str, prefixes: &Prefixes) -> SyntaxError {
    if parse_raw(raw).is_none() {
        return SyntaxError {
            line: 0,
            column: 0,
            message: raw.to_owned(),
        };
    }
    let at = |offset: usize| {
        let (l, c) = line_col(query, offset);
        (l as u64, c as u64)
    };
    let error = |offset: usize, message: String| {
        let (line, column) = at(offset);
        SyntaxError {
            line,
            column,
            message,
        }
    };

    if let Some((start, prefix)) = undeclared_prefix(query, &|p| prefixes.get(p).is_some()) {
        let advice = match rete_core::vocab::well_known(prefix) {
            Some(ns) => format!("add PREFIX {prefix}: <{ns}>"),
            None => format!("declare it with PREFIX {prefix}: <namespace IRI>"),
        };
        return error(start, format!("unknown prefix \"{prefix}:\" — {advice}"));
    }

    let probe = Probe::new(prefixes);
    let tokens = lex(query);
    let mut last_end = 0;
    for (i, &(start, end)) in tokens.iter().enumerate() {
        let text = &query[..end];
        if let Some(reason) = probe.reason(text) {
            return error(start, reason);
        }
        if !probe.viable(text) {
            let found = &query[start..end];
            let found = match found.char_indices().nth(30) {
                Some((i, _)) => &found[..i],
                None => found,
            };
            // A misspelt keyword may pass for a name until the next token.
            for &(start, end) in &tokens[i.saturating_sub(1)..=i] {
                let word = &query[start..end];
                if let Some(kw) = close_keyword(word) {
                    return error(start, format!("unexpected \"{word}\" — did you mean {kw}?"));
                }
            }
            let words = in_words(&probe.expected_after(&format!("{} ", &query[..last_end])));
            return error(
                start,
                if words.is_empty() {
                    format!("unexpected \"{found}\"")
                } else {
                    format!("unexpected \"{found}\" — expected {words}")
                },
            );
        }
        last_end = end;
    }

    // Every token fits: the query stops short.
    let end_offset = query.trim_end().len();
    if let Some(open) = unterminated_string(query) {
        let (l, c) = at(open);
        return error(
            end_offset,
            format!("the query ends inside the string opened at {l}:{c}"),
        );
    }
    if let Some((open, close)) = unclosed(query) {
        let (l, c) = at(open);
        let what = match close {
            '}' => "group",
            ')' => "parenthesis",
            _ => "bracket",
        };
        return error(
            end_offset,
            format!("the query ends before the {what} opened at {l}:{c} is closed — expected \"{close}\""),
        );
    }
    let words = in_words(&probe.expected_after(&format!("{} ", query.trim_end())));
    error(
        end_offset,
        if words.is_empty() {
            "the query ends too early".to_owned()
        } else {
            format!("the query ends too early — expected {words}")
        },
    )
}

/// Re-parses beginnings of a query with the same prefixes.
struct Probe {
    parser: SparqlParser,
}

impl Probe {
    fn new(prefixes: &Prefixes) -> Self {
        let mut parser = SparqlParser::new();
        for p in prefixes {
            if let Ok(with) = parser
                .clone()
                .with_prefix(p.prefix.as_str(), p.namespace.as_str())
            {
                parser = with;
            }
        }
        Self { parser }
    }

    /// The furthest failure of `text`: its offset and what was tried there (`None` if it parses).
    fn failure(&self, text: &str) -> Option<(usize, Vec<String>)> {
        let raw = self.parser.clone().parse_query(text).err()?.to_string();
        let (line, column, expected) = parse_raw(&raw)?;
        Some((offset_of(text, line, column), expected_tokens(expected)))
    }

    /// Whether `text` can still be completed into a query: it parses, or the parser read all
    /// of it and tried a token at its end. Keywords are read as many characters at a time as
    /// they have: at the end they show as "any character" (`[_]`), or by name when one tried
    /// earlier just fits, which only counts against `text` if its last word is no keyword.
    fn viable(&self, text: &str) -> bool {
        let Some((at, tokens)) = self.failure(text) else {
            return true;
        };
        if !text[at.min(text.len())..].trim().is_empty() {
            return false;
        }
        if tokens
            .iter()
            .any(|t| t.starts_with('"') || (t.starts_with('[') && t != "[_]"))
        {
            return true;
        }
        let last = text
            .trim_end()
            .rsplit(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        !tokens.iter().any(|t| is_keyword(t)) || KEYWORDS.contains(&last.as_str())
    }

    /// The reason a grammar rule gives for refusing the end of `text`, if one does.
    fn reason(&self, text: &str) -> Option<String> {
        let (_, tokens) = self.failure(text)?;
        tokens.into_iter().find(|t| is_sentence(t))
    }

    /// What could follow `text`: the tokens tried at its end, and the keywords that fit there.
    fn expected_after(&self, text: &str) -> Vec<String> {
        let mut out: Vec<String> = match self.failure(text) {
            Some((at, tokens)) if text[at.min(text.len())..].trim().is_empty() => tokens
                .into_iter()
                .filter(|t| t.starts_with('"') || (t.starts_with('[') && t != "[_]"))
                .collect(),
            _ => Vec::new(),
        };
        out.extend(
            KEYWORDS
                .iter()
                .filter(|k| self.viable(&format!("{text} {k}")))
                .map(|k| format!("\"{k}\"")),
        );
        out
    }
}

fn is_keyword(t: &str) -> bool {
    !t.is_empty() && t.chars().all(|c| c.is_ascii_uppercase() || c == '_')
}

/// The tokens of a query as `(start, end)` offsets: names, variables, numbers, strings, IRIs,
/// operators and single punctuation; comments and white space skipped.
fn lex(query: &str) -> Vec<(usize, usize)> {
    let bytes = query.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let char_at = |i: usize| query[i..].chars().next().unwrap_or(' ');
    let run = |mut i: usize, f: &dyn Fn(char) -> bool| {
        while i < bytes.len() && f(char_at(i)) {
            i += char_at(i).len_utf8();
        }
        i
    };
    while i < bytes.len() {
        let c = char_at(i);
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        let skip = skip_opaque(bytes, i);
        if skip > i {
            if c != '#' {
                out.push((i, skip));
            }
            i = skip;
            continue;
        }
        let start = i;
        let next = bytes.get(i + 1).copied().unwrap_or(b' ');
        let end = if c == '?' || c == '$' {
            run(i + 1, &|c| c.is_alphanumeric() || c == '_')
        } else if c == '_' && next == b':' || c.is_alphabetic() || c == ':' {
            let e = run(i, &is_name_char);
            start + query[start..e].trim_end_matches('.').len()
        } else if c.is_ascii_digit() || (c == '.' && next.is_ascii_digit()) {
            run(i, &|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E'))
        } else if c == '@' {
            run(i + 1, &|c| c.is_alphanumeric() || c == '-')
        } else if "&|!=<>^".contains(c) {
            run(i, &|c| "&|!=<>^".contains(c))
        } else {
            i + c.len_utf8()
        };
        out.push((start, end.max(start + c.len_utf8())));
        i = end.max(start + c.len_utf8());
    }
    out
}

/// SPARQL keywords a misspelt word is compared with.
const KEYWORDS: &[&str] = &[
    "ASK",
    "ASC",
    "BASE",
    "BIND",
    "BY",
    "CONSTRUCT",
    "COUNT",
    "DESC",
    "DESCRIBE",
    "DISTINCT",
    "EXISTS",
    "FILTER",
    "FROM",
    "GRAPH",
    "GROUP",
    "HAVING",
    "LIMIT",
    "MINUS",
    "NAMED",
    "OFFSET",
    "OPTIONAL",
    "ORDER",
    "PREFIX",
    "REDUCED",
    "SELECT",
    "SERVICE",
    "UNION",
    "VALUES",
    "WHERE",
];

/// The keyword `word` is probably a misspelling of (at most two edits, not the word itself).
fn close_keyword(word: &str) -> Option<&'static str> {
    if word.len() < 3 || !word.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let w = word.to_ascii_uppercase();
    if KEYWORDS.contains(&w.as_str()) {
        return None;
    }
    KEYWORDS
        .iter()
        .map(|k| (edit_distance(&w, k), *k))
        .filter(|(d, k)| *d <= 2 && *d < k.len() / 2 + 1)
        .min()
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The first prefixed name whose prefix neither the query declares nor `known` accepts: its
/// offset and the prefix. Strings, IRIs, comments, variables and blank nodes are skipped.
fn undeclared_prefix<'q>(query: &'q str, known: &dyn Fn(&str) -> bool) -> Option<(usize, &'q str)> {
    let mut declared: Vec<&str> = Vec::new();
    let mut first: Option<(usize, &str)> = None;
    let mut previous_word = "";
    for (start, word) in words(query) {
        if let Some((prefix, _)) = word.split_once(':') {
            let is_prefix =
                prefix.is_empty() || prefix.chars().next().is_some_and(char::is_alphabetic);
            if previous_word.eq_ignore_ascii_case("PREFIX") {
                declared.push(prefix);
            } else if is_prefix && first.is_none() && !word.starts_with("_:") && !known(prefix) {
                first = Some((start, prefix));
            }
        }
        previous_word = word;
    }
    first.filter(|(_, p)| !declared.contains(p))
}

/// The words of a query (names, prefixed names, keywords) with their offsets, outside strings,
/// IRIs and comments; variables and blank node labels are skipped.
fn words(query: &str) -> Vec<(usize, &str)> {
    let bytes = query.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if let Some(end) = opaque_end(bytes, i) {
            i = end;
            continue;
        }
        let c = query[i..].chars().next().unwrap_or(' ');
        if c == '?' || c == '$' || (c == '_' && bytes.get(i + 1) == Some(&b':')) {
            // A variable or a blank node: skip its name.
            i += 1;
            while i < bytes.len() && query[i..].chars().next().is_some_and(is_name_char) {
                i += query[i..].chars().next().map_or(1, char::len_utf8);
            }
            continue;
        }
        if c.is_alphabetic() || c == ':' {
            let start = i;
            while i < bytes.len() && query[i..].chars().next().is_some_and(is_name_char) {
                i += query[i..].chars().next().map_or(1, char::len_utf8);
            }
            out.push((start, query[start..i].trim_end_matches('.')));
            continue;
        }
        i += c.len_utf8();
    }
    out
}

/// Past the string, IRI or comment starting at `i`, if one does.
fn opaque_end(bytes: &[u8], i: usize) -> Option<usize> {
    let end = skip_opaque(bytes, i);
    (end > i).then_some(end)
}

/// Past the string, IRI or comment starting at `i` (or `i` itself if none does).
fn skip_opaque(bytes: &[u8], mut i: usize) -> usize {
    let start = i;
    match bytes[i] {
        b'#' => {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            i
        }
        q @ (b'"' | b'\'') => {
            let long = bytes[i..].starts_with(&[q, q, q]);
            i += if long { 3 } else { 1 };
            while i < bytes.len() {
                if bytes[i] == b'\\' {
                    i += 2;
                    continue;
                }
                if long && bytes[i..].starts_with(&[q, q, q]) {
                    return i + 3;
                }
                if !long && (bytes[i] == q || bytes[i] == b'\n') {
                    return i + 1;
                }
                i += 1;
            }
            i.min(bytes.len())
        }
        // An IRI if it closes before any space; otherwise the operator.
        b'<' => match bytes[i + 1..]
            .iter()
            .position(|&b| b == b'>' || b.is_ascii_whitespace() || b == b'<')
        {
            Some(len) if bytes[i + 1 + len] == b'>' => i + len + 2,
            _ => start,
        },
        _ => start,
    }
}

/// `error at LINE:COLUMN: expected SET` → its parts.
fn parse_raw(raw: &str) -> Option<(usize, usize, &str)> {
    let rest = raw.strip_prefix("error at ")?;
    let (pos, rest) = rest.split_once(": ")?;
    let (line, column) = pos.split_once(':')?;
    let expected = rest.strip_prefix("expected ")?;
    Some((line.parse().ok()?, column.parse().ok()?, expected))
}

/// The peg runtime's expected set (`one of A, B, …` or a single token) as tokens: grammar
/// literals keep their quotes (`"{"`), character classes their brackets (`['0' ..= '9']`);
/// anything else is a keyword (`SELECT`) or a sentence from a rule.
fn expected_tokens(set: &str) -> Vec<String> {
    let set = set.strip_prefix("one of ").unwrap_or(set);
    let chars: Vec<char> = set.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        match chars[i] {
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
            }
            '[' => {
                let mut quoted = false;
                i += 1;
                while i < chars.len() && (quoted || chars[i] != ']') {
                    match chars[i] {
                        '\\' => i += 1,
                        '\'' => quoted = !quoted,
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
            }
            _ => {
                while i < chars.len() && !(chars[i] == ',' && chars.get(i + 1) == Some(&' ')) {
                    i += 1;
                }
            }
        }
        let end = i.min(chars.len());
        out.push(chars[start..end].iter().collect::<String>());
        // Skip the ", " separator.
        while i < chars.len() && (chars[i] == ',' || chars[i] == ' ') {
            i += 1;
        }
    }
    out
}

/// A reason given by a grammar rule (`BIND is overriding an existing variable`), as opposed to a
/// keyword (`SELECT`), a literal or a character class.
fn is_sentence(t: &str) -> bool {
    !t.starts_with(['"', '['])
        && t.contains(' ')
        && t.chars().any(|c| c.is_lowercase())
        && t != "Prefix not found"
}

/// What the tokens stand for, in words, most useful first.
fn in_words(tokens: &[String]) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    let mut symbols: Vec<String> = Vec::new();
    let mut keywords: Vec<String> = Vec::new();
    let push = |v: &mut Vec<&str>, k: &'static str| {
        if !v.contains(&k) {
            v.push(k);
        }
    };
    for t in tokens {
        if t.starts_with('[') {
            if t.contains("'?'") || t.contains("'$'") {
                push(&mut kinds, "a variable");
            } else if t.contains("'<'") {
                push(&mut kinds, "an IRI");
            } else if t.contains("'\"'") || t.contains("'\\''") {
                push(&mut kinds, "a string");
            } else if t.contains("'A' ..= 'Z'") || t.contains("'a' ..= 'z'") {
                push(&mut kinds, "a name");
            } else if t.contains("'0' ..= '9'") {
                push(&mut kinds, "a number");
            }
            // Other classes (white space, escapes, parts of names) say nothing useful.
        } else if let Some(lit) = t.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            match lit {
                "_:" | "[]" => push(&mut kinds, "a blank node"),
                ":" => push(&mut kinds, "a prefixed name"),
                "?" | "$" => push(&mut kinds, "a variable"),
                "<" => push(&mut kinds, "an IRI"),
                "'" | "'''" | r#"\""# | r#"\"\"\""# => push(&mut kinds, "a string"),
                "+" | "-" => push(&mut kinds, "a number"),
                "" => {}
                _ if lit.chars().all(|c| c.is_ascii_uppercase() || c == '_') => {
                    keywords.push(lit.to_owned())
                }
                // Lower-case words of the grammar (`a`, `true`) are not worth listing.
                _ if lit.chars().all(|c| c.is_ascii_alphabetic()) => {}
                _ => symbols.push(format!("\"{lit}\"")),
            }
        } else if t
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == '_' || c == ' ')
        {
            keywords.push(t.clone());
        }
    }
    keywords.sort();
    keywords.dedup();
    symbols.sort();
    symbols.dedup();
    let mut all: Vec<String> = kinds.iter().map(|k| (*k).to_owned()).collect();
    all.extend(symbols);
    all.extend(keywords);
    const SHOWN: usize = 10;
    let more = all.len() > SHOWN;
    all.truncate(SHOWN);
    match all.len() {
        0 => String::new(),
        1 => all.remove(0),
        _ if more => format!("{}, …", all.join(", ")),
        _ => {
            let last = all.pop().unwrap_or_default();
            format!("{} or {last}", all.join(", "))
        }
    }
}

/// Byte offset of a 1-based line and column (in characters), clamped to the text.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut off = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return off
                + l.char_indices()
                    .nth(column.saturating_sub(1))
                    .map_or(l.len(), |(b, _)| b);
        }
        off += l.len();
    }
    text.len()
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.chars().rev().take_while(|&c| c != '\n').count() + 1;
    (line, column)
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '%' | '\\')
}

/// The offset of a string literal that runs to the end of its line or of the query.
fn unterminated_string(query: &str) -> Option<usize> {
    let bytes = query.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let next = skip_opaque(bytes, i);
        if next > i {
            let q = bytes[i];
            if matches!(q, b'"' | b'\'') {
                let body = &bytes[i..next];
                let long = body.starts_with(&[q, q, q]);
                let closed = if long {
                    body.len() >= 6 && body.ends_with(&[q, q, q])
                } else {
                    body.len() >= 2 && body.ends_with(&[q])
                };
                if !closed {
                    return Some(i);
                }
            }
            i = next;
        } else {
            i += 1;
        }
    }
    None
}

/// The innermost bracket (`{`, `(` or `[`) left open at the end of the query: its offset and
/// the character that closes it. Strings, IRIs and comments are skipped.
fn unclosed(query: &str) -> Option<(usize, char)> {
    let mut stack: Vec<(usize, char)> = Vec::new();
    let bytes = query.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if let Some(end) = opaque_end(bytes, i) {
            i = end;
            continue;
        }
        match bytes[i] {
            b'{' => stack.push((i, '}')),
            b'(' => stack.push((i, ')')),
            b'[' => stack.push((i, ']')),
            c @ (b'}' | b')' | b']')
                if stack.last().is_some_and(|(_, close)| *close as u8 == c) =>
            {
                stack.pop();
            }
            _ => {}
        }
        i += 1;
    }
    stack.pop()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(q: &str) -> SyntaxError {
        match SparqlParser::new().parse_query(q) {
            Ok(_) => panic!("{q} parses"),
            Err(e) => explain(q, &e.to_string(), &Prefixes::new()),
        }
    }

    /// Asserts that `q` fails with the error `expected` (position and message).
    fn says(q: &str, expected: &str) {
        assert_eq!(error_of(q).to_string(), expected);
    }

    #[test]
    fn unknown_prefix_names_the_prefix_line() {
        says(
            "SELECT (COUNT(*) AS ?n) WHERE { ?s foaf:knows ?o }",
            "1:36: unknown prefix \"foaf:\" — add PREFIX foaf: <http://xmlns.com/foaf/0.1/>",
        );
        says(
            "SELECT * WHERE {\n  ?s ex:p ?o }",
            "2:6: unknown prefix \"ex:\" — declare it with PREFIX ex: <namespace IRI>",
        );
    }

    #[test]
    fn unclosed_group_names_where_it_opened() {
        let e = error_of("SELECT * WHERE { ?s ?p ?o . OPTIONAL { ?s ?q ?x }");
        assert_eq!(e.line, 1);
        assert!(
            e.message
                .starts_with("the query ends before the group opened at 1:16 is closed"),
            "{e}"
        );
        assert!(e.message.ends_with("expected \"}\""), "{e}");
    }

    #[test]
    fn unknown_prefix_is_found_even_when_the_parser_went_further() {
        let e = error_of("SELECT * WHERE { ?s ex:p ?o ");
        assert_eq!((e.line, e.column), (1, 21), "{e}");
        assert!(e.message.starts_with("unknown prefix \"ex:\""), "{e}");
        // Declared in the query, or known to the caller: not unknown.
        let q = "PREFIX ex: <http://ex.org/> SELECT * WHERE { ?s ex:p ?o ";
        let e = error_of(q);
        assert!(e.message.contains("group opened at 1:44"), "{e}");
        let mut known = Prefixes::new();
        known.declare(
            "foaf",
            "http://xmlns.com/foaf/0.1/",
            rete_core::vocab::PrefixOrigin::File,
        );
        let q = "SELECT * WHERE { ?s foaf:knows ?o ";
        let raw = SparqlParser::new()
            .with_prefix("foaf", "http://xmlns.com/foaf/0.1/")
            .unwrap()
            .parse_query(q)
            .unwrap_err()
            .to_string();
        assert!(explain(q, &raw, &known)
            .message
            .contains("group opened at 1:16"));
    }

    #[test]
    fn other_errors_say_what_was_found_and_expected_in_words() {
        let e = error_of("SELECT ?s WHERE { ?s ?p ?o } LIMT 5");
        assert_eq!((e.line, e.column), (1, 30), "{e}");
        assert_eq!(e.message, "unexpected \"LIMT\" — did you mean LIMIT?");
        let e = error_of("SELECT ?s WHERE { ?s ?p }");
        assert_eq!((e.line, e.column), (1, 25), "{e}");
        assert!(e.message.starts_with("unexpected \"}\" — expected "), "{e}");
        assert!(e.message.contains("a variable"), "{e}");
        assert!(!e.message.contains("'0'"), "no character classes: {e}");
        let e = error_of("SELECT ?s WHERE { ?s ?p ?o } ORDER");
        assert!(e.message.starts_with("the query ends too early"), "{e}");
    }

    #[test]
    fn misspelt_keywords_and_open_strings() {
        says(
            "SELEC * WHERE { ?s ?p ?o }",
            "1:1: unexpected \"SELEC\" — did you mean SELECT?",
        );
        says(
            "SELECT ?s WHERE { ?s ?p \"abc }",
            "1:31: the query ends inside the string opened at 1:25",
        );
        says(
            "SELECT (COUNT(*) AS ?n WHERE { ?s ?p ?o }",
            "1:24: unexpected \"WHERE\" — expected \")\"",
        );
    }

    #[test]
    fn rule_reasons_are_kept() {
        let e = error_of("SELECT * WHERE { ?s ?p ?o BIND(1 AS ?o) }");
        assert!(e.message.contains("BIND is overriding"), "{e}");
    }

    #[test]
    fn raw_text_without_a_position_passes_through() {
        let e = explain(
            "x",
            "The blank node _:b cannot be shared by multiple blocks",
            &Prefixes::new(),
        );
        assert_eq!((e.line, e.column), (0, 0));
        assert!(e.message.contains("blank node"));
    }
}
