//! What a community holds (`The DBpedia Ontology · 2,735 properties`), said in the reader's
//! language. The builder writes it in English after the name, the same in every language (it is a
//! count, not a label of the data); the reader translates the noun and the digit grouping for the
//! first of its languages this table knows (English included), so files built before read the
//! same way.

/// The languages known here besides English, in the order of the columns of [`NOUNS`].
const LANGUAGES: [&str; 6] = ["de", "es", "fr", "it", "nl", "pt"];
/// The digit grouping of each of [`LANGUAGES`] (French: a narrow no-break space).
const GROUPING: [&str; 6] = [".", ".", "\u{202f}", ".", ".", "."];
/// The nouns the builder writes after a count (`crates/rete-pyramid/src/labels.rs`), and each in
/// [`LANGUAGES`].
const NOUNS: [(&str, [&str; 6]); 6] = [
    (
        "terms",
        [
            "Begriffe",
            "términos",
            "termes",
            "termini",
            "termen",
            "termos",
        ],
    ),
    (
        "properties",
        [
            "Eigenschaften",
            "propiedades",
            "propriétés",
            "proprietà",
            "eigenschappen",
            "propriedades",
        ],
    ),
    (
        "classes",
        [
            "Klassen", "clases", "classes", "classi", "klassen", "classes",
        ],
    ),
    (
        "datatypes",
        [
            "Datentypen",
            "tipos de datos",
            "types de données",
            "tipi di dati",
            "datatypes",
            "tipos de dados",
        ],
    ),
    (
        "concepts",
        [
            "Konzepte",
            "conceptos",
            "concepts",
            "concetti",
            "concepten",
            "conceitos",
        ],
    ),
    (
        "individuals",
        [
            "Individuen",
            "individuos",
            "individus",
            "individui",
            "individuen",
            "indivíduos",
        ],
    ),
];

/// `label` with what it holds (` · N noun` or ` · N` at its end, as the builder writes them) in
/// the first of `prefs` (BCP 47 tags, most preferred first) that is English or one of
/// [`LANGUAGES`]; unchanged when there is none, or nothing to translate.
pub(crate) fn localise(label: &str, prefs: &[&str]) -> String {
    let Some(lang) = prefs.iter().find_map(|p| {
        let primary = p.trim().split('-').next().unwrap_or_default();
        if primary.eq_ignore_ascii_case("en") {
            return Some(None);
        }
        LANGUAGES
            .iter()
            .position(|l| l.eq_ignore_ascii_case(primary))
            .map(Some)
    }) else {
        return label.to_owned();
    };
    let Some(lang) = lang else {
        return label.to_owned();
    };
    let Some((name, held)) = label.rsplit_once(" · ") else {
        return label.to_owned();
    };
    let (count, noun) = held.split_once(' ').unwrap_or((held, ""));
    let grouped = |c: &str| {
        !c.is_empty()
            && c.split(',').enumerate().all(|(i, g)| {
                g.bytes().all(|b| b.is_ascii_digit())
                    && (g.len() == 3 || (i == 0 && !g.is_empty() && g.len() <= 3))
            })
    };
    if !grouped(count) {
        return label.to_owned();
    }
    let noun = if noun.is_empty() {
        ""
    } else {
        match NOUNS.iter().find(|(en, _)| *en == noun) {
            Some((_, words)) => words[lang],
            None => return label.to_owned(),
        }
    };
    let count = count.replace(',', GROUPING[lang]);
    if noun.is_empty() {
        format!("{name} · {count}")
    } else {
        format!("{name} · {count} {noun}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_community_holds_in_the_readers_language() {
        let l = "The DBpedia Ontology · 2,735 properties";
        assert_eq!(
            localise(l, &["fr-CH"]),
            "The DBpedia Ontology · 2\u{202f}735 propriétés"
        );
        assert_eq!(
            localise(l, &["de"]),
            "The DBpedia Ontology · 2.735 Eigenschaften"
        );
        // The first language known here wins, English included.
        assert_eq!(
            localise(l, &["ja", "es"]),
            "The DBpedia Ontology · 2.735 propiedades"
        );
        assert_eq!(localise(l, &["en-GB", "de"]), l);
        assert_eq!(localise(l, &["ja"]), l);
        assert_eq!(localise(l, &[]), l);
        // A class count without a noun; a name with its own middle dot.
        assert_eq!(localise("Person · 1,200", &["it"]), "Person · 1.200");
        assert_eq!(
            localise("A · B · 12 classes", &["nl"]),
            "A · B · 12 klassen"
        );
        // What the builder does not write stays as it is.
        assert_eq!(localise("Rock · Paper", &["fr"]), "Rock · Paper");
        assert_eq!(localise("Dogs · 12 cats", &["fr"]), "Dogs · 12 cats");
        assert_eq!(
            localise("Rooms · 1,20 terms", &["fr"]),
            "Rooms · 1,20 terms"
        );
        assert_eq!(localise("Cologne", &["de"]), "Cologne");
    }
}
