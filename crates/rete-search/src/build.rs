//! Building the search sections from a finished base dataset: the labels of the label
//! predicates and the local names of IRIs become documents, numbered by importance (degree), and
//! their words become a sorted token dictionary whose postings list documents in that order.

use crate::codec::{kind, BatchWriter, Buf, DOCS_PER_BLOCK, DOC_DIR_ENTRY, META_MAGIC, VERSION};
use crate::lead_runs::LeadRuns;
use crate::normalize::{has_words, label_words_into, Flat, Scratch, Source};
use crate::ticker::Ticker;
use crate::token_blocks::{encode_tokens, Encoded};
use crate::{Kind, SearchError, SearchOptions, MAX_CLASSES, MAX_NTOK};
use oxrdf::{NamedNodeRef, Term, TermRef};
use rayon::prelude::*;
use rete_build::{NoProgress, Progress};
use rete_core::format::varint;
use rete_core::vocab::local_name;
use rete_core::writer::SectionSpec;
use rete_core::{Id, Pattern, Perm, Rete, TermKind};
use rustc_hash::FxHashMap;
use std::str::FromStr;
use std::time::Instant;

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const CLASS_TYPES: [&str; 2] = [
    "http://www.w3.org/2002/07/owl#Class",
    "http://www.w3.org/2000/01/rdf-schema#Class",
];
const PROPERTY_TYPES: [&str; 4] = [
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property",
    "http://www.w3.org/2002/07/owl#ObjectProperty",
    "http://www.w3.org/2002/07/owl#DatatypeProperty",
    "http://www.w3.org/2002/07/owl#AnnotationProperty",
];

/// Bytes a document costs in memory besides its label, about (struct, map entries, postings).
const DOC_OVERHEAD: u64 = 96;
/// Documents split into words at once, in parallel (a few MB of words).
const WORDS_BATCH: usize = 1 << 14;
/// Label quads whose literals are read from the dictionary together.
const LABELS_BATCH: usize = 4096;
/// Documents split into one [`Flat`] by one task of a batch.
const WORDS_RUN: usize = 512;
/// What a build of the index measured.
#[derive(Debug, Clone, Default)]
pub struct BuildStats {
    /// Documents (label, term pairs) indexed.
    pub documents: u64,
    /// Distinct tokens.
    pub tokens: u64,
    /// Local names of unlabelled entities left out to stay within the memory budget.
    pub skipped_local_names: u64,
    /// `(step, milliseconds)`.
    pub steps: Vec<(String, f64)>,
}

/// A document: a label of a term. Millions of them are held at once, so the label's text lives
/// in one shared buffer ([`Docs::text`]) and the term's weight and classes in the document,
/// found by merging the scans with the documents sorted by term (no map keyed by term).
struct Doc {
    term: Id,
    /// The label's literal in the dictionary (0 for a local name: the term's IRI holds it).
    literal: Id,
    /// Importance: uses of the term as a class or predicate, plus its links either way.
    weight: u64,
    /// The label: bytes `at .. at + len` of [`Docs::text`].
    at: u64,
    len: u32,
    /// 0: none, else index + 1 into the language table.
    lang: u32,
    /// Index into the label predicates; `predicates.len()` for a local name.
    pred: u32,
    /// 0: none, else index + 1 into [`ClassLists`].
    classes: u32,
    kind: Kind,
}

/// The documents and the text of their labels.
#[derive(Default)]
struct Docs {
    docs: Vec<Doc>,
    text: String,
}

impl Doc {
    fn label<'t>(&self, text: &'t str) -> &'t str {
        &text[self.at as usize..self.at as usize + self.len as usize]
    }
}

impl Docs {
    /// Adds the document of `label` for `term`.
    fn push(&mut self, term: Id, kind: Kind, lang: u32, pred: u32, label: &str, literal: Id) {
        let at = self.text.len() as u64;
        self.text.push_str(label);
        self.docs.push(Doc {
            term,
            literal,
            weight: 0,
            at,
            len: label.len() as u32,
            lang,
            pred,
            classes: 0,
            kind,
        });
    }
}

/// The documents of each term met by a scan in term order: the documents are two runs, each
/// sorted by term, walked forward by a merge.
struct ByTerm {
    runs: [(usize, usize); 2],
}

impl ByTerm {
    fn new(first: std::ops::Range<usize>, second: std::ops::Range<usize>) -> Self {
        Self {
            runs: [(first.start, first.end), (second.start, second.end)],
        }
    }

