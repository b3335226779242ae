//! `rete serve` as its clients see it: a real server on 127.0.0.1 and a real HTTP client, for
//! every method, format, route, limit and error of docs/serve.md.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::*;
use oxrdfio::{RdfFormat, RdfParser};
use rete_build::Syntax;
use rete_server::ServeOptions;
use std::collections::BTreeSet;
use std::io::Read;
use std::time::Duration;

const JSON: &str = "application/sparql-results+json";

/// The quads of an RDF answer, parsed in the syntax its Content-Type names, as N-Quads lines.
fn quads(a: &Answer) -> BTreeSet<String> {
    assert_eq!(a.status, 200, "{}", a.body);
    let media = a.content_type.split(';').next().unwrap();
    let format = RdfFormat::from_media_type(media).unwrap_or_else(|| panic!("{media}"));
    RdfParser::from_format(format)
        .for_slice(a.body.as_bytes())
        .map(|q| q.unwrap().to_string())
        .collect()
}

fn json(a: &Answer) -> serde_json::Value {
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.content_type, JSON);
    serde_json::from_str(&a.body).unwrap()
}

#[test]
fn protocol_methods_formats_and_routes() {
    let dir = tempfile::tempdir().unwrap();
    let social = rete(dir.path(), "social", &people(60), Syntax::NQuads);
    let other = rete(dir.path(), "other", &people(3), Syntax::NQuads);
    let opts = ServeOptions {
        cors: vec!["https://yasgui.example".into()],
        ..ServeOptions::default()
    };
    let server = start(vec![("social", social), ("other", other)], opts);
    let base = format!("http://{}", server.addr());
    let url = format!("{base}/social/sparql");

    // The query in the URL, in a form body and as the body; the well-known prefixes need no
    // PREFIX line.
    let q = "SELECT ?name WHERE { <http://example.org/p1> foaf:name ?name }";
    let expected = serde_json::json!({"head": {"vars": ["name"]}, "results": {"bindings": [
        {"name": {"type": "literal", "value": "Person 1"}}]}});
    assert_eq!(
        json(&get(&format!("{url}?query={}", enc(q)), JSON)),
        expected
    );
    let form = format!("query={}", enc(q));
    let a = post(
        &url,
        "application/x-www-form-urlencoded",
        JSON,
        form.as_bytes(),
    );
    assert_eq!(json(&a), expected);
    let a = post(&url, "application/sparql-query", JSON, q.as_bytes());
    assert_eq!(json(&a), expected);

    // Every results format, chosen by Accept (with q-values); JSON when anything goes.
    let select = format!("{url}?query={}", enc(q));
    let a = get(&select, "application/sparql-results+xml");
    assert_eq!(a.content_type, "application/sparql-results+xml");
    assert!(a.body.contains("<literal>Person 1</literal>"), "{}", a.body);
    let a = get(&select, "text/csv");
    assert_eq!((a.status, a.body.as_str()), (200, "name\r\nPerson 1\r\n"));
    assert!(a.content_type.starts_with("text/csv"));
    let a = get(&select, "text/tab-separated-values");
    assert_eq!((a.status, a.body.as_str()), (200, "?name\n\"Person 1\"\n"));
    let a = get(&select, "text/csv;q=0.5, text/tab-separated-values;q=0.9");
    assert!(a.content_type.starts_with("text/tab-separated-values"));
    assert_eq!(json(&get(&select, "text/html, */*;q=0.8")), expected);
    let ask = format!(
        "{url}?query={}",
        enc("ASK { ?s foaf:knows <http://example.org/p0> }")
    );
    assert_eq!(
        json(&get(&ask, "*/*")),
        serde_json::json!({"head": {}, "boolean": true})
    );
    assert!(get(&ask, "application/sparql-results+xml")
        .body
        .contains("<boolean>true</boolean>"));

    // CONSTRUCT and DESCRIBE in every RDF syntax.
    let construct = "CONSTRUCT { ?s foaf:name ?n } WHERE { ?s foaf:name ?n FILTER(?s IN (<http://example.org/p1>, <http://example.org/p2>)) }";
    let want: BTreeSet<String> = [
        "<http://example.org/p1> <http://xmlns.com/foaf/0.1/name> \"Person 1\"",
        "<http://example.org/p2> <http://xmlns.com/foaf/0.1/name> \"Person 2\"",
    ]
    .map(String::from)
    .into();
    for media in [
        "text/turtle",
        "application/n-triples",
        "application/rdf+xml",
        "application/ld+json",
        "application/n-quads",
        "application/trig",
    ] {
        let a = post(
            &url,
            "application/sparql-query",
            media,
            construct.as_bytes(),
        );
        assert!(
            a.content_type.starts_with(media),
            "{media}: {}",
            a.content_type
        );
        assert_eq!(quads(&a), want, "{media}");
    }
    let a = get(
        &format!("{url}?query={}", enc("DESCRIBE <http://example.org/p1>")),
        "",
    );
    assert!(a.content_type.starts_with("text/turtle"));
    assert_eq!(quads(&a).len(), 3, "{}", a.body);

    // The protocol's dataset: default-graph-uri and named-graph-uri replace the query's.
    let labels = format!(
        "{url}?query={}",
        enc("SELECT ?l WHERE { ?s <http://example.org/label> ?l }")
    );
    let rows = |a: &Answer| json(a)["results"]["bindings"].as_array().unwrap().len();
    assert_eq!(rows(&get(&labels, JSON)), 0);
    let g1 = enc("http://example.org/g1");
    assert_eq!(
        rows(&get(&format!("{labels}&default-graph-uri={g1}"), JSON)),
        2
    );
    let graphs = format!(
        "{url}?query={}",
        enc("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")
    );
    assert_eq!(rows(&get(&graphs, JSON)), 1);
    let nowhere = enc("http://example.org/none");
    assert_eq!(
        rows(&get(&format!("{graphs}&named-graph-uri={nowhere}"), JSON)),
        0
    );

    // The service description, in Turtle by default and in any RDF syntax asked for.
    let sd = get(&url, "");
    let sd_quads = quads(&sd);
    assert!(sd_quads.contains(&format!("<{url}> <http://www.w3.org/ns/sparql-service-description#supportedLanguage> <http://www.w3.org/ns/sparql-service-description#SPARQL11Query>")), "{}", sd.body);
    assert!(sd.body.contains("<http://example.org/g1>"), "{}", sd.body);
    assert_eq!(
        quads(&get(&url, "application/ld+json")).len(),
        sd_quads.len()
    );

    // The Graph Store Protocol, reading: the default graph, a named graph, the whole dataset.
    let store = format!("{base}/social/store");
    assert_eq!(
        quads(&get(&format!("{store}?default"), "application/n-triples")).len(),
        180
    );
    let g = quads(&get(&format!("{store}?graph={g1}"), "text/turtle"));
    assert_eq!(g.len(), 2);
    let all = get(&store, "application/n-quads");
    assert_eq!(quads(&all).len(), 182);
    assert!(quads(&get(&store, "")).contains(
        "<http://example.org/p0> <http://example.org/label> \"in g1\" <http://example.org/g1>"
    ));
    let missing = get(&format!("{store}?graph={nowhere}"), "");
    assert_eq!(missing.status, 404, "{}", missing.body);

    // Several files, each at its own path, and the index page listing them.
    let other = get(
        &format!(
            "{base}/other/sparql?query={}",
            enc("SELECT (COUNT(*) AS ?n) WHERE { ?s foaf:knows ?o }")
        ),
        "text/csv",
    );
    assert_eq!(other.body, "n\r\n3\r\n");
    let index = get(&format!("{base}/"), "text/html");
    assert!(index.content_type.starts_with("text/html"));
    assert!(index.body.contains(&format!("{base}/social/sparql")));
    assert!(index.body.contains(&format!("{base}/other/sparql")));
    let unknown = get(&format!("{base}/nope/sparql"), "");
    assert_eq!(unknown.status, 404);
    assert!(unknown.body.contains("/social/sparql"), "{}", unknown.body);
    // `/sparql` names the endpoint only when there is one.
    assert_eq!(
        get(&format!("{base}/sparql?query=ASK%7B%7D"), "").status,
        404
    );

    // CORS: the allowed origin gets its header (preflight and request), another does not.
    let agent = agent();
    let pre = answer(
        agent
            .options(&url)
            .header("Origin", "https://yasgui.example")
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "content-type")
            .call(),
    );
    assert_eq!(
        pre.headers["access-control-allow-origin"],
        "https://yasgui.example"
    );
    let with_origin = |origin: &str| answer(agent.get(&select).header("Origin", origin).call());
    assert_eq!(
        with_origin("https://yasgui.example").headers["access-control-allow-origin"],
        "https://yasgui.example"
    );
    assert!(!with_origin("https://evil.example")
        .headers
        .contains_key("access-control-allow-origin"));
    server.stop().unwrap();
}

