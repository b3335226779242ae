//! `SERVICE` (SPARQL 1.1 Federated Query): the inner pattern sent to another endpoint with the
//! SPARQL 1.1 Protocol, its solutions joined in by spareval.
//!
//! A query is untrusted input and a `SERVICE` call is a request from the user's machine, so calls
//! go only to the hosts the user allowed ([`ServiceOptions::allow`]), never follow redirects
//! (one could lead anywhere), have a deadline (the query's, or [`ServiceOptions::timeout`]) and a
//! bounded answer ([`ServiceOptions::max_bytes`]). `SERVICE SILENT` turns any of these failures
//! into the empty solution, as the recommendation says; spareval does that part.

use oxiri::Iri;
use oxrdf::NamedNode;
use sparesults::{QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput};
use spareval::{DefaultServiceHandler, QuerySolutionIter};
use spargebra::algebra::GraphPattern;
use spargebra::Query;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which endpoints `SERVICE` may call, and how long and how much it may take.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// Hosts a `SERVICE` may call: `host` (any port) or `host:port`; `*` allows every host.
    pub allow: Vec<String>,
    /// The longest one call may take (the query's own deadline may cut it shorter).
    pub timeout: Duration,
    /// The largest answer one call may send.
    pub max_bytes: u64,
}

impl Default for ServiceOptions {
    fn default() -> Self {
        Self {
            allow: Vec::new(),
            timeout: Duration::from_secs(30),
            max_bytes: 64 << 20,
        }
    }
}

impl ServiceOptions {
    /// Whether `url` (an endpoint IRI) is on the allow list.
    pub fn allows(&self, url: &str) -> bool {
        let Some((host, port)) = host_port(url) else {
            return false;
        };
        self.allow.iter().any(|a| {
            let a = a.trim().to_ascii_lowercase();
            a == "*" || a == host || a == format!("{host}:{port}")
        })
    }
}

/// Why a `SERVICE` call failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The endpoint is not an http(s) IRI.
    #[error("SERVICE <{0}>: only http and https endpoints can be called")]
    Scheme(String),
    /// The endpoint's host is not on the allow list.
    #[error(
        "SERVICE <{0}>: calls to {1} are not allowed (allow its host, e.g. --allow-service {1})"
    )]
    NotAllowed(String, String),
    /// The query's deadline passed before the call could start.
    #[error("SERVICE <{0}>: the query's time ran out before the call")]
    NoTime(String),
    /// The request failed (connection, timeout, a body past the limit).
    #[error("SERVICE <{0}>: {1}")]
    Http(String, String),
    /// The endpoint answered with an error status.
    #[error("SERVICE <{0}>: the endpoint answered HTTP {1}: {2}")]
    Status(String, u16, String),
    /// The answer is not SPARQL results this engine reads.
    #[error("SERVICE <{0}>: the answer is not SPARQL results: {1}")]
    Results(String, String),
}

/// The `SERVICE` handler given to spareval.
pub(crate) struct ServiceClient {
    opts: ServiceOptions,
    deadline: Option<Instant>,
}

impl ServiceClient {
    pub(crate) fn new(opts: ServiceOptions, deadline: Option<Instant>) -> Self {
        Self { opts, deadline }
    }

    fn call(
        &self,
        endpoint: &str,
        query: &str,
    ) -> Result<QuerySolutionIter<'static>, ServiceError> {
        let e = || endpoint.to_owned();
        if !matches!(endpoint.split_once(':'), Some(("http" | "https", _))) {
            return Err(ServiceError::Scheme(e()));
        }
        if !self.opts.allows(endpoint) {
            let host = host_port(endpoint).map_or_else(e, |(h, _)| h);
            return Err(ServiceError::NotAllowed(e(), host));
        }
        let mut timeout = self.opts.timeout;
        if let Some(d) = self.deadline {
            timeout = timeout.min(d.saturating_duration_since(Instant::now()));
        }
        if timeout.is_zero() {
            return Err(ServiceError::NoTime(e()));
        }
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(timeout))
            .user_agent(concat!("rete/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        let mut response = agent
            .post(endpoint)
            .header("content-type", "application/sparql-query; charset=utf-8")
            .header(
                "accept",
                "application/sparql-results+json, application/sparql-results+xml;q=0.9, text/tab-separated-values;q=0.8",
            )
            .send(query)
            .map_err(|err| ServiceError::Http(e(), err.to_string()))?;
        let status = response.status().as_u16();
        let media = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_owned();
        let body = response
            .body_mut()
            .with_config()
            .limit(self.opts.max_bytes)
            .read_to_vec()
            .map_err(|err| match err {
                ureq::Error::BodyExceedsLimit(n) => ServiceError::Http(
                    e(),
                    format!("the answer is longer than {n} bytes, the limit of one call"),
                ),
                err => ServiceError::Http(e(), err.to_string()),
            })?;
        if !(200..300).contains(&status) {
            let text = String::from_utf8_lossy(&body[..body.len().min(300)])
                .trim()
                .to_owned();
            return Err(ServiceError::Status(e(), status, text));
        }
        let format = QueryResultsFormat::from_media_type(&media)
            .ok_or_else(|| ServiceError::Results(e(), format!("its media type is {media:?}")))?;
        let SliceQueryResultsParserOutput::Solutions(parsed) =
            QueryResultsParser::from_format(format)
                .for_slice(&body)
                .map_err(|err| ServiceError::Results(e(), err.to_string()))?
        else {
            return Err(ServiceError::Results(
                e(),
                "a boolean, where solutions were asked for".into(),
            ));
        };
        let variables: Arc<[oxrdf::Variable]> = parsed.variables().into();
        // Read whole here: a malformed row is then the call's error, which SILENT can ignore.
        let solutions = parsed
            .collect::<Result<Vec<_>, _>>()
            .map_err(|err| ServiceError::Results(e(), err.to_string()))?;
        Ok(QuerySolutionIter::new(
            variables,
            solutions.into_iter().map(Ok),
        ))
    }
}

