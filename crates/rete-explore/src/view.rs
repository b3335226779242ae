//! Saved views: where the user was in a file — the camera, the groups opened, the selection, the
//! highlighted class, the query — as a small versioned JSON file or a `rete://` link.
//!
//! Both come from outside (a file someone sent, a link clicked in a browser), so both are read as
//! untrusted input: bounded in size, every field checked, and every failure a sentence saying what
//! is wrong. Reading a view never opens anything; the shell asks the user before it opens the
//! view's source.

use crate::key::NodeKey;
use serde::{Deserialize, Serialize};

/// The `format` field of a view file.
pub const VIEW_FORMAT: &str = "rete-view";
/// The version this build writes and reads.
pub const VIEW_VERSION: u32 = 1;
/// A view file or link longer than this is refused (a view is a few hundred bytes).
pub const MAX_VIEW_BYTES: usize = 256 * 1024;
/// At most this many opened groups (the pyramid's depth times the groups open beside each other).
pub const MAX_OPEN: usize = 256;
/// A link's scheme, as registered with the desktop (`x-scheme-handler/rete`).
pub const LINK_SCHEME: &str = "rete";

/// Where the user was in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SavedView {
    /// Always [`VIEW_FORMAT`].
    pub format: String,
    /// [`VIEW_VERSION`] when written by this build.
    pub version: u32,
    /// The file's path or URL.
    pub source: String,
    /// The map's camera (sigma's state: the frame's centre in 0..1 and the zoom ratio).
    pub camera: Camera,
    /// The groups opened, outermost first (map keys such as `c2:40`).
    #[serde(default)]
    pub open: Vec<String>,
    /// The selected map node (`e:12`, `c1:3`), if any.
    #[serde(default)]
    pub selected: Option<String>,
    /// The class highlighted from the legend (N-Triples), if any.
    #[serde(default)]
    pub class: Option<String>,
    /// The query pane's text, if the pane was open.
    #[serde(default)]
    pub query: Option<String>,
    /// The query's default graph is the union of all graphs.
    #[serde(default)]
    pub all_graphs: Option<bool>,
    /// The coherence report's selected row: `cause:K` (a root cause) or `finding:I` (a finding),
    /// indices into the report, which is the same for the same file.
    #[serde(default)]
    pub finding: Option<String>,
}

/// The map's camera.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Camera {
    /// The centre, across (0..1 of the frame).
    pub x: f64,
    /// The centre, down (0..1 of the frame).
    pub y: f64,
    /// The zoom ratio (1: the whole frame; smaller: closer).
    pub ratio: f64,
}

/// Why a view file or link cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ViewError {
    /// Longer than [`MAX_VIEW_BYTES`].
    #[error("the view is {0} bytes long; a view is at most {MAX_VIEW_BYTES} bytes")]
    TooLarge(usize),
    /// Not JSON, or JSON of another shape.
    #[error("not a rete view: {message} at line {line}, column {column}")]
    Json {
        /// serde_json's description.
        message: String,
        /// 1-based.
        line: usize,
        /// 1-based.
        column: usize,
    },
    /// The `format` field names something else.
    #[error("not a rete view: its format is {0}, expected rete-view")]
    Format(String),
    /// Written by a newer build.
    #[error(
        "this view was saved by a newer version of rete desktop (view format {0}); this version reads format {VIEW_VERSION}: update rete desktop to open it"
    )]
    Newer(u32),
    /// Written by a build older than the first versioned format.
    #[error(
        "this view has format version {0}, which no release of rete desktop wrote; the first is {VIEW_VERSION}"
    )]
    Older(u32),
    /// A field's value is out of its range.
    #[error("the view's {field} is not valid: {why}")]
    Field {
        /// The field, as named in the file.
        field: &'static str,
        /// What is wrong with it.
        why: String,
    },
    /// A link that is not `rete://open?…`.
    #[error("not a rete link: {0}")]
    Link(String),
}

