//! How a [`MapView`] crosses to the webview: in columns, not one object per node and link.
//!
//! A group of 3,000 members with their 6,452 links is 1.1 MB as objects (every node repeats its
//! field names, its kind and its class IRI; every link its two keys and its predicate), and the
//! IPC costs 15–30 ms per MB before the page can parse it. In columns the same view is about a
//! third of that: nodes are parallel arrays, kinds are small numbers, class IRIs and link labels
//! are indices into one table of strings, and a link's ends are indices into the nodes. The UI
//! turns it back into objects (`ui/src/lib/core/wire.ts`); `ui/src/lib/core/wire.fixture.json`
//! is the contract both sides test against.

use crate::model::{Counted, MapView, NodeKind};
use serde::{Serialize, Serializer};
use std::collections::HashMap;

/// Node kinds by their number on the wire.
pub const KINDS: [NodeKind; 3] = [NodeKind::Community, NodeKind::Class, NodeKind::Entity];

/// A link's end: the index of a node of the view, or the key of a node already on the map.
#[derive(Serialize)]
#[serde(untagged)]
enum End<'a> {
    Index(u32),
    Key(&'a str),
}

#[derive(Serialize)]
struct Nodes<'a> {
    key: Vec<&'a str>,
    /// Index into [`KINDS`].
    kind: Vec<u8>,
    label: Vec<&'a str>,
    size: Vec<u64>,
    /// Index into the view's `strings`.
    class: Vec<Option<u32>>,
    x: Vec<Option<f32>>,
    y: Vec<Option<f32>>,
    r: Vec<Option<f32>>,
    /// 1 when zooming into the node can expand it.
    expandable: Vec<u8>,
    level: Vec<Option<u32>>,
    id: Vec<u64>,
    classes: Vec<&'a [Counted]>,
}

#[derive(Serialize)]
struct Edges<'a> {
    source: Vec<End<'a>>,
    target: Vec<End<'a>>,
    weight: Vec<u64>,
    /// Index into the view's `strings`.
    label: Vec<u32>,
}

#[derive(Serialize)]
struct Wire<'a> {
    kind: &'a str,
    note: &'a str,
    truncated: bool,
    strings: Vec<&'a str>,
    nodes: Nodes<'a>,
    edges: Edges<'a>,
}

/// Strings said once, then by their index.
#[derive(Default)]
struct Table<'a> {
    index: HashMap<&'a str, u32>,
    strings: Vec<&'a str>,
}

impl<'a> Table<'a> {
    fn id(&mut self, s: &'a str) -> u32 {
        *self.index.entry(s).or_insert_with(|| {
            self.strings.push(s);
            (self.strings.len() - 1) as u32
        })
    }
}

fn end<'a>(at: &HashMap<&'a str, u32>, key: &'a str) -> End<'a> {
    at.get(key).map_or(End::Key(key), |&i| End::Index(i))
}

fn kind_number(kind: NodeKind) -> u8 {
    // Every kind is in KINDS (three, so the index fits).
    KINDS.iter().position(|&k| k == kind).unwrap_or(2) as u8
}

impl Serialize for MapView {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.nodes.len();
        let mut table = Table::default();
        let mut nodes = Nodes {
            key: Vec::with_capacity(n),
            kind: Vec::with_capacity(n),
            label: Vec::with_capacity(n),
            size: Vec::with_capacity(n),
            class: Vec::with_capacity(n),
            x: Vec::with_capacity(n),
            y: Vec::with_capacity(n),
            r: Vec::with_capacity(n),
            expandable: Vec::with_capacity(n),
            level: Vec::with_capacity(n),
            id: Vec::with_capacity(n),
            classes: Vec::with_capacity(n),
        };
        let mut at = HashMap::with_capacity(n);
        for (i, node) in self.nodes.iter().enumerate() {
            at.entry(node.key.as_str()).or_insert(i as u32);
            nodes.key.push(&node.key);
            nodes.kind.push(kind_number(node.kind));
            nodes.label.push(&node.label);
            nodes.size.push(node.size);
            nodes.class.push(node.class.as_deref().map(|c| table.id(c)));
            nodes.x.push(node.x);
            nodes.y.push(node.y);
            nodes.r.push(node.r);
            nodes.expandable.push(u8::from(node.expandable));
            nodes.level.push(node.level);
            nodes.id.push(node.id);
            nodes.classes.push(&node.classes);
        }
        let m = self.edges.len();
        let mut edges = Edges {
            source: Vec::with_capacity(m),
            target: Vec::with_capacity(m),
            weight: Vec::with_capacity(m),
            label: Vec::with_capacity(m),
        };
        for e in &self.edges {
            edges.source.push(end(&at, &e.source));
            edges.target.push(end(&at, &e.target));
            edges.weight.push(e.weight);
            edges.label.push(table.id(&e.label));
        }
        Wire {
            kind: self.kind.as_str(),
            note: &self.note,
            truncated: self.truncated,
            strings: table.strings,
            nodes,
            edges,
        }
        .serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{MapEdge, MapNode, ViewKind};