impl DefaultServiceHandler for ServiceClient {
    type Error = ServiceError;

    fn handle(
        &self,
        service_name: &NamedNode,
        pattern: &GraphPattern,
        base_iri: Option<&Iri<String>>,
    ) -> Result<QuerySolutionIter<'static>, ServiceError> {
        let query = Query::Select {
            dataset: None,
            pattern: pattern.clone(),
            base_iri: base_iri.cloned(),
        };
        self.call(service_name.as_str(), &query.to_string())
    }
}

/// The endpoints a query calls (its `SERVICE` IRIs; a variable endpoint is left out).
pub fn services(q: &Query) -> Vec<String> {
    let mut out = Vec::new();
    crate::walk::visit_patterns(crate::walk::query_pattern(q), &mut |p| {
        if let GraphPattern::Service {
            name: spargebra::term::NamedNodePattern::NamedNode(n),
            ..
        } = p
        {
            if !out.iter().any(|s| s == n.as_str()) {
                out.push(n.as_str().to_owned());
            }
        }
    });
    out
}

/// The lower-case host and the port (the scheme's default if none) of an http(s) URL.
pub fn host_port(url: &str) -> Option<(String, u16)> {
    let (scheme, rest) = url.split_once("://")?;
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6.split_once(']')?;
        (format!("[{h}]"), after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_owned(), Some(p)),
            None => (authority.to_owned(), None),
        }
    };
    if host.is_empty() {
        return None;
    }
    let port = match port {
        Some(p) => p.parse().ok()?,
        None => default,
    };
    Some((host.to_ascii_lowercase(), port))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    #[test]
    fn the_allow_list_matches_hosts_and_ports() {
        let o = ServiceOptions {
            allow: vec!["Example.org".into(), "127.0.0.1:7878".into()],
            ..ServiceOptions::default()
        };
        assert!(o.allows("https://example.org/sparql"));
        assert!(o.allows("http://EXAMPLE.org:8080/sparql"));
        assert!(o.allows("http://127.0.0.1:7878/a/sparql"));
        assert!(!o.allows("http://127.0.0.1:7879/a/sparql"));
        assert!(!o.allows("http://example.org.evil.net/sparql"));
        assert!(!o.allows("http://user@evil.net/?example.org"));
        assert!(!o.allows("ftp://example.org/"));
        let all = ServiceOptions {
            allow: vec!["*".into()],
            ..ServiceOptions::default()
        };
        assert!(all.allows("http://[::1]:3030/ds/sparql"));
        assert_eq!(
            host_port("http://[::1]:3030/ds"),
            Some(("[::1]".into(), 3030))
        );
        assert_eq!(host_port("https://a.org"), Some(("a.org".into(), 443)));
        assert_eq!(host_port("http://a.org:x/"), None);
    }

    #[test]
    fn the_services_of_a_query_are_listed_once() {
        let q = spargebra::SparqlParser::new()
            .parse_query(
                "SELECT * WHERE { SERVICE <http://a.org/sparql> { ?s ?p ?o } \
                 OPTIONAL { SERVICE SILENT <http://b.org/q> { ?s ?q ?v } } \
                 SERVICE <http://a.org/sparql> { ?o ?p ?w } SERVICE ?x { ?w ?p ?z } }",
            )
            .unwrap();
        assert_eq!(services(&q), ["http://a.org/sparql", "http://b.org/q"]);
    }
}