    /// The documents of `term` in each run (terms asked in increasing order).
    fn of(&mut self, docs: &[Doc], term: Id) -> [std::ops::Range<usize>; 2] {
        let mut out = [0..0, 0..0];
        for (r, (next, end)) in self.runs.iter_mut().enumerate() {
            let end = (*end).min(docs.len());
            while *next < end && docs[*next].term < term {
                *next += 1;
            }
            let mut i = *next;
            while i < end && docs[i].term == term {
                i += 1;
            }
            out[r] = *next..i;
        }
        out
    }
}

fn iri_id(base: &Rete, iri: &str) -> Result<Option<Id>, SearchError> {
    match NamedNodeRef::new(iri) {
        Ok(n) => Ok(base.id_of(TermRef::NamedNode(n))?),
        Err(_) => Err(SearchError::Options(format!("not an IRI: {iri}"))),
    }
}

/// Classes and predicates with their use counts.
pub(crate) struct SchemaTerms {
    pub kinds: FxHashMap<Id, Kind>,
    /// Uses: instances of a class, triples of a predicate.
    pub weight: FxHashMap<Id, u64>,
    pub class_count: FxHashMap<Id, u64>,
}

/// The classes and predicates of `base`: those of the card (every one in use, with its count)
/// and the subjects typed as a class or a property.
pub(crate) fn schema_terms(base: &Rete) -> Result<SchemaTerms, SearchError> {
    // Kinds and weights of classes and predicates: the card lists every one with its count.
    let card = base.card()?;
    let mut kinds: FxHashMap<Id, Kind> = FxHashMap::default();
    let mut weight: FxHashMap<Id, u64> = FxHashMap::default();
    let mut class_count: FxHashMap<Id, u64> = FxHashMap::default();
    for (list, k) in [
        (&card.classes, Kind::Class),
        (&card.predicates, Kind::Predicate),
    ] {
        for nc in list {
            let Ok(term) = Term::from_str(&nc.term) else {
                continue;
            };
            if let Some(id) = base.id_of(term.as_ref())? {
                kinds.insert(id, k);
                *weight.entry(id).or_default() += nc.count;
                if k == Kind::Class {
                    class_count.insert(id, nc.count);
                }
            }
        }
    }
    let rdf_type = iri_id(base, RDF_TYPE)?;
    if let Some(ty) = rdf_type {
        for (types, k) in [
            (&CLASS_TYPES[..], Kind::Class),
            (&PROPERTY_TYPES[..], Kind::Predicate),
        ] {
            for iri in types {
                let Some(o) = iri_id(base, iri)? else {
                    continue;
                };
                for q in base.quads(&Pattern::new(None, Some(ty), Some(o)))? {
                    let s = q?[0];
                    // A predicate in use stays one even when also declared a class.
                    if kinds.get(&s) != Some(&Kind::Predicate) {
                        kinds.insert(s, k);
                    }
                }
            }
        }
    }

    Ok(SchemaTerms {
        kinds,
        weight,
        class_count,
    })
}

/// The sections of the search index of `base` and what the build measured.
pub fn build_sections(
    base: &Rete,
    opts: &SearchOptions,
) -> Result<(Vec<SectionSpec>, BuildStats), SearchError> {
    build_sections_with(base, opts, &NoProgress)
}

