//! A synthetic medical knowledge graph for coherence checking: an OWL T-Box (people, patients
//! and their health status, organizations, diseases, medications, with disjointness, equivalence,
//! domains, ranges and property characteristics) with one planted unsatisfiable class
//! (`:Relapsed ⊑ :Healthy`, `:Relapsed ⊑ :Sick`, `:Healthy owl:disjointWith :Sick`), about
//! `instances` typed individuals, and a fixed set of planted instance-level clashes
//! ([`planted`]). Optionally a generated disease taxonomy makes the T-Box as large as wanted.
//!
//! Everything is written as Turtle; the same parameters give byte-identical output.

mod tbox;

pub use tbox::write_tbox;

use tbox::tbox;

use crate::{literal, Rng};
use std::io::Write;

/// Namespace of the ontology and the data (prefix `:`).
pub const NS: &str = "http://example.org/medical#";

/// Parameters of the medical graph.
#[derive(Debug, Clone)]
pub struct MedicalParams {
    /// Approximate number of typed individuals (at least 200 are generated).
    pub instances: u64,
    /// Extra disease classes in a generated taxonomy below the fixed disease categories (each
    /// with a label; siblings are partly declared disjoint; no new unsatisfiable class).
    pub taxonomy: u64,
    /// Random seed.
    pub seed: u64,
    /// Plant the defects (the unsatisfiable class and the instance-level clashes). Without, the
    /// graph is coherent and consistent.
    pub plant: bool,
}

impl Default for MedicalParams {
    fn default() -> Self {
        Self {
            instances: 1000,
            taxonomy: 0,
            seed: 7,
            plant: true,
        }
    }
}

/// The class made unsatisfiable on purpose.
pub const UNSATISFIABLE: &str = "http://example.org/medical#Relapsed";

/// An instance-level defect planted in the data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planted {
    /// The kind of finding a coherence checker reports for it (`disjoint-class-clash`,
    /// `unsatisfiable-member`, `same-different-clash`, `functional-violation`,
    /// `inverse-functional-violation`, `irreflexive-violation`, `asymmetric-violation`,
    /// `domain-range-clash`, `disjoint-property-violation`).
    pub kind: &'static str,
    /// The individuals involved (IRIs).
    pub entities: Vec<String>,
    /// Whether it is visible from `rdf:type`, `owl:sameAs` and `owl:differentFrom` alone
    /// (Tier 1); the others need the property triples (Tier 2).
    pub selective: bool,
}

struct Sizes {
    patients: u64,
    doctors: u64,
    nurses: u64,
    hospitals: u64,
    clinics: u64,
    labs: u64,
}

fn sizes(p: &MedicalParams) -> Sizes {
    let n = p.instances.max(200);
    // Each patient comes with a medical record, so patients and records are ~90 % of the total.
    Sizes {
        patients: n * 45 / 100,
        doctors: n / 20,
        nurses: n / 40,
        hospitals: (n / 200).max(2),
        clinics: (n / 400).max(1),
        labs: (n / 1000).max(1),
    }
}

/// The patient and doctor indexes that carry planted defects.
struct Plan {
    healthy_sick: u64,
    recovered_chronic: u64,
    relapsed: u64,
    same_a: u64,
    same_b: u64,
    samediff_a: u64,
    samediff_b: u64,
    two_birth_dates: u64,
    attending_consulting: u64,
    record_owner: u64,
    record_thief: u64,
    self_supervisor: u64,
    mutual_a: u64,
    mutual_b: u64,
}

fn plan(s: &Sizes, plant: bool) -> Plan {
    // Without planting, indexes no individual has.
    let p = |k: u64| if plant { s.patients * k / 13 } else { u64::MAX };
    let d = |k: u64| if plant { s.doctors * k / 5 } else { u64::MAX };
    Plan {
        healthy_sick: p(1),
        recovered_chronic: p(2),
        relapsed: p(3),
        same_a: p(4),
        same_b: p(5),
        samediff_a: p(6),
        samediff_b: p(7),
        two_birth_dates: p(8),
        attending_consulting: p(9),
        record_owner: p(10),
        record_thief: p(11),
        self_supervisor: d(1),
        mutual_a: d(2),
        mutual_b: d(3),
    }
}

fn ent(kind: &str, i: u64) -> String {
    format!("{NS}{kind}{i}")
}