impl SavedView {
    /// A view of `source` at `camera`, nothing else set.
    pub fn new(source: impl Into<String>, camera: Camera) -> Self {
        Self {
            format: VIEW_FORMAT.to_owned(),
            version: VIEW_VERSION,
            source: source.into(),
            camera,
            open: Vec::new(),
            selected: None,
            class: None,
            query: None,
            all_graphs: None,
            finding: None,
        }
    }

    /// Reads a view file's text.
    pub fn parse(text: &str) -> Result<Self, ViewError> {
        if text.len() > MAX_VIEW_BYTES {
            return Err(ViewError::TooLarge(text.len()));
        }
        let json = |e: serde_json::Error| ViewError::Json {
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_owned(),
            line: e.line(),
            column: e.column(),
        };
        // The format and version first: a newer file's unknown fields are not the message to give.
        let head: serde_json::Value = serde_json::from_str(text).map_err(json)?;
        let Some(head) = head.as_object() else {
            return Err(ViewError::Format(format!("a JSON {}", kind_of(&head))));
        };
        match head.get("format") {
            Some(serde_json::Value::String(f)) if f == VIEW_FORMAT => {}
            Some(serde_json::Value::String(f)) => {
                return Err(ViewError::Format(f.chars().take(64).collect()))
            }
            Some(other) => return Err(ViewError::Format(format!("a JSON {}", kind_of(other)))),
            None => return Err(ViewError::Format("missing".into())),
        }
        match head.get("version").and_then(serde_json::Value::as_u64) {
            Some(v) if v == u64::from(VIEW_VERSION) => {}
            Some(v) if v > u64::from(VIEW_VERSION) => {
                return Err(ViewError::Newer(u32::try_from(v).unwrap_or(u32::MAX)));
            }
            Some(v) => return Err(ViewError::Older(u32::try_from(v).unwrap_or(0))),
            None => {
                return Err(ViewError::Field {
                    field: "version",
                    why: "missing, or not a whole number".into(),
                });
            }
        }
        let view: Self = serde_json::from_str(text).map_err(json)?;
        view.check()?;
        Ok(view)
    }

    /// The view file's text (pretty JSON).
    pub fn to_json(&self) -> String {
        // A struct of strings, numbers and options: serializing cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Every field in its range.
    pub fn check(&self) -> Result<(), ViewError> {
        let field = |field, why: &str| {
            Err(ViewError::Field {
                field,
                why: why.to_owned(),
            })
        };
        if self.source.trim().is_empty() {
            return field("source", "empty");
        }
        if self.source.contains('\0') {
            return field("source", "holds a NUL character");
        }
        let c = self.camera;
        if !(c.x.is_finite()
            && c.y.is_finite()
            && (-1e6..=1e6).contains(&c.x)
            && (-1e6..=1e6).contains(&c.y))
        {
            return field("camera", "its centre is not a finite position");
        }
        if !(c.ratio.is_finite() && c.ratio > 0.0 && c.ratio <= 1e6) {
            return field("camera", "its ratio must be a positive number");
        }
        if self.open.len() > MAX_OPEN {
            return Err(ViewError::Field {
                field: "open",
                why: format!("{} groups; at most {MAX_OPEN}", self.open.len()),
            });
        }
        for k in &self.open {
            match k.parse::<NodeKey>() {
                Ok(NodeKey::Community { .. } | NodeKey::Class(_)) => {}
                _ => {
                    return Err(ViewError::Field {
                        field: "open",
                        why: format!(
                            "{:?} is not a group of the map",
                            k.chars().take(64).collect::<String>()
                        ),
                    });
                }
            }
        }
        if let Some(k) = self
            .selected
            .as_ref()
            .filter(|k| k.parse::<NodeKey>().is_err())
        {
            return Err(ViewError::Field {
                field: "selected",
                why: format!(
                    "{:?} is not a node of the map",
                    k.chars().take(64).collect::<String>()
                ),
            });
        }
        if self
            .class
            .as_ref()
            .is_some_and(|c| !(c.starts_with('<') && c.ends_with('>')))
        {
            return field("class", "not an IRI in N-Triples syntax (<…>)");
        }
        if let Some(f) = self.finding.as_ref().filter(|f| !is_finding(f)) {
            return Err(ViewError::Field {
                field: "finding",
                why: format!(
                    "{:?} is not a row of the coherence report (cause:N or finding:N)",
                    f.chars().take(64).collect::<String>()
                ),
            });
        }
        Ok(())
    }

    /// The `rete://open?…` link to this view (its fields as query parameters, readable).
    pub fn to_link(&self) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("v", &self.version.to_string());
        q.append_pair("source", &self.source);
        q.append_pair("x", &self.camera.x.to_string());
        q.append_pair("y", &self.camera.y.to_string());
        q.append_pair("ratio", &self.camera.ratio.to_string());
        if !self.open.is_empty() {
            q.append_pair("open", &self.open.join(","));
        }
        if let Some(s) = &self.selected {
            q.append_pair("selected", s);
        }
        if let Some(c) = &self.class {
            q.append_pair("class", c);
        }
        if let Some(t) = &self.query {
            q.append_pair("query", t);
        }
        if let Some(a) = self.all_graphs {
            q.append_pair("graphs", if a { "all" } else { "default" });
        }
        if let Some(f) = &self.finding {
            q.append_pair("finding", f);
        }
        format!("{LINK_SCHEME}://open?{}", q.finish())
    }