#[test]
fn requests_refused_with_their_status() {
    let dir = tempfile::tempdir().unwrap();
    let social = rete(dir.path(), "social", &people(60), Syntax::NQuads);
    let server = start(
        vec![("social", social)],
        ServeOptions {
            max_rows: Some(5),
            ..ServeOptions::default()
        },
    );
    let url = format!("http://{}/sparql", server.addr());
    let status = |a: Answer| (a.status, a.body);

    // A syntax error: 400 with line:column and what was expected.
    let (code, body) = status(get(
        &format!("{url}?query={}", enc("SELECT * WHERE {\n  ?s ?p\n}")),
        "",
    ));
    assert_eq!(code, 400);
    assert!(body.starts_with("syntax error at 3:1:"), "{body}");
    let (code, body) = status(get(
        &format!("{url}?query={}", enc("SELECT * WHERE { ?s nope:x ?o }")),
        "",
    ));
    assert_eq!(code, 400);
    assert!(body.contains("1:21") && body.contains("nope:"), "{body}");

    // The protocol's refusals.
    let agent = agent();
    assert_eq!(
        answer(agent.put(&format!("{url}?query=ASK%7B%7D")).send(&b""[..])).status,
        405
    );
    assert_eq!(
        status(get(&format!("{url}?query=ASK%7B%7D&query=ASK%7B%7D"), "")).0,
        400
    );
    assert_eq!(post(&url, "text/plain", "", b"ASK {}").status, 415);
    assert_eq!(
        post(
            &url,
            "application/sparql-query; charset=UTF-16",
            "",
            b"ASK {}"
        )
        .status,
        415
    );
    let no_type = answer(agent.post(&url).send(&b"ASK {}"[..]));
    assert_eq!(no_type.status, 415, "{}", no_type.body);
    let (code, body) = status(post(&url, "application/sparql-update", "", b"CLEAR ALL"));
    assert_eq!(code, 403);
    assert!(body.contains("read-only"), "{body}");
    assert_eq!(
        post(
            &url,
            "application/x-www-form-urlencoded",
            "",
            b"update=CLEAR%20ALL"
        )
        .status,
        403
    );
    let (code, body) = status(get(&format!("{url}?query=ASK%7B%7D"), "image/png"));
    assert_eq!(code, 406);
    assert!(body.contains("application/sparql-results+json"), "{body}");
    assert_eq!(
        status(get(
            &format!("{url}?query={}", enc("SELECT * { ?s ?p ?o }")),
            "text/turtle"
        ))
        .0,
        406
    );
    let (code, body) = status(get(
        &format!(
            "{url}?query={}",
            enc("SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }")
        ),
        "",
    ));
    assert_eq!(code, 501, "{body}");

    // A body past the bound: 413 before the query is looked at.
    let mut big = b"ASK {} #".to_vec();
    big.resize((1 << 20) + 1, b' ');
    assert_eq!(post(&url, "application/sparql-query", "", &big).status, 413);

    // --max-rows: an answer past the cap is refused, never cut; one within it is whole.
    let (code, body) = status(get(
        &format!("{url}?query={}", enc("SELECT ?s WHERE { ?s foaf:name ?n }")),
        "text/csv",
    ));
    assert_eq!(code, 400);
    assert!(
        body.contains("more than 5 rows") && body.contains("LIMIT"),
        "{body}"
    );
    let (code, body) = status(get(
        &format!(
            "{url}?query={}",
            enc("SELECT ?s WHERE { ?s foaf:name ?n } LIMIT 5")
        ),
        "text/csv",
    ));
    assert_eq!((code, body.lines().count()), (200, 6), "{body}");
    let construct = enc("CONSTRUCT { ?s foaf:name ?n } WHERE { ?s foaf:name ?n }");
    assert_eq!(status(get(&format!("{url}?query={construct}"), "")).0, 400);
    let store = format!("http://{}/store?default", server.addr());
    assert_eq!(status(get(&store, "")).0, 400);
    server.stop().unwrap();
}

