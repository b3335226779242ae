//! The statistics pass of an extraction: one scan of the `rdf:type` slice and one of all
//! triples (instance counts, relations, literal properties, datatypes), turned into the schema's
//! counts once classes and properties have indexes, and the labels. Separate from the T-Box,
//! which reads only a few predicate slices; with the lookup tables the scan needs (type sets,
//! the id ranges of term kinds).

use super::Extractor;
use crate::hierarchy::closure;
use crate::vocab::*;
use crate::{LevelCount, LiteralProperty, Relation, Schema, SchemaError};
use oxrdf::Term;
use rete_core::{Id, Pattern, Rete, TermKind};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Statistics keyed by dictionary ids and interned type sets, before classes get indexes.
#[derive(Default)]
pub(super) struct RawStats {
    pub(super) typesets: Vec<Vec<Id>>,
    subjects_per_typeset: Vec<u64>,
    // Fx hashing: these take an entry per triple of the statistics scan, and SipHash cost more
    // than the rest of the scan's work; what is read from them is sorted or summed.
    pub(super) predicate_triples: FxHashMap<Id, u64>,
    relations: FxHashMap<(u32, Id, u32), u64>,
    literals: FxHashMap<(u32, Id, u32), u64>,
    datatypes: Vec<String>,
}

impl<'a> Extractor<'a> {
    /// One pass over the `rdf:type` slice and one over all triples.
    pub(super) fn raw_stats(&self) -> Result<RawStats, SchemaError> {
        let mut raw = RawStats::default();
        let kinds = IdKinds::new(self.rete)?;
        raw.datatypes = kinds.datatype_names();
        let mut interned: HashMap<Vec<Id>, u32> = HashMap::new();
        // Typed subjects with their type set, in increasing subject order (the PSO scan's):
        // 12 bytes a subject, where a hash map took about three times that.
        let mut subject_ts = TypeSets::default();
        if let Some(t) = self.id(RDF_TYPE) {
            // Sized once from the slice's count (an index lookup; at least one typed subject a
            // quad): growing by doubling held up to twice the columns at scale.
            let quads = self.rete.count(&Pattern::new(None, Some(t), None))?;
            subject_ts.reserve(usize::try_from(quads).unwrap_or(usize::MAX));
            // PSO order: the types of one subject arrive together, sorted.
            let mut cur: Option<(Id, Vec<Id>)> = None;
            let mut flush = |cur: Option<(Id, Vec<Id>)>, raw: &mut RawStats| {
                if let Some((s, mut types)) = cur {
                    types.dedup();
                    let next = raw.typesets.len() as u32;
                    let ts = *interned.entry(types.clone()).or_insert_with(|| {
                        raw.typesets.push(types);
                        raw.subjects_per_typeset.push(0);
                        next
                    });
                    raw.subjects_per_typeset[ts as usize] += 1;
                    subject_ts.push(s, ts);
                }
            };
            for q in self.rete.quads(&Pattern::new(None, Some(t), None))? {
                let [s, _, o, _] = q?;
                match &mut cur {
                    Some((cs, types)) if *cs == s => types.push(o),
                    _ => {
                        flush(cur.take(), &mut raw);
                        cur = Some((s, vec![o]));
                    }
                }
            }
            flush(cur, &mut raw);
        }
        subject_ts.seal(kinds.literal_start);
        let rdf_type = self.id(RDF_TYPE);
        let mut prev: Option<[Id; 3]> = None;
        let mut last_subject: Option<(Id, Option<u32>)> = None;
        for q in self.rete.quads(&Pattern::default())? {
            let [s, p, o, _] = q?;
            if prev == Some([s, p, o]) {
                continue;
            }
            prev = Some([s, p, o]);
            *raw.predicate_triples.entry(p).or_default() += 1;
            if Some(p) == rdf_type {
                continue;
            }
            let tss = match last_subject {
                Some((ls, ts)) if ls == s => ts,
                _ => {
                    let ts = subject_ts.get(s);
                    last_subject = Some((s, ts));
                    ts
                }
            };
            let Some(tss) = tss else { continue };
            if let Some(dt) = kinds.datatype(o) {
                *raw.literals.entry((tss, p, dt)).or_default() += 1;
            } else if let Some(tso) = subject_ts.get(o) {
                *raw.relations.entry((tss, p, tso)).or_default() += 1;
            }
        }
        Ok(raw)
    }