    /// The view `ui/src/lib/core/wire.fixture.json` holds; the UI's test decodes it back into
    /// these objects.
    fn fixture() -> MapView {
        let person = "<http://xmlns.com/foaf/0.1/Person>".to_string();
        MapView {
            kind: ViewKind::Members,
            note: "a note".into(),
            truncated: true,
            nodes: vec![
                MapNode {
                    key: "c1:4".into(),
                    kind: NodeKind::Community,
                    label: "Bauer".into(),
                    size: 120,
                    class: Some(person.clone()),
                    x: Some(1.5),
                    y: Some(-2.25),
                    r: Some(0.75),
                    expandable: true,
                    level: Some(1),
                    id: 4,
                    classes: vec![Counted {
                        nt: person.clone(),
                        label: "Person".into(),
                        count: 118,
                    }],
                },
                MapNode {
                    key: "e:17".into(),
                    kind: NodeKind::Entity,
                    label: "Anita Bauer".into(),
                    size: 1,
                    class: Some(person),
                    x: None,
                    y: None,
                    r: None,
                    expandable: false,
                    level: None,
                    id: 17,
                    classes: vec![],
                },
                MapNode {
                    key: "k:9".into(),
                    kind: NodeKind::Class,
                    label: "Thing".into(),
                    size: 3,
                    class: None,
                    x: Some(0.0),
                    y: Some(0.0),
                    r: Some(2.0),
                    expandable: true,
                    level: None,
                    id: 9,
                    classes: vec![],
                },
            ],
            edges: vec![
                MapEdge {
                    source: "e:17".into(),
                    target: "c1:4".into(),
                    weight: 1,
                    label: "knows".into(),
                },
                MapEdge {
                    source: "c1:4".into(),
                    target: "c0:2".into(),
                    weight: 35,
                    label: "knows, worksAt".into(),
                },
                MapEdge {
                    source: "k:9".into(),
                    target: "e:17".into(),
                    weight: 2,
                    label: "knows".into(),
                },
            ],
        }
    }

    #[test]
    fn a_view_goes_in_columns_as_the_ui_fixture_says() {
        let got = serde_json::to_string_pretty(&fixture()).expect("serializes") + "\n";
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../ui/src/lib/core/wire.fixture.json"
        );
        let want = std::fs::read_to_string(path).expect("the UI's fixture is in the repository");
        assert_eq!(
            got, want,
            "the wire changed: update {path} and the UI's decoder"
        );
    }

    #[test]
    fn strings_are_said_once_and_ends_outside_the_view_keep_their_key() {
        let v: serde_json::Value = serde_json::to_value(fixture()).expect("serializes");
        assert_eq!(
            v["strings"],
            serde_json::json!([
                "<http://xmlns.com/foaf/0.1/Person>",
                "knows",
                "knows, worksAt"
            ])
        );
        assert_eq!(v["nodes"]["class"], serde_json::json!([0, 0, null]));
        assert_eq!(v["nodes"]["kind"], serde_json::json!([0, 2, 1]));
        assert_eq!(v["edges"]["source"], serde_json::json!([1, 0, 2]));
        assert_eq!(v["edges"]["target"], serde_json::json!([0, "c0:2", 1]));
        assert_eq!(v["edges"]["label"], serde_json::json!([1, 2, 1]));
    }

    #[test]
    fn a_large_view_is_a_third_of_its_objects() {
        // 3,000 members and two links each, the shape of a group opened at 100 M triples.
        let class = "<http://xmlns.com/foaf/0.1/Person>".to_string();
        let nodes: Vec<MapNode> = (0..3000u64)
            .map(|i| MapNode {
                key: format!("e:{}", 216_000 + i),
                kind: NodeKind::Entity,
                label: format!("Person number {i}"),
                size: 1,
                class: Some(class.clone()),
                x: Some(434.988 + i as f32 / 7.0),
                y: Some(456.867 - i as f32 / 3.0),
                r: Some(0.069_120_32),
                expandable: false,
                level: None,
                id: 216_000 + i,
                classes: vec![],
            })
            .collect();
        let edges = (0..6000u64)
            .map(|i| MapEdge {
                source: format!("e:{}", 216_000 + i / 2),
                target: format!("e:{}", 216_000 + (i * 7) % 3000),
                weight: 1,
                label: "knows".into(),
            })
            .collect();
        let view = MapView {
            kind: ViewKind::Members,
            note: String::new(),
            truncated: false,
            nodes,
            edges,
        };
        #[derive(Serialize)]
        struct Objects<'a> {
            nodes: &'a [MapNode],
            edges: &'a [MapEdge],
        }
        let columns = serde_json::to_vec(&view).expect("serializes").len();
        let objects = serde_json::to_vec(&Objects {
            nodes: &view.nodes,
            edges: &view.edges,
        })
        .expect("serializes")
        .len();
        assert!(
            columns * 5 < objects * 2,
            "columns {columns} bytes, objects {objects} bytes"
        );
    }
}