/// Four unbound patterns over 180 triples: 10⁹ rows, far more than a test ever reads.
const ENDLESS: &str = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }";

/// Starts `ENDLESS` and reads its first bytes: a worker is then busy with it.
fn start_endless(url: &str) -> impl Read {
    let r = agent()
        .get(&format!("{url}?query={}", enc(ENDLESS)))
        .header("Accept", "text/tab-separated-values")
        .call()
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut body = r.into_body().into_reader();
    let mut first = [0u8; 1024];
    body.read_exact(&mut first).unwrap();
    body
}

#[test]
fn deadline_overload_and_disconnect() {
    let dir = tempfile::tempdir().unwrap();
    let data = rete(dir.path(), "social", &people(60), Syntax::NQuads);

    // Past its deadline a query is stopped: 503 with the reason.
    let server = start(
        vec![("social", data.clone())],
        ServeOptions {
            timeout: Some(Duration::from_millis(300)),
            ..ServeOptions::default()
        },
    );
    let count = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l FILTER(?c != ?l) }";
    let a = get(
        &format!("http://{}/sparql?query={}", server.addr(), enc(count)),
        "",
    );
    assert_eq!(a.status, 503, "{}", a.body);
    assert!(a.body.contains("timeout of 0.3 s"), "{}", a.body);
    assert_eq!(server.stats().timed_out, 1);
    server.stop().unwrap();

    // One worker, no queue: while it is busy a second query is refused at once with
    // Retry-After.
    let server = start(
        vec![("social", data.clone())],
        ServeOptions {
            threads: 1,
            queue: 0,
            ..ServeOptions::default()
        },
    );
    let url = format!("http://{}/sparql", server.addr());
    let busy = start_endless(&url);
    let refused = get(&format!("{url}?query=ASK%7B%7D"), "");
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert_eq!(refused.headers["retry-after"], "1");
    assert!(refused.body.contains("busy"), "{}", refused.body);
    assert_eq!(server.stats().refused, 1);
    drop(busy);
    server.stop().unwrap();

    // One worker, one queue place: a client that goes away mid-answer frees the worker for
    // the query waiting behind it (the endless query would otherwise hold it 30 s, past the
    // waiting query's own deadline).
    let server = start(
        vec![("social", data)],
        ServeOptions {
            threads: 1,
            queue: 1,
            ..ServeOptions::default()
        },
    );
    let url = format!("http://{}/sparql", server.addr());
    drop(start_endless(&url));
    let next = get(&format!("{url}?query=ASK%7B%7D"), "");
    assert_eq!(next.status, 200, "{}", next.body);
    let stats = server.stats();
    assert_eq!(
        (stats.cancelled, stats.completed, stats.running),
        (1, 1, 0),
        "{stats:?}"
    );
    server.stop().unwrap();
}

