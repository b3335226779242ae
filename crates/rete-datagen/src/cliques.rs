//! Groups of 4-cliques: in a group every clique is linked to every other by one link, and
//! consecutive groups by one link (a ring). Louvain's first pass finds the cliques and its second
//! the groups, a jump like LUBM's (communities of ~5 entities, then of ~1,000): a small graph for
//! testing what a community detector does with it.

use std::io::Write;

/// The links (entity, entity) of `groups` groups of `cliques` 4-cliques; entity `e` of clique
/// `c` of group `g` is `g * cliques * 4 + c * 4 + e`.
pub fn links(groups: u32, cliques: u32) -> Vec<(u32, u32)> {
    let mut links = Vec::new();
    let group = cliques * 4;
    for g in 0..groups {
        for c in 0..cliques {
            let base = g * group + c * 4;
            for a in 0..4 {
                for b in a + 1..4 {
                    links.push((base + a, base + b));
                }
            }
            for d in c + 1..cliques {
                links.push((base + d % 4, g * group + d * 4 + c % 4));
            }
        }
        links.push((g * group, ((g + 1) % groups) * group + 1));
    }
    links
}

/// Writes [`links`] as N-Triples (`<http://example.org/eN> <http://example.org/knows> ...`);
/// returns the number of triples.
pub fn write_ntriples(groups: u32, cliques: u32, out: &mut impl Write) -> std::io::Result<u64> {
    let links = links(groups, cliques);
    for &(a, b) in &links {
        writeln!(
            out,
            "<http://example.org/e{a}> <http://example.org/knows> <http://example.org/e{b}> ."
        )?;
    }
    Ok(links.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        // Per group: 6 links in each clique, one between each pair of cliques, one to the next.
        assert_eq!(links(3, 5).len(), 3 * (5 * 6 + 10 + 1));
        let mut nt = Vec::new();
        assert_eq!(write_ntriples(2, 3, &mut nt).unwrap(), 2 * (3 * 6 + 3 + 1));
        assert_eq!(
            nt.iter().filter(|&&b| b == b'\n').count(),
            2 * (3 * 6 + 3 + 1)
        );
    }
}