    pub(super) fn apply_stats(
        &self,
        schema: &mut Schema,
        raw: RawStats,
        cix: &HashMap<Id, u32>,
        pix: &HashMap<Id, u32>,
    ) -> Result<(), SchemaError> {
        let n = schema.classes.len();
        let ts_classes: Vec<Vec<u32>> = raw
            .typesets
            .iter()
            .map(|ts| {
                let mut v: Vec<u32> = ts.iter().filter_map(|i| cix.get(i).copied()).collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let mut up: Vec<Vec<u32>> = schema.classes.iter().map(|c| c.parents.clone()).collect();
        for &(a, b) in &schema.equivalent {
            up[a as usize].push(b);
            up[b as usize].push(a);
        }
        let max_depth = schema.classes.iter().map(|c| c.depth).max();
        let mut levels: Vec<LevelCount> = (0..max_depth.map_or(0, |d| d as usize + 1))
            .map(|d| LevelCount {
                depth: d as u32,
                classes: 0,
                direct_instances: 0,
                total_instances: 0,
            })
            .collect();
        for c in &schema.classes {
            levels[c.depth as usize].classes += 1;
        }
        let mut direct = vec![0u64; n];
        let mut total = vec![0u64; n];
        let mut seen = Vec::new();
        for (ts, &count) in ts_classes.iter().zip(&raw.subjects_per_typeset) {
            if ts.is_empty() {
                continue;
            }
            schema.typed_instances += count;
            let mut dl = BTreeSet::new();
            for &c in ts {
                direct[c as usize] += count;
                dl.insert(schema.classes[c as usize].depth);
            }
            let mut tl = BTreeSet::new();
            for c in closure(&up, ts, &mut seen) {
                total[c as usize] += count;
                tl.insert(schema.classes[c as usize].depth);
            }
            for d in dl {
                levels[d as usize].direct_instances += count;
            }
            for d in tl {
                levels[d as usize].total_instances += count;
            }
        }
        for (c, (d, t)) in schema.classes.iter_mut().zip(direct.into_iter().zip(total)) {
            c.direct_instances = d;
            c.total_instances = t;
        }
        schema.levels = levels;
        for (p, count) in &raw.predicate_triples {
            if let Some(&i) = pix.get(p) {
                schema.properties[i as usize].triples = *count;
            }
        }
        schema.relations = per_class(
            &raw.relations,
            pix,
            &ts_classes,
            Some(ts_classes.as_slice()),
        )
        .into_iter()
        .map(|((domain, p, range), count)| Relation {
            domain,
            predicate: schema.properties[p as usize].iri.clone(),
            range,
            count,
        })
        .collect();
        schema.literal_properties = per_class(&raw.literals, pix, &ts_classes, None)
            .into_iter()
            .map(|((class, p, dt), count)| LiteralProperty {
                class,
                predicate: schema.properties[p as usize].iri.clone(),
                datatype: raw.datatypes.get(dt as usize).cloned().unwrap_or_default(),
                count,
            })
            .collect();
        Ok(())
    }

    /// The preferred `rdfs:label` of every class and property: English, then untagged, then any;
    /// ties broken by the text so that builds are reproducible.
    pub(super) fn labels(
        &self,
        schema: &mut Schema,
        class_ids: &[Id],
        prop_ids: &[Id],
    ) -> Result<(), SchemaError> {
        let Some(label) = self.id(RDFS_LABEL) else {
            return Ok(());
        };
        let best = |id: Id| -> Result<Option<String>, SchemaError> {
            let mut best: Option<(u8, String)> = None;
            for o in self.objects(id, Some(label))? {
                if let Term::Literal(l) = self.rete.term(o)? {
                    let rank = match l.language() {
                        Some(lang) if lang == "en" || lang.starts_with("en-") => 0,
                        None => 1,
                        Some(_) => 2,
                    };
                    let cand = (rank, l.value().to_owned());
                    if best.as_ref().is_none_or(|b| cand < *b) {
                        best = Some(cand);
                    }
                }
            }
            Ok(best.map(|b| b.1))
        };
        for (c, &id) in schema.classes.iter_mut().zip(class_ids) {
            c.label = best(id)?;
        }
        for (p, &id) in schema.properties.iter_mut().zip(prop_ids) {
            p.label = best(id)?;
        }
        Ok(())
    }
}

/// Each typed subject's type set: two sorted columns while the `rdf:type` slice is read, then,
/// where it is not much larger, one slot per term id below the literals. The statistics scan
/// looks up the object of every triple: a binary search over millions of subjects missed the
/// cache at each step (about 14 misses a lookup at 100 M triples), a slot misses once.
#[derive(Debug, Default)]
struct TypeSets {
    subjects: Vec<Id>,
    sets: Vec<u32>,
    /// Term id → type set, [`NO_TYPES`] for an untyped term; empty when the columns serve.
    dense: Vec<u32>,
}

/// A term without types in [`TypeSets::dense`].
const NO_TYPES: u32 = u32::MAX;

/// Slots the dense index may take whatever the number of typed subjects (64 MiB).
const DENSE_FREE: u64 = 16 << 20;

impl TypeSets {
    /// Appends `s` (in increasing order, as the scan gives them; [`TypeSets::seal`] sorts
    /// otherwise).
    fn reserve(&mut self, n: usize) {
        self.subjects.reserve_exact(n);
        self.sets.reserve_exact(n);
    }

    fn push(&mut self, s: Id, ts: u32) {
        self.subjects.push(s);
        self.sets.push(ts);
    }

    /// Makes the columns sorted by subject, whatever the push order was, then turns them into
    /// the dense index when `id_end` (the first id that is not an IRI or blank node, beyond
    /// every subject) slots take at most `DENSE_FREE` or 4 per typed subject (16 bytes against
    /// the columns' 12).
    fn seal(&mut self, id_end: Id) {
        if self.subjects.windows(2).all(|w| w[0] < w[1]) {
            // Several types a subject left the columns over-sized.
            self.subjects.shrink_to_fit();
            self.sets.shrink_to_fit();
        } else {
            let mut pairs: Vec<(Id, u32)> = self
                .subjects
                .iter()
                .copied()
                .zip(self.sets.iter().copied())
                .collect();
            pairs.sort_unstable();
            pairs.dedup_by_key(|p| p.0);
            (self.subjects, self.sets) = pairs.into_iter().unzip();
        }
        let fits = self.subjects.last().is_none_or(|&s| s < id_end);
        let slots = usize::try_from(id_end).ok();
        if let Some(slots) = slots.filter(|_| {
            fits && id_end <= (4 * self.subjects.len() as u64).max(DENSE_FREE)
                && self.sets.iter().all(|&t| t != NO_TYPES)
        }) {
            let mut dense = vec![NO_TYPES; slots];
            for (&s, &t) in self.subjects.iter().zip(&self.sets) {
                dense[s as usize] = t;
            }
            self.dense = dense;
            self.subjects = Vec::new();
            self.sets = Vec::new();
        }
    }

    fn get(&self, s: Id) -> Option<u32> {
        if !self.dense.is_empty() {
            return match self.dense.get(usize::try_from(s).ok()?) {
                Some(&t) if t != NO_TYPES => Some(t),
                _ => None,
            };
        }
        self.subjects.binary_search(&s).ok().map(|i| self.sets[i])
    }
}

/// Where the kinds of terms lie in the id space: the dictionary is sorted by encoding, whose
/// first byte is the term tag, so IRIs, blank nodes, simple, language-tagged and typed literals
/// are five consecutive id ranges, and typed literals are grouped by datatype.
struct IdKinds {
    literal_start: Id,
    lang_start: Id,
    typed_start: Id,
    /// `(end, datatype index)` of consecutive typed-literal ranges.
    typed: Vec<(Id, u32)>,
    names: Vec<String>,
}

impl IdKinds {
    fn new(rete: &Rete) -> Result<Self, SchemaError> {
        let end = rete.term_count() + 1;
        let literal_start = rete.first_of_kind(TermKind::SimpleLiteral)?;
        let lang_start = rete.first_of_kind(TermKind::LangLiteral)?;
        let typed_start = rete.first_of_kind(TermKind::TypedLiteral)?;
        let mut names = vec![XSD_STRING.to_owned(), RDF_LANG_STRING.to_owned()];
        let mut name_ix: HashMap<Vec<u8>, u32> = HashMap::new();
        let mut typed = Vec::new();
        let mut start = typed_start;
        while start < end {
            let b = rete.term_bytes(start)?;
            let nul = b.iter().position(|&x| x == 0).unwrap_or(b.len());
            let prefix = b[..nul.min(b.len())].to_vec();
            let has = |id: Id| -> Result<bool, SchemaError> {
                let t = rete.term_bytes(id)?;
                Ok(t.len() > prefix.len() && t.starts_with(&prefix) && t[prefix.len()] == 0)
            };
            // Gallop then bisect to the end of this datatype's range.
            let (mut lo, mut step) = (start, 1u64);
            let mut hi = loop {
                let probe = start.saturating_add(step);
                if probe >= end {
                    break end;
                }
                if has(probe)? {
                    lo = probe;
                    step = step.saturating_mul(2);
                } else {
                    break probe;
                }
            };
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if has(mid)? {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            hi = hi.max(start + 1);
            let next = names.len() as u32;
            let ix = *name_ix.entry(prefix.clone()).or_insert_with(|| {
                names.push(String::from_utf8_lossy(prefix.get(1..).unwrap_or_default()).into());
                next
            });
            typed.push((hi, ix));
            start = hi;
        }
        Ok(Self {
            literal_start,
            lang_start,
            typed_start,
            typed,
            names,
        })
    }

    /// Index into [`IdKinds::datatype_names`] of a literal's datatype; `None` for IRIs and
    /// blank nodes.
    fn datatype(&self, id: Id) -> Option<u32> {
        if id < self.literal_start {
            None
        } else if id < self.lang_start {
            Some(0)
        } else if id < self.typed_start {
            Some(1)
        } else {
            let i = self.typed.partition_point(|&(end, _)| end <= id);
            self.typed.get(i).map(|&(_, ix)| ix)
        }
    }

    fn datatype_names(&self) -> Vec<String> {
        self.names.clone()
    }
}

/// Sums `counts`, keyed `(subject type set, predicate, object)`, into counts keyed `(class,
/// property index, object)`, in order: a subject type set counts for each of its classes, an
/// object for each class of its type set when `object_classes` gives them (relations) or as
/// itself (a datatype); predicates that are not indexed properties are left out.
fn per_class(
    counts: &FxHashMap<(u32, Id, u32), u64>,
    pix: &HashMap<Id, u32>,
    ts_classes: &[Vec<u32>],
    object_classes: Option<&[Vec<u32>]>,
) -> BTreeMap<(u32, u32, u32), u64> {
    let mut out: BTreeMap<(u32, u32, u32), u64> = BTreeMap::new();
    for (&(a, p, o), &count) in counts {
        let Some(&pi) = pix.get(&p) else { continue };
        let objects = match object_classes {
            Some(classes) => classes[o as usize].as_slice(),
            None => std::slice::from_ref(&o),
        };
        for &ca in &ts_classes[a as usize] {
            for &ob in objects {
                *out.entry((ca, pi, ob)).or_default() += count;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{TypeSets, DENSE_FREE};

    fn sets(pairs: &[(u64, u32)], id_end: u64) -> TypeSets {
        let mut t = TypeSets::default();
        for &(s, ts) in pairs {
            t.push(s, ts);
        }
        t.seal(id_end);
        t
    }

    #[test]
    fn type_sets_answer_the_same_dense_or_not() {
        // Out of order, one subject twice (the first kept), ids 0 and past the subjects probed.
        let pairs = [(9, 2), (3, 0), (7, 1), (3, 5), (12, 4)];
        let dense = sets(&pairs, 20);
        assert!(!dense.dense.is_empty(), "20 slots fit the free allowance");
        // A subject at or past `id_end` (not an IRI or blank node): the columns serve.
        let columns = sets(&pairs, 12);
        assert!(columns.dense.is_empty());
        for id in 0..40 {
            let want = match id {
                3 => Some(0),
                7 => Some(1),
                9 => Some(2),
                12 => Some(4),
                _ => None,
            };
            assert_eq!(dense.get(id), want, "dense, id {id}");
            assert_eq!(columns.get(id), want, "columns, id {id}");
        }
    }

    #[test]
    fn type_sets_stay_columns_when_slots_would_outgrow_them() {
        // Two typed subjects among more ids than the free allowance: slots would cost far more
        // than the columns.
        let far = DENSE_FREE * 2;
        let t = sets(&[(1, 0), (far - 1, 1)], far);
        assert!(t.dense.is_empty());
        assert_eq!(t.get(far - 1), Some(1));
        assert_eq!(t.get(2), None);
        // As many typed subjects as a quarter of the ids: dense.
        let many: Vec<(u64, u32)> = (0..far / 4).map(|i| (i * 4, (i % 3) as u32)).collect();
        let t = sets(&many, far);
        assert!(!t.dense.is_empty());
        assert_eq!(t.get(8), Some(2));
        assert_eq!(t.get(9), None);
    }
}
