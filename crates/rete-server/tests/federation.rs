//! SERVICE (SPARQL 1.1 Federated Query) through `rete serve`: one endpoint calls a second
//! `rete serve` and Oxigraph's server (the `oxigraph` binary of PyPI `oxigraph`), only on hosts
//! allowed, within a deadline and a bounded answer; SILENT honoured.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::{enc, people, post, rete, start};
use rete_build::Syntax;
use rete_server::ServeOptions;
use rete_sparql::ServiceOptions;
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const JSON: &str = "application/sparql-results+json";

/// The solutions of a JSON answer as sorted `var=value` lines, one per solution.
fn rows(body: &str) -> BTreeSet<String> {
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let mut cells: Vec<String> = b
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| format!("{k}={}", v["value"].as_str().unwrap()))
                .collect();
            cells.sort();
            cells.join(" ")
        })
        .collect()
}

fn ask(url: &str, query: &str) -> common::Answer {
    post(
        url,
        "application/x-www-form-urlencoded",
        JSON,
        format!("query={}", enc(query)).as_bytes(),
    )
}

/// A loopback socket that takes connections and never answers, and one that answers `body`.
fn silent_server() -> (TcpListener, String) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/sparql", l.local_addr().unwrap());
    (l, url)
}

fn answering_server(body: Vec<u8>) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/sparql", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/sparql-results+json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(head.as_bytes());
            let _ = s.write_all(&body);
        }
    });
    url
}

struct Oxigraph(Child);

