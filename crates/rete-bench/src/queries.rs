//! The benchmark queries: the 24 operator shapes on the social graph and on LUBM, and the 14
//! standard LUBM queries.

use rete_datagen::lubm::{department, university, UB};
use rete_datagen::social::NS;

/// How results are checked between engines before timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Gate {
    /// Identical result multisets (blank nodes up to renaming; in order for ORDER BY).
    Multiset,
    /// Identical row counts only: a LIMIT without ORDER BY may pick different rows.
    Count,
}

/// One benchmark query.
#[derive(Debug, Clone)]
pub struct BenchQuery {
    /// Short label.
    pub name: &'static str,
    /// SPARQL text.
    pub sparql: String,
    /// Correctness gate.
    pub gate: Gate,
    /// Variables whose order is checked (ORDER BY with a total order).
    pub ordered: bool,
    /// Answered by rete from index block counts (COUNT of one triple pattern).
    pub index_count: bool,
}

fn q(name: &'static str, sparql: String) -> BenchQuery {
    BenchQuery {
        name,
        sparql,
        gate: Gate::Multiset,
        ordered: false,
        index_count: false,
    }
}

fn index_count(mut b: BenchQuery) -> BenchQuery {
    b.index_count = true;
    b
}

fn limited(mut b: BenchQuery) -> BenchQuery {
    b.gate = Gate::Count;
    b
}

fn ordered(mut b: BenchQuery) -> BenchQuery {
    b.ordered = true;
    b
}

/// The 24 operator shapes on the social graph.
pub fn social() -> Vec<BenchQuery> {
    let pre = format!(
        "PREFIX foaf: <http://xmlns.com/foaf/0.1/>\nPREFIX ex: <{NS}>\nPREFIX p: <{NS}person/>\n"
    );
    let s = |b: &str| format!("{pre}{b}");
    vec![
        index_count(q("SELECT count (aggregate)", s("SELECT (COUNT(*) AS ?c) WHERE { ?a foaf:knows ?b }"))),
        q("SELECT DISTINCT", s("SELECT DISTINCT ?age WHERE { ?p foaf:age ?age }")),
        q("ASK", s("ASK { p:1 foaf:knows ?x . ?x foaf:knows ?y . ?y foaf:age 30 }")),
        q("CONSTRUCT", s("CONSTRUCT { ?b foaf:knownBy p:1 } WHERE { p:1 foaf:knows ?b }")),
        q("DESCRIBE (impl-defined)", s("DESCRIBE p:1")),
        q("VALUES (inline data)", s("SELECT ?p ?n WHERE { VALUES ?n { \"Ada Lovelace\" \"Alan Turing\" \"Grace Hopper\" \"Tim Berners-Lee\" \"Barbara Liskov\" } ?p foaf:name ?n }")),
        q("UNION", s("SELECT ?p WHERE { { ?p foaf:age 30 } UNION { ?p foaf:name \"Grace Hopper\" } }")),
        q("OPTIONAL (left join)", s("SELECT ?p ?f WHERE { ?p foaf:age 25 OPTIONAL { ?p foaf:knows ?f . ?f foaf:age 25 } }")),
        q("MINUS", s("SELECT ?p WHERE { ?p a foaf:Person MINUS { ?p foaf:age ?a FILTER(?a < 70) } }")),
        q("FILTER NOT EXISTS", s("SELECT ?p WHERE { ?p a foaf:Person FILTER NOT EXISTS { ?p foaf:age ?a FILTER(?a < 70) } }")),
        limited(q("3-way join + LIMIT", s("SELECT ?a ?b ?c WHERE { ?a foaf:knows ?b . ?b foaf:knows ?c . ?c foaf:age 40 } LIMIT 50"))),
        q("FILTER REGEX (case-insens.)", s("SELECT ?p ?n WHERE { ?p foaf:name ?n FILTER REGEX(?n, \"^ada\", \"i\") }")),
        q("FILTER arith + logical", s("SELECT ?p ?a WHERE { ?p foaf:age ?a FILTER(?a * 2 > 150 && ?a != 79 || ?a = 18) }")),
        limited(q("BIND + SUBSTR + CONCAT", s("SELECT ?p ?s WHERE { ?p foaf:name ?n BIND(CONCAT(SUBSTR(?n, 1, 3), \"-\", STR(?p)) AS ?s) } LIMIT 200"))),
        q("path sequence a/b", s("SELECT ?y WHERE { p:1 foaf:knows/foaf:knows ?y }")),
        index_count(q("path inverse ^p (count)", s("SELECT (COUNT(*) AS ?c) WHERE { ?x ^foaf:knows ?y }"))),
        q("path + transitive (count)", s("SELECT (COUNT(?y) AS ?c) WHERE { p:1 foaf:knows+ ?y }")),
        q("path * zero-or-more (count)", s("SELECT (COUNT(?y) AS ?c) WHERE { p:2 foaf:knows* ?y }")),
        ordered(q("GROUP BY + ORDER BY", s("SELECT ?a (COUNT(?p) AS ?c) WHERE { ?p foaf:age ?a } GROUP BY ?a ORDER BY DESC(?c) ?a"))),
        q("GROUP BY + HAVING", s("SELECT ?p (COUNT(?f) AS ?c) WHERE { ?p foaf:knows ?f } GROUP BY ?p HAVING (COUNT(?f) >= 5)")),
        q("AVG per group", s("SELECT ?n (AVG(?a) AS ?avg) WHERE { ?p foaf:name ?n ; foaf:age ?a } GROUP BY ?n")),
        q("MIN/MAX/SUM", s("SELECT (MIN(?a) AS ?min) (MAX(?a) AS ?max) (SUM(?a) AS ?sum) WHERE { ?p foaf:age ?a }")),
        q("COUNT(DISTINCT)", s("SELECT (COUNT(DISTINCT ?n) AS ?c) WHERE { ?p foaf:name ?n }")),
        ordered(q("ORDER BY + LIMIT + OFFSET", s("SELECT ?p ?a WHERE { ?p foaf:age ?a } ORDER BY DESC(?a) ?p LIMIT 10 OFFSET 20"))),
    ]
}