/// [`build_sections`] reporting its phases (`labels`, `degrees` with the quads to scan twice as
/// its total, `classes`, `tokens` with the documents as its total, `encode`) to `progress`, and
/// stopping with [`SearchError::Cancelled`] soon after `progress.cancelled()` turns true.
pub fn build_sections_with(
    base: &Rete,
    opts: &SearchOptions,
    progress: &dyn Progress,
) -> Result<(Vec<SectionSpec>, BuildStats), SearchError> {
    let mut ticker = Ticker::new(progress);
    let mut stats = BuildStats::default();
    let budget = opts.memory_budget.max(16 << 20);
    let mut used: u64 = 0;
    let mut t = Instant::now();
    let step = |stats: &mut BuildStats, name: &str, t: &mut Instant| {
        stats
            .steps
            .push((name.to_owned(), t.elapsed().as_secs_f64() * 1e3));
        *t = Instant::now();
    };

    let SchemaTerms {
        kinds,
        weight,
        class_count,
    } = schema_terms(base)?;
    let rdf_type = iri_id(base, RDF_TYPE)?;

    // Labels.
    ticker.start("labels", None)?;
    let mut all = Docs::default();
    let mut langs: Vec<String> = Vec::new();
    let mut lang_ix: FxHashMap<String, u32> = FxHashMap::default();
    let local = opts.label_predicates.len() as u32;
    for (pi, iri) in opts.label_predicates.iter().enumerate() {
        let Some(p) = iri_id(base, iri)? else {
            continue;
        };
        // POS: the labels in id order, read a batch at a time from the dictionary's blocks, each
        // block looked up once and no term built.
        let mut quads = base.scan(Perm::Pos, &Pattern::new(None, Some(p), None))?;
        let (mut subjects, mut literals) = (Vec::new(), Vec::new());
        loop {
            subjects.clear();
            literals.clear();
            for q in quads.by_ref().take(LABELS_BATCH) {
                let [s, _, o, _] = q?;
                subjects.push(s);
                literals.push(o);
            }
            if literals.is_empty() {
                break;
            }
            let mut subject = subjects.iter();
            base.with_terms_bytes(&literals, |o, bytes| {
                let s = subject.next().copied().unwrap_or_default();
                ticker.tick()?;
                let Some((value, language)) = rete_core::term::literal_value(bytes)? else {
                    return Ok(());
                };
                if !has_words(value) {
                    return Ok(());
                }
                let lang = match language {
                    None => 0,
                    Some(l) => match lang_ix.get(l) {
                        Some(&n) => n + 1,
                        None => {
                            let n = lang_ix.len() as u32;
                            lang_ix.insert(l.to_owned(), n);
                            langs.push(l.to_owned());
                            n + 1
                        }
                    },
                };
                used += DOC_OVERHEAD + value.len() as u64;
                if used > budget {
                    return Err(SearchError::TooLarge(format!(
                        "the labels need more than the memory budget ({budget} bytes); raise --memory-budget or build with --no-search"
                    )));
                }
                all.push(s, Kind::Entity, lang, pi as u32, value, o);
                Ok(())
            })?;
        }
    }
    step(&mut stats, "labels", &mut t);

    // Local names of classes and predicates.
    let mut named: Vec<(Id, Kind)> = kinds.iter().map(|(&id, &k)| (id, k)).collect();
    named.sort_unstable();
    for (id, k) in named {
        if let Some(name) = local_name_of(base, id)? {
            used += DOC_OVERHEAD + name.len() as u64;
            all.push(id, k, 0, local, &name, 0);
        }
    }
    // By term: the scans below meet each term's documents by a merge.
    all.docs.par_sort_unstable_by_key(|d| d.term);
    let labelled = all.docs.len();

    // Degrees (subject and object positions), and the local names of unlabelled subjects
    // (appended in subject order: a second run sorted by term).
    ticker.start("degrees", Some(base.header().quads.saturating_mul(2)))?;
    let mut by = ByTerm::new(0..labelled, 0..0);
    // The subject being counted, its links so far and its documents.
    let mut cur: Option<(Id, u64, [std::ops::Range<usize>; 2])> = None;
    let add = |docs: &mut [Doc], runs: &[std::ops::Range<usize>; 2], n: u64| {
        for r in runs {
            for d in &mut docs[r.clone()] {
                d.weight += n;
            }
        }
    };
    // The subjects' and the objects' runs, decoded on two threads, met in term order: a
    // subject's local name is added before the objects' count of the same term needs it.
    let mut on_subject = |all: &mut Docs, s: Id, len: u64| -> Result<(), SearchError> {
        match &mut cur {
            Some((id, n, _)) if *id == s => *n += len,
            _ => {
                if let Some((_, n, runs)) = cur.take() {
                    add(&mut all.docs, &runs, n);
                }
                let mut runs = by.of(&all.docs, s);
                if runs[0].is_empty() && opts.local_names && !kinds.contains_key(&s) {
                    if used + DOC_OVERHEAD * 2 > budget {
                        stats.skipped_local_names += 1;
                    } else if let Some(name) = local_name_of(base, s)? {
                        used += DOC_OVERHEAD * 2 + name.len() as u64;
                        all.push(s, Kind::Entity, 0, local, &name, 0);
                        runs[1] = all.docs.len() - 1..all.docs.len();
                    }
                }
                cur = Some((s, len, runs));
            }
        }
        Ok(())
    };
    // The local names' run grows as the subjects come: its end is read at each call.
    let mut by_object = ByTerm::new(0..labelled, labelled..usize::MAX);
    std::thread::scope(|scope| -> Result<(), SearchError> {
        let mut subjects = LeadRuns::spawn(scope, base, Perm::Spo);
        let mut objects = LeadRuns::spawn(scope, base, Perm::Osp);
        loop {
            let (s, o) = (subjects.peek()?, objects.peek()?);
            let len = match (s, o) {
                (Some((id, len)), o) if o.is_none_or(|o| id <= o.0) => {
                    subjects.advance();
                    on_subject(&mut all, id, len)?;
                    len
                }
                (_, Some((id, len))) => {
                    objects.advance();
                    let runs = by_object.of(&all.docs, id);
                    add(&mut all.docs, &runs, len);
                    len
                }
                _ => break,
            };
            ticker.tick_n(len)?;
        }
        Ok(())
    })?;
    if let Some((_, n, runs)) = cur.take() {
        add(&mut all.docs, &runs, n);
    }
    // Classes of each document's term, most specific (fewest instances) first, as the number
    // of a distinct list: millions of entities share a few lists.
    ticker.start("classes", None)?;
    let mut classes = ClassLists::default();
    if let Some(ty) = rdf_type {
        let mut by = ByTerm::new(0..labelled, labelled..all.docs.len());
        // PSO: a subject's types come together.
        let mut cur: Option<Id> = None;
        let mut v: Vec<Id> = Vec::new();
        let mut set = |docs: &mut [Doc], s: Id, v: &mut Vec<Id>| {
            let runs = by.of(docs, s);
            if runs.iter().all(|r| r.is_empty()) {
                return;
            }
            let n = classes.set(v, &class_count);
            for r in runs {
                for d in &mut docs[r] {
                    d.classes = n;
                }
            }
        };
        for q in base.scan(Perm::Pso, &Pattern::new(None, Some(ty), None))? {
            let [s, _, o, _] = q?;
            ticker.tick()?;
            if cur != Some(s) {
                if let Some(c) = cur {
                    set(&mut all.docs, c, &mut v);
                }
                cur = Some(s);
                v.clear();
            }
            if !v.contains(&o) {
                v.push(o);
            }
        }
        if let Some(c) = cur {
            set(&mut all.docs, c, &mut v);
        }
    }
    step(&mut stats, "degrees", &mut t);

    // Language table sorted, so that the bytes do not depend on the order labels came in (a
    // term's documents are ordered by language below).
    let mut order: Vec<u32> = (0..langs.len() as u32).collect();
    order.sort_by(|&a, &b| langs[a as usize].cmp(&langs[b as usize]));
    let mut remap = vec![0u32; langs.len() + 1];
    for (new, &old) in order.iter().enumerate() {
        remap[old as usize + 1] = new as u32 + 1;
    }
    for d in &mut all.docs {
        d.lang = remap[d.lang as usize];
    }
    langs.sort();

    // Documents by importance; ties by term, then by label predicate, language and text.
    for d in &mut all.docs {
        if let Some(&k) = kinds.get(&d.term) {
            d.kind = k;
        }
        d.weight += weight.get(&d.term).copied().unwrap_or(0);
    }
    let Docs { mut docs, text } = all;
    let label = |d: &Doc| d.label(&text);
    // The labels are compared only between a term's own documents (`then_with`). Documents
    // equal by every key are equal wholly (the one kept is the same), so the order of the
    // sort's threads does not show in the bytes.
    docs.par_sort_unstable_by(|a, b| {
        (b.weight, a.term, a.pred, a.lang)
            .cmp(&(a.weight, b.term, b.pred, b.lang))
            .then_with(|| label(a).cmp(label(b)))
            .then_with(|| a.literal.cmp(&b.literal))
    });
    docs.dedup_by(|b, a| {
        a.term == b.term && a.pred == b.pred && a.lang == b.lang && label(a) == label(b)
    });
    if docs.len() as u64 > u64::from(u32::MAX) {
        return Err(SearchError::TooLarge(format!(
            "{} labels (at most {})",
            docs.len(),
            u32::MAX
        )));
    }

    // Postings: token → (document, label word count), documents ascending.
    ticker.start("tokens", Some(docs.len() as u64))?;
    // Sized for about a word per label, up to 65 536: growing rehashes every word so far.
    let mut tok_ix: FxHashMap<String, u32> =
        FxHashMap::with_capacity_and_hasher(docs.len().min(1 << 16), Default::default());
    let mut postings: Vec<Vec<(u32, u8)>> = Vec::new();
    // Each token's places in its labels (bit k: word k), for a query to prove a whole-label
    // tier empty without walking the lists (`Ada Fran`: two first names).
    let mut places: Vec<u8> = Vec::new();
    // A batch of labels split into words in parallel, a run of documents into one buffer, their
    // words numbered in document order.
    for (b, batch) in docs.chunks(WORDS_BATCH).enumerate() {
        let split: Vec<(Flat, Vec<(usize, usize)>)> = batch
            .par_chunks(WORDS_RUN)
            .map(|run| {
                let (mut flat, mut scratch) = (Flat::default(), Scratch::default());
                let ends = run
                    .iter()
                    .map(|d| {
                        let source = match (d.pred == local, d.kind) {
                            (false, _) => Source::Label,
                            (true, Kind::Entity) => Source::EntityName,
                            (true, _) => Source::SchemaName,
                        };
                        let count =
                            label_words_into(d.label(&text), source, &mut flat, &mut scratch);
                        (flat.len(), count)
                    })
                    .collect();
                (flat, ends)
            })
            .collect();
        let mut n = (b * WORDS_BATCH) as u32;
        for (flat, ends) in &split {
            let mut from = 0;
            for &(end, count) in ends {
                let ntok = count.min(MAX_NTOK) as u8;
                for w in from..end {
                    let word = flat.word(w);
                    let ix = match tok_ix.get(word) {
                        Some(&i) => i,
                        None => {
                            let i = postings.len() as u32;
                            used += DOC_OVERHEAD + word.len() as u64;
                            tok_ix.insert(word.to_owned(), i);
                            postings.push(Vec::new());
                            places.push(0);
                            i
                        }
                    };
                    used += 8;
                    postings[ix as usize].push((n, ntok));
                    places[ix as usize] |= flat.places(w);
                }
                from = end;
                n += 1;
                ticker.tick()?;
                if used > budget {
                    return Err(SearchError::TooLarge(format!(
                        "the label index needs more than the memory budget ({budget} bytes); raise --memory-budget or build with --no-search"
                    )));
                }
            }
        }
    }
    let mut tokens: Vec<(String, u32)> = tok_ix.into_iter().collect();
    tokens.par_sort_unstable();
    step(&mut stats, "tokens", &mut t);

    // Token blocks and posting chunks.
    ticker.start("encode", None)?;
    let level = opts.zstd_level;
    let Encoded {
        tokens: tok_data,
        count: tok_count,
        dir: tok_dir,
        postings: post_data,
    } = encode_tokens(&tokens, &postings, &places, level)?;
    drop(postings);

    // Document blocks (columns, so that zstd sees alike values together) and their
    // fixed-width directory.
    // Compressed in parallel batches; the bytes do not depend on the threads.
    let mut doc_w = BatchWriter::new(level);
    for chunk in docs.chunks(DOCS_PER_BLOCK as usize) {
        doc_w.push(doc_block(chunk, &classes, local).0)?;
    }
    let (doc_data, doc_refs) = doc_w.finish()?;
    let mut doc_dir: Vec<u8> = Vec::with_capacity(doc_refs.len() * DOC_DIR_ENTRY);
    for r in doc_refs {
        let (len, raw_len) = (u32::try_from(r.len), u32::try_from(r.raw_len));
        let (Ok(len), Ok(raw_len)) = (len, raw_len) else {
            return Err(SearchError::Internal("document block too large".into()));
        };
        doc_dir.extend_from_slice(&r.offset.to_le_bytes());
        doc_dir.extend_from_slice(&len.to_le_bytes());
        doc_dir.extend_from_slice(&raw_len.to_le_bytes());
        doc_dir.extend_from_slice(&r.checksum.to_le_bytes());
    }
    debug_assert_eq!(doc_dir.len() % DOC_DIR_ENTRY, 0);

    // Meta.
    let mut meta = Buf::default();
    meta.0.extend_from_slice(META_MAGIC);
    meta.u8(VERSION);
    meta.varint(docs.len() as u64);
    meta.varint(tokens.len() as u64);
    meta.varint(u64::from(DOCS_PER_BLOCK));
    meta.varint(opts.label_predicates.len() as u64);
    for p in &opts.label_predicates {
        meta.str(p);
    }
    meta.varint(langs.len() as u64);
    for l in &langs {
        meta.str(l);
    }
    meta.varint(tok_count);
    meta.0.extend_from_slice(&tok_dir.0);
    stats.documents = docs.len() as u64;
    stats.tokens = tokens.len() as u64;
    let blocks = |k: u16, data: Vec<u8>| SectionSpec::blocks(k, 0, data);
    let sections = vec![
        SectionSpec::zstd(kind::META, 0, &meta.0, level)?,
        SectionSpec::raw(kind::DOC_DIR, 0, doc_dir),
        blocks(kind::TOKENS, tok_data),
        blocks(kind::POSTINGS, post_data),
        blocks(kind::DOCS, doc_data),
    ];
    step(&mut stats, "encode", &mut t);
    ticker.end();
    progress.finish();
    Ok((sections, stats))
}

