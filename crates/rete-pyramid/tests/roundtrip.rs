//! Round trips through the real builder: build with the extension, open, and check that levels,
//! children, members and community paths agree with each other.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::{build_file, lubm_nt, pyramid_of, social_nt, social_pyramid};
use oxrdf::{NamedNodeRef, Term};
use rete_core::format::FLAG_PYRAMID;
use rete_core::{Id, Rete};
use rete_pyramid::{Level, Pyramid, PyramidError, PyramidOptions};
use std::collections::{BTreeMap, BTreeSet};

fn inside(x: f32, y: f32, r: f32, cx: f32, cy: f32, cr: f32) -> bool {
    let d = ((x - cx).powi(2) + (y - cy).powi(2)).sqrt();
    d + r <= cr * (1.0 + 1e-4) + 1e-4
}

/// Checks every invariant the app relies on; returns the levels read.
fn check_consistency(rete: &Rete, p: &Pyramid) -> Vec<Level> {
    let info = p.level_info().to_vec();
    let levels = p.levels();
    let top = levels - 1;
    let n = p.entity_count();
    let lv: Vec<Level> = (0..levels).map(|l| p.level(l).unwrap()).collect();
    for (l, level) in lv.iter().enumerate() {
        assert_eq!(level.level as usize, l);
        assert_eq!(level.communities.len() as u64, info[l].communities);
        assert_eq!(level.edges.len() as u64, info[l].super_edges);
        assert_eq!(level.modularity, info[l].modularity);
        let k = level.communities.len() as u32;
        assert_eq!(
            level.communities.iter().map(|c| c.size).sum::<u64>(),
            n,
            "sizes of level {l} sum to the entity count"
        );
        for (i, c) in level.communities.iter().enumerate() {
            assert_eq!(c.id as usize, i);
            assert_eq!(c.level as usize, l);
            assert!(c.size > 0);
            assert!(!c.label.is_empty());
            assert!(c.r > 0.0);
            assert!(c.classes.windows(2).all(|w| w[0].1 >= w[1].1));
            assert_eq!(c.dominant_class, c.classes.first().map(|x| x.0.clone()));
            if l == top {
                assert_eq!(c.parent, None);
                assert!(inside(c.x, c.y, c.r, 0.0, 0.0, 1000.0));
            } else {
                assert!(c
                    .parent
                    .is_some_and(|p| (p as usize) < lv[l + 1].communities.len()));
            }
        }
        let mut pairs = BTreeSet::new();
        for e in &level.edges {
            assert!(e.source < e.target && e.target < k);
            assert!(e.weight > 0);
            assert!(e.top_predicates.iter().map(|x| x.1).sum::<u64>() <= e.weight);
            assert!(pairs.insert((e.source, e.target)), "duplicate super-edge");
        }
    }
    // Siblings never overlap.
    for level in &lv {
        let mut groups: BTreeMap<Option<u32>, Vec<&rete_pyramid::Community>> = BTreeMap::new();
        for c in &level.communities {
            groups.entry(c.parent).or_default().push(c);
        }
        for g in groups.values() {
            for (i, a) in g.iter().enumerate() {
                for b in &g[i + 1..] {
                    let d = ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt();
                    assert!(
                        d >= (a.r + b.r) * 0.999,
                        "siblings {} and {} overlap",
                        a.id,
                        b.id
                    );
                }
            }
        }
    }
    for l in 0..top {
        let (lower, upper) = (&lv[l], &lv[l + 1]);
        let parent_of = |c: u32| lower.communities[c as usize].parent.unwrap();
        let mut sizes = vec![0u64; upper.communities.len()];
        for c in &lower.communities {
            let par = &upper.communities[c.parent.unwrap() as usize];
            sizes[par.id as usize] += c.size;
            assert!(
                inside(c.x, c.y, c.r, par.x, par.y, par.r),
                "level {l} community {} lies outside its parent {}",
                c.id,
                par.id
            );
        }
        for par in &upper.communities {
            assert_eq!(sizes[par.id as usize], par.size);
        }
        // Super-edges of the upper level are the lower ones between different parents, summed.
        let mut summed: BTreeMap<(u32, u32), u64> = BTreeMap::new();
        for e in &lower.edges {
            let (a, b) = (parent_of(e.source), parent_of(e.target));
            if a != b {
                *summed.entry((a.min(b), a.max(b))).or_default() += e.weight;
            }
        }
        let upper_edges: BTreeMap<(u32, u32), u64> = upper
            .edges
            .iter()
            .map(|e| ((e.source, e.target), e.weight))
            .collect();
        assert_eq!(summed, upper_edges, "super-edges of level {}", l + 1);
    }
    for l in 1..levels {
        for c in &lv[l].communities {
            let ch = p.children(l, c.id).unwrap();
            assert_eq!(ch.level as usize, l - 1);
            let expected: Vec<_> = lv[l - 1]
                .communities
                .iter()
                .filter(|x| x.parent == Some(c.id))
                .cloned()
                .collect();
            assert!(!expected.is_empty());
            assert_eq!(ch.communities, expected);
            let ids: BTreeSet<u32> = expected.iter().map(|x| x.id).collect();
            let edges: Vec<_> = lv[l - 1]
                .edges
                .iter()
                .filter(|e| ids.contains(&e.source) && ids.contains(&e.target))
                .cloned()
                .collect();
            let mut got = ch.edges.clone();
            got.sort_by_key(|e| (e.source, e.target));
            assert_eq!(got, edges);
        }
    }
    let mut seen = BTreeSet::new();
    for c in &lv[0].communities {
        let members = p.members(c.id).unwrap();
        assert_eq!(members.len() as u64, c.size);
        for (i, m) in members.iter().enumerate() {
            assert!(seen.insert(m.id), "entity {} in two communities", m.id);
            assert!(inside(m.x, m.y, 0.0, c.x, c.y, c.r), "member outside");
            assert_eq!(m.term, rete.term(m.id).unwrap().to_string());
            if i % 3 == 0 {
                let path = p.community_path(m.id).unwrap().unwrap();
                assert_eq!(path.len(), levels);
                assert_eq!(path[0], c.id);
                for l in 0..top {
                    assert_eq!(
                        lv[l].communities[path[l] as usize].parent,
                        Some(path[l + 1])
                    );
                }
            }
        }
    }
    assert_eq!(
        seen.len() as u64,
        n,
        "every entity in exactly one community"
    );
    // Not entities: id 0, past the dictionary, the last term (a literal).
    assert_eq!(p.community_path(0).unwrap(), None);
    assert_eq!(p.community_path(rete.term_count() + 1).unwrap(), None);
    if let Term::Literal(_) = rete.term(rete.term_count()).unwrap() {
        assert_eq!(p.community_path(rete.term_count()).unwrap(), None);
    }
    // Many at once, in any order, repeated and mixed with non-entities: the paths one by one.
    let mut many: Vec<u64> = seen.iter().rev().step_by(7).copied().collect();
    many.extend([0, rete.term_count() + 1, rete.term_count()]);
    many.extend(seen.iter().take(3));
    many.extend(seen.iter().take(3));
    let one_by_one: Vec<_> = many.iter().map(|&e| p.community_path(e).unwrap()).collect();
    assert_eq!(p.community_paths(&many).unwrap(), one_by_one);
    assert!(p.community_paths(&[]).unwrap().is_empty());
    lv
}