fn lubm_prefix() -> String {
    format!("PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\nPREFIX ub: <{UB}>\n")
}

/// The same 24 operator shapes on LUBM.
pub fn lubm_shapes() -> Vec<BenchQuery> {
    let pre = lubm_prefix();
    let d0 = department(0, 0);
    let d1 = department(0, 1);
    let u0 = university(0);
    let s = |b: String| format!("{pre}{b}");
    vec![
        index_count(q("SELECT count (aggregate)", s("SELECT (COUNT(*) AS ?c) WHERE { ?x ub:takesCourse ?y }".into()))),
        q("SELECT DISTINCT", s("SELECT DISTINCT ?t WHERE { ?x rdf:type ?t }".into())),
        q("ASK", s("ASK { ?x ub:advisor ?y . ?y ub:headOf ?d . ?x ub:takesCourse ?c }".into())),
        q("CONSTRUCT", s(format!("CONSTRUCT {{ ?x ub:studentOf ?c }} WHERE {{ <{d0}/AssociateProfessor0> ub:teacherOf ?c . ?x ub:takesCourse ?c }}"))),
        q("DESCRIBE (impl-defined)", s(format!("DESCRIBE <{d0}/FullProfessor0>"))),
        q("VALUES (inline data)", s(format!("SELECT ?x ?c WHERE {{ VALUES ?c {{ <{d0}/Course0> <{d0}/Course1> <{d0}/Course2> <{d1}/Course0> }} ?x ub:takesCourse ?c }}"))),
        q("UNION", s("SELECT ?x WHERE { { ?x rdf:type ub:TeachingAssistant } UNION { ?x rdf:type ub:ResearchAssistant } }".into())),
        q("OPTIONAL (left join)", s(format!("SELECT ?x ?a WHERE {{ ?x rdf:type ub:UndergraduateStudent ; ub:memberOf <{d0}> OPTIONAL {{ ?x ub:advisor ?a }} }}"))),
        q("MINUS", s("SELECT ?x WHERE { ?x rdf:type ub:GraduateStudent MINUS { ?x rdf:type ub:TeachingAssistant } }".into())),
        q("FILTER NOT EXISTS", s("SELECT ?x WHERE { ?x rdf:type ub:GraduateStudent FILTER NOT EXISTS { ?x rdf:type ub:TeachingAssistant } }".into())),
        limited(q("3-way join + LIMIT", s("SELECT ?x ?y ?z WHERE { ?x ub:advisor ?y . ?y ub:teacherOf ?z . ?x ub:takesCourse ?z } LIMIT 50".into()))),
        q("FILTER REGEX (case-insens.)", s("SELECT ?x WHERE { ?x ub:emailAddress ?e FILTER REGEX(?e, \"^graduatestudent1@\", \"i\") }".into())),
        q("FILTER arith + logical", s("SELECT ?x ?n WHERE { ?x ub:researchInterest ?n FILTER(STRLEN(?n) * 2 > 20 && ?n != \"Research50\" || ?n = \"Research1\") }".into())),
        limited(q("BIND + SUBSTR + CONCAT", s("SELECT ?x ?s WHERE { ?x ub:name ?n BIND(CONCAT(SUBSTR(?n, 1, 5), \"-\", STR(?x)) AS ?s) } LIMIT 200".into()))),
        q("path sequence a/b", s(format!("SELECT ?x WHERE {{ ?x ub:advisor/ub:worksFor <{d0}> }}"))),
        index_count(q("path inverse ^p (count)", s("SELECT (COUNT(*) AS ?c) WHERE { ?d ^ub:memberOf ?x }".into()))),
        q("path + transitive (count)", s("SELECT (COUNT(*) AS ?c) WHERE { ?x ub:subOrganizationOf+ ?y }".into())),
        q("path * zero-or-more (count)", s(format!("SELECT (COUNT(*) AS ?c) WHERE {{ ?x ub:subOrganizationOf* <{u0}> }}"))),
        ordered(q("GROUP BY + ORDER BY", s("SELECT ?d (COUNT(?x) AS ?c) WHERE { ?x ub:memberOf ?d } GROUP BY ?d ORDER BY DESC(?c) ?d".into()))),
        q("GROUP BY + HAVING", s("SELECT ?y (COUNT(?x) AS ?c) WHERE { ?x ub:advisor ?y } GROUP BY ?y HAVING (COUNT(?x) > 10)".into())),
        q("AVG per group", s("SELECT ?d (AVG(?l) AS ?avg) WHERE { ?x ub:memberOf ?d ; ub:name ?n BIND(STRLEN(?n) AS ?l) } GROUP BY ?d".into())),
        q("MIN/MAX/SUM", s("SELECT (MIN(?l) AS ?min) (MAX(?l) AS ?max) (SUM(?l) AS ?sum) WHERE { ?x ub:emailAddress ?e BIND(STRLEN(?e) AS ?l) }".into())),
        q("COUNT(DISTINCT)", s("SELECT (COUNT(DISTINCT ?y) AS ?c) WHERE { ?x ub:advisor ?y }".into())),
        ordered(q("ORDER BY + LIMIT + OFFSET", s("SELECT ?x ?n WHERE { ?x rdf:type ub:UndergraduateStudent ; ub:name ?n } ORDER BY ?n ?x LIMIT 10 OFFSET 20".into()))),
    ]
}

/// The 14 standard LUBM queries.
pub fn lubm_standard() -> Vec<BenchQuery> {
    rete_datagen::lubm::queries()
        .into_iter()
        .map(|(name, sparql)| q(name, sparql))
        .collect()
}
