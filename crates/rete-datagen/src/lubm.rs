//! A LUBM-style university dataset: the Lehigh University Benchmark's data model (univ-bench
//! ontology) with the cardinalities documented for its UBA generator, a deterministic seed, and
//! the 14 standard queries.
//!
//! This is a reimplementation from the documented ranges, not the Java UBA tool, so absolute
//! counts differ from published LUBM figures. Per department: 7–10 full, 10–14 associate and
//! 8–11 assistant professors, 5–7 lecturers; 8–14 undergraduates and 3–4 graduate students per
//! faculty member; every faculty member teaches 1–2 courses and 1–2 graduate courses;
//! 10–20 research groups; 15–20 / 10–18 / 5–10 / 0–5 publications per full / associate /
//! assistant professor / lecturer; undergraduates take 2–4 courses and one in five has an
//! advisor; graduate students take 1–3 graduate courses, all have an advisor, one in five is a
//! teaching assistant and one in four a research assistant; a full professor heads each
//! department. Universities have 15–25 departments.

use crate::{iri, literal, Rng};
use std::io::Write;

/// The univ-bench namespace.
pub const UB: &str = "http://swat.cse.lehigh.edu/onto/univ-bench.owl#";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
const OWL: &str = "http://www.w3.org/2002/07/owl#";

/// Parameters of a LUBM dataset.
#[derive(Debug, Clone)]
pub struct LubmParams {
    /// Number of universities (LUBM(N)).
    pub universities: u32,
    /// Random seed.
    pub seed: u64,
}

impl Default for LubmParams {
    fn default() -> Self {
        Self {
            universities: 1,
            seed: 0,
        }
    }
}

/// The IRI of university `u`.
pub fn university(u: u32) -> String {
    format!("http://www.University{u}.edu")
}

/// The IRI of department `d` of university `u`.
pub fn department(u: u32, d: u32) -> String {
    format!("http://www.Department{d}.University{u}.edu")
}

struct W<'a, O: Write> {
    out: &'a mut O,
    line: String,
    n: u64,
}

impl<O: Write> W<'_, O> {
    fn iri_triple(&mut self, s: &str, p: &str, o: &str) -> std::io::Result<()> {
        self.line.clear();
        iri(&mut self.line, s);
        self.line.push(' ');
        iri(&mut self.line, p);
        self.line.push(' ');
        iri(&mut self.line, o);
        self.line.push_str(" .\n");
        self.n += 1;
        self.out.write_all(self.line.as_bytes())
    }
    fn ub(&mut self, s: &str, p: &str, o: &str) -> std::io::Result<()> {
        self.iri_triple(s, &format!("{UB}{p}"), o)
    }
    fn ty(&mut self, s: &str, class: &str) -> std::io::Result<()> {
        self.iri_triple(s, RDF_TYPE, &format!("{UB}{class}"))
    }
    fn lit(&mut self, s: &str, p: &str, v: &str) -> std::io::Result<()> {
        self.line.clear();
        iri(&mut self.line, s);
        self.line.push(' ');
        iri(&mut self.line, &format!("{UB}{p}"));
        self.line.push(' ');
        literal(&mut self.line, v);
        self.line.push_str(" .\n");
        self.n += 1;
        self.out.write_all(self.line.as_bytes())
    }
}

