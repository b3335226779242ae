//! The BSBM Explore use case: its 12 query templates, the 25-query mix, and the drawing of
//! each template's parameters from a dataset's [`Model`].

use super::{Model, BSBM, COUNTRIES, DC, EXPORT, FOAF, REV};
use crate::Rng;

/// The answer form of a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `SELECT`: solutions.
    Select,
    /// `DESCRIBE`: a graph.
    Describe,
    /// `CONSTRUCT`: a graph.
    Construct,
}

/// One Explore query template.
#[derive(Debug, Clone, Copy)]
pub struct Template {
    /// Its number, 1–12.
    pub id: u8,
    /// What it asks, briefly.
    pub name: &'static str,
    /// The answer form.
    pub form: Form,
    /// The variable its `ORDER BY` sorts on first, if any.
    pub order_key: Option<&'static str>,
    /// Its `LIMIT`, if any.
    pub limit: Option<usize>,
    /// The query, with `%Name%` parameters.
    pub text: &'static str,
}

/// The Explore query mix the BSBM tools' test driver runs (`queries/explore/querymix.txt`):
/// 25 queries in this order (template numbers). Q6 (a regex over every product label) is not
/// in it and Q5 runs twice: BSBM V3 took Q6 out of the mix.
pub const MIX: [u8; 25] = [
    1, 2, 2, 3, 2, 2, 4, 2, 2, 5, 7, 7, 5, 7, 7, 8, 9, 9, 8, 9, 9, 10, 10, 11, 12,
];

/// The specification's earlier mix, with Q6 where [`MIX`] runs Q5 a second time. The gate
/// uses it, so every template's answers are compared.
pub const MIX_WITH_Q6: [u8; 25] = [
    1, 2, 2, 3, 2, 2, 4, 2, 2, 5, 7, 7, 6, 7, 7, 8, 9, 9, 8, 9, 9, 10, 10, 11, 12,
];

/// The `%currentDate%` of every template: offers are valid around it.
pub const CURRENT_DATE: &str = "2008-06-20T00:00:00";

