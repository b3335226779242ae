//! The dictionary's byte encoding of RDF terms and its sort order.
//!
//! A term is stored as one tag byte followed by its text:
//!
//! | tag | term | bytes after the tag |
//! |-----|------|---------------------|
//! | 1 | IRI | the IRI |
//! | 2 | blank node | its label |
//! | 3 | simple literal (`xsd:string`) | the lexical form |
//! | 4 | language-tagged literal | language tag, `0x00`, lexical form |
//! | 5 | typed literal | datatype IRI, `0x00`, lexical form |
//!
//! The dictionary is sorted by [`compare`]: a *natural* order in which runs of ASCII digits compare
//! by numeric value (`p9 < p10`). Identifiers minted with counters (`…/person/17`, `Q42`) so get
//! neighbouring ids, which makes the id columns of the permutations delta-encode well.

use crate::error::{Error, Result};
use oxrdf::{BlankNode, GraphName, Literal, NamedNode, Term, TermRef};
use std::cmp::Ordering;

/// Tag of an IRI.
pub(crate) const TAG_IRI: u8 = 1;
/// Tag of a blank node.
pub(crate) const TAG_BNODE: u8 = 2;
/// Tag of a simple literal.
pub(crate) const TAG_SIMPLE: u8 = 3;
/// Tag of a language-tagged literal.
pub(crate) const TAG_LANG: u8 = 4;
/// Tag of a typed literal.
pub(crate) const TAG_TYPED: u8 = 5;

/// The kind of a stored term, in dictionary order: the dictionary sorts encodings by their tag
/// byte first, so each kind is one contiguous id range (see [`crate::Rete::first_of_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TermKind {
    /// An IRI.
    Iri = TAG_IRI as isize,
    /// A blank node.
    BlankNode = TAG_BNODE as isize,
    /// A simple literal (`xsd:string`).
    SimpleLiteral = TAG_SIMPLE as isize,
    /// A language-tagged literal.
    LangLiteral = TAG_LANG as isize,
    /// A literal with a datatype other than `xsd:string`.
    TypedLiteral = TAG_TYPED as isize,
}

impl TermKind {
    /// The kind of an encoded term, from its tag byte; `None` for an empty encoding or an unknown
    /// tag.
    pub fn of_encoded(enc: &[u8]) -> Option<Self> {
        Some(match *enc.first()? {
            TAG_IRI => Self::Iri,
            TAG_BNODE => Self::BlankNode,
            TAG_SIMPLE => Self::SimpleLiteral,
            TAG_LANG => Self::LangLiteral,
            TAG_TYPED => Self::TypedLiteral,
            _ => return None,
        })
    }

    /// Whether this kind is a literal of any sort.
    pub fn is_literal(self) -> bool {
        self >= Self::SimpleLiteral
    }
}

const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";

/// Appends the encoding of `term` to `out`.
pub fn encode_into(term: TermRef<'_>, out: &mut Vec<u8>) -> Result<()> {
    match term {
        TermRef::NamedNode(n) => {
            out.push(TAG_IRI);
            out.extend_from_slice(n.as_str().as_bytes());
        }
        TermRef::BlankNode(b) => {
            out.push(TAG_BNODE);
            out.extend_from_slice(b.as_str().as_bytes());
        }
        TermRef::Literal(l) => {
            if let Some(lang) = l.language() {
                out.push(TAG_LANG);
                out.extend_from_slice(lang.as_bytes());
                out.push(0);
            } else if l.datatype().as_str() == XSD_STRING {
                out.push(TAG_SIMPLE);
            } else {
                out.push(TAG_TYPED);
                out.extend_from_slice(l.datatype().as_str().as_bytes());
                out.push(0);
            }
            out.extend_from_slice(l.value().as_bytes());
        }
        #[allow(unreachable_patterns)]
        _ => {
            return Err(Error::Invalid(
                "RDF 1.2 triple terms are not supported in .rete files".into(),
            ))
        }
    }
    Ok(())
}

/// The encoding of `term`.
pub fn encode(term: TermRef<'_>) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_into(term, &mut out)?;
    Ok(out)
}

fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|_| Error::Invalid("term is not valid UTF-8".into()))
}

fn split_nul(bytes: &[u8]) -> Result<(&str, &str)> {
    let pos = bytes
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| Error::Invalid("literal encoding lacks its separator".into()))?;
    Ok((utf8(&bytes[..pos])?, utf8(&bytes[pos + 1..])?))
}

/// Decodes an encoded term. The text is trusted to have been validated when the file was built;
/// only the structure is checked here.
pub fn decode(bytes: &[u8]) -> Result<Term> {
    let (&tag, rest) = bytes
        .split_first()
        .ok_or_else(|| Error::Invalid("empty term encoding".into()))?;
    Ok(match tag {
        TAG_IRI => NamedNode::new_unchecked(utf8(rest)?).into(),
        TAG_BNODE => BlankNode::new_unchecked(utf8(rest)?).into(),
        TAG_SIMPLE => Literal::new_simple_literal(utf8(rest)?).into(),
        TAG_LANG => {
            let (lang, value) = split_nul(rest)?;
            Literal::new_language_tagged_literal_unchecked(value, lang).into()
        }
        TAG_TYPED => {
            let (dt, value) = split_nul(rest)?;
            Literal::new_typed_literal(value, NamedNode::new_unchecked(dt)).into()
        }
        other => return Err(Error::Invalid(format!("unknown term tag {other}"))),
    })
}