#[test]
fn social_graph_round_trip() {
    let (_dir, rete, p) = social_pyramid(
        3000,
        PyramidOptions {
            max_top: 8,
            ..PyramidOptions::default()
        },
    );
    assert_ne!(rete.header().flags & FLAG_PYRAMID, 0);
    assert!(p.levels() >= 2);
    assert_eq!(p.entity_count(), 3000);
    let lv = check_consistency(&rete, &p);
    assert!(lv[p.levels() - 1].communities.len() <= 8);
    assert!(p.level_info()[0].modularity > 0.8, "{:?}", p.level_info());
    // Modularity falls (weakly) as communities merge.
    for w in p.level_info().windows(2) {
        assert!(w[1].modularity <= w[0].modularity + 1e-9);
    }
    let person = "<http://xmlns.com/foaf/0.1/Person>";
    for c in &lv[0].communities {
        assert_eq!(c.dominant_class.as_deref(), Some(person));
        assert_eq!(c.classes, vec![(person.to_owned(), c.size)]);
    }
    let knows = "<http://xmlns.com/foaf/0.1/knows>";
    for e in &lv[0].edges {
        assert_eq!(e.top_predicates, vec![(knows.to_owned(), e.weight)]);
    }
    let members = p.members(0).unwrap();
    assert!(members.iter().all(|m| m.label.is_some()));
    assert!(members.iter().all(|m| m.class.as_deref() == Some(person)));
    // A community's label is its most connected member's label: everyone is a person, so the
    // name does not say so.
    assert!(members
        .iter()
        .any(|m| m.label.as_deref() == Some(lv[0].communities[0].label.as_str())));
    // Classes and predicates are not entities.
    for iri in [
        "http://xmlns.com/foaf/0.1/Person",
        "http://xmlns.com/foaf/0.1/knows",
    ] {
        let id = rete
            .id_of(NamedNodeRef::new(iri).unwrap().into())
            .unwrap()
            .unwrap();
        assert_eq!(p.community_path(id).unwrap(), None);
    }
}