#[test]
fn requests_that_stop_arriving_are_dropped() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let data = rete(dir.path(), "social", &people(3), Syntax::NQuads);
    let server = start(
        vec![("social", data)],
        ServeOptions {
            read_timeout: Duration::from_millis(200),
            ..ServeOptions::default()
        },
    );
    // A real socket: headers announce 100 bytes, three are sent, then nothing.
    let mut s = std::net::TcpStream::connect(server.addr()).unwrap();
    s.write_all(
        b"POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\nContent-Length: 100\r\n\r\nASK",
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    // Headers that stop arriving: the connection is closed (hyper's header read timeout).
    let mut s = std::net::TcpStream::connect(server.addr()).unwrap();
    s.write_all(b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(
        reply.is_empty() || reply.starts_with("HTTP/1.1 408"),
        "{reply}"
    );
    server.stop().unwrap();
}

#[test]
fn the_union_default_graph_when_served_so_and_the_protocols_dataset_still_wins() {
    // A file whose data is in named graphs only, one triple stated in two of them.
    let dir = tempfile::tempdir().unwrap();
    let nq = "<http://example.org/a> <http://example.org/p> <http://example.org/b> <http://example.org/g1> .\n\
              <http://example.org/a> <http://example.org/p> <http://example.org/b> <http://example.org/g2> .\n\
              <http://example.org/c> <http://example.org/p> <http://example.org/d> <http://example.org/g2> .\n";
    let count = "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://example.org/p> ?o }";
    let n = |url: &str, extra: &str| -> String {
        let a = get(&format!("{url}?query={}{extra}", enc(count)), JSON);
        json(&a)["results"]["bindings"][0]["n"]["value"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let strict = start(
        vec![("g", rete(dir.path(), "g", nq, Syntax::NQuads))],
        ServeOptions::default(),
    );
    let union = start(
        vec![("g", rete(dir.path(), "u", nq, Syntax::NQuads))],
        ServeOptions {
            union_default_graph: true,
            ..ServeOptions::default()
        },
    );
    let (s, u) = (
        format!("http://{}/g/sparql", strict.addr()),
        format!("http://{}/g/sparql", union.addr()),
    );
    assert_eq!(n(&s, ""), "0");
    // The merge of the graphs: the triple stated twice counts once.
    assert_eq!(n(&u, ""), "2");
    let g2 = format!("&default-graph-uri={}", enc("http://example.org/g2"));
    assert_eq!(n(&u, &g2), "2");
    let g1 = format!("&default-graph-uri={}", enc("http://example.org/g1"));
    assert_eq!(n(&u, &g1), "1");
    assert_eq!(n(&s, &g1), "1");
}
