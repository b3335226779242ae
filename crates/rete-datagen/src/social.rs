//! The synthetic social graph of the upstream benchmark: `people` persons in communities of about
//! 100, each with about five `foaf:knows` edges, most inside the own community, plus `rdf:type`,
//! `foaf:name` and `foaf:age`.

use crate::{iri, literal, Rng};
use std::io::Write;

/// Namespace of the generated people.
pub const NS: &str = "http://example.org/social/";
const FOAF: &str = "http://xmlns.com/foaf/0.1/";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const XSD_INTEGER: &str = "http://www.w3.org/2001/XMLSchema#integer";

const FIRST: [&str; 32] = [
    "Ada",
    "Alan",
    "Barbara",
    "Claude",
    "Donald",
    "Edsger",
    "Frances",
    "Grace",
    "Hedy",
    "Ivan",
    "John",
    "Karen",
    "Leslie",
    "Margaret",
    "Niklaus",
    "Ole",
    "Peter",
    "Radia",
    "Shafi",
    "Tim",
    "Ursula",
    "Vint",
    "Whitfield",
    "Xavier",
    "Yukihiro",
    "Zhou",
    "Anita",
    "Bjarne",
    "Carla",
    "Dennis",
    "Erna",
    "Fran",
];
const LAST: [&str; 32] = [
    "Lovelace",
    "Turing",
    "Liskov",
    "Shannon",
    "Knuth",
    "Dijkstra",
    "Allen",
    "Hopper",
    "Lamarr",
    "Sutherland",
    "McCarthy",
    "Jones",
    "Lamport",
    "Hamilton",
    "Wirth",
    "Dahl",
    "Naur",
    "Perlman",
    "Goldwasser",
    "Berners-Lee",
    "Franklin",
    "Cerf",
    "Diffie",
    "Leroy",
    "Matsumoto",
    "Ping",
    "Borg",
    "Stroustrup",
    "Ellis",
    "Ritchie",
    "Schneider",
    "Bauer",
];

/// Parameters of the social graph.
#[derive(Debug, Clone)]
pub struct SocialParams {
    /// Number of people.
    pub people: u64,
    /// Mean community size.
    pub community_size: u64,
    /// `knows` edges per person.
    pub knows: u64,
    /// Probability that an edge stays inside the community.
    pub inside: f64,
    /// Random seed.
    pub seed: u64,
}

impl Default for SocialParams {
    fn default() -> Self {
        Self {
            people: 20_000,
            community_size: 100,
            knows: 5,
            inside: 0.9,
            seed: 42,
        }
    }
}

/// The community of person `i` (communities are contiguous id ranges of ±50 % the mean size).
fn communities(p: &SocialParams, rng: &mut Rng) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut start = 0;
    let size = p.community_size.max(2);
    while start < p.people {
        let len = (size / 2 + rng.below(size)).max(2).min(p.people - start);
        out.push((start, len));
        start += len;
    }
    out
}

/// Writes the graph as N-Triples; returns the number of triples written.
pub fn write_ntriples(p: &SocialParams, out: &mut impl Write) -> std::io::Result<u64> {
    let mut rng = Rng::new(p.seed);
    let comms = communities(p, &mut rng);
    let mut line = String::with_capacity(256);
    let mut n = 0;
    let person = |i: u64| format!("{NS}person/{i}");
    for &(start, len) in &comms {
        for i in start..start + len {
            line.clear();
            let me = person(i);
            iri(&mut line, &me);
            line.push(' ');
            iri(&mut line, RDF_TYPE);
            line.push(' ');
            iri(&mut line, &format!("{FOAF}Person"));
            line.push_str(" .\n");
            iri(&mut line, &me);
            line.push(' ');
            iri(&mut line, &format!("{FOAF}name"));
            line.push(' ');
            let name = format!(
                "{} {}",
                FIRST[rng.below(32) as usize],
                LAST[rng.below(32) as usize]
            );
            literal(&mut line, &name);
            line.push_str(" .\n");
            iri(&mut line, &me);
            line.push(' ');
            iri(&mut line, &format!("{FOAF}age"));
            line.push_str(&format!(" \"{}\"^^", 18 + rng.below(63)));
            iri(&mut line, XSD_INTEGER);
            line.push_str(" .\n");
            n += 3;
            let mut seen = Vec::with_capacity(p.knows as usize);
            for _ in 0..p.knows {
                let other = if rng.chance(p.inside) {
                    start + rng.below(len)
                } else {
                    rng.below(p.people)
                };
                if other == i || seen.contains(&other) {
                    continue;
                }
                seen.push(other);
                iri(&mut line, &me);
                line.push(' ');
                iri(&mut line, &format!("{FOAF}knows"));
                line.push(' ');
                iri(&mut line, &person(other));
                line.push_str(" .\n");
                n += 1;
            }
            out.write_all(line.as_bytes())?;
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_sized() {
        let p = SocialParams {
            people: 1000,
            ..SocialParams::default()
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let n = write_ntriples(&p, &mut a).unwrap();
        write_ntriples(&p, &mut b).unwrap();
        assert_eq!(a, b);
        assert!(n > 1000 * 3 + 1000 * 4, "{n} triples");
        let other = SocialParams { seed: 7, ..p };
        let mut c = Vec::new();
        write_ntriples(&other, &mut c).unwrap();
        assert_ne!(a, c);
    }
}
