//! The medical graph's T-Box: the class hierarchy with its disjointness and equivalence axioms,
//! the properties with their domains, ranges and characteristics, the planted unsatisfiable
//! class, and the optional generated disease taxonomy. Separate from the individuals, which
//! only refer to these classes and properties.

use super::{lit, split_camel, MedicalParams, Ttl, PREFIXES};
use crate::Rng;
use std::io::Write;

/// `(class, parents)` of the fixed T-Box.
const CLASSES: &[(&str, &[&str])] = &[
    ("Person", &[]),
    ("Patient", &["Person"]),
    ("Doctor", &["Person"]),
    ("Nurse", &["Person"]),
    ("Physician", &[]),
    ("Healthy", &["Patient"]),
    ("Sick", &["Patient"]),
    ("Recovered", &["Healthy"]),
    ("ChronicallyIll", &["Sick"]),
    ("AcutelyIll", &["Sick"]),
    ("Relapsed", &["Sick", "Healthy"]),
    ("Outpatient", &["Patient"]),
    ("Inpatient", &["Patient"]),
    ("Organization", &[]),
    ("Hospital", &["Organization"]),
    ("Clinic", &["Organization"]),
    ("Laboratory", &["Organization"]),
    ("Disease", &[]),
    ("InfectiousDisease", &["Disease"]),
    ("ChronicDisease", &["Disease"]),
    ("GeneticDisease", &["Disease"]),
    ("AutoimmuneDisease", &["Disease"]),
    ("Influenza", &["InfectiousDisease"]),
    ("Covid19", &["InfectiousDisease"]),
    ("Tuberculosis", &["InfectiousDisease"]),
    ("Measles", &["InfectiousDisease"]),
    ("Malaria", &["InfectiousDisease"]),
    ("Diabetes", &["ChronicDisease"]),
    ("Hypertension", &["ChronicDisease"]),
    ("Asthma", &["ChronicDisease"]),
    ("ChronicKidneyDisease", &["ChronicDisease"]),
    ("CysticFibrosis", &["GeneticDisease", "ChronicDisease"]),
    ("SickleCellAnemia", &["GeneticDisease"]),
    ("Hemophilia", &["GeneticDisease"]),
    ("Lupus", &["AutoimmuneDisease", "ChronicDisease"]),
    ("RheumatoidArthritis", &["AutoimmuneDisease"]),
    ("Psoriasis", &["AutoimmuneDisease"]),
    ("Medication", &[]),
    ("Antibiotic", &["Medication"]),
    ("Antiviral", &["Medication"]),
    ("Analgesic", &["Medication"]),
    ("Antihypertensive", &["Medication"]),
    ("Insulin", &["Medication"]),
    ("MedicalRecord", &[]),
];

const TAX_A: [&str; 16] = [
    "Acute",
    "Chronic",
    "Congenital",
    "Idiopathic",
    "Hereditary",
    "Recurrent",
    "Viral",
    "Bacterial",
    "Fungal",
    "Autoimmune",
    "Degenerative",
    "Inflammatory",
    "Neonatal",
    "Juvenile",
    "Senile",
    "Traumatic",
];

const TAX_B: [&str; 20] = [
    "Renal",
    "Hepatic",
    "Cardiac",
    "Pulmonary",
    "Gastric",
    "Cerebral",
    "Spinal",
    "Ocular",
    "Dermal",
    "Thyroid",
    "Pancreatic",
    "Splenic",
    "Vascular",
    "Bronchial",
    "Colonic",
    "Ovarian",
    "Prostatic",
    "Skeletal",
    "Muscular",
    "Lymphatic",
];

const TAX_C: [&str; 16] = [
    "Inflammation",
    "Failure",
    "Insufficiency",
    "Stenosis",
    "Fibrosis",
    "Necrosis",
    "Neoplasm",
    "Infection",
    "Syndrome",
    "Dystrophy",
    "Hypertrophy",
    "Atrophy",
    "Lesion",
    "Obstruction",
    "Hemorrhage",
    "Disorder",
];

/// Writes the T-Box only (no individuals); returns the number of triples.
pub fn write_tbox(p: &MedicalParams, out: &mut impl Write) -> std::io::Result<u64> {
    let mut t = Ttl::new(out);
    t.raw(PREFIXES, 0)?;
    tbox(p, &mut t)?;
    Ok(t.triples)
}

