"""Runs queries against a SPARQL endpoint with two real clients, SPARQLWrapper and rdflib's
SPARQLStore, and prints their answers in one canonical JSON form (see clients.rs).

Usage: python3 clients.py ENDPOINT_URL < queries.json
"""
import json
import sys

import rdflib
from rdflib import BNode, Literal, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import GET, JSON, POST, TURTLE, SPARQLWrapper

rdflib.NORMALIZE_LITERALS = False  # compare lexical forms as served
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def term(t):
    """An rdflib term as [kind, value, datatype, lang]."""
    if t is None:
        return None
    if isinstance(t, URIRef):
        return ["uri", str(t), None, None]
    if isinstance(t, BNode):
        return ["bnode", None, None, None]
    if isinstance(t, Literal):
        dt = str(t.datatype) if t.datatype is not None else None
        if dt in (XSD_STRING, LANG_STRING):
            dt = None
        return ["literal", str(t), dt, t.language]
    raise TypeError(t)


def json_term(b):
    """A SPARQL JSON results binding as [kind, value, datatype, lang]."""
    if b is None:
        return None
    if b["type"] == "uri":
        return ["uri", b["value"], None, None]
    if b["type"] == "bnode":
        return ["bnode", None, None, None]
    dt = b.get("datatype")
    if dt in (XSD_STRING, LANG_STRING):
        dt = None
    return ["literal", b["value"], dt, b.get("xml:lang")]


def graph(g):
    return sorted([term(s), term(p), term(o)] for s, p, o in g)


def with_sparqlwrapper(url, query, i):
    sw = SPARQLWrapper(url)
    sw.setQuery(query)
    sw.setMethod(POST if i % 2 else GET)  # both ways of sending a query
    kind = sw.queryType
    if kind in ("CONSTRUCT", "DESCRIBE"):
        sw.setReturnFormat(TURTLE)
        data = sw.query().convert()
        return {"graph": graph(rdflib.Graph().parse(data=data, format="turtle"))}
    sw.setReturnFormat(JSON)
    r = sw.query().convert()
    if "boolean" in r:
        return {"boolean": r["boolean"]}
    names = r["head"]["vars"]
    rows = [[json_term(b.get(v)) for v in names] for b in r["results"]["bindings"]]
    return {"vars": names, "rows": sorted(rows, key=json.dumps)}


def with_rdflib(url, query):
    g = rdflib.Graph(store=SPARQLStore(url))
    r = g.query(query)
    if r.type == "ASK":
        return {"boolean": bool(r.askAnswer)}
    if r.type in ("CONSTRUCT", "DESCRIBE"):
        return {"graph": graph(r.graph)}
    names = [str(v) for v in r.vars]
    rows = [[term(row[v]) for v in r.vars] for row in r]
    return {"vars": names, "rows": sorted(rows, key=json.dumps)}


def main():
    url = sys.argv[1]
    queries = json.load(sys.stdin)
    out = {
        "sparqlwrapper": [with_sparqlwrapper(url, q, i) for i, q in enumerate(queries)],
        "rdflib": [with_rdflib(url, q) for q in queries],
    }
    json.dump(out, sys.stdout)


main()
