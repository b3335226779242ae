//! The three schema sections: layout, encoding and validated decoding.
//!
//! `CLASSES`: version, prefixes, class IRIs (front-coded), parents of each class, disjoint pairs,
//! disjoint groups, equivalent pairs, complement pairs, anonymous complement pairs.
//! `PROPERTIES`: version, datatype IRIs, property IRIs, then per property its characteristic
//! bits, kind, domain, range, range datatypes, inverses, disjoint properties and parents; then
//! the property disjoint groups. `STATISTICS`: version, typed instances, per class direct and
//! total instances, levels, triples per property, class and property labels, datatype IRIs,
//! relations and literal properties.

use crate::codec::{self, list, pairs, Enc};
use crate::hierarchy;
use crate::{
    LevelCount, LiteralProperty, Parts, PropertyAxioms, PropertyKind, Relation, Schema, SchemaError,
};
use rete_core::format::prealloc;
use rete_core::section::SectionReader;
use rete_core::Charge;
use std::collections::{BTreeSet, HashMap};

/// Writes the distinct `names`, sorted and front-coded, and returns the index of each.
fn front_coded_set<'a>(e: &mut Enc, names: impl Iterator<Item = &'a str>) -> HashMap<&'a str, u32> {
    let sorted: Vec<&str> = names.collect::<BTreeSet<_>>().into_iter().collect();
    let index = sorted
        .iter()
        .enumerate()
        .map(|(i, d)| (*d, i as u32))
        .collect();
    e.front_coded(&sorted);
    index
}

/// The `items` whose predicate is in `pindex`, each with the predicate's index.
fn with_known_predicate<'a, T>(
    items: &'a [T],
    pindex: &HashMap<&str, u32>,
    predicate: fn(&T) -> &String,
) -> Vec<(&'a T, u32)> {
    items
        .iter()
        .filter_map(|x| Some((x, *pindex.get(predicate(x).as_str())?)))
        .collect()
}

const F_FUNCTIONAL: u64 = 1;
const F_INVERSE_FUNCTIONAL: u64 = 2;
const F_IRREFLEXIVE: u64 = 4;
const F_ASYMMETRIC: u64 = 8;
const F_SYMMETRIC: u64 = 16;
const F_TRANSITIVE: u64 = 32;
const F_REFLEXIVE: u64 = 64;

pub(crate) fn encode(s: &Schema) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    // Classes.
    let mut e = Enc::new();
    e.u(s.prefixes.len() as u64);
    for (p, ns) in &s.prefixes {
        e.str(p);
        e.str(ns);
    }
    let iris: Vec<&str> = s.classes.iter().map(|c| c.iri.as_str()).collect();
    e.front_coded(&iris);
    for c in &s.classes {
        e.list(&c.parents);
    }
    e.pairs(&s.disjoint);
    e.u(s.disjoint_groups.len() as u64);
    for g in &s.disjoint_groups {
        e.list(g);
    }
    e.pairs(&s.equivalent);
    e.pairs(&s.complement);
    e.pairs(&s.anonymous_complement);
    let classes = e.buf.0;

    // Properties.
    let mut e = Enc::new();
    let dt_index = front_coded_set(
        &mut e,
        s.properties
            .iter()
            .flat_map(|p| p.range_datatypes.iter().map(String::as_str)),
    );
    let piris: Vec<&str> = s.properties.iter().map(|p| p.iri.as_str()).collect();
    e.front_coded(&piris);
    for p in &s.properties {
        let flags = [
            (p.functional, F_FUNCTIONAL),
            (p.inverse_functional, F_INVERSE_FUNCTIONAL),
            (p.irreflexive, F_IRREFLEXIVE),
            (p.asymmetric, F_ASYMMETRIC),
            (p.symmetric, F_SYMMETRIC),
            (p.transitive, F_TRANSITIVE),
            (p.reflexive, F_REFLEXIVE),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |acc, (_, bit)| acc | bit);
        e.u(flags);
        e.buf.u8(match p.kind {
            PropertyKind::Object => 0,
            PropertyKind::Datatype => 1,
            PropertyKind::Annotation => 2,
            PropertyKind::Property => 3,
        });
        e.list(&p.domain);
        e.list(&p.range);
        let dts: Vec<u32> = p
            .range_datatypes
            .iter()
            .filter_map(|d| dt_index.get(d.as_str()).copied())
            .collect();
        e.list(&dts);
        e.list(&p.inverse_of);
        e.list(&p.disjoint_with);
        e.list(&p.parents);
    }
    e.u(s.property_disjoint_groups.len() as u64);
    for g in &s.property_disjoint_groups {
        e.list(g);
    }
    let properties = e.buf.0;

    // Statistics.
    let mut e = Enc::new();
    e.u(s.typed_instances);
    for c in &s.classes {
        e.u(c.direct_instances);
        e.u(c.total_instances);
    }
    e.u(s.levels.len() as u64);
    for l in &s.levels {
        e.u(l.classes);
        e.u(l.direct_instances);
        e.u(l.total_instances);
    }
    for p in &s.properties {
        e.u(p.triples);
    }
    let labels = |e: &mut Enc, it: &mut dyn Iterator<Item = (u32, &Option<String>)>| {
        let v: Vec<(u32, &str)> = it.filter_map(|(i, l)| Some((i, l.as_deref()?))).collect();
        e.u(v.len() as u64);
        let mut prev = 0;
        for (i, l) in v {
            e.idx(i - prev);
            prev = i;
            e.str(l);
        }
    };
    labels(&mut e, &mut s.classes.iter().map(|c| (c.index, &c.label)));
    labels(
        &mut e,
        &mut s.properties.iter().map(|p| (p.index, &p.label)),
    );
    let dt_index = front_coded_set(
        &mut e,
        s.literal_properties.iter().map(|l| l.datatype.as_str()),
    );
    let pindex: HashMap<&str, u32> = s
        .properties
        .iter()
        .map(|p| (p.iri.as_str(), p.index))
        .collect();
    let rels = with_known_predicate(&s.relations, &pindex, |r: &Relation| &r.predicate);
    e.u(rels.len() as u64);
    for (r, p) in rels {
        e.idx(r.domain);
        e.idx(p);
        e.idx(r.range);
        e.u(r.count);
    }
    let lits = with_known_predicate(&s.literal_properties, &pindex, |l: &LiteralProperty| {
        &l.predicate
    });
    e.u(lits.len() as u64);
    for (l, p) in lits {
        e.idx(l.class);
        e.idx(p);
        e.idx(dt_index[l.datatype.as_str()]);
        e.u(l.count);
    }
    (classes, properties, e.buf.0)
}