/// A document block: the columns terms (zigzag gaps), kinds, languages, label predicates,
/// class lists (the block's distinct lists, then each document's list number) and labels (the
/// smallest literal id of the block, then each label's literal id less it; nothing for a local
/// name, which the term's IRI holds).
fn doc_block(chunk: &[Doc], classes: &ClassLists, local: u32) -> Buf {
    let mut raw = Buf::default();
    let mut prev = 0u64;
    for d in chunk {
        raw.varint(varint::zigzag(d.term.wrapping_sub(prev) as i64));
        prev = d.term;
    }
    raw.0.extend(chunk.iter().map(|d| d.kind as u8));
    for d in chunk {
        raw.varint(u64::from(d.lang));
    }
    for d in chunk {
        raw.varint(u64::from(d.pred));
    }
    let mut lists: Vec<&[Id]> = Vec::new();
    let mut list_ix: FxHashMap<&[Id], u64> = FxHashMap::default();
    let mut per_doc: Vec<u64> = Vec::with_capacity(chunk.len());
    for d in chunk {
        let cs = classes.get(d.classes);
        if cs.is_empty() {
            per_doc.push(0);
            continue;
        }
        let n = lists.len() as u64 + 1;
        per_doc.push(*list_ix.entry(cs).or_insert_with(|| {
            lists.push(cs);
            n
        }));
    }
    raw.varint(lists.len() as u64);
    for cs in lists {
        raw.varint(cs.len() as u64);
        for &c in cs {
            raw.varint(c);
        }
    }
    for n in per_doc {
        raw.varint(n);
    }
    // Labels as offsets from the block's smallest literal id: a few hundred distinct labels
    // take one or two bytes each instead of three or four.
    let labelled = || chunk.iter().filter(|d| d.pred != local);
    let base = labelled().map(|d| d.literal).min().unwrap_or(0);
    raw.varint(base);
    for d in labelled() {
        raw.varint(d.literal - base);
    }
    raw
}

