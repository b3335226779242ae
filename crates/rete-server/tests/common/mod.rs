//! A real server on 127.0.0.1 (port 0) over a real .rete file built from text, and a real
//! HTTP client (ureq) that reports every status instead of failing on 4xx/5xx.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code"
)]

use rete_build::{build, BuildOptions, Input, Syntax};
use rete_server::{Endpoint, ServeOptions, Server};
use std::io::Read;

/// Builds `name.rete` in `dir` from N-Quads (or Turtle) text.
pub fn rete(dir: &std::path::Path, name: &str, text: &str, syntax: Syntax) -> rete_core::Rete {
    let path = dir.join(format!("{name}.rete"));
    let input = Input::bytes(format!("{name}.txt"), text.as_bytes().to_vec(), syntax);
    build(
        &BuildOptions {
            inputs: vec![input],
            ..BuildOptions::default()
        },
        &path,
    )
    .unwrap();
    rete_core::Rete::open_path(&path).unwrap()
}

/// People `ex:p0 … ex:p{n-1}`, each with a name, an age and one `foaf:knows` to the next, and a
/// named graph `ex:g1` with two triples.
pub fn people(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s += &format!(
            "<http://example.org/p{i}> <http://xmlns.com/foaf/0.1/name> \"Person {i}\" .\n\
             <http://example.org/p{i}> <http://xmlns.com/foaf/0.1/age> \"{}\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n\
             <http://example.org/p{i}> <http://xmlns.com/foaf/0.1/knows> <http://example.org/p{}> .\n",
            20 + i % 50,
            (i + 1) % n
        );
    }
    s += "<http://example.org/p0> <http://example.org/label> \"in g1\" <http://example.org/g1> .\n";
    s += "<http://example.org/p1> <http://example.org/label> \"also in g1\" <http://example.org/g1> .\n";
    s
}

/// Starts a server with one endpoint per `(name, rete)`.
pub fn start(endpoints: Vec<(&str, rete_core::Rete)>, opts: ServeOptions) -> Server {
    let endpoints = endpoints
        .into_iter()
        .map(|(n, r)| Endpoint::new(n, format!("{n}.rete"), r).unwrap())
        .collect();
    Server::start(endpoints, opts, "127.0.0.1:0").unwrap()
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// A response's status, headers we look at, and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub headers: ureq::http::HeaderMap,
    pub body: String,
}

pub fn answer(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
    let mut r = r.unwrap();
    let content_type = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let headers = r.headers().clone();
    let mut body = String::new();
    r.body_mut().as_reader().read_to_string(&mut body).unwrap();
    Answer {
        status: r.status().as_u16(),
        content_type,
        headers,
        body,
    }
}

/// GET `url` with `accept`.
pub fn get(url: &str, accept: &str) -> Answer {
    answer(agent().get(url).header("Accept", accept).call())
}

/// POST `body` as `content_type` to `url` with `accept`.
pub fn post(url: &str, content_type: &str, accept: &str, body: &[u8]) -> Answer {
    answer(
        agent()
            .post(url)
            .header("Content-Type", content_type)
            .header("Accept", accept)
            .send(body),
    )
}

/// `s` percent-encoded for a URL query or a form body.
pub fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