/// A coarser level re-runs Louvain at a lower resolution; at a very low one a single pass can
/// merge a whole level into a handful of communities. The level then takes the forced merge
/// down to its target instead, so no level shrinks by much more than the branching factor.
#[test]
fn a_low_resolution_does_not_collapse_a_level() {
    let (_dir, rete, p) = social_pyramid(
        3000,
        PyramidOptions {
            max_top: 8,
            branching: 4,
            coarsening: 0.01,
            ..PyramidOptions::default()
        },
    );
    check_consistency(&rete, &p);
    let info = p.level_info();
    assert!(info.len() >= 2, "{info:?}");
    // Each level keeps at least 1/branching of its target, itself at least 1/branching of the
    // level below (or the top's 8).
    assert!(info.last().unwrap().communities >= 2, "{info:?}");
    // The merge does not hand one community a neighbour per round: at the level's resolution
    // (0.01) it made 31 communities 8 at modularity 0.27, level 0's 0.87.
    for w in info.windows(2) {
        assert!(w[1].communities * 4 * 4 >= w[0].communities, "{info:?}");
        assert!(w[1].modularity >= 0.75 * w[0].modularity, "{info:?}");
    }
    let merged = info[1..].iter().find(|l| l.method == "merge");
    assert_eq!(merged.map(|l| l.resolution), Some(1.0), "{info:?}");
}

/// Asserts that each level-0 community of `inner` lies in one level-0 community of `outer`.
fn assert_level_0_nests(inner: &Pyramid, outer: &Pyramid) {
    for c in &inner.level(0).unwrap().communities {
        let mut outer_id = None;
        for m in inner.members(c.id).unwrap() {
            let path = outer.community_path(m.id).unwrap().unwrap();
            assert!(
                outer_id.is_none_or(|o| o == path[0]),
                "community {} spans two of the other pyramid's",
                c.id
            );
            outer_id = Some(path[0]);
        }
    }
}

/// A bound on level 0's mean community size ends Louvain at an earlier pass: level 0 then splits
/// the converged communities (each of its communities lies in one of them) and is bounded.
#[test]
fn level_0_stops_before_its_communities_grow_past_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 3000);
    let options = |mean_members| PyramidOptions {
        mean_members,
        ..PyramidOptions::default()
    };
    let (rete, free) = pyramid_of(&nt, &dir.path().join("free.rete"), options(usize::MAX));
    let (_, bounded) = pyramid_of(&nt, &dir.path().join("bounded.rete"), options(40));
    check_consistency(&rete, &bounded);
    let (f0, b0) = (free.level(0).unwrap(), bounded.level(0).unwrap());
    assert!(b0.communities.len() > f0.communities.len());
    // The default bound (500) leaves this graph's converged level 0 (~100 a community) as is.
    let (_, default) = pyramid_of(
        &nt,
        &dir.path().join("default.rete"),
        PyramidOptions::default(),
    );
    assert_eq!(default.level_info(), free.level_info());
    assert_level_0_nests(&bounded, &free);
    // Every entity of this graph has links, so the mean is over all of them.
    let members: u64 = b0.communities.iter().map(|c| c.size).sum();
    assert_eq!(members, bounded.entity_count());
    assert!(members <= 40 * b0.communities.len() as u64);
    assert!(f0.communities.iter().map(|c| c.size).max() > Some(40));
}

/// LUBM's second Louvain pass jumps from communities of ~5 entities to ones larger than the
/// bound: level 0 takes it, as the nearer of the two (refusing it left a level 0 of 4,125
/// communities at modularity 0.28 here, 327,830 at 80 universities).
#[test]
fn level_0_takes_a_pass_past_the_bound_when_it_is_nearer() {
    let dir = tempfile::tempdir().unwrap();
    let nt = lubm_nt(dir.path(), 1);
    // Louvain's level 0 as it is: no level of split pieces below it.
    let louvain_only = PyramidOptions {
        max_children: usize::MAX,
        ..PyramidOptions::default()
    };
    let (rete, bounded) = pyramid_of(&nt, &dir.path().join("b.rete"), louvain_only.clone());
    let options = PyramidOptions {
        mean_members: usize::MAX,
        ..louvain_only
    };
    let (_, free) = pyramid_of(&nt, &dir.path().join("free.rete"), options);
    check_consistency(&rete, &bounded);
    let (b0, f0) = (&bounded.level_info()[0], &free.level_info()[0]);
    assert!(b0.modularity > 0.85, "{:?}", bounded.level_info());
    // The pass taken is past the bound: fewer communities than the floor asks for.
    let floor = bounded.entity_count().div_ceil(500);
    assert!(b0.communities < floor, "{b0:?}, floor {floor}");
    assert!(b0.communities >= f0.communities);
    assert_level_0_nests(&bounded, &free);
}