/// The distinct class lists of the documents' terms.
#[derive(Default)]
struct ClassLists {
    lists: Vec<Vec<Id>>,
    index: FxHashMap<Vec<Id>, u32>,
}

impl ClassLists {
    /// The number (index + 1) of the list of the classes `v`, most specific first, at most
    /// [`MAX_CLASSES`]; 0 for none.
    fn set(&mut self, v: &mut Vec<Id>, class_count: &FxHashMap<Id, u64>) -> u32 {
        if v.is_empty() {
            return 0;
        }
        v.sort_by_key(|c| (class_count.get(c).copied().unwrap_or(0), *c));
        v.truncate(MAX_CLASSES);
        match self.index.get(v.as_slice()) {
            Some(&n) => n + 1,
            None => {
                let n = self.lists.len() as u32;
                self.lists.push(v.clone());
                self.index.insert(v.clone(), n);
                n + 1
            }
        }
    }

    /// The list numbered `n` by [`ClassLists::set`].
    fn get(&self, n: u32) -> &[Id] {
        n.checked_sub(1)
            .and_then(|i| self.lists.get(i as usize))
            .map_or(&[][..], Vec::as_slice)
    }
}

/// The local name of an IRI, if it has any word.
fn local_name_of(base: &Rete, id: Id) -> Result<Option<String>, SearchError> {
    // Read from the term's encoded bytes: an IRI is its tag, then its text (no term built).
    Ok(base.with_term_bytes(id, |bytes| {
        if TermKind::of_encoded(bytes) != Some(TermKind::Iri) {
            return None;
        }
        let name = local_name(std::str::from_utf8(bytes.get(1..)?).ok()?);
        (name.len() <= 1024 && has_words(name)).then(|| name.to_owned())
    })?)
}