    /// Reads a `rete://open?…` link.
    pub fn from_link(link: &str) -> Result<Self, ViewError> {
        let link = link.trim();
        if link.len() > MAX_VIEW_BYTES {
            return Err(ViewError::TooLarge(link.len()));
        }
        let Some(query) = link
            .strip_prefix(LINK_SCHEME)
            .and_then(|r| r.strip_prefix("://open"))
            .map(|r| r.strip_prefix('/').unwrap_or(r))
            .and_then(|r| r.strip_prefix('?'))
        else {
            return Err(ViewError::Link(format!(
                "expected rete://open?source=…, got {:?}",
                link.chars().take(80).collect::<String>()
            )));
        };
        let mut version = None;
        let mut source = None;
        let (mut x, mut y, mut ratio) = (None, None, None);
        let mut view = Self::new(
            String::new(),
            Camera {
                x: 0.5,
                y: 0.5,
                ratio: 1.0,
            },
        );
        let number = |field: &'static str, v: &str| {
            v.parse::<f64>().map_err(|_| ViewError::Field {
                field,
                why: format!(
                    "{:?} is not a number",
                    v.chars().take(32).collect::<String>()
                ),
            })
        };
        for (k, v) in form_urlencoded::parse(query.as_bytes()) {
            match &*k {
                "v" => {
                    version = Some(v.parse::<u32>().map_err(|_| ViewError::Field {
                        field: "v",
                        why: "not a whole number".into(),
                    })?);
                }
                "source" => source = Some(v.into_owned()),
                "x" => x = Some(number("x", &v)?),
                "y" => y = Some(number("y", &v)?),
                "ratio" => ratio = Some(number("ratio", &v)?),
                "open" => {
                    view.open = v
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect()
                }
                "selected" => view.selected = Some(v.into_owned()),
                "class" => view.class = Some(v.into_owned()),
                "query" => view.query = Some(v.into_owned()),
                "finding" => view.finding = Some(v.into_owned()),
                "graphs" => {
                    view.all_graphs = Some(match &*v {
                        "all" => true,
                        "default" => false,
                        _ => {
                            return Err(ViewError::Field {
                                field: "graphs",
                                why: "expected all or default".into(),
                            });
                        }
                    });
                }
                // A newer link's extra fields: the version says whether they matter.
                _ => {}
            }
        }
        match version {
            Some(VIEW_VERSION) => {}
            Some(v) if v > VIEW_VERSION => return Err(ViewError::Newer(v)),
            Some(v) => return Err(ViewError::Older(v)),
            None => {
                return Err(ViewError::Field {
                    field: "v",
                    why: "missing".into(),
                });
            }
        }
        view.source = source.ok_or(ViewError::Field {
            field: "source",
            why: "missing: the link does not say which file it shows".into(),
        })?;
        view.camera = Camera {
            x: x.unwrap_or(0.5),
            y: y.unwrap_or(0.5),
            ratio: ratio.unwrap_or(1.0),
        };
        view.check()?;
        Ok(view)
    }
}