/// The instance-level defects of the graph written with `p`, in a fixed order.
pub fn planted(p: &MedicalParams) -> Vec<Planted> {
    if !p.plant {
        return Vec::new();
    }
    let pl = plan(&sizes(p), true);
    let pat = |i| ent("patient", i);
    let doc = |i| ent("doctor", i);
    let one = |kind, e: Vec<String>, selective| Planted {
        kind,
        entities: e,
        selective,
    };
    vec![
        one("disjoint-class-clash", vec![pat(pl.healthy_sick)], true),
        one(
            "disjoint-class-clash",
            vec![pat(pl.recovered_chronic)],
            true,
        ),
        one("unsatisfiable-member", vec![pat(pl.relapsed)], true),
        one(
            "disjoint-class-clash",
            vec![pat(pl.same_a), pat(pl.same_b)],
            true,
        ),
        one(
            "same-different-clash",
            vec![pat(pl.samediff_a), pat(pl.samediff_b)],
            true,
        ),
        one("functional-violation", vec![pat(pl.two_birth_dates)], false),
        one(
            "disjoint-property-violation",
            vec![pat(pl.attending_consulting)],
            false,
        ),
        one(
            "inverse-functional-violation",
            vec![ent("record", pl.record_owner)],
            false,
        ),
        one(
            "irreflexive-violation",
            vec![doc(pl.self_supervisor)],
            false,
        ),
        one(
            "asymmetric-violation",
            vec![doc(pl.mutual_a), doc(pl.mutual_b)],
            false,
        ),
        one("domain-range-clash", vec![ent("hospital", 0)], false),
    ]
}

/// Turtle writer that counts triples.
struct Ttl<'a, W: Write> {
    out: &'a mut W,
    triples: u64,
    buf: String,
}

impl<'a, W: Write> Ttl<'a, W> {
    /// A writer to `out`, nothing written yet.
    fn new(out: &'a mut W) -> Self {
        Self {
            out,
            triples: 0,
            buf: String::new(),
        }
    }

    /// One subject with its predicate-object lists; terms are written as given (`:x`, `"lit"`).
    fn stmt(&mut self, s: &str, po: &[(&str, &[&str])]) -> std::io::Result<()> {
        self.buf.clear();
        self.buf.push_str(s);
        let mut first = true;
        for (p, os) in po.iter().filter(|(_, os)| !os.is_empty()) {
            self.buf.push_str(if first { " " } else { " ;\n    " });
            first = false;
            self.buf.push_str(p);
            self.buf.push(' ');
            self.buf.push_str(&os.join(", "));
            self.triples += os.len() as u64;
        }
        self.buf.push_str(" .\n");
        self.out.write_all(self.buf.as_bytes())
    }

    fn raw(&mut self, text: &str, triples: u64) -> std::io::Result<()> {
        self.triples += triples;
        self.out.write_all(text.as_bytes())
    }
}

fn lit(s: &str) -> String {
    let mut out = String::new();
    literal(&mut out, s);
    out
}

const PREFIXES: &str = "@prefix : <http://example.org/medical#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

";

const DISEASES: &[&str] = &[
    "Influenza",
    "Covid19",
    "Tuberculosis",
    "Measles",
    "Malaria",
    "Diabetes",
    "Hypertension",
    "Asthma",
    "ChronicKidneyDisease",
    "CysticFibrosis",
    "SickleCellAnemia",
    "Hemophilia",
    "Lupus",
    "RheumatoidArthritis",
    "Psoriasis",
];

const MEDICATIONS: &[(&str, &str)] = &[
    ("amoxicillin", "Antibiotic"),
    ("doxycycline", "Antibiotic"),
    ("azithromycin", "Antibiotic"),
    ("oseltamivir", "Antiviral"),
    ("remdesivir", "Antiviral"),
    ("paracetamol", "Analgesic"),
    ("ibuprofen", "Analgesic"),
    ("lisinopril", "Antihypertensive"),
    ("amlodipine", "Antihypertensive"),
    ("insulinGlargine", "Insulin"),
];

const FIRST: [&str; 16] = [
    "Ada", "Ben", "Chloé", "Dara", "Emil", "Farah", "Gus", "Hana", "Ivo", "Jun", "Kemal", "Lena",
    "Mira", "Noor", "Otto", "Pia",
];
const LAST: [&str; 16] = [
    "Adler", "Bauer", "Costa", "Diaz", "Eriksen", "Fischer", "Garcia", "Haddad", "Ito", "Jensen",
    "Kowalski", "Larsen", "Moreau", "Novak", "Okafor", "Peralta",
];

fn v(x: &[String]) -> Vec<&str> {
    x.iter().map(String::as_str).collect()
}

