//! The data graph: the union of all graphs of a `.rete` file, read one triple pattern at a time
//! (each pattern is one contiguous range of one permutation, so only the blocks a shape needs
//! are decompressed, or fetched over HTTP).

use crate::error::Result;
use crate::vocab::{RDFS_SUB_CLASS_OF, RDF_TYPE};
use oxrdf::{NamedNode, NamedNodeRef, Term};
use rete_core::{Id, Pattern, Rete};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::RefCell;
use std::collections::VecDeque;

/// Id ⇄ term caches over one open file. Not shared between threads: one per validation.
pub struct DataGraph<'a> {
    rete: &'a Rete,
    ids: RefCell<HashMap<Term, Option<Id>>>,
    terms: RefCell<HashMap<Id, Term>>,
    /// `sh:class` checks repeat the same (node, class) pairs: every `knows` value is a person.
    instance_of: RefCell<HashMap<(Id, Id), bool>>,
}

impl std::fmt::Debug for DataGraph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataGraph")
            .field("file", &self.rete.name())
            .finish()
    }
}

/// Caches stop growing past this many terms (a 100 M-triple file must not grow them unbounded).
const CACHE_LIMIT: usize = 1 << 20;

impl<'a> DataGraph<'a> {
    /// A data graph over `rete`.
    pub fn new(rete: &'a Rete) -> Self {
        Self {
            rete,
            ids: RefCell::default(),
            terms: RefCell::default(),
            instance_of: RefCell::default(),
        }
    }