#[test]
fn small_top_forces_merges_and_more_levels() {
    let (_dir, rete, p) = social_pyramid(
        2000,
        PyramidOptions {
            max_top: 2,
            branching: 3,
            ..PyramidOptions::default()
        },
    );
    assert!(p.levels() >= 3, "{:?}", p.level_info());
    let lv = check_consistency(&rete, &p);
    assert!(lv[p.levels() - 1].communities.len() <= 2);
    assert!(p.level_info()[1..]
        .iter()
        .any(|l| l.method.contains("merge")));
}

const EX: &str = "http://example.org/";
const TYPE: &str = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";

/// Two cliques of six joined by one edge, a blank node linked to the first clique, three entities
/// without links (two typed, one labelled), literals and named graphs.
fn small_dataset() -> String {
    let mut s = String::new();
    for g in ["a", "b"] {
        for i in 1..=6 {
            if g == "a" {
                s.push_str(&format!("<{EX}a{i}> {TYPE} <{EX}Person> .\n"));
            }
            for j in i + 1..=6 {
                s.push_str(&format!("<{EX}{g}{i}> <{EX}knows> <{EX}{g}{j}> .\n"));
            }
        }
    }
    s.push_str(&format!(
        "<{EX}a1> <http://www.w3.org/2000/01/rdf-schema#label> \"Alicia\"@de .\n\
         <{EX}a1> <http://www.w3.org/2000/01/rdf-schema#label> \"Alice\"@en .\n\
         <{EX}a1> <{EX}likes> <{EX}b1> .\n\
         _:x <{EX}linksTo> <{EX}a2> .\n\
         <{EX}a3> <{EX}age> \"42\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n\
         <{EX}lonely1> {TYPE} <{EX}Thing> .\n\
         <{EX}lonely2> {TYPE} <{EX}Thing> .\n\
         <{EX}lonely3> <http://www.w3.org/2000/01/rdf-schema#label> \"solo\" .\n"
    ));
    s
}

#[test]
fn known_small_graph() {
    let dir = tempfile::tempdir().unwrap();
    let nt = dir.path().join("small.nt");
    std::fs::write(&nt, small_dataset()).unwrap();
    let (rete, p) = pyramid_of(
        &nt,
        &dir.path().join("small.rete"),
        PyramidOptions::default(),
    );
    // 6 + 6 clique members, the blank node, three loners; classes are not entities.
    assert_eq!(p.entity_count(), 16);
    assert_eq!(p.edge_counts(), (15 + 15 + 1 + 1, 15 + 15 + 1 + 1));
    assert_eq!(p.levels(), 1);
    let lv = check_consistency(&rete, &p);
    let sizes: Vec<u64> = lv[0].communities.iter().map(|c| c.size).collect();
    assert_eq!(sizes, vec![7, 6, 2, 1]);
    let id = |local: &str| {
        rete.id_of(NamedNodeRef::new(&format!("{EX}{local}")).unwrap().into())
            .unwrap()
            .unwrap()
    };
    assert_eq!(p.community_path(id("a1")).unwrap(), Some(vec![0]));
    assert_eq!(p.community_path(id("b6")).unwrap(), Some(vec![1]));
    assert_eq!(p.community_path(id("lonely1")).unwrap(), Some(vec![2]));
    assert_eq!(p.community_path(id("lonely3")).unwrap(), Some(vec![3]));
    assert_eq!(p.community_path(id("Person")).unwrap(), None);
    let a = &lv[0].communities[0];
    assert_eq!(
        a.label, "Alice",
        "English label of the most connected member"
    );
    assert_eq!(
        a.dominant_class.as_deref(),
        Some("<http://example.org/Person>")
    );
    assert_eq!(
        a.classes,
        vec![("<http://example.org/Person>".to_owned(), 6)]
    );
    assert_eq!(
        lv[0].communities[1].label, "b1",
        "local name without a label"
    );
    assert_eq!(
        lv[0].communities[2].dominant_class.as_deref(),
        Some("<http://example.org/Thing>")
    );
    assert_eq!(lv[0].communities[3].label, "solo");
    assert_eq!(lv[0].edges.len(), 1);
    let e = &lv[0].edges[0];
    assert_eq!((e.source, e.target, e.weight), (0, 1, 1));
    assert_eq!(
        e.top_predicates,
        vec![("<http://example.org/likes>".to_owned(), 1)]
    );
    let members = p.members(0).unwrap();
    let a1 = members.iter().find(|m| m.id == id("a1")).unwrap();
    assert_eq!(a1.label.as_deref(), Some("Alice"));
    assert_eq!(a1.class.as_deref(), Some("<http://example.org/Person>"));
    assert!(members.iter().any(|m| m.term.starts_with("_:")));
    // Placed by their links: the blank node, linked to a2 only, sits nearest a2.
    let at = |m: &rete_pyramid::Member| (m.x, m.y);
    let nearest = |to: (f32, f32), members: &[rete_pyramid::Member], skip: Id| {
        members
            .iter()
            .filter(|m| m.id != skip)
            .min_by(|x, y| {
                let d = |m: &rete_pyramid::Member| (m.x - to.0).powi(2) + (m.y - to.1).powi(2);
                d(x).total_cmp(&d(y))
            })
            .unwrap()
            .id
    };
    let blank = members.iter().find(|m| m.term.starts_with("_:")).unwrap();
    assert_eq!(nearest(at(blank), &members, blank.id), id("a2"));
    // On the sunflower (files built before positions by links), the most connected member sits
    // at the centre.
    let (_, flat) = pyramid_of(
        &nt,
        &dir.path().join("flat.rete"),
        PyramidOptions {
            member_rounds: 0,
            ..PyramidOptions::default()
        },
    );
    assert_eq!(nearest((a.x, a.y), &flat.members(0).unwrap(), 0), id("a1"));
    // Bad requests are typed errors.
    assert!(matches!(p.level(1), Err(PyramidError::NotFound(_))));
    assert!(matches!(p.children(0, 0), Err(PyramidError::NotFound(_))));
    assert!(matches!(p.members(4), Err(PyramidError::NotFound(_))));
}