/// The people and courses of a department (the random draws in the generator's order: the
/// data stays byte-identical).
impl<O: Write> W<'_, O> {
    /// Person `i` of `class` in department `d` of university `u`: type, name, e-mail address and
    /// a drawn telephone number; returns the IRI.
    fn person(
        &mut self,
        rng: &mut Rng,
        (u, d): (u32, u32),
        class: &str,
        i: u64,
    ) -> std::io::Result<String> {
        let s = format!("{}/{class}{i}", department(u, d));
        self.ty(&s, class)?;
        self.lit(&s, "name", &format!("{class}{i}"))?;
        let email = format!("{class}{i}@Department{d}.University{u}.edu");
        self.lit(&s, "emailAddress", &email)?;
        let phone = format!("xxx-xxx-{:04}", rng.below(10_000));
        self.lit(&s, "telephone", &phone)?;
        Ok(s)
    }

    /// A new course of `class` (`Course` or `GraduateCourse`) in `dept`, taught by `teacher`.
    fn teach(
        &mut self,
        teacher: &str,
        dept: &str,
        class: &str,
        courses: &mut Vec<String>,
    ) -> std::io::Result<()> {
        let n = courses.len();
        let c = format!("{dept}/{class}{n}");
        self.ty(&c, class)?;
        self.lit(&c, "name", &format!("{class}{n}"))?;
        self.ub(teacher, "teacherOf", &c)?;
        courses.push(c);
        Ok(())
    }

    /// `student` takes between `lo` and `hi` drawn `courses` (each once).
    fn take_courses(
        &mut self,
        rng: &mut Rng,
        student: &str,
        courses: &[String],
        (lo, hi): (u64, u64),
    ) -> std::io::Result<()> {
        let mut taken: Vec<u64> = Vec::new();
        for _ in 0..range(rng, lo, hi) {
            let c = rng.below(courses.len() as u64);
            if !taken.contains(&c) {
                taken.push(c);
                self.ub(student, "takesCourse", &courses[c as usize])?;
            }
        }
        Ok(())
    }
}

fn range(rng: &mut Rng, lo: u64, hi: u64) -> u64 {
    lo + rng.below(hi - lo + 1)
}

/// Universities that degrees are drawn from (UBA draws from a pool larger than the generated set).
const DEGREE_POOL: u64 = 1000;

/// Writes the data (instances only; see [`write_ontology`]) as N-Triples; returns the number of
/// triples.
pub fn write_ntriples(p: &LubmParams, out: &mut impl Write) -> std::io::Result<u64> {
    let mut rng = Rng::new(p.seed);
    let mut w = W {
        out,
        line: String::with_capacity(256),
        n: 0,
    };
    for u in 0..p.universities {
        let univ = university(u);
        w.ty(&univ, "University")?;
        w.lit(&univ, "name", &format!("University{u}"))?;
        let depts = range(&mut rng, 15, 25) as u32;
        for d in 0..depts {
            department_data(&mut w, &mut rng, u, d)?;
        }
    }
    Ok(w.n)
}