/// The lexical form and the language tag (`None` unless language-tagged) of an encoded literal,
/// borrowed from its bytes, without building the term; `Ok(None)` for an IRI or a blank node.
pub fn literal_value(bytes: &[u8]) -> Result<Option<(&str, Option<&str>)>> {
    let Some((&tag, rest)) = bytes.split_first() else {
        return Err(Error::Invalid("empty term encoding".into()));
    };
    Ok(match tag {
        TAG_SIMPLE => Some((utf8(rest)?, None)),
        TAG_LANG => {
            let (lang, value) = split_nul(rest)?;
            Some((value, Some(lang)))
        }
        TAG_TYPED => Some((split_nul(rest)?.1, None)),
        _ => None,
    })
}

/// Decodes an encoded term used in graph position.
pub fn decode_graph(bytes: &[u8]) -> Result<GraphName> {
    match decode(bytes)? {
        Term::NamedNode(n) => Ok(n.into()),
        Term::BlankNode(b) => Ok(b.into()),
        _ => Err(Error::Invalid("a literal cannot name a graph".into())),
    }
}

/// The dictionary order: bytewise, except that maximal runs of ASCII digits compare by numeric
/// value; ties between equal numbers written differently (`07` vs `7`) fall back to bytes, so the
/// order is total and agrees with byte equality.
pub fn compare(a: &[u8], b: &[u8]) -> Ordering {
    // Terms looked up share long prefixes (a namespace, then a counter): skip the common
    // prefix bytewise, back to the start of the digit run the first difference is in. Equal
    // bytes compare equal either way, so the natural comparison resumes from there unchanged.
    let mut k = common_prefix(a, b);
    while k > 0 && a[k - 1].is_ascii_digit() {
        k -= 1;
    }
    compare_from(a, b, k)
}

/// Length of the longest common prefix of `a` and `b`, eight bytes at a time (sorting a
/// build's terms spends most of its comparisons here).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut k = 0;
    while k + 8 <= n {
        let word = |s: &[u8]| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&s[k..k + 8]);
            u64::from_le_bytes(w)
        };
        let d = word(a) ^ word(b);
        if d != 0 {
            return k + (d.trailing_zeros() / 8) as usize;
        }
        k += 8;
    }
    k + a[k..n]
        .iter()
        .zip(&b[k..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// The natural comparison of `a` and `b` from byte `k` on, where `k` is not inside a digit run
/// (both share the bytes before it).
fn compare_from(a: &[u8], b: &[u8], k: usize) -> Ordering {
    let (mut i, mut j) = (k, k);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.is_ascii_digit() && y.is_ascii_digit() {
            let ie = i + a[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            let je = j + b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
            let na = strip_zeros(&a[i..ie]);
            let nb = strip_zeros(&b[j..je]);
            let ord = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
            if ord != Ordering::Equal {
                return ord;
            }
            i = ie;
            j = je;
        } else {
            if x != y {
                return x.cmp(&y);
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j)).then_with(|| a.cmp(b))
}

fn strip_zeros(digits: &[u8]) -> &[u8] {
    let n = digits.iter().take_while(|&&c| c == b'0').count();
    &digits[n..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut v: Vec<&[u8]> = vec![b"p10", b"p9", b"p100", b"p1", b"p010", b"q", b"p", b"p1a"];
        v.sort_by(|a, b| compare(a, b));
        let s: Vec<_> = v.iter().map(|x| std::str::from_utf8(x).unwrap()).collect();
        assert_eq!(s, ["p", "p1", "p1a", "p9", "p010", "p10", "p100", "q"]);
    }

    #[test]
    fn round_trip() {
        let terms: Vec<Term> = vec![
            NamedNode::new_unchecked("http://ex.org/a").into(),
            BlankNode::new_unchecked("b0").into(),
            Literal::new_simple_literal("x\u{0}y").into(),
            Literal::new_language_tagged_literal_unchecked("chat", "fr").into(),
            Literal::new_typed_literal(
                "1",
                NamedNode::new_unchecked("http://www.w3.org/2001/XMLSchema#integer"),
            )
            .into(),
        ];
        for t in terms {
            assert_eq!(decode(&encode(t.as_ref()).unwrap()).unwrap(), t);
        }
    }

    /// The comparison as first written (from the start, no prefix skip).
    fn reference(a: &[u8], b: &[u8]) -> Ordering {
        compare_from(a, b, 0)
    }

    proptest::proptest! {
        #[test]
        fn compare_skips_prefixes_like_the_reference(
            p in "[a0-9/]{0,8}", a in "[a0-9]{0,6}", b in "[a0-9]{0,6}"
        ) {
            let (x, y) = (format!("{p}{a}"), format!("{p}{b}"));
            proptest::prop_assert_eq!(
                compare(x.as_bytes(), y.as_bytes()),
                reference(x.as_bytes(), y.as_bytes())
            );
        }

        #[test]
        fn long_prefixes_word_by_word(
            p in "[a0-9/]{0,40}", a in "[a0-9]{0,12}", b in "[a0-9]{0,12}"
        ) {
            let (x, y) = (format!("{p}{a}"), format!("{p}{b}"));
            let (x, y) = (x.as_bytes(), y.as_bytes());
            let naive = x.iter().zip(y).take_while(|(u, v)| u == v).count();
            proptest::prop_assert_eq!(common_prefix(x, y), naive);
            proptest::prop_assert_eq!(compare(x, y), reference(x, y));
        }

        #[test]
        fn compare_is_total_order(a in "[a0-2]{0,6}", b in "[a0-2]{0,6}", c in "[a0-2]{0,6}") {
            let (a, b, c) = (a.as_bytes(), b.as_bytes(), c.as_bytes());
            proptest::prop_assert_eq!(compare(a, b), compare(b, a).reverse());
            proptest::prop_assert_eq!(compare(a, b) == Ordering::Equal, a == b);
            if compare(a, b) != Ordering::Greater && compare(b, c) != Ordering::Greater {
                proptest::prop_assert!(compare(a, c) != Ordering::Greater);
            }
        }
    }
}