#[test]
fn same_triple_in_several_graphs_counts_once() {
    let dir = tempfile::tempdir().unwrap();
    let nq = dir.path().join("g.nq");
    std::fs::write(
        &nq,
        format!(
            "<{EX}s> <{EX}p> <{EX}o> <{EX}g1> .\n<{EX}s> <{EX}p> <{EX}o> <{EX}g2> .\n<{EX}s> <{EX}q> <{EX}o> .\n"
        ),
    )
    .unwrap();
    let (rete, p) = pyramid_of(&nq, &dir.path().join("g.rete"), PyramidOptions::default());
    assert_eq!(p.entity_count(), 2);
    assert_eq!(p.edge_counts(), (1, 2));
    check_consistency(&rete, &p);
}

#[test]
fn deterministic_files() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 1500);
    let (a, b) = (dir.path().join("a.rete"), dir.path().join("b.rete"));
    build_file(&nt, &a, Some(PyramidOptions::default()));
    build_file(&nt, &b, Some(PyramidOptions::default()));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

/// Members are placed by their links: on a ring of 4-cliques (each linked to the next), which
/// Louvain cuts into runs of cliques, linked members are much nearer each other than members in
/// general, where the sunflower (members by degree rank, `member_rounds: 0`, as files built
/// before) scatters them. Both are inside the community's circle.
#[test]
fn members_are_placed_by_their_links() {
    let dir = tempfile::tempdir().unwrap();
    let nt = dir.path().join("ring.nt");
    let mut links = Vec::new();
    for c in 0..40u32 {
        for a in 0..4 {
            for b in a + 1..4 {
                links.push((c * 4 + a, c * 4 + b));
            }
        }
        links.push((c * 4 + 3, (c + 1) % 40 * 4));
    }
    let t = |e: u32| format!("<http://example.org/e{e}>");
    let text: String = links
        .iter()
        .map(|&(a, b)| format!("{} <http://example.org/knows> {} .\n", t(a), t(b)))
        .collect();
    std::fs::write(&nt, text).unwrap();
    let linked: BTreeSet<(String, String)> = links
        .iter()
        .map(|&(a, b)| (t(a).min(t(b)), t(a).max(t(b))))
        .collect();
    // Mean distance of linked pairs over that of all pairs, over the level-0 communities.
    let ratio = |options: PyramidOptions, name: &str| {
        let (_, p) = pyramid_of(&nt, &dir.path().join(name), options);
        let level0 = p.level(0).unwrap();
        let (mut near, mut all) = ((0.0f64, 0u32), (0.0f64, 0u32));
        for c in &level0.communities {
            let members = p.members(c.id).unwrap();
            assert_eq!(members.len() as u64, c.size);
            for (i, a) in members.iter().enumerate() {
                let (dx, dy) = (a.x - c.x, a.y - c.y);
                assert!(
                    (dx * dx + dy * dy).sqrt() <= c.r,
                    "member outside its circle"
                );
                for b in &members[i + 1..] {
                    let d = f64::from(((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt());
                    let pair = (
                        a.term.clone().min(b.term.clone()),
                        a.term.clone().max(b.term.clone()),
                    );
                    if linked.contains(&pair) {
                        near = (near.0 + d, near.1 + 1);
                    }
                    all = (all.0 + d, all.1 + 1);
                }
            }
        }
        assert!(near.1 > 150, "{near:?}");
        (near.0 / f64::from(near.1)) / (all.0 / f64::from(all.1))
    };
    // A low resolution: runs of 8 cliques a community (32 members).
    let coarse = PyramidOptions {
        resolution: 0.05,
        member_rounds: rete_pyramid::MEMBER_LAYOUT_ROUNDS,
        ..PyramidOptions::default()
    };
    let by_links = ratio(coarse.clone(), "links.rete");
    let sunflower = ratio(
        PyramidOptions {
            member_rounds: 0,
            ..coarse
        },
        "sunflower.rete",
    );
    assert!(by_links < 0.5, "by links: {by_links}");
    assert!(sunflower > 0.7, "sunflower: {sunflower}");
}

#[test]
fn without_pyramid() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 200);
    let rete = build_file(&nt, &dir.path().join("plain.rete"), None);
    assert_eq!(rete.header().flags & FLAG_PYRAMID, 0);
    assert!(Pyramid::open(&rete).unwrap().is_none());
}

