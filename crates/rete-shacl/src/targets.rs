//! Focus nodes of a shape's targets: `sh:targetNode` as given, class targets through the
//! instances of the class and its subclasses, `sh:targetSubjectsOf` / `sh:targetObjectsOf` as
//! one predicate scan each.

use crate::data::DataGraph;
use crate::error::Result;
use crate::shapes::Target;
use oxrdf::Term;
use rustc_hash::FxHashSet as HashSet;

/// The distinct focus nodes of `targets`, in first-seen order.
pub fn focus_nodes(data: &DataGraph<'_>, targets: &[Target]) -> Result<Vec<Term>> {
    let mut out = Vec::new();
    let mut seen = HashSet::default();
    for t in targets {
        let nodes = match t {
            Target::Node(n) => vec![n.clone()],
            Target::Class(c) => data.instances(c)?,
            Target::SubjectsOf(p) => data.subjects_of(p.as_ref())?,
            Target::ObjectsOf(p) => data.objects_of(p.as_ref())?,
        };
        for n in nodes {
            if seen.insert(n.clone()) {
                out.push(n);
            }
        }
    }
    Ok(out)
}