/// A saved view's document, opened: what the shell sends back after opening a view's source.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OpenedView {
    /// The document, open.
    pub doc: crate::model::DocInfo,
    /// The view to restore on it.
    pub view: SavedView,
}

/// Reads a view file (bounded: a larger file is refused before it is read whole).
pub fn read_file(path: &std::path::Path) -> Result<SavedView, ViewFileError> {
    use std::io::Read as _;
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_VIEW_BYTES as u64 + 1)
        .read_to_string(&mut text)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidData {
                ViewFileError::View(ViewError::Json {
                    message: "not UTF-8 text".into(),
                    line: 1,
                    column: 1,
                })
            } else {
                ViewFileError::Io(e)
            }
        })?;
    Ok(SavedView::parse(&text)?)
}

/// Why a view file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ViewFileError {
    /// The file system's error.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The text is not a usable view.
    #[error(transparent)]
    View(#[from] ViewError),
}

/// What a JSON value is, for a message.
fn kind_of(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// `cause:N` or `finding:N`: a row of the coherence report.
fn is_finding(f: &str) -> bool {
    let n = f
        .strip_prefix("cause:")
        .or_else(|| f.strip_prefix("finding:"));
    n.is_some_and(|n| !n.is_empty() && n.len() <= 9 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a command-line argument is a view link rather than a file.
pub fn is_link(arg: &str) -> bool {
    arg.trim_start()
        .get(..LINK_SCHEME.len() + 1)
        .is_some_and(|s| s.eq_ignore_ascii_case("rete:"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    fn full() -> SavedView {
        SavedView {
            open: vec!["c2:4".into(), "c1:17".into()],
            selected: Some("e:1234".into()),
            class: Some("<http://xmlns.com/foaf/0.1/Person>".into()),
            query: Some("SELECT * WHERE { ?s ?p ?o } # 100% & more".into()),
            all_graphs: Some(true),
            finding: Some("cause:2".into()),
            ..SavedView::new(
                "/data/my graph.rete",
                Camera {
                    x: 0.25,
                    y: 0.75,
                    ratio: 0.031_25,
                },
            )
        }
    }

    #[test]
    fn a_view_reads_back_from_its_file_and_its_link() {
        let v = full();
        assert_eq!(SavedView::parse(&v.to_json()).unwrap(), v);
        let link = v.to_link();
        assert!(
            link.starts_with("rete://open?v=1&source=%2Fdata%2Fmy+graph.rete&"),
            "{link}"
        );
        assert_eq!(SavedView::from_link(&link).unwrap(), v);
        let bare = SavedView::new(
            "https://example.org/a.rete",
            Camera {
                x: 0.5,
                y: 0.5,
                ratio: 1.0,
            },
        );
        assert_eq!(SavedView::from_link(&bare.to_link()).unwrap(), bare);
        assert!(
            is_link(&link)
                && is_link("RETE://open")
                && !is_link("/tmp/rete.rete")
                && !is_link("re")
        );
    }

    #[test]
    fn a_damaged_or_foreign_file_gets_a_clear_message() {
        let msg = |t: &str| SavedView::parse(t).unwrap_err().to_string();
        assert_eq!(
            msg("{\"format\": \"rete-view\",\n \"version\": 1,"),
            "not a rete view: EOF while parsing a value at line 2, column 14"
        );
        assert_eq!(
            msg("[1, 2]"),
            "not a rete view: its format is a JSON array, expected rete-view"
        );
        assert_eq!(
            msg(r#"{"format": "geojson"}"#),
            "not a rete view: its format is geojson, expected rete-view"
        );
        assert_eq!(
            msg(r#"{"version": 1}"#),
            "not a rete view: its format is missing, expected rete-view"
        );
        assert!(msg(r#"{"format": "rete-view", "version": 7}"#)
            .starts_with("this view was saved by a newer version of rete desktop (view format 7)"));
        assert!(msg(r#"{"format": "rete-view", "version": 0}"#)
            .starts_with("this view has format version 0"));
        assert_eq!(
            msg(r#"{"format": "rete-view"}"#),
            "the view's version is not valid: missing, or not a whole number"
        );
        let with = |f: &str, v: &str| {
            let mut j: serde_json::Value = serde_json::from_str(&full().to_json()).unwrap();
            j[f] = serde_json::from_str(v).unwrap();
            msg(&j.to_string())
        };
        assert_eq!(
            with("camera", r#"{"x": 0.5, "y": 0.5, "ratio": 0}"#),
            "the view's camera is not valid: its ratio must be a positive number"
        );
        assert_eq!(
            with("open", r#"["e:3"]"#),
            "the view's open is not valid: \"e:3\" is not a group of the map"
        );
        assert_eq!(
            with("selected", r#""../../etc""#),
            "the view's selected is not valid: \"../../etc\" is not a node of the map"
        );
        assert_eq!(
            with("class", r#""Person""#),
            "the view's class is not valid: not an IRI in N-Triples syntax (<…>)"
        );
        assert_eq!(
            with("finding", r#""finding:x""#),
            "the view's finding is not valid: \"finding:x\" is not a row of the coherence report (cause:N or finding:N)"
        );
        let mut v = full();
        v.finding = Some("finding:12".into());
        assert_eq!(SavedView::parse(&v.to_json()).unwrap(), v);
        assert_eq!(
            with("source", r#""  ""#),
            "the view's source is not valid: empty"
        );
        assert!(with("extra", "1").starts_with("not a rete view: unknown field `extra`"));
        assert_eq!(
            msg(&" ".repeat(MAX_VIEW_BYTES + 1)),
            format!(
                "the view is {} bytes long; a view is at most {MAX_VIEW_BYTES} bytes",
                MAX_VIEW_BYTES + 1
            )
        );
    }

    #[test]
    fn a_malformed_link_is_refused_with_the_reason() {
        let msg = |t: &str| SavedView::from_link(t).unwrap_err().to_string();
        assert_eq!(
            msg("https://example.org/x"),
            "not a rete link: expected rete://open?source=…, got \"https://example.org/x\""
        );
        assert_eq!(
            msg("rete://open?v=1&x=0.5"),
            "the view's source is not valid: missing: the link does not say which file it shows"
        );
        assert_eq!(
            msg("rete://open?source=%2Fa.rete"),
            "the view's v is not valid: missing"
        );
        assert!(
            msg("rete://open?v=9&source=a").starts_with("this view was saved by a newer version")
        );
        assert_eq!(
            msg("rete://open?v=1&source=a&ratio=-1"),
            "the view's camera is not valid: its ratio must be a positive number"
        );
        assert_eq!(
            msg("rete://open?v=1&source=a&x=NaN"),
            "the view's camera is not valid: its centre is not a finite position"
        );
        assert_eq!(
            msg("rete://open?v=1&source=a&x=abc"),
            "the view's x is not valid: \"abc\" is not a number"
        );
        assert_eq!(
            msg("rete://open?v=1&source=a&open=c1:2,zz"),
            "the view's open is not valid: \"zz\" is not a group of the map"
        );
        assert_eq!(
            msg("rete://open?v=1&source=a&graphs=some"),
            "the view's graphs is not valid: expected all or default"
        );
        assert_eq!(
            msg("rete://open?v=1&source=%00"),
            "the view's source is not valid: holds a NUL character"
        );
        // Fields a later version may add are let through: the version decides.
        assert_eq!(
            SavedView::from_link("rete://open/?v=1&source=a&later=1")
                .unwrap()
                .source,
            "a"
        );
    }
}
