//! The `rdfs:subClassOf` graph: strongly connected components, depths, upward closures.

use crate::Class;
use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::VecDeque;

/// Component id of every class in the child→parent graph (an iterative algorithm, so a deep
/// hierarchy cannot overflow the stack).
fn components(parents: &[Vec<u32>]) -> (Vec<u32>, Vec<Vec<u32>>) {
    let mut g = DiGraph::<(), ()>::with_capacity(parents.len(), 0);
    for _ in 0..parents.len() {
        g.add_node(());
    }
    for (c, ps) in parents.iter().enumerate() {
        for &p in ps {
            g.add_edge(NodeIndex::new(c), NodeIndex::new(p as usize), ());
        }
    }
    let sccs = kosaraju_scc(&g);
    let mut comp = vec![0u32; parents.len()];
    let mut members = Vec::with_capacity(sccs.len());
    for (i, scc) in sccs.into_iter().enumerate() {
        let mut m: Vec<u32> = scc.into_iter().map(|n| n.index() as u32).collect();
        m.sort_unstable();
        for &c in &m {
            comp[c as usize] = i as u32;
        }
        members.push(m);
    }
    (comp, members)
}

/// Longest path from each class up to a root; the classes of a cycle share one depth.
pub(crate) fn depths(parents: &[Vec<u32>]) -> Vec<u32> {
    let (comp, members) = components(parents);
    let k = members.len();
    // Condensation: edges from a component to its parents' components; Kahn's algorithm from
    // the root components downwards.
    let mut up: Vec<Vec<u32>> = vec![Vec::new(); k];
    let mut down: Vec<Vec<u32>> = vec![Vec::new(); k];
    for (c, ps) in parents.iter().enumerate() {
        for &p in ps {
            let (a, b) = (comp[c], comp[p as usize]);
            if a != b {
                up[a as usize].push(b);
                down[b as usize].push(a);
            }
        }
    }
    let mut pending: Vec<usize> = up
        .iter_mut()
        .map(|u| {
            u.sort_unstable();
            u.dedup();
            u.len()
        })
        .collect();
    for d in &mut down {
        d.sort_unstable();
        d.dedup();
    }
    let mut depth = vec![0u32; k];
    let mut queue: VecDeque<u32> = (0..k as u32)
        .filter(|&i| pending[i as usize] == 0)
        .collect();
    while let Some(a) = queue.pop_front() {
        for &b in &down[a as usize] {
            depth[b as usize] = depth[b as usize].max(depth[a as usize] + 1);
            pending[b as usize] -= 1;
            if pending[b as usize] == 0 {
                queue.push_back(b);
            }
        }
    }
    comp.iter().map(|&c| depth[c as usize]).collect()
}

/// The `rdfs:subClassOf` cycles: sets of two or more classes that are each other's subclasses
/// (sorted, in ascending order of their first member).
pub fn subclass_cycles(parents: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let (_, members) = components(parents);
    let mut v: Vec<Vec<u32>> = members.into_iter().filter(|m| m.len() > 1).collect();
    v.sort();
    v
}

/// Classes reachable upwards from `start` through `up` edges (start included), in BFS order.
pub(crate) fn closure(up: &[Vec<u32>], start: &[u32], seen: &mut Vec<bool>) -> Vec<u32> {
    seen.clear();
    seen.resize(up.len(), false);
    let mut out = Vec::new();
    for &s in start {
        if !seen[s as usize] {
            seen[s as usize] = true;
            out.push(s);
        }
    }
    let mut i = 0;
    while i < out.len() {
        let c = out[i];
        for &p in &up[c as usize] {
            if !seen[p as usize] {
                seen[p as usize] = true;
                out.push(p);
            }
        }
        i += 1;
    }
    out
}

/// The classes of `iris` with their direct superclasses, in index order: depths from the
/// hierarchy, no label and no instance counted yet.
pub(crate) fn classes(iris: Vec<String>, parents: Vec<Vec<u32>>) -> Vec<Class> {
    let depths = depths(&parents);
    iris.into_iter()
        .zip(parents)
        .zip(depths)
        .enumerate()
        .map(|(i, ((iri, parents), depth))| Class {
            index: i as u32,
            iri,
            label: None,
            parents,
            depth,
            direct_instances: 0,
            total_instances: 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_and_cycles() {
        // 0 root; 1 ⊑ 0; 2 ⊑ 1; 3 ⊑ 0 and 3 ⊑ 2; 4 ⊑ 5 ⊑ 4 ⊑ 3.
        let parents = vec![vec![], vec![0], vec![1], vec![0, 2], vec![5, 3], vec![4]];
        assert_eq!(depths(&parents), [0, 1, 2, 3, 4, 4]);
        assert_eq!(subclass_cycles(&parents), [vec![4, 5]]);
        let mut seen = Vec::new();
        let mut c = closure(&parents, &[2], &mut seen);
        c.sort_unstable();
        assert_eq!(c, [0, 1, 2]);
    }
}