#[test]
fn bad_options_are_rejected() {
    for o in [
        PyramidOptions {
            max_top: 0,
            ..PyramidOptions::default()
        },
        PyramidOptions {
            resolution: f64::NAN,
            ..PyramidOptions::default()
        },
        PyramidOptions {
            max_levels: 1,
            ..PyramidOptions::default()
        },
    ] {
        assert!(matches!(o.validate(), Err(PyramidError::Options(_))));
    }
}

/// Shapes Louvain finds awkward: a big star, many two-entity components, many loners of a few
/// classes, a self-loop. The top must still fit `max_top` and every invariant hold.
#[test]
fn degenerate_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let nt = dir.path().join("shapes.nt");
    let mut s = String::new();
    for i in 0..3000 {
        s.push_str(&format!("<{EX}hub> <{EX}has> <{EX}leaf{i}> .\n"));
    }
    for i in 0..1500 {
        s.push_str(&format!("<{EX}x{i}> <{EX}pairs> <{EX}y{i}> .\n"));
    }
    for i in 0..2500 {
        let class = ["A", "B", "C"][i % 3];
        s.push_str(&format!("<{EX}loner{i}> {TYPE} <{EX}{class}> .\n"));
    }
    s.push_str(&format!("<{EX}narcissus> <{EX}loves> <{EX}narcissus> .\n"));
    std::fs::write(&nt, s).unwrap();
    let (rete, p) = pyramid_of(
        &nt,
        &dir.path().join("shapes.rete"),
        PyramidOptions {
            max_top: 16,
            isolated_group: 400,
            ..PyramidOptions::default()
        },
    );
    assert_eq!(p.entity_count(), 1 + 3000 + 3000 + 2500 + 1);
    let lv = check_consistency(&rete, &p);
    assert!(lv[p.levels() - 1].communities.len() <= 16);
    // The star is one community of Louvain's level, split into pieces of at most 1,000 on the
    // level below; loners come in class groups of at most 400.
    assert_eq!(p.level_info()[0].method, "split");
    assert_eq!(lv[1].communities[0].size, 3001);
    let star_pieces: Vec<u64> = lv[0]
        .communities
        .iter()
        .filter(|c| c.parent == Some(0))
        .map(|c| c.size)
        .collect();
    assert!(star_pieces.len() >= 4 && star_pieces.iter().all(|&n| n <= 1000));
    assert_eq!(star_pieces.iter().sum::<u64>(), 3001);
    let loner_groups: Vec<_> = lv[0]
        .communities
        .iter()
        // Unlabelled loners are named after their class (`A · 400`).
        .filter(|c| {
            ["A", "B", "C"]
                .iter()
                .any(|k| c.dominant_class.as_deref() == Some(&format!("<{EX}{k}>")))
        })
        .collect();
    assert!(loner_groups
        .iter()
        .all(|c| c.size <= 400 && c.classes.len() == 1));
    assert_eq!(loner_groups.iter().map(|c| c.size).sum::<u64>(), 2500);
    for c in &loner_groups {
        assert!(
            c.label.starts_with(['A', 'B', 'C']) && c.label.contains(" · "),
            "{}",
            c.label
        );
    }
}