pub(super) fn tbox<W: Write>(p: &MedicalParams, t: &mut Ttl<'_, W>) -> std::io::Result<()> {
    t.stmt(
        "<http://example.org/medical>",
        &[
            ("a", &["owl:Ontology"]),
            (
                "rdfs:label",
                &[&lit("Synthetic medical ontology (rete-datagen)")],
            ),
        ],
    )?;
    for (c, parents) in CLASSES {
        let parents: &[&str] = if *c == "Relapsed" && !p.plant {
            &["Sick"]
        } else {
            parents
        };
        let label = lit(&split_camel(c));
        let parents: Vec<String> = parents.iter().map(|x| format!(":{x}")).collect();
        let parents: Vec<&str> = parents.iter().map(String::as_str).collect();
        t.stmt(
            &format!(":{c}"),
            &[
                ("a", &["owl:Class"]),
                ("rdfs:label", &[&label]),
                ("rdfs:subClassOf", &parents),
            ],
        )?;
    }
    t.stmt(":Physician", &[("owl:equivalentClass", &[":Doctor"])])?;
    t.stmt(":Healthy", &[("owl:disjointWith", &[":Sick"])])?;
    t.stmt(":Outpatient", &[("owl:disjointWith", &[":Inpatient"])])?;
    t.stmt(
        ":InfectiousDisease",
        &[("owl:disjointWith", &[":GeneticDisease"])],
    )?;
    let group = |members: &[&str]| {
        format!(
            "[] a owl:AllDisjointClasses ;\n    owl:members ( {} ) .\n",
            members
                .iter()
                .map(|m| format!(":{m}"))
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    // `[] a …; owl:members ( n items )` is 2 + 2n triples.
    let top = [
        "Person",
        "Organization",
        "Disease",
        "Medication",
        "MedicalRecord",
    ];
    t.raw(&group(&top), 2 + 2 * top.len() as u64)?;
    let orgs = ["Hospital", "Clinic", "Laboratory"];
    t.raw(&group(&orgs), 2 + 2 * orgs.len() as u64)?;
    let meds = ["Antibiotic", "Antiviral", "Analgesic"];
    t.raw(&group(&meds), 2 + 2 * meds.len() as u64)?;

    let props: &[(&str, &[&str], &str, &str)] = &[
        ("name", &["owl:DatatypeProperty"], "", "xsd:string"),
        (
            "birthDate",
            &["owl:DatatypeProperty", "owl:FunctionalProperty"],
            ":Person",
            "xsd:date",
        ),
        (
            "hasDiagnosis",
            &["owl:ObjectProperty"],
            ":Patient",
            ":Disease",
        ),
        ("treatedBy", &["owl:ObjectProperty"], ":Patient", ":Doctor"),
        ("treats", &["owl:ObjectProperty"], "", ""),
        (
            "hasAttendingPhysician",
            &["owl:ObjectProperty", "owl:FunctionalProperty"],
            "",
            "",
        ),
        ("hasConsultingPhysician", &["owl:ObjectProperty"], "", ""),
        (
            "worksAt",
            &["owl:ObjectProperty"],
            ":Person",
            ":Organization",
        ),
        (
            "admittedTo",
            &["owl:ObjectProperty"],
            ":Inpatient",
            ":Hospital",
        ),
        (
            "prescribed",
            &["owl:ObjectProperty"],
            ":Patient",
            ":Medication",
        ),
        (
            "hasRecord",
            &["owl:ObjectProperty", "owl:InverseFunctionalProperty"],
            ":Patient",
            ":MedicalRecord",
        ),
        (
            "supervises",
            &[
                "owl:ObjectProperty",
                "owl:AsymmetricProperty",
                "owl:IrreflexiveProperty",
            ],
            ":Doctor",
            ":Doctor",
        ),
    ];
    for (name, types, domain, range) in props {
        let label = lit(&split_camel(name).to_lowercase());
        let d: &[&str] = if domain.is_empty() { &[] } else { &[domain] };
        let r: &[&str] = if range.is_empty() { &[] } else { &[range] };
        t.stmt(
            &format!(":{name}"),
            &[
                ("a", types),
                ("rdfs:label", &[&label]),
                ("rdfs:domain", d),
                ("rdfs:range", r),
            ],
        )?;
    }
    t.stmt(":treats", &[("owl:inverseOf", &[":treatedBy"])])?;
    t.stmt(
        ":hasAttendingPhysician",
        &[
            ("rdfs:subPropertyOf", &[":treatedBy"]),
            ("owl:propertyDisjointWith", &[":hasConsultingPhysician"]),
        ],
    )?;
    t.stmt(
        ":hasConsultingPhysician",
        &[("rdfs:subPropertyOf", &[":treatedBy"])],
    )?;

    // The generated taxonomy: a tree below the four disease categories.
    if p.taxonomy > 0 {
        let mut rng = Rng::new(p.seed ^ 0x7a78);
        let mut names: Vec<String> = Vec::new();
        let mut used = std::collections::HashSet::new();
        let roots = [
            "InfectiousDisease",
            "ChronicDisease",
            "GeneticDisease",
            "AutoimmuneDisease",
        ];
        let mut children: std::collections::HashMap<String, Vec<String>> = Default::default();
        let cap = (TAX_A.len() * TAX_B.len() * TAX_C.len()) as u64;
        let mut k = 0u64;
        while (names.len() as u64) < p.taxonomy.min(cap * 4) {
            let (a, b, c) = (
                TAX_A[rng.below(16) as usize],
                TAX_B[rng.below(20) as usize],
                TAX_C[rng.below(16) as usize],
            );
            k += 1;
            // After the word combinations run out, number them.
            let name = if (used.len() as u64) < cap * 3 / 4 {
                format!("{a}{b}{c}")
            } else {
                format!("{a}{b}{c}{k}")
            };
            if !used.insert(name.clone()) {
                continue;
            }
            // Attach to a category or to an earlier generated class (a tree, so no class has
            // two disjoint ancestors).
            let parent = if names.is_empty() || rng.chance(0.15) {
                roots[rng.below(4) as usize].to_owned()
            } else {
                names[rng.below(names.len() as u64) as usize].clone()
            };
            let label = lit(&split_camel(&name).to_lowercase());
            t.stmt(
                &format!(":{name}"),
                &[
                    ("a", &["owl:Class"]),
                    ("rdfs:label", &[&label]),
                    ("rdfs:subClassOf", &[&format!(":{parent}")]),
                ],
            )?;
            let sibs = children.entry(parent).or_default();
            if let Some(prev) = sibs.last() {
                if rng.chance(0.5) {
                    t.stmt(
                        &format!(":{name}"),
                        &[("owl:disjointWith", &[&format!(":{prev}")])],
                    )?;
                }
            }
            sibs.push(name.clone());
            names.push(name);
        }
    }
    Ok(())
}