impl Drop for Oxigraph {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Oxigraph's server (in memory) on a free loopback port, loaded with `nquads`.
fn oxigraph(nquads: &str) -> (Oxigraph, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("oxigraph")
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("Oxigraph's server: `pip install oxigraph` (scripts/setup.sh installs it)");
    let server = Oxigraph(child);
    let base = format!("http://127.0.0.1:{port}");
    let agent = common::agent();
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let put = agent
            .post(&format!("{base}/store"))
            .header("content-type", "application/n-quads")
            .send(nquads.as_bytes());
        match put {
            Ok(r) if r.status().is_success() => break,
            Ok(r) => panic!("Oxigraph refused the data: {}", r.status()),
            Err(e) => {
                assert!(Instant::now() < end, "Oxigraph's server did not start: {e}");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
    (server, format!("{base}/query"))
}

#[test]
fn service_calls_allowed_endpoints_with_a_deadline_and_a_bounded_answer() {
    let dir = tempfile::tempdir().unwrap();
    let data = people(40);
    let remote = start(
        vec![("people", rete(dir.path(), "people", &data, Syntax::NQuads))],
        ServeOptions::default(),
    );
    let remote_url = format!("http://{}/people/sparql", remote.addr());
    // The local endpoint holds who knows whom; the names come from the remote one.
    let local_data: String = data
        .lines()
        .filter(|l| l.contains("/knows>"))
        .map(|l| format!("{l}\n"))
        .collect();
    let service = |allow: &str, timeout: u64, max_bytes: u64| ServeOptions {
        service: Some(ServiceOptions {
            allow: vec![allow.to_owned()],
            timeout: Duration::from_millis(timeout),
            max_bytes,
        }),
        ..ServeOptions::default()
    };
    let local = start(
        vec![(
            "knows",
            rete(dir.path(), "knows", &local_data, Syntax::NQuads),
        )],
        service("127.0.0.1", 10_000, 1 << 20),
    );
    let url = format!("http://{}/knows/sparql", local.addr());

    // Joined across the two: the same answer as one endpoint holding everything.
    let federated = format!(
        "SELECT ?a ?name WHERE {{ ?a <http://xmlns.com/foaf/0.1/knows> ?b . \
         SERVICE <{remote_url}> {{ ?b <http://xmlns.com/foaf/0.1/name> ?name }} }}"
    );
    let whole = "SELECT ?a ?name WHERE { ?a <http://xmlns.com/foaf/0.1/knows> ?b . \
                 ?b <http://xmlns.com/foaf/0.1/name> ?name }";
    let got = ask(&url, &federated);
    assert_eq!(got.status, 200, "{}", got.body);
    let want = ask(&remote_url, whole);
    assert_eq!(rows(&got.body), rows(&want.body));
    assert_eq!(rows(&got.body).len(), 40);

    // Oxigraph's server as the remote endpoint: the same answer.
    let (_oxigraph, oxigraph_url) = oxigraph(&data);
    let got = ask(&url, &federated.replace(&remote_url, &oxigraph_url));
    assert_eq!(got.status, 200, "{}", got.body);
    assert_eq!(rows(&got.body), rows(&want.body));

    // An endpoint that is down: an error naming it (502), or nothing from it with SILENT.
    let (dead, dead_url) = silent_server();
    drop(dead);
    let got = ask(&url, &federated.replace(&remote_url, &dead_url));
    assert_eq!(got.status, 502, "{}", got.body);
    assert!(
        got.body.contains(&format!("SERVICE <{dead_url}>")),
        "{}",
        got.body
    );
    let silent = format!(
        "SELECT ?a WHERE {{ ?a <http://xmlns.com/foaf/0.1/knows> ?b . \
         OPTIONAL {{ SERVICE SILENT <{dead_url}> {{ ?b <http://xmlns.com/foaf/0.1/name> ?name }} }} }}"
    );
    let got = ask(&url, &silent);
    assert_eq!(got.status, 200, "{}", got.body);
    assert_eq!(rows(&got.body).len(), 40);

    // A host not on the list: refused before any request, with the flag that allows it.
    let other = start(
        vec![(
            "knows",
            rete(dir.path(), "knows2", &local_data, Syntax::NQuads),
        )],
        service("example.org", 10_000, 1 << 20),
    );
    let got = ask(&format!("http://{}/knows/sparql", other.addr()), &federated);
    assert_eq!(got.status, 502, "{}", got.body);
    assert!(
        got.body.contains(
            "calls to 127.0.0.1 are not allowed (allow its host, e.g. --allow-service 127.0.0.1)"
        ),
        "{}",
        got.body
    );
    // No SERVICE at all unless asked for: 501 saying how.
    let plain = start(
        vec![(
            "knows",
            rete(dir.path(), "knows3", &local_data, Syntax::NQuads),
        )],
        ServeOptions::default(),
    );
    let got = ask(&format!("http://{}/knows/sparql", plain.addr()), &federated);
    assert_eq!(got.status, 501, "{}", got.body);
    assert!(got.body.contains("--allow-service"), "{}", got.body);

    // An endpoint that never answers: the call's deadline ends it.
    let (hang, hang_url) = silent_server();
    let quick = start(
        vec![(
            "knows",
            rete(dir.path(), "knows4", &local_data, Syntax::NQuads),
        )],
        service("127.0.0.1", 300, 1 << 20),
    );
    let got = ask(
        &format!("http://{}/knows/sparql", quick.addr()),
        &federated.replace(&remote_url, &hang_url),
    );
    assert_eq!(got.status, 502, "{}", got.body);
    assert!(
        got.body.contains(&format!("SERVICE <{hang_url}>")),
        "{}",
        got.body
    );
    drop(hang);

    // An answer past the limit of one call.
    let mut huge = br#"{"head":{"vars":["name"]},"results":{"bindings":["#.to_vec();
    for i in 0..2_000 {
        huge.extend_from_slice(
            format!(
                r#"{}{{"name":{{"type":"literal","value":"n{i}"}}}}"#,
                if i > 0 { "," } else { "" }
            )
            .as_bytes(),
        );
    }
    huge.extend_from_slice(b"]}}");
    let big_url = answering_server(huge);
    let small = start(
        vec![(
            "knows",
            rete(dir.path(), "knows5", &local_data, Syntax::NQuads),
        )],
        service("127.0.0.1", 10_000, 10_000),
    );
    let got = ask(
        &format!("http://{}/knows/sparql", small.addr()),
        &format!("SELECT * WHERE {{ SERVICE <{big_url}> {{ ?s ?p ?name }} }}"),
    );
    assert_eq!(got.status, 502, "{}", got.body);
    assert!(got.body.contains("longer than 10000 bytes"), "{}", got.body);
}
