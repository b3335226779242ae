use super::*;
use std::collections::HashMap;

fn generate(products: u64, seed: u64) -> (Vec<u8>, u64) {
    let mut nt = Vec::new();
    let n = write_ntriples(&BsbmParams { products, seed }, &mut nt).unwrap();
    (nt, n)
}

/// Instances per class, parsing every line with oxttl (a line that does not parse fails).
fn classes(nt: &[u8]) -> (HashMap<String, u64>, u64) {
    let mut counts = HashMap::new();
    let mut triples = 0;
    for t in oxttl::NTriplesParser::new().for_slice(nt) {
        let t = t.unwrap();
        triples += 1;
        if t.predicate.as_str() == RDF_TYPE {
            *counts.entry(t.object.to_string()).or_insert(0) += 1;
        }
    }
    (counts, triples)
}

#[test]
fn deterministic_parses_and_matches_the_counts() {
    let (a, n) = generate(100, 7);
    assert_eq!(a, generate(100, 7).0, "same seed, same bytes");
    assert_ne!(a, generate(100, 8).0, "another seed, other data");
    let (counts, parsed) = classes(&a);
    assert_eq!(parsed, n);
    let m = Model::new(&BsbmParams {
        products: 100,
        seed: 7,
    });
    let class = |local: &str| counts.get(&format!("<{BSBM}{local}>")).copied();
    assert_eq!(class("Product"), Some(100));
    assert_eq!(class("Offer"), Some(2000), "20 offers per product");
    assert_eq!(class("Review"), Some(1000), "10 reviews per product");
    assert_eq!(class("ProductType"), Some(m.types.len() as u64));
    assert_eq!(class("ProductFeature"), Some(m.features));
    assert_eq!(class("Producer"), Some(m.producers()));
    assert_eq!(class("Vendor"), Some(m.vendors()));
    assert_eq!(class("RatingSite"), Some(m.rating_sites()));
    let persons = counts.get(&format!("<{FOAF}Person>")).copied();
    assert_eq!(persons, Some(m.reviewers()));
    // About 50 products per producer, 2,000 offers per vendor, 20 reviews per reviewer.
    assert!((1..=5).contains(&m.producers()), "{}", m.producers());
    assert!((1..=2).contains(&m.vendors()), "{}", m.vendors());
    assert!((30..=80).contains(&m.reviewers()), "{}", m.reviewers());
    // Every product is typed with the types on its path (the leaf and its ancestors).
    let typed: u64 = (0..100).map(|i| m.product(i).types.len() as u64).sum();
    let product_types: u64 = counts
        .iter()
        .filter(|(k, _)| k.contains("/instances/ProductType"))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(product_types, typed);
}

#[test]
fn about_2785_products_per_million_triples() {
    let (_, n) = generate(1000, 0);
    let per_million = 1000.0 * 1e6 / n as f64;
    assert!(
        (2500.0..3100.0).contains(&per_million),
        "{per_million:.0} products per million triples ({n} triples)"
    );
}

#[test]
fn every_template_is_filled() {
    let m = Model::new(&BsbmParams {
        products: 100,
        seed: 1,
    });
    let mut rng = Rng::new(3);
    for t in TEMPLATES {
        let q = draw(&m, t.id, &mut rng);
        assert!(!q.contains('%'), "Q{} left a parameter: {q}", t.id);
    }
    // The two mixes differ in one place only: Q6 or a second Q5.
    let differ: Vec<_> = MIX
        .iter()
        .zip(MIX_WITH_Q6)
        .filter(|(a, b)| **a != *b)
        .collect();
    assert_eq!(differ, [(&5, 6)]);
    assert!(!MIX.contains(&6));
}