/// Grows `charge` by what `n` items of `T` take, before they are made.
fn charge_items<T>(charge: &mut Charge, section: &str, n: u64) -> Result<(), SchemaError> {
    Ok(charge.grow(section, n.saturating_mul(size_of::<T>() as u64))?)
}

/// Decodes the class section; `charge` grows by the classes and prefixes it makes before they
/// are made (their strings are in the payload, charged already).
pub(crate) fn decode_classes(
    buf: &[u8],
    file: &str,
    charge: &mut Charge,
) -> Result<Schema, SchemaError> {
    const SECTION: &str = "schema classes";
    let mut d = codec::open(buf, file, SECTION)?;
    charge_items::<(String, String)>(charge, SECTION, d.next_count(2))?;
    let np = d.count(1)?;
    let mut prefixes = Vec::with_capacity(prealloc(np));
    for _ in 0..np {
        prefixes.push((d.str()?.to_owned(), d.str()?.to_owned()));
    }
    // Each class: its IRI (a front-coded entry of at least 2 bytes) and its parent list.
    charge_items::<(crate::Class, String)>(charge, SECTION, d.next_count(2))?;
    let iris = d.front_coded()?;
    let n = iris.len();
    if u32::try_from(n).is_err() {
        return Err(d.err("too many classes"));
    }
    let mut parents = Vec::with_capacity(prealloc(n));
    for _ in 0..n {
        parents.push(list(&mut d, n)?);
    }
    let disjoint = pairs(&mut d, n)?;
    let ng = d.count(1)?;
    let mut disjoint_groups = Vec::with_capacity(prealloc(ng));
    for _ in 0..ng {
        disjoint_groups.push(list(&mut d, n)?);
    }
    let equivalent = pairs(&mut d, n)?;
    let complement = pairs(&mut d, n)?;
    let anonymous_complement = pairs(&mut d, n)?;
    d.expect_end()?;
    let classes = hierarchy::classes(iris, parents);
    Ok(Schema {
        classes,
        prefixes,
        disjoint,
        disjoint_groups,
        equivalent,
        complement,
        anonymous_complement,
        parts: Parts::CLASSES,
        ..Schema::default()
    })
}