/// The 12 Explore templates, Q1 first.
pub const TEMPLATES: [Template; 12] = [
    Template {
        id: 1,
        name: "products of a type with two features",
        form: Form::Select,
        order_key: Some("label"),
        limit: Some(10),
        text: "SELECT DISTINCT ?product ?label
WHERE {
  ?product rdfs:label ?label .
  ?product a %ProductType% .
  ?product bsbm:productFeature %ProductFeature1% .
  ?product bsbm:productFeature %ProductFeature2% .
  ?product bsbm:productPropertyNumeric1 ?value1 .
  FILTER (?value1 > %x%)
}
ORDER BY ?label
LIMIT 10",
    },
    Template {
        id: 2,
        name: "details of a product",
        form: Form::Select,
        order_key: None,
        limit: None,
        text: "SELECT ?label ?comment ?producer ?productFeature ?propertyTextual1 ?propertyTextual2 ?propertyTextual3 ?propertyNumeric1 ?propertyNumeric2 ?propertyTextual4 ?propertyTextual5 ?propertyNumeric4
WHERE {
  %ProductXYZ% rdfs:label ?label .
  %ProductXYZ% rdfs:comment ?comment .
  %ProductXYZ% bsbm:producer ?p .
  ?p rdfs:label ?producer .
  %ProductXYZ% dc:publisher ?p .
  %ProductXYZ% bsbm:productFeature ?f .
  ?f rdfs:label ?productFeature .
  %ProductXYZ% bsbm:productPropertyTextual1 ?propertyTextual1 .
  %ProductXYZ% bsbm:productPropertyTextual2 ?propertyTextual2 .
  %ProductXYZ% bsbm:productPropertyTextual3 ?propertyTextual3 .
  %ProductXYZ% bsbm:productPropertyNumeric1 ?propertyNumeric1 .
  %ProductXYZ% bsbm:productPropertyNumeric2 ?propertyNumeric2 .
  OPTIONAL { %ProductXYZ% bsbm:productPropertyTextual4 ?propertyTextual4 }
  OPTIONAL { %ProductXYZ% bsbm:productPropertyTextual5 ?propertyTextual5 }
  OPTIONAL { %ProductXYZ% bsbm:productPropertyNumeric4 ?propertyNumeric4 }
}",
    },
    Template {
        id: 3,
        name: "products of a type with one feature but not another",
        form: Form::Select,
        order_key: Some("label"),
        limit: Some(10),
        text: "SELECT ?product ?label
WHERE {
  ?product rdfs:label ?label .
  ?product a %ProductType% .
  ?product bsbm:productFeature %ProductFeature1% .
  ?product bsbm:productPropertyNumeric1 ?p1 .
  FILTER ( ?p1 > %x% )
  ?product bsbm:productPropertyNumeric3 ?p3 .
  FILTER (?p3 < %y% )
  OPTIONAL {
    ?product bsbm:productFeature %ProductFeature2% .
    ?product rdfs:label ?testVar }
  FILTER (!bound(?testVar))
}
ORDER BY ?label
LIMIT 10",
    },
    Template {
        id: 4,
        name: "products of a type matching either of two feature sets (UNION)",
        form: Form::Select,
        order_key: Some("label"),
        limit: Some(10),
        text: "SELECT DISTINCT ?product ?label ?propertyTextual
WHERE {
  {
    ?product rdfs:label ?label .
    ?product rdf:type %ProductType% .
    ?product bsbm:productFeature %ProductFeature1% .
    ?product bsbm:productFeature %ProductFeature2% .
    ?product bsbm:productPropertyTextual1 ?propertyTextual .
    ?product bsbm:productPropertyNumeric1 ?p1 .
    FILTER ( ?p1 > %x% )
  } UNION {
    ?product rdfs:label ?label .
    ?product rdf:type %ProductType% .
    ?product bsbm:productFeature %ProductFeature1% .
    ?product bsbm:productFeature %ProductFeature3% .
    ?product bsbm:productPropertyTextual1 ?propertyTextual .
    ?product bsbm:productPropertyNumeric2 ?p2 .
    FILTER ( ?p2 > %y% )
  }
}
ORDER BY ?label
OFFSET 5
LIMIT 10",
    },
    Template {
        id: 5,
        name: "products similar to a product",
        form: Form::Select,
        order_key: Some("productLabel"),
        limit: Some(5),
        text: "SELECT DISTINCT ?product ?productLabel
WHERE {
  ?product rdfs:label ?productLabel .
  FILTER (%ProductXYZ% != ?product)
  %ProductXYZ% bsbm:productFeature ?prodFeature .
  ?product bsbm:productFeature ?prodFeature .
  %ProductXYZ% bsbm:productPropertyNumeric1 ?origProperty1 .
  ?product bsbm:productPropertyNumeric1 ?simProperty1 .
  FILTER (?simProperty1 < (?origProperty1 + 120) && ?simProperty1 > (?origProperty1 - 120))
  %ProductXYZ% bsbm:productPropertyNumeric2 ?origProperty2 .
  ?product bsbm:productPropertyNumeric2 ?simProperty2 .
  FILTER (?simProperty2 < (?origProperty2 + 170) && ?simProperty2 > (?origProperty2 - 170))
}
ORDER BY ?productLabel
LIMIT 5",
    },
    Template {
        id: 6,
        name: "products whose label matches a word (regex)",
        form: Form::Select,
        order_key: None,
        limit: None,
        text: "SELECT ?product ?label
WHERE {
  ?product rdfs:label ?label .
  ?product rdf:type bsbm:Product .
  FILTER regex(?label, \"%word1%\")
}",
    },
    Template {
        id: 7,
        name: "a product with its current offers and reviews",
        form: Form::Select,
        order_key: None,
        limit: None,
        text: "SELECT ?productLabel ?offer ?price ?vendor ?vendorTitle ?review ?revTitle ?reviewer ?revName ?rating1 ?rating2
WHERE {
  %ProductXYZ% rdfs:label ?productLabel .
  OPTIONAL {
    ?offer bsbm:product %ProductXYZ% .
    ?offer bsbm:price ?price .
    ?offer bsbm:vendor ?vendor .
    ?vendor rdfs:label ?vendorTitle .
    ?vendor bsbm:country <%COUNTRIES%DE> .
    ?offer dc:publisher ?vendor .
    ?offer bsbm:validTo ?date .
    FILTER (?date > %currentDate% )
  }
  OPTIONAL {
    ?review bsbm:reviewFor %ProductXYZ% .
    ?review rev:reviewer ?reviewer .
    ?reviewer foaf:name ?revName .
    ?review dc:title ?revTitle .
    OPTIONAL { ?review bsbm:rating1 ?rating1 . }
    OPTIONAL { ?review bsbm:rating2 ?rating2 . }
  }
}",
    },
    Template {
        id: 8,
        name: "the latest English reviews of a product",
        form: Form::Select,
        order_key: Some("reviewDate"),
        limit: Some(20),
        text: "SELECT ?title ?text ?reviewDate ?reviewer ?reviewerName ?rating1 ?rating2 ?rating3 ?rating4
WHERE {
  ?review bsbm:reviewFor %ProductXYZ% .
  ?review dc:title ?title .
  ?review rev:text ?text .
  FILTER langMatches( lang(?text), \"EN\" )
  ?review bsbm:reviewDate ?reviewDate .
  ?review rev:reviewer ?reviewer .
  ?reviewer foaf:name ?reviewerName .
  OPTIONAL { ?review bsbm:rating1 ?rating1 . }
  OPTIONAL { ?review bsbm:rating2 ?rating2 . }
  OPTIONAL { ?review bsbm:rating3 ?rating3 . }
  OPTIONAL { ?review bsbm:rating4 ?rating4 . }
}
ORDER BY DESC(?reviewDate)
LIMIT 20",
    },
    Template {
        id: 9,
        name: "the reviewer of a review (DESCRIBE)",
        form: Form::Describe,
        order_key: None,
        limit: None,
        text: "DESCRIBE ?x
WHERE { %ReviewXYZ% rev:reviewer ?x }",
    },
    Template {
        id: 10,
        name: "cheap current offers of a product from US vendors",
        form: Form::Select,
        order_key: Some("price"),
        limit: Some(10),
        text: "SELECT DISTINCT ?offer ?price
WHERE {
  ?offer bsbm:product %ProductXYZ% .
  ?offer bsbm:vendor ?vendor .
  ?offer dc:publisher ?vendor .
  ?vendor bsbm:country <%COUNTRIES%US> .
  ?offer bsbm:deliveryDays ?deliveryDays .
  FILTER (?deliveryDays <= 3)
  ?offer bsbm:price ?price .
  ?offer bsbm:validTo ?date .
  FILTER (?date > %currentDate% )
}
ORDER BY xsd:double(str(?price))
LIMIT 10",
    },
    Template {
        id: 11,
        name: "everything about an offer (UNION of both directions)",
        form: Form::Select,
        order_key: None,
        limit: None,
        text: "SELECT ?property ?hasValue ?isValueOf
WHERE {
  { %OfferXYZ% ?property ?hasValue }
  UNION
  { ?isValueOf ?property %OfferXYZ% }
}",
    },
    Template {
        id: 12,
        name: "an offer exported to another vocabulary (CONSTRUCT)",
        form: Form::Construct,
        order_key: None,
        limit: None,
        text: "CONSTRUCT {
  %OfferXYZ% bsbm-export:product ?productURI .
  %OfferXYZ% bsbm-export:productlabel ?productlabel .
  %OfferXYZ% bsbm-export:vendor ?vendorname .
  %OfferXYZ% bsbm-export:vendorhomepage ?vendorhomepage .
  %OfferXYZ% bsbm-export:offerURL ?offerURL .
  %OfferXYZ% bsbm-export:price ?price .
  %OfferXYZ% bsbm-export:deliveryDays ?deliveryDays .
  %OfferXYZ% bsbm-export:validuntil ?validTo
}
WHERE {
  %OfferXYZ% bsbm:product ?productURI .
  ?productURI rdfs:label ?productlabel .
  %OfferXYZ% bsbm:vendor ?vendorURI .
  ?vendorURI rdfs:label ?vendorname .
  ?vendorURI foaf:homepage ?vendorhomepage .
  %OfferXYZ% bsbm:offerWebpage ?offerURL .
  %OfferXYZ% bsbm:price ?price .
  %OfferXYZ% bsbm:deliveryDays ?deliveryDays .
  %OfferXYZ% bsbm:validTo ?validTo
}",
    },
];

/// The `PREFIX` lines every query starts with.
fn prologue() -> String {
    [
        ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
        ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
        ("xsd", "http://www.w3.org/2001/XMLSchema#"),
        ("bsbm", BSBM),
        ("bsbm-export", EXPORT),
        ("rev", REV),
        ("dc", DC),
        ("foaf", FOAF),
    ]
    .iter()
    .map(|(p, ns)| format!("PREFIX {p}: <{ns}>\n"))
    .collect()
}

/// A random product with two or more features (each product has some at any scale but the
/// smallest; there, any product), with one of its types and two of its features under it.
fn anchored(m: &Model, rng: &mut Rng) -> (usize, u64, u64) {
    for _ in 0..100 {
        let p = m.product(rng.below(m.products()));
        // One of its types (not the root), then features owned by that type or below it.
        let level = rng.below(p.types.len() as u64) as usize;
        let under: Vec<u64> = p
            .features
            .iter()
            .copied()
            .filter(|&f| {
                p.types[level..]
                    .iter()
                    .any(|&t| m.types[t].features.contains(&f))
            })
            .collect();
        if under.len() >= 2 {
            let a = rng.below(under.len() as u64) as usize;
            let mut b = rng.below(under.len() as u64 - 1) as usize;
            if b >= a {
                b += 1;
            }
            return (p.types[level], under[a], under[b]);
        }
    }
    let t = m.leaves[0];
    let f = m.types[t].features.start;
    (t, f, f + 1)
}

/// A feature owned by type `t` or its descendants, uniformly among those of `t`'s own range
/// and its subtree's.
fn feature_under(m: &Model, t: usize, rng: &mut Rng) -> u64 {
    let mut owned: Vec<u64> = Vec::new();
    let mut stack = vec![t];
    while let Some(x) = stack.pop() {
        owned.extend(m.types[x].features.clone());
        stack.extend((0..m.types.len()).filter(|&c| m.types[c].parent == Some(x)));
    }
    owned[rng.below(owned.len() as u64) as usize]
}

/// Template `id` (1–12) with its parameters drawn from `m` by `rng`, as a complete query.
pub fn draw(m: &Model, id: u8, rng: &mut Rng) -> String {
    let t = &TEMPLATES[usize::from(id.clamp(1, 12)) - 1];
    let iri = |s: String| format!("<{s}>");
    let mut params: Vec<(&str, String)> = Vec::new();
    match id {
        1 | 3 | 4 => {
            let (ty, f1, f2) = anchored(m, rng);
            params.push(("%ProductType%", iri(m.type_iri(ty))));
            params.push(("%ProductFeature1%", iri(m.feature_iri(f1))));
            let f2 = if id == 3 {
                feature_under(m, ty, rng)
            } else {
                f2
            };
            params.push(("%ProductFeature2%", iri(m.feature_iri(f2))));
            params.push((
                "%ProductFeature3%",
                iri(m.feature_iri(feature_under(m, ty, rng))),
            ));
            params.push(("%x%", (1 + rng.below(500)).to_string()));
            let y = if id == 3 {
                1500 + rng.below(500)
            } else {
                1 + rng.below(500)
            };
            params.push(("%y%", y.to_string()));
        }
        6 => {
            // A word of a random product's label: the word list of the labels.
            let label = m.product(rng.below(m.products())).label;
            let words: Vec<&str> = label.split(' ').collect();
            let w = words[rng.below(words.len() as u64) as usize];
            params.push(("%word1%", w.to_owned()));
        }
        9 => params.push(("%ReviewXYZ%", iri(m.review_iri(rng.below(m.reviews()))))),
        11 | 12 => params.push(("%OfferXYZ%", iri(m.offer_iri(rng.below(m.offers()))))),
        _ => params.push(("%ProductXYZ%", iri(m.product_iri(rng.below(m.products()))))),
    }
    params.push(("%currentDate%", format!("\"{CURRENT_DATE}\"^^xsd:dateTime")));
    params.push(("%COUNTRIES%", COUNTRIES.to_string()));
    let mut q = t.text.to_string();
    for (k, v) in &params {
        q = q.replace(k, v);
    }
    prologue() + &q
}