/// `ChronicKidneyDisease` → `Chronic Kidney Disease`.
fn split_camel(s: &str) -> String {
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && ch.is_uppercase() {
            out.push(' ');
        }
        out.push(ch);
    }
    out
}

/// Writes the whole graph (T-Box, individuals, planted defects) as Turtle; returns the number
/// of triples.
pub fn write_turtle(p: &MedicalParams, out: &mut impl Write) -> std::io::Result<u64> {
    let mut t = Ttl::new(out);
    t.raw(PREFIXES, 0)?;
    tbox(p, &mut t)?;
    t.raw("\n", 0)?;
    let s = sizes(p);
    let pl = plan(&s, p.plant);
    let mut rng = Rng::new(p.seed);
    let name = |rng: &mut Rng| {
        lit(&format!(
            "{} {}",
            FIRST[rng.below(16) as usize],
            LAST[rng.below(16) as usize]
        ))
    };
    let date = |rng: &mut Rng, from: u64, span: u64| {
        format!(
            "\"{:04}-{:02}-{:02}\"^^xsd:date",
            from + rng.below(span),
            1 + rng.below(12),
            1 + rng.below(28)
        )
    };
    let q = |kind: &str, i: u64| format!(":{kind}{i}");

    // Fixed individuals: one disease entity per disease class, a few medications.
    for d in DISEASES {
        t.stmt(
            &format!(":dx{d}"),
            &[
                ("a", &[&format!(":{d}")]),
                ("rdfs:label", &[&lit(&split_camel(d))]),
            ],
        )?;
    }
    for (m, c) in MEDICATIONS {
        t.stmt(
            &format!(":{m}"),
            &[("a", &[&format!(":{c}")]), ("rdfs:label", &[&lit(m)])],
        )?;
    }
    let orgs: Vec<String> = (0..s.hospitals)
        .map(|i| q("hospital", i))
        .chain((0..s.clinics).map(|i| q("clinic", i)))
        .chain((0..s.labs).map(|i| q("lab", i)))
        .collect();
    for o in &orgs {
        let class = if o.starts_with(":hospital") {
            ":Hospital"
        } else if o.starts_with(":clinic") {
            ":Clinic"
        } else {
            ":Laboratory"
        };
        let label = lit(&format!("{} {}", &o[1..], LAST[rng.below(16) as usize]));
        t.stmt(o, &[("a", &[class]), ("rdfs:label", &[&label])])?;
    }
    // Planted: a hospital with a diagnosis, so the domain of :hasDiagnosis makes it a Patient,
    // which is a Person, disjoint with Organization.
    if p.plant {
        t.stmt(":hospital0", &[(":hasDiagnosis", &[":dxMeasles"])])?;
    }

    for i in 0..s.doctors {
        let me = q("doctor", i);
        let class = if i % 3 == 0 { ":Physician" } else { ":Doctor" };
        let works = &orgs[rng.below(s.hospitals + s.clinics) as usize];
        let mut sup = Vec::new();
        // Supervision only goes to higher indexes, so no accidental 2-cycles.
        if i + 1 < s.doctors && rng.chance(0.3) {
            sup.push(q("doctor", i + 1 + rng.below(s.doctors - i - 1)));
        }
        if i == pl.self_supervisor {
            sup.push(me.clone());
        }
        if i == pl.mutual_a {
            sup.push(q("doctor", pl.mutual_b));
        }
        if i == pl.mutual_b {
            sup.push(q("doctor", pl.mutual_a));
        }
        sup.sort();
        sup.dedup();
        let sup: Vec<&str> = sup.iter().map(String::as_str).collect();
        t.stmt(
            &me,
            &[
                ("a", &[class]),
                (":name", &[&name(&mut rng)]),
                (":birthDate", &[&date(&mut rng, 1950, 45)]),
                (":worksAt", &[works]),
                (":supervises", &sup),
            ],
        )?;
    }
    for i in 0..s.nurses {
        let works = &orgs[rng.below(s.hospitals + s.clinics) as usize];
        t.stmt(
            &q("nurse", i),
            &[
                ("a", &[":Nurse"]),
                (":name", &[&name(&mut rng)]),
                (":worksAt", &[works]),
            ],
        )?;
    }
    for i in 0..s.patients {
        let me = q("patient", i);
        let mut types: Vec<&str> = Vec::new();
        let status = if i == pl.healthy_sick || i == pl.same_a {
            ":Healthy"
        } else if i == pl.recovered_chronic {
            ":Recovered"
        } else if i == pl.relapsed {
            ":Relapsed"
        } else if i == pl.samediff_a || i == pl.samediff_b {
            ":Healthy"
        } else if i == pl.same_b {
            ":AcutelyIll"
        } else {
            [
                ":Healthy",
                ":Recovered",
                ":Sick",
                ":ChronicallyIll",
                ":AcutelyIll",
                ":Patient",
            ][rng.below(6) as usize]
        };
        types.push(status);
        if i == pl.healthy_sick {
            types.push(":Sick");
        }
        if i == pl.recovered_chronic {
            types.push(":ChronicallyIll");
        }
        // Individuals merged by owl:sameAs share their admission status, so that the only
        // clash between them is the planted one.
        let merged = [pl.same_a, pl.same_b, pl.samediff_a, pl.samediff_b].contains(&i);
        let inpatient = rng.chance(0.2) && !merged;
        types.push(if inpatient {
            ":Inpatient"
        } else {
            ":Outpatient"
        });
        let sick = matches!(
            status,
            ":Sick" | ":ChronicallyIll" | ":AcutelyIll" | ":Relapsed"
        );
        let mut dx = Vec::new();
        let mut meds = Vec::new();
        if sick {
            for _ in 0..1 + rng.below(2) {
                dx.push(format!(
                    ":dx{}",
                    DISEASES[rng.below(DISEASES.len() as u64) as usize]
                ));
            }
            for _ in 0..rng.below(3) {
                meds.push(format!(
                    ":{}",
                    MEDICATIONS[rng.below(MEDICATIONS.len() as u64) as usize].0
                ));
            }
        }
        dx.sort();
        dx.dedup();
        meds.sort();
        meds.dedup();
        let attending = rng.below(s.doctors);
        let mut consulting = Vec::new();
        if s.doctors > 1 && rng.chance(0.3) {
            let c = (attending + 1 + rng.below(s.doctors - 1)) % s.doctors;
            consulting.push(q("doctor", c));
        }
        if i == pl.attending_consulting {
            consulting = vec![q("doctor", attending)];
        }
        let mut births = vec![date(&mut rng, 1930, 90)];
        if i == pl.two_birth_dates {
            births.push(date(&mut rng, 1930, 90));
            if births[0] == births[1] {
                births[1] = "\"1929-12-31\"^^xsd:date".into();
            }
        }
        let mut records = vec![q("record", i)];
        if i == pl.record_thief {
            records.push(q("record", pl.record_owner));
        }
        let mut treated = vec![q("doctor", attending)];
        treated.extend(consulting.iter().cloned());
        treated.sort();
        treated.dedup();
        let admitted: Vec<String> = if inpatient {
            vec![q("hospital", rng.below(s.hospitals))]
        } else {
            Vec::new()
        };
        let mut same = Vec::new();
        let mut different = Vec::new();
        if i == pl.same_a {
            same.push(q("patient", pl.same_b));
        }
        if i == pl.samediff_a {
            same.push(q("patient", pl.samediff_b));
            different.push(q("patient", pl.samediff_b));
        }
        t.stmt(
            &me,
            &[
                ("a", &types),
                (":name", &[&name(&mut rng)]),
                (":birthDate", &v(&births)),
                (":hasRecord", &v(&records)),
                (":treatedBy", &v(&treated)),
                (":hasAttendingPhysician", &[&q("doctor", attending)]),
                (":hasConsultingPhysician", &v(&consulting)),
                (":hasDiagnosis", &v(&dx)),
                (":prescribed", &v(&meds)),
                (":admittedTo", &v(&admitted)),
                ("owl:sameAs", &v(&same)),
                ("owl:differentFrom", &v(&different)),
            ],
        )?;
        t.stmt(
            &q("record", i),
            &[
                ("a", &[":MedicalRecord"]),
                (":created", &[&date(&mut rng, 2000, 25)]),
            ],
        )?;
    }
    Ok(t.triples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_sized() {
        let p = MedicalParams::default();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let n = write_turtle(&p, &mut a).unwrap();
        write_turtle(&p, &mut b).unwrap();
        assert_eq!(a, b);
        assert!(n > 5000, "{n} triples");
        let text = String::from_utf8(a).unwrap();
        assert!(text.contains(":Relapsed a owl:Class"));
        for d in planted(&p) {
            for e in &d.entities {
                let local = e.strip_prefix(NS).unwrap();
                assert!(text.contains(&format!(":{local} ")), "{local}");
            }
        }
        let mut big = Vec::new();
        let tb = write_tbox(
            &MedicalParams {
                taxonomy: 1000,
                ..p
            },
            &mut big,
        )
        .unwrap();
        assert!(tb > 3000, "{tb}");
    }
}