/// A community of vocabulary terms is named after the vocabulary and the kind of term most of
/// its members are (`· 6 classes`); a community of people after
/// its most central member with a human label, skipping labels that are numbers, booleans,
/// codes or file names.
#[test]
fn community_labels_name_what_the_community_is() {
    let dir = tempfile::tempdir().unwrap();
    let nt = dir.path().join("labels.nt");
    let dbo = "http://dbpedia.org/ontology/";
    let owl_class = "<http://www.w3.org/2002/07/owl#Class>";
    let sub = "<http://www.w3.org/2000/01/rdf-schema#subClassOf>";
    let label = "<http://www.w3.org/2000/01/rdf-schema#label>";
    let mut s = String::new();
    let terms = [
        "Agent",
        "Person",
        "Athlete",
        "Artist",
        "Scientist",
        "Writer",
    ];
    for (i, t) in terms.iter().enumerate() {
        s.push_str(&format!("<{dbo}{t}> {TYPE} {owl_class} .\n"));
        for u in &terms[i + 1..] {
            s.push_str(&format!("<{dbo}{u}> {sub} <{dbo}{t}> .\n"));
        }
    }
    // People: the hub's label is a boolean, the next ones a code and a file name.
    for i in 0..6 {
        s.push_str(&format!("<{EX}p{i}> {TYPE} <{EX}Person> .\n"));
        for j in i + 1..6 {
            s.push_str(&format!("<{EX}p{i}> <{EX}knows> <{EX}p{j}> .\n"));
        }
    }
    s.push_str(&format!("<{EX}hub> {TYPE} <{EX}Person> .\n"));
    for i in 0..6 {
        s.push_str(&format!("<{EX}hub> <{EX}knows> <{EX}p{i}> .\n"));
    }
    s.push_str(&format!(
        "<{EX}hub> {label} \"true\"^^<http://www.w3.org/2001/XMLSchema#boolean> .\n\
         <{EX}p0> {label} \"Q42\" .\n\
         <{EX}p1> {label} \"minutes.pdf\" .\n\
         <{EX}p2> {label} \"S\" .\n\
         <{EX}p3> {label} \"Marie Curie\"@en .\n"
    ));
    std::fs::write(&nt, s).unwrap();
    let (rete, p) = pyramid_of(
        &nt,
        &dir.path().join("labels.rete"),
        PyramidOptions::default(),
    );
    let lv = check_consistency(&rete, &p);
    let mut labels: Vec<&str> = lv[0].communities.iter().map(|c| c.label.as_str()).collect();
    labels.sort_unstable();
    assert_eq!(labels, ["DBpedia ontology · 6 classes", "Marie Curie"]);
}

#[test]
fn pyramid_is_shareable() {
    fn shareable<T: Clone + Send + Sync + 'static>() {}
    shareable::<Pyramid>();
    shareable::<rete_pyramid::PyramidExtension>();
}

/// Under a tiny memory budget the entity graph's edges are not held: Louvain's first pass streams
/// them from the file (the stats say how many sweeps), and the pyramid is still complete, valid,
/// deterministic and as good as the in-memory one.
#[test]
fn tiny_budget_streams_the_first_pass() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 3000);
    let plain = build_file(&nt, &dir.path().join("plain.rete"), None);
    let tiny = PyramidOptions {
        memory_budget: 64 << 10,
        ..PyramidOptions::default()
    };
    let (_, held) = rete_pyramid::build_sections(&plain, &PyramidOptions::default()).unwrap();
    let (_, streamed) = rete_pyramid::build_sections(&plain, &tiny).unwrap();
    assert_eq!(held.streamed_sweeps, 0);
    assert!(streamed.streamed_sweeps >= 1, "{streamed:?}");
    // The coarse graph Louvain held is smaller than the entity graph.
    assert!(streamed.graph_bytes < held.graph_bytes, "{streamed:?}");
    // The streamed pass sees the same graph.
    assert_eq!(
        (streamed.entities, streamed.edges, streamed.triples),
        (held.entities, held.edges, held.triples)
    );
    let q = |s: &rete_pyramid::PyramidStats| s.levels[0].modularity;
    assert!(
        q(&streamed) > 0.9 * q(&held),
        "{} vs {}",
        q(&streamed),
        q(&held)
    );
    // A whole file built under the tiny budget: valid, and the same bytes twice.
    let (a, b) = (dir.path().join("a.rete"), dir.path().join("b.rete"));
    let rete = build_file(&nt, &a, Some(tiny.clone()));
    build_file(&nt, &b, Some(tiny));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let p = Pyramid::open(&rete).unwrap().expect("pyramid present");
    assert_eq!(p.entity_count(), held.entities);
    let lv = check_consistency(&rete, &p);
    assert!(lv[p.levels() - 1].communities.len() <= PyramidOptions::default().max_top);
}

