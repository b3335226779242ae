//! Reading a request of the SPARQL 1.1 Protocol: where the query is (URL, form body or direct
//! body), the dataset parameters, and the refusals the protocol asks for (two queries, a wrong
//! media type, a charset other than UTF-8, an update on a read-only endpoint).

use crate::ServeError;
use axum::http::{header, HeaderMap, Method};
use oxrdf::NamedNode;

/// What a request to `/NAME/sparql` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Operation {
    /// Run a query over the file, or over the dataset the request names.
    Query {
        text: String,
        default_graphs: Vec<NamedNode>,
        named_graphs: Vec<NamedNode>,
    },
    /// No query: the service description.
    Description,
}

/// The media type of a `Content-Type` value, lowercased, and its charset parameter.
fn media_type(value: &str) -> (String, Option<String>) {
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let charset = parts.find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_ascii_lowercase())
    });
    (media, charset)
}

fn check_charset(charset: Option<&str>) -> Result<(), ServeError> {
    match charset {
        None | Some("utf-8" | "utf8") => Ok(()),
        Some(other) => Err(ServeError::UnsupportedMediaType(format!(
            "the request body is in charset {other}: the SPARQL protocol takes UTF-8 only"
        ))),
    }
}

fn utf8(body: &[u8]) -> Result<&str, ServeError> {
    std::str::from_utf8(body).map_err(|e| {
        ServeError::BadRequest(format!(
            "the request body is not UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })
}

/// Reads the operation of a request to the query endpoint.
pub(crate) fn parse(
    method: &Method,
    headers: &HeaderMap,
    url_query: Option<&str>,
    body: &[u8],
) -> Result<Operation, ServeError> {
    let mut params: Vec<(String, String)> =
        form_urlencoded::parse(url_query.unwrap_or("").as_bytes())
            .into_owned()
            .collect();
    let mut direct = None;
    if method == Method::POST {
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap_or(""))
            .ok_or_else(|| {
                ServeError::UnsupportedMediaType(
                    "a POST needs a Content-Type: application/x-www-form-urlencoded (query=…) or application/sparql-query (the query as the body)".into(),
                )
            })?;
        let (media, charset) = media_type(content_type);
        match media.as_str() {
            "application/x-www-form-urlencoded" => {
                check_charset(charset.as_deref())?;
                params.extend(form_urlencoded::parse(utf8(body)?.as_bytes()).into_owned());
            }
            "application/sparql-query" => {
                check_charset(charset.as_deref())?;
                direct = Some(utf8(body)?.to_owned());
            }
            "application/sparql-update" => {
                return Err(ServeError::ReadOnly("SPARQL Update is not accepted".into()))
            }
            _ => {
                return Err(ServeError::UnsupportedMediaType(format!(
                    "a POST of {media} is not a SPARQL query: send application/x-www-form-urlencoded (query=…) or application/sparql-query"
                )))
            }
        }
    }
    let mut queries = Vec::new();
    let mut default_graphs = Vec::new();
    let mut named_graphs = Vec::new();
    for (k, v) in params {
        match k.as_str() {
            "query" => queries.push(v),
            "update" => return Err(ServeError::ReadOnly("SPARQL Update is not accepted".into())),
            "default-graph-uri" => default_graphs.push(iri(&k, v)?),
            "named-graph-uri" => named_graphs.push(iri(&k, v)?),
            _ => {} // Other parameters (format=, output=, timeout= of other servers) are ignored.
        }
    }
    if let Some(text) = direct {
        if !queries.is_empty() {
            return Err(ServeError::BadRequest(
                "the query is both in the URL (query=) and in the body: send one".into(),
            ));
        }
        queries.push(text);
    }
    match queries.len() {
        0 if method == Method::POST => Err(ServeError::BadRequest(
            "no query: give the query= parameter".into(),
        )),
        0 => Ok(Operation::Description),
        1 => Ok(Operation::Query {
            text: queries.remove(0),
            default_graphs,
            named_graphs,
        }),
        n => Err(ServeError::BadRequest(format!(
            "{n} query= parameters: a request carries exactly one query"
        ))),
    }
}

fn iri(param: &str, v: String) -> Result<NamedNode, ServeError> {
    NamedNode::new(v.clone())
        .map_err(|e| ServeError::BadRequest(format!("{param}={v} is not an absolute IRI: {e}")))
}

/// What a request to `/NAME/store` (the Graph Store HTTP Protocol, reading) asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StoreTarget {
    /// `?default`: the default graph.
    Default,
    /// `?graph=IRI`: one named graph.
    Named(NamedNode),
    /// No parameter: the whole dataset.
    All,
}

/// Reads the target of a Graph Store read.
pub(crate) fn parse_store(url_query: Option<&str>) -> Result<StoreTarget, ServeError> {
    let mut target = StoreTarget::All;
    let mut seen = 0;
    for (k, v) in form_urlencoded::parse(url_query.unwrap_or("").as_bytes()) {
        match k.as_ref() {
            "default" => target = StoreTarget::Default,
            "graph" => target = StoreTarget::Named(iri("graph", v.into_owned())?),
            _ => continue,
        }
        seen += 1;
    }
    if seen > 1 {
        return Err(ServeError::BadRequest(
            "give one of ?default and ?graph=IRI, once".into(),
        ));
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn post(ct: Option<&str>, url: Option<&str>, body: &str) -> Result<Operation, ServeError> {
        let mut h = HeaderMap::new();
        if let Some(ct) = ct {
            h.insert(header::CONTENT_TYPE, HeaderValue::from_str(ct).unwrap());
        }
        parse(&Method::POST, &h, url, body.as_bytes())
    }

    #[test]
    fn where_the_query_is() {
        let q = |text: &str| Operation::Query {
            text: text.into(),
            default_graphs: vec![],
            named_graphs: vec![],
        };
        let get = |url| parse(&Method::GET, &HeaderMap::new(), Some(url), b"");
        assert_eq!(get("query=ASK%20%7B%7D").unwrap(), q("ASK {}"));
        assert_eq!(get("").unwrap(), Operation::Description);
        assert!(matches!(
            get("query=a&query=b"),
            Err(ServeError::BadRequest(_))
        ));
        let form = post(
            Some("application/x-www-form-urlencoded"),
            None,
            "query=ASK+%7B%7D",
        );
        assert_eq!(form.unwrap(), q("ASK {}"));
        let direct = post(
            Some("application/sparql-query; charset=UTF-8"),
            None,
            "ASK {}",
        );
        assert_eq!(direct.unwrap(), q("ASK {}"));
        let Operation::Query {
            default_graphs,
            named_graphs,
            ..
        } = post(
            Some("application/sparql-query"),
            Some("default-graph-uri=http%3A%2F%2Fa%2F&named-graph-uri=http%3A%2F%2Fb%2F"),
            "ASK {}",
        )
        .unwrap()
        else {
            panic!()
        };
        assert_eq!(default_graphs[0].as_str(), "http://a/");
        assert_eq!(named_graphs[0].as_str(), "http://b/");
    }

    #[test]
    fn refusals() {
        let status = |r: Result<Operation, ServeError>| r.unwrap_err().status().as_u16();
        assert_eq!(status(post(None, None, "ASK {}")), 415);
        assert_eq!(status(post(Some("text/plain"), None, "ASK {}")), 415);
        assert_eq!(
            status(post(
                Some("application/sparql-query; charset=UTF-16"),
                None,
                "ASK {}"
            )),
            415
        );
        assert_eq!(
            status(post(Some("application/sparql-update"), None, "CLEAR ALL")),
            403
        );
        assert_eq!(
            status(post(
                Some("application/x-www-form-urlencoded"),
                None,
                "update=CLEAR+ALL"
            )),
            403
        );
        assert_eq!(
            status(post(
                Some("application/sparql-query"),
                Some("default-graph-uri=rel"),
                "ASK {}"
            )),
            400
        );
        assert_eq!(parse_store(Some("default")).unwrap(), StoreTarget::Default);
        assert_eq!(parse_store(None).unwrap(), StoreTarget::All);
        assert!(parse_store(Some("default&graph=http%3A%2F%2Fa%2F")).is_err());
    }
}