/// Decodes the property section into `s`; `charge` grows by the properties it makes first.
pub(crate) fn decode_properties(
    s: &mut Schema,
    buf: &[u8],
    file: &str,
    charge: &mut Charge,
) -> Result<(), SchemaError> {
    const SECTION: &str = "schema properties";
    let mut d = codec::open(buf, file, SECTION)?;
    let nc = s.classes.len();
    let mut budget = codec::CopyBudget::new(buf.len());
    charge_items::<String>(charge, SECTION, d.next_count(2))?;
    let dts = d.front_coded()?;
    charge_items::<(PropertyAxioms, String)>(charge, SECTION, d.next_count(2))?;
    let iris = d.front_coded()?;
    let np = iris.len();
    if u32::try_from(np).is_err() {
        return Err(d.err("too many properties"));
    }
    let mut props = Vec::with_capacity(prealloc(np));
    for (i, iri) in iris.into_iter().enumerate() {
        let flags = d.varint()?;
        let kind = match d.u8()? {
            0 => PropertyKind::Object,
            1 => PropertyKind::Datatype,
            2 => PropertyKind::Annotation,
            3 => PropertyKind::Property,
            k => return Err(d.err(format!("unknown property kind {k}"))),
        };
        let domain = list(&mut d, nc)?;
        let range = list(&mut d, nc)?;
        let range_datatypes = list(&mut d, dts.len())?
            .into_iter()
            .map(|j| budget.copy(&d, &dts[j as usize]))
            .collect::<Result<_, _>>()?;
        let inverse_of = list(&mut d, np)?;
        let disjoint_with = list(&mut d, np)?;
        let parents = list(&mut d, np)?;
        props.push(PropertyAxioms {
            index: i as u32,
            iri,
            label: None,
            kind,
            functional: flags & F_FUNCTIONAL != 0,
            inverse_functional: flags & F_INVERSE_FUNCTIONAL != 0,
            irreflexive: flags & F_IRREFLEXIVE != 0,
            asymmetric: flags & F_ASYMMETRIC != 0,
            symmetric: flags & F_SYMMETRIC != 0,
            transitive: flags & F_TRANSITIVE != 0,
            reflexive: flags & F_REFLEXIVE != 0,
            domain,
            range,
            range_datatypes,
            inverse_of,
            disjoint_with,
            parents,
            triples: 0,
        });
    }
    let ng = d.count(1)?;
    let mut groups = Vec::with_capacity(prealloc(ng));
    for _ in 0..ng {
        groups.push(list(&mut d, np)?);
    }
    d.expect_end()?;
    s.properties = props;
    s.property_disjoint_groups = groups;
    s.parts.properties = true;
    Ok(())
}

/// Decodes the statistics section into `s`; `charge` grows by the relations and literal
/// properties it makes first.
pub(crate) fn decode_statistics(
    s: &mut Schema,
    buf: &[u8],
    file: &str,
    charge: &mut Charge,
) -> Result<(), SchemaError> {
    const SECTION: &str = "schema statistics";
    let mut d = codec::open(buf, file, "schema statistics")?;
    let mut budget = codec::CopyBudget::new(buf.len());
    let (nc, np) = (s.classes.len(), s.properties.len());
    s.typed_instances = d.varint()?;
    for c in &mut s.classes {
        c.direct_instances = d.varint()?;
        c.total_instances = d.varint()?;
    }
    charge_items::<LevelCount>(charge, SECTION, d.next_count(3))?;
    let nl = d.count(1)?;
    let mut levels = Vec::with_capacity(prealloc(nl));
    for depth in 0..nl {
        levels.push(LevelCount {
            depth: depth as u32,
            classes: d.varint()?,
            direct_instances: d.varint()?,
            total_instances: d.varint()?,
        });
    }
    for p in &mut s.properties {
        p.triples = d.varint()?;
    }
    let labels = |d: &mut SectionReader<'_>, n: usize| {
        codec::gap_coded(
            d,
            n,
            [
                "labels out of order",
                "label of an unknown class or property",
            ],
            |d, at| Ok((at as usize, d.str()?.to_owned())),
        )
    };
    for (i, l) in labels(&mut d, nc)? {
        s.classes[i].label = Some(l);
    }
    for (i, l) in labels(&mut d, np)? {
        s.properties[i].label = Some(l);
    }
    charge_items::<String>(charge, SECTION, d.next_count(2))?;
    let dts = d.front_coded()?;
    charge_items::<Relation>(charge, SECTION, d.next_count(4))?;
    let nr = d.count(1)?;
    let mut relations = Vec::with_capacity(prealloc(nr));
    for _ in 0..nr {
        let domain = d.index(nc)?;
        let p = d.index(np)?;
        let range = d.index(nc)?;
        let predicate = budget.copy(&d, &s.properties[p as usize].iri)?;
        relations.push(Relation {
            domain,
            predicate,
            range,
            count: d.varint()?,
        });
    }
    charge_items::<LiteralProperty>(charge, SECTION, d.next_count(5))?;
    let nlit = d.count(1)?;
    let mut lits = Vec::with_capacity(prealloc(nlit));
    for _ in 0..nlit {
        let class = d.index(nc)?;
        let p = d.index(np)?;
        let dt = d.index(dts.len())?;
        let predicate = budget.copy(&d, &s.properties[p as usize].iri)?;
        let datatype = budget.copy(&d, &dts[dt as usize])?;
        lits.push(LiteralProperty {
            class,
            predicate,
            datatype,
            count: d.varint()?,
        });
    }
    d.expect_end()?;
    s.levels = levels;
    s.relations = relations;
    s.literal_properties = lits;
    s.parts.statistics = true;
    Ok(())
}