/// A hub-and-spoke vocabulary: 5,000 properties around two classes (half object properties, half
/// datatype properties), which no modularity optimisation splits, beside a small ring of classes.
fn star_nt(dir: &std::path::Path) -> std::path::PathBuf {
    use rete_datagen::star::{write_properties, EX};
    use std::io::Write as _;
    let ex = EX;
    let rdf_type = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
    let owl = "http://www.w3.org/2002/07/owl#";
    let mut s = Vec::new();
    for hub in ["Hub", "Other"] {
        writeln!(s, "<{ex}{hub}> <{rdf_type}> <{owl}Class> .").unwrap();
    }
    writeln!(
        s,
        "<{ex}Other> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <{ex}Hub> ."
    )
    .unwrap();
    write_properties(5000, false, &mut s).unwrap();
    for i in 0..20 {
        writeln!(s, "<{ex}r{i}> <{ex}next> <{ex}r{}> .", (i + 1) % 20).unwrap();
    }
    let nt = dir.join("star.nt");
    std::fs::write(&nt, s).unwrap();
    nt
}

/// Asserts that no community of `lv` has more than 1,000 members (level 0) or children (above):
/// every group opens whole.
fn assert_opens_whole(lv: &[Level]) {
    assert!(lv[0].communities.iter().all(|c| c.size <= 1000));
    for l in 1..lv.len() {
        let mut children: BTreeMap<u32, usize> = BTreeMap::new();
        for c in &lv[l - 1].communities {
            *children.entry(c.parent.unwrap()).or_default() += 1;
        }
        assert!(children.values().all(|&n| n <= 1000), "level {l}");
    }
}

#[test]
fn a_star_opens_whole() {
    let dir = tempfile::tempdir().unwrap();
    let nt = star_nt(dir.path());
    let out = dir.path().join("star.rete");
    let (rete, p) = pyramid_of(&nt, &out, PyramidOptions::default());
    let lv = check_consistency(&rete, &p);
    let info = p.level_info();
    assert_eq!(info[0].method, "split", "{info:?}");
    // Louvain's own partition is kept as the level above the pieces.
    assert_eq!(info[1].method, "louvain");
    assert!(lv[1].communities.iter().any(|c| c.size > 1000));
    assert_opens_whole(&lv);
    assert!(lv[lv.len() - 1].communities.len() <= 1000);
    // Every member exactly once (check_consistency), and the same bytes from a second build.
    let first = std::fs::read(&out).unwrap();
    drop((rete, p));
    build_file(&nt, &out, Some(PyramidOptions::default()));
    assert_eq!(first, std::fs::read(&out).unwrap(), "deterministic bytes");
}

#[test]
fn a_star_opens_whole_when_the_first_pass_is_streamed() {
    // Within a budget too small to hold the entity graph the star is cut by key alone.
    let dir = tempfile::tempdir().unwrap();
    let nt = star_nt(dir.path());
    let options = PyramidOptions {
        memory_budget: 64 << 10,
        ..PyramidOptions::default()
    };
    let (rete, p) = pyramid_of(&nt, &dir.path().join("star.rete"), options);
    let lv = check_consistency(&rete, &p);
    assert_eq!(p.level_info()[0].method, "split");
    assert_opens_whole(&lv);
}

#[test]
fn no_split_without_large_groups() {
    // The social graph's communities are all small: no level of pieces.
    let (_dir, _, p) = social_pyramid(3000, PyramidOptions::default());
    assert!(p.level_info().iter().all(|l| l.method != "split"));
}

/// A community named after a member says what it holds when one kind of vocabulary term is a
/// good part of it: here 30 properties of three vocabularies around one class.
#[test]
fn a_group_of_properties_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let nt = dir.path().join("props.nt");
    let mut s = String::new();
    let hub = "<http://example.org/hub#Thing>";
    s.push_str(&format!(
        "{hub} {TYPE} <http://www.w3.org/2002/07/owl#Class> .\n"
    ));
    for i in 0..30 {
        let p = format!("<http://example.org/v{}#p{i}>", i % 3);
        s.push_str(&format!(
            "{p} {TYPE} <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> .\n\
             {p} <http://www.w3.org/2000/01/rdf-schema#domain> {hub} .\n\
             {p} <http://www.w3.org/2000/01/rdf-schema#label> \"property number {i}\"@en .\n"
        ));
    }
    std::fs::write(&nt, s).unwrap();
    let (rete, p) = pyramid_of(
        &nt,
        &dir.path().join("props.rete"),
        PyramidOptions::default(),
    );
    let lv = check_consistency(&rete, &p);
    let c = &lv[0].communities[0];
    assert_eq!(c.size, 31);
    assert!(c.label.ends_with(" · 30 properties"), "{}", c.label);
}