    /// The file read.
    pub fn rete(&self) -> &'a Rete {
        self.rete
    }

    /// The id of `t`, `None` when the file does not hold it.
    pub fn id(&self, t: &Term) -> Result<Option<Id>> {
        if let Some(id) = self.ids.borrow().get(t) {
            return Ok(*id);
        }
        let id = self.rete.id_of(t.as_ref())?;
        let mut ids = self.ids.borrow_mut();
        if ids.len() >= CACHE_LIMIT {
            ids.clear();
        }
        ids.insert(t.clone(), id);
        Ok(id)
    }

    fn named_id(&self, n: NamedNodeRef<'_>) -> Result<Option<Id>> {
        self.id(&Term::NamedNode(n.into_owned()))
    }

    /// The term of id `id`.
    pub fn term(&self, id: Id) -> Result<Term> {
        if let Some(t) = self.terms.borrow().get(&id) {
            return Ok(t.clone());
        }
        let t = self.rete.term(id)?;
        let mut terms = self.terms.borrow_mut();
        if terms.len() >= CACHE_LIMIT {
            terms.clear();
        }
        terms.insert(id, t.clone());
        // A decoded node is soon looked up again (its values): remember its id too, so that is
        // not a dictionary search (past the cache limit, at 10 M triples and more, it would be).
        let mut ids = self.ids.borrow_mut();
        if ids.len() >= CACHE_LIMIT {
            ids.clear();
        }
        ids.insert(t.clone(), Some(id));
        Ok(t)
    }

    /// Distinct ids at `position` (0 s, 1 p, 2 o) of the quads matching the pattern, in id order.
    fn column(
        &self,
        s: Option<Id>,
        p: Option<Id>,
        o: Option<Id>,
        position: usize,
    ) -> Result<Vec<Id>> {
        let mut out = Vec::new();
        for q in self.rete.quads(&Pattern::new(s, p, o))? {
            out.push(q?[position]);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    fn terms_of(&self, ids: Vec<Id>) -> Result<Vec<Term>> {
        ids.into_iter().map(|id| self.term(id)).collect()
    }

    /// The objects of `s p ?o`.
    pub fn objects(&self, s: &Term, p: NamedNodeRef<'_>) -> Result<Vec<Term>> {
        if s.is_literal() {
            return Ok(Vec::new());
        }
        let (Some(s), Some(p)) = (self.id(s)?, self.named_id(p)?) else {
            return Ok(Vec::new());
        };
        let ids = self.column(Some(s), Some(p), None, 2)?;
        self.terms_of(ids)
    }

    /// The subjects of `?s p o`.
    pub fn subjects(&self, p: NamedNodeRef<'_>, o: &Term) -> Result<Vec<Term>> {
        let (Some(p), Some(o)) = (self.named_id(p)?, self.id(o)?) else {
            return Ok(Vec::new());
        };
        let ids = self.column(None, Some(p), Some(o), 0)?;
        self.terms_of(ids)
    }

    /// The ids of every subject of a `p` triple, in id order.
    pub fn subject_ids_of(&self, p: NamedNodeRef<'_>) -> Result<Vec<Id>> {
        let Some(p) = self.named_id(p)? else {
            return Ok(Vec::new());
        };
        self.column(None, Some(p), None, 0)
    }

    /// The ids of every object of a `p` triple, in id order.
    pub fn object_ids_of(&self, p: NamedNodeRef<'_>) -> Result<Vec<Id>> {
        let Some(p) = self.named_id(p)? else {
            return Ok(Vec::new());
        };
        self.column(None, Some(p), None, 2)
    }

    /// The ids of the SHACL instances of `class`, in id order: ids are 8 bytes where terms are
    /// strings, so a class of millions of focus nodes is held as ids and decoded one at a time.
    pub fn instance_ids(&self, class: &Term) -> Result<Vec<Id>> {
        let Some(t) = self.named_id(RDF_TYPE)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        let classes = self.subclasses(class)?;
        for c in &classes {
            if let Some(c) = self.id(c)? {
                out.extend(self.column(None, Some(t), Some(c), 0)?);
            }
        }
        if classes.len() > 1 {
            out.sort_unstable();
            out.dedup();
        }
        Ok(out)
    }

    /// Every `(predicate, object)` of `s`.
    pub fn outgoing(&self, s: &Term) -> Result<Vec<(NamedNode, Term)>> {
        if s.is_literal() {
            return Ok(Vec::new());
        }
        let Some(s) = self.id(s)? else {
            return Ok(Vec::new());
        };
        let mut pairs = Vec::new();
        for q in self.rete.quads(&Pattern::new(Some(s), None, None))? {
            let q = q?;
            pairs.push((q[1], q[2]));
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut out = Vec::with_capacity(pairs.len());
        for (p, o) in pairs {
            if let Term::NamedNode(p) = self.term(p)? {
                out.push((p, self.term(o)?));
            }
        }
        Ok(out)
    }

    /// `class` and its subclasses (`rdfs:subClassOf*`, reversed) in the data graph.
    fn subclasses(&self, class: &Term) -> Result<Vec<Term>> {
        let mut seen: HashSet<Term> = HashSet::default();
        seen.insert(class.clone());
        let mut queue = VecDeque::from([class.clone()]);
        while let Some(c) = queue.pop_front() {
            for sub in self.subjects(RDFS_SUB_CLASS_OF, &c)? {
                if seen.insert(sub.clone()) {
                    queue.push_back(sub);
                }
            }
        }
        Ok(seen.into_iter().collect())
    }

    /// Whether `node` is a SHACL instance of `class` (a type of it is `class` or below it).
    pub fn is_instance(&self, node: &Term, class: &Term) -> Result<bool> {
        // Keyed by ids (no term clones): a node or class the file does not hold has no types.
        let (Some(n), Some(c)) = (self.id(node)?, self.id(class)?) else {
            return Ok(false);
        };
        if let Some(b) = self.instance_of.borrow().get(&(n, c)) {
            return Ok(*b);
        }
        let b = self.types_reach(node, class)?;
        let mut memo = self.instance_of.borrow_mut();
        if memo.len() >= CACHE_LIMIT {
            memo.clear();
        }
        memo.insert((n, c), b);
        Ok(b)
    }

    /// Whether a type of `node`, or a superclass of one, is `class`.
    fn types_reach(&self, node: &Term, class: &Term) -> Result<bool> {
        let mut seen = HashSet::default();
        let mut queue: VecDeque<Term> = self.objects(node, RDF_TYPE)?.into();
        while let Some(t) = queue.pop_front() {
            if &t == class {
                return Ok(true);
            }
            if seen.insert(t.clone()) {
                queue.extend(self.objects(&t, RDFS_SUB_CLASS_OF)?);
            }
        }
        Ok(false)
    }
}