/// A faculty class: name, head-count range, publications range.
type FacultyKind = (&'static str, (u64, u64), (u64, u64));

fn department_data<O: Write>(
    w: &mut W<'_, O>,
    rng: &mut Rng,
    u: u32,
    d: u32,
) -> std::io::Result<()> {
    let univ = university(u);
    let dept = department(u, d);
    w.ty(&dept, "Department")?;
    w.lit(&dept, "name", &format!("Department{d}"))?;
    w.ub(&dept, "subOrganizationOf", &univ)?;
    let groups = range(rng, 10, 20);
    for g in 0..groups {
        let rg = format!("{dept}/ResearchGroup{g}");
        w.ty(&rg, "ResearchGroup")?;
        w.ub(&rg, "subOrganizationOf", &dept)?;
    }
    // Faculty: (class, count range, publications range).
    let kinds: [FacultyKind; 4] = [
        ("FullProfessor", (7, 10), (15, 20)),
        ("AssociateProfessor", (10, 14), (10, 18)),
        ("AssistantProfessor", (8, 11), (5, 10)),
        ("Lecturer", (5, 7), (0, 5)),
    ];
    let mut faculty: Vec<String> = Vec::new();
    let mut professors: Vec<String> = Vec::new();
    let mut courses: Vec<String> = Vec::new();
    let mut grad_courses: Vec<String> = Vec::new();
    let mut publications: Vec<String> = Vec::new();
    for (class, (lo, hi), (plo, phi)) in kinds {
        let n = range(rng, lo, hi);
        for i in 0..n {
            let f = w.person(rng, (u, d), class, i)?;
            w.ub(&f, "worksFor", &dept)?;
            for degree in [
                "undergraduateDegreeFrom",
                "mastersDegreeFrom",
                "doctoralDegreeFrom",
            ] {
                w.ub(&f, degree, &university(rng.below(DEGREE_POOL) as u32))?;
            }
            if class != "Lecturer" {
                w.lit(
                    &f,
                    "researchInterest",
                    &format!("Research{}", rng.below(100)),
                )?;
            }
            for _ in 0..range(rng, 1, 2) {
                w.teach(&f, &dept, "Course", &mut courses)?;
            }
            for _ in 0..range(rng, 1, 2) {
                w.teach(&f, &dept, "GraduateCourse", &mut grad_courses)?;
            }
            for k in 0..range(rng, plo, phi) {
                let pubn = format!("{f}/Publication{k}");
                w.ty(&pubn, "Publication")?;
                w.lit(&pubn, "name", &format!("Publication{k}"))?;
                w.ub(&pubn, "publicationAuthor", &f)?;
                publications.push(pubn);
            }
            if class != "Lecturer" {
                professors.push(f.clone());
            }
            faculty.push(f);
        }
    }
    // The head of the department is its first full professor.
    w.ub(&format!("{dept}/FullProfessor0"), "headOf", &dept)?;
    let nf = faculty.len() as u64;
    let undergrads = nf * range(rng, 8, 14);
    for i in 0..undergrads {
        let s = w.person(rng, (u, d), "UndergraduateStudent", i)?;
        w.ub(&s, "memberOf", &dept)?;
        w.take_courses(rng, &s, &courses, (2, 4))?;
        if rng.below(5) == 0 {
            let a = &professors[rng.below(professors.len() as u64) as usize];
            w.ub(&s, "advisor", a)?;
        }
    }
    let grads = nf * range(rng, 3, 4);
    for i in 0..grads {
        let s = w.person(rng, (u, d), "GraduateStudent", i)?;
        w.ub(&s, "memberOf", &dept)?;
        w.ub(
            &s,
            "undergraduateDegreeFrom",
            &university(rng.below(DEGREE_POOL) as u32),
        )?;
        w.take_courses(rng, &s, &grad_courses, (1, 3))?;
        let a = &professors[rng.below(professors.len() as u64) as usize];
        w.ub(&s, "advisor", a)?;
        if rng.below(5) == 0 {
            w.ty(&s, "TeachingAssistant")?;
            let c = &courses[rng.below(courses.len() as u64) as usize];
            w.ub(&s, "teachingAssistantOf", c)?;
        }
        if rng.below(4) == 0 {
            w.ty(&s, "ResearchAssistant")?;
            w.ub(
                &s,
                "worksFor",
                &format!("{dept}/ResearchGroup{}", rng.below(groups)),
            )?;
        }
        for _ in 0..rng.below(6) {
            if publications.is_empty() {
                break;
            }
            let p = &publications[rng.below(publications.len() as u64) as usize];
            w.ub(p, "publicationAuthor", &s)?;
        }
    }
    Ok(())
}

/// The part of the univ-bench ontology that RDFS and OWL-RL property rules can use: the class
/// and property hierarchies, domains and ranges, `owl:inverseOf` and `owl:TransitiveProperty`.
/// Class definitions by restriction (`Chair`, `Student ≡ Person ⊓ ∃takesCourse.Course`…) are
/// not expressible here; `GraduateStudent ⊑ Student` is stated directly, as RDFS-only LUBM
/// setups commonly do, so that Q6 and Q10 see graduate students.
pub fn write_ontology(out: &mut impl Write) -> std::io::Result<u64> {
    let mut w = W {
        out,
        line: String::new(),
        n: 0,
    };
    let sub_class = format!("{RDFS}subClassOf");
    let sub_prop = format!("{RDFS}subPropertyOf");
    let ub = |s: &str| format!("{UB}{s}");
    let classes: &[(&str, &str)] = &[
        ("FullProfessor", "Professor"),
        ("AssociateProfessor", "Professor"),
        ("AssistantProfessor", "Professor"),
        ("Chair", "Professor"),
        ("Dean", "Professor"),
        ("VisitingProfessor", "Professor"),
        ("Professor", "Faculty"),
        ("Lecturer", "Faculty"),
        ("PostDoc", "Faculty"),
        ("Faculty", "Employee"),
        ("AdministrativeStaff", "Employee"),
        ("ClericalStaff", "AdministrativeStaff"),
        ("SystemsStaff", "AdministrativeStaff"),
        ("Employee", "Person"),
        ("UndergraduateStudent", "Student"),
        ("GraduateStudent", "Student"),
        ("Student", "Person"),
        ("TeachingAssistant", "Person"),
        ("ResearchAssistant", "Person"),
        ("Director", "Person"),
        ("University", "Organization"),
        ("Department", "Organization"),
        ("ResearchGroup", "Organization"),
        ("College", "Organization"),
        ("Institute", "Organization"),
        ("Program", "Organization"),
        ("GraduateCourse", "Course"),
        ("Course", "Work"),
        ("Research", "Work"),
        ("Article", "Publication"),
        ("Book", "Publication"),
        ("Manual", "Publication"),
        ("Software", "Publication"),
        ("Specification", "Publication"),
        ("UnofficialPublication", "Publication"),
        ("ConferencePaper", "Article"),
        ("JournalArticle", "Article"),
        ("TechnicalReport", "Article"),
    ];
    for (a, b) in classes {
        w.iri_triple(&ub(a), &sub_class, &ub(b))?;
    }
    let props: &[(&str, &str)] = &[
        ("headOf", "worksFor"),
        ("worksFor", "memberOf"),
        ("doctoralDegreeFrom", "degreeFrom"),
        ("mastersDegreeFrom", "degreeFrom"),
        ("undergraduateDegreeFrom", "degreeFrom"),
    ];
    for (a, b) in props {
        w.iri_triple(&ub(a), &sub_prop, &ub(b))?;
    }
    let domain = format!("{RDFS}domain");
    let range_p = format!("{RDFS}range");
    let dr: &[(&str, Option<&str>, Option<&str>)] = &[
        ("advisor", Some("Person"), Some("Professor")),
        ("degreeFrom", Some("Person"), Some("University")),
        ("headOf", None, Some("Organization")),
        ("memberOf", Some("Person"), Some("Organization")),
        ("publicationAuthor", Some("Publication"), Some("Person")),
        (
            "subOrganizationOf",
            Some("Organization"),
            Some("Organization"),
        ),
        ("takesCourse", Some("Student"), Some("Course")),
        ("teacherOf", Some("Faculty"), Some("Course")),
        (
            "teachingAssistantOf",
            Some("TeachingAssistant"),
            Some("Course"),
        ),
        ("worksFor", Some("Employee"), Some("Organization")),
    ];
    for (p, d, r) in dr {
        if let Some(d) = d {
            w.iri_triple(&ub(p), &domain, &ub(d))?;
        }
        if let Some(r) = r {
            w.iri_triple(&ub(p), &range_p, &ub(r))?;
        }
    }
    w.iri_triple(
        &ub("hasAlumnus"),
        &format!("{OWL}inverseOf"),
        &ub("degreeFrom"),
    )?;
    w.iri_triple(&ub("member"), &format!("{OWL}inverseOf"), &ub("memberOf"))?;
    w.iri_triple(
        &ub("subOrganizationOf"),
        RDF_TYPE,
        &format!("{OWL}TransitiveProperty"),
    )?;
    Ok(w.n)
}

/// The 14 LUBM queries, as (label, SPARQL), with the standard constants of LUBM(1).
pub fn queries() -> Vec<(&'static str, String)> {
    let p =
        format!("PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\nPREFIX ub: <{UB}>\n");
    let d0 = department(0, 0);
    let u0 = university(0);
    let q = |body: String| format!("{p}{body}");
    vec![
        ("Q1 grad students of a course", q(format!("SELECT ?x WHERE {{ ?x rdf:type ub:GraduateStudent . ?x ub:takesCourse <{d0}/GraduateCourse0> }}"))),
        ("Q2 grad student / univ / dept triangle", q("SELECT ?x ?y ?z WHERE { ?x rdf:type ub:GraduateStudent . ?y rdf:type ub:University . ?z rdf:type ub:Department . ?x ub:memberOf ?z . ?z ub:subOrganizationOf ?y . ?x ub:undergraduateDegreeFrom ?y }".into())),
        ("Q3 publications of a professor", q(format!("SELECT ?x WHERE {{ ?x rdf:type ub:Publication . ?x ub:publicationAuthor <{d0}/AssistantProfessor0> }}"))),
        ("Q4 professors of a department (+3 props)", q(format!("SELECT ?x ?y1 ?y2 ?y3 WHERE {{ ?x rdf:type ub:Professor . ?x ub:worksFor <{d0}> . ?x ub:name ?y1 . ?x ub:emailAddress ?y2 . ?x ub:telephone ?y3 }}"))),
        ("Q5 persons member of a department", q(format!("SELECT ?x WHERE {{ ?x rdf:type ub:Person . ?x ub:memberOf <{d0}> }}"))),
        ("Q6 all students", q("SELECT ?x WHERE { ?x rdf:type ub:Student }".into())),
        ("Q7 students of a professor's courses", q(format!("SELECT ?x ?y WHERE {{ ?x rdf:type ub:Student . ?y rdf:type ub:Course . ?x ub:takesCourse ?y . <{d0}/AssociateProfessor0> ub:teacherOf ?y }}"))),
        ("Q8 students of a university's departments", q(format!("SELECT ?x ?y ?z WHERE {{ ?x rdf:type ub:Student . ?y rdf:type ub:Department . ?x ub:memberOf ?y . ?y ub:subOrganizationOf <{u0}> . ?x ub:emailAddress ?z }}"))),
        ("Q9 student / advisor / course triangle", q("SELECT ?x ?y ?z WHERE { ?x rdf:type ub:Student . ?y rdf:type ub:Faculty . ?z rdf:type ub:Course . ?x ub:advisor ?y . ?y ub:teacherOf ?z . ?x ub:takesCourse ?z }".into())),
        ("Q10 students of a graduate course", q(format!("SELECT ?x WHERE {{ ?x rdf:type ub:Student . ?x ub:takesCourse <{d0}/GraduateCourse0> }}"))),
        ("Q11 research groups of a university", q(format!("SELECT ?x WHERE {{ ?x rdf:type ub:ResearchGroup . ?x ub:subOrganizationOf <{u0}> }}"))),
        ("Q12 chairs of a university's departments", q(format!("SELECT ?x ?y WHERE {{ ?x rdf:type ub:Chair . ?y rdf:type ub:Department . ?x ub:worksFor ?y . ?y ub:subOrganizationOf <{u0}> }}"))),
        ("Q13 alumni of a university", q(format!("SELECT ?x WHERE {{ ?x rdf:type ub:Person . <{u0}> ub:hasAlumnus ?x }}"))),
        ("Q14 all undergraduate students", q("SELECT ?x WHERE { ?x rdf:type ub:UndergraduateStudent }".into())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_sized() {
        let p = LubmParams::default();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let n = write_ntriples(&p, &mut a).unwrap();
        write_ntriples(&p, &mut b).unwrap();
        assert_eq!(a, b);
        // LUBM(1) is on the order of 100k triples.
        assert!((50_000..250_000).contains(&n), "{n} triples");
        let mut o = Vec::new();
        assert!(write_ontology(&mut o).unwrap() > 40);
        assert_eq!(queries().len(), 14);
    }
}
