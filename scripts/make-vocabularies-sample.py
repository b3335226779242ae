#!/usr/bin/env python3
"""Writes samples/vocabularies.nq: a small, generated multi-vocabulary dataset in N-Quads, one
named graph per vocabulary, with a planted cross-vocabulary clash (see samples/README.md).

The class axioms are written for this test in the shape of the published vocabularies (schema.org,
DBpedia ontology, FOAF, GoodRelations, W3C ORG); they are not copies of them. The planted error is
the alignment `schema:Person rdfs:subClassOf gr:BusinessEntity`.
"""
import sys

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
SCHEMA = "http://schema.org/"
DBO = "http://dbpedia.org/ontology/"
FOAF = "http://xmlns.com/foaf/0.1/"
GR = "http://purl.org/goodrelations/v1#"
ORG = "http://www.w3.org/ns/org#"
EX = "http://example.org/people/"

G = {
    "schema": "http://schema.org/",
    "dbo": "http://dbpedia.org/ontology/",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "gr": "http://purl.org/goodrelations/v1",
    "org": "http://www.w3.org/ns/org",
    "align": "http://example.org/alignments/schema-goodrelations",
    "data": "http://example.org/people",
}

out = []


def q(s, p, o, g):
    o = o if o.startswith('"') else f"<{o}>"
    out.append(f"<{s}> <{p}> {o} <{G[g]}> .")


def cls(iri, label, g, *parents):
    q(iri, RDF + "type", OWL + "Class", g)
    q(iri, RDFS + "label", f'"{label}"@en', g)
    for p in parents:
        q(iri, RDFS + "subClassOf", p, g)


# FOAF: agents, people and organizations, people disjoint with organizations.
cls(FOAF + "Agent", "Agent", "foaf")
cls(FOAF + "Person", "Person", "foaf", FOAF + "Agent")
cls(FOAF + "Organization", "Organization", "foaf", FOAF + "Agent")
q(FOAF + "Person", OWL + "disjointWith", FOAF + "Organization", "foaf")

# W3C ORG: a formal organization is a FOAF organization.
cls(ORG + "Organization", "Organization", "org", FOAF + "Agent")
cls(ORG + "FormalOrganization", "Formal Organization", "org", ORG + "Organization", FOAF + "Organization")

# GoodRelations: business entities, which this version files under formal organizations.
cls(GR + "BusinessEntity", "Business entity", "gr", ORG + "FormalOrganization")

# schema.org: people, patients, organizations.
cls(SCHEMA + "Thing", "Thing", "schema")
cls(SCHEMA + "Person", "Person", "schema", SCHEMA + "Thing")
cls(SCHEMA + "Patient", "Patient", "schema", SCHEMA + "Person")
cls(SCHEMA + "Organization", "Organization", "schema", SCHEMA + "Thing")

# The planted clash: an alignment that says every schema.org person is a business entity.
q(SCHEMA + "Person", RDFS + "subClassOf", GR + "BusinessEntity", "align")

# DBpedia ontology: Person equivalent to FOAF's and schema.org's, a tree of kinds of people,
# places disjoint with agents.
cls(DBO + "Agent", "agent", "dbo")
cls(DBO + "Person", "person", "dbo", DBO + "Agent")
q(DBO + "Person", OWL + "equivalentClass", FOAF + "Person", "dbo")
q(DBO + "Person", OWL + "equivalentClass", SCHEMA + "Person", "dbo")
cls(DBO + "Organisation", "organisation", "dbo", DBO + "Agent")
cls(DBO + "Place", "place", "dbo")
q(DBO + "Place", OWL + "disjointWith", DBO + "Agent", "dbo")
tree = {
    "Athlete": ["SoccerPlayer", "TennisPlayer", "Swimmer", "Cyclist", "BasketballPlayer"],
    "Artist": ["Painter", "Sculptor", "MusicalArtist", "Photographer"],
    "Scientist": ["Physicist", "Chemist", "Biologist", "Mathematician"],
    "Politician": ["President", "Mayor", "Senator"],
    "Writer": ["Poet", "Novelist"],
    "Cleric": ["Pope", "Saint"],
}
label = lambda n: "".join(" " + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(n))
for parent, kids in tree.items():
    cls(DBO + parent, label(parent), "dbo", DBO + "Person")
    for k in kids:
        cls(DBO + k, label(k), "dbo", DBO + parent)

# Data: two people (members of classes the clash empties) and two things both place and agent.
for ind, t, name in [("marie-curie", "Physicist", "Marie Curie"), ("pele", "SoccerPlayer", "Pelé")]:
    q(EX + ind, RDF + "type", DBO + t, "data")
    q(EX + ind, FOAF + "name", f'"{name}"', "data")
for ind, name in [("lyon-olympique", "Olympique Lyonnais"), ("sporting-nice", "OGC Nice")]:
    q(EX + ind, RDF + "type", DBO + "Place", "data")
    q(EX + ind, RDF + "type", DBO + "Organisation", "data")
    q(EX + ind, FOAF + "name", f'"{name}"', "data")

sys.stdout.write("\n".join(out) + "\n")
