//! The app's edges: the byte budget of a remote document (read through a real HTTP server on
//! 127.0.0.1) and atomic exports, through the command bodies (`commands::ops`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;
mod fixtures;

use common::{redirect_to, serve, serve_with};
use fixtures::fixture;
use rete_explore::engine::{AppError, AppResult};
use rete_explore::model::{MapNode, MapView};
use rete_explore::ops;
use rete_explore::store::Store;
use rete_http::CountedReader;
use std::sync::{Arc, Mutex};

const KNOWS: &str = "SELECT ?s ?o WHERE { ?s <http://xmlns.com/foaf/0.1/knows> ?o }";

#[test]
fn a_remote_document_reads_within_its_budget_until_the_user_raises_it() {
    let url = serve(std::fs::read(fixture("social-1k.rete")).unwrap(), 500);
    let store = Store::default();
    let info = ops::open_url(&store, &url).unwrap();
    let first = ops::read_stats(&store, info.doc).unwrap();
    assert_eq!(first.budget, Some(rete_http::DEFAULT_BYTE_BUDGET));
    assert!(
        first.fetched > 0 && first.fetched == first.bytes,
        "{first:?}"
    );

    // Shrink the budget to what was fetched so far: the next read that needs the server fails
    // with the typed error's message, and the app keeps working.
    let doc = store.get(info.doc).unwrap();
    let CountedReader::Remote(reader) = &doc.bytes else {
        panic!("a URL is read over HTTP")
    };
    reader.set_budget(Some(reader.fetched()));
    let cost = ops::sparql_cost(&store, info.doc, KNOWS).unwrap();
    assert!(cost.bytes > 0, "{cost:?}");
    let e = ops::sparql_run(&store, info.doc, 1, KNOWS).unwrap_err();
    assert!(e.to_string().contains("read budget"), "{e}");
    assert_eq!(
        ops::read_stats(&store, info.doc).unwrap().budget,
        Some(reader.fetched())
    );

    // The user agreed to the estimate: the budget grows by it and the query runs.
    let raised = ops::raise_read_budget(&store, info.doc, cost.bytes).unwrap();
    assert_eq!(raised.budget, Some(raised.fetched + cost.bytes));
    let out = ops::sparql_run(&store, info.doc, 2, KNOWS).unwrap();
    assert_eq!(out.status, "ok", "{:?}", out.error);
    assert!(out.total > 0);
    assert!(out.read.fetched <= raised.budget.unwrap());
    // Raising never lowers it.
    let again = ops::raise_read_budget(&store, info.doc, 0).unwrap();
    assert_eq!(again.budget, raised.budget);

    // A local file has no budget.
    let local = ops::open_path(&store, &fixture("social-1k.rete").display().to_string()).unwrap();
    let l = ops::read_stats(&store, local.doc).unwrap();
    assert_eq!((l.budget, l.fetched), (None, 0));
    assert_eq!(
        ops::raise_read_budget(&store, local.doc, 5).unwrap().budget,
        None
    );
}

#[test]
fn exports_replace_the_old_file_whole_and_leave_no_temporary_file() {
    let store = Store::default();
    let info = ops::open_path(&store, &fixture("social-1k.rete").display().to_string()).unwrap();
    let out = ops::sparql_run(&store, info.doc, 3, KNOWS).unwrap();
    assert_eq!(out.status, "ok");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("results.csv");
    std::fs::write(&p, vec![b'z'; 10 << 20]).unwrap();
    ops::sparql_write(&store, 3, "csv", &p).unwrap();
    let csv = std::fs::read_to_string(&p).unwrap();
    assert!(
        csv.starts_with("s,o\r\n") && !csv.contains('z'),
        "{}",
        &csv[..40]
    );
    // A failed export leaves the previous file as it was.
    let before = std::fs::read(&p).unwrap();
    assert!(ops::sparql_write(&store, 99, "csv", &p).is_err());
    assert!(ops::sparql_write(&store, 3, "xls", &p).is_err());
    assert_eq!(std::fs::read(&p).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["results.csv"]);
}

/// What `node` opens into: its children, or on level 0 its members and the links among them.
fn open_node(store: &Store, doc: u32, node: &MapNode) -> AppResult<MapView> {
    let (x, y, r) = (node.x.unwrap(), node.y.unwrap(), node.r.unwrap());
    ops::expand(store, doc, &node.key, x, y, r)
}

/// The largest level-0 community of `doc`, reached from the top by the largest child.
fn largest_community(store: &Store, doc: u32) -> MapNode {
    let map = ops::overview(store, doc).unwrap();
    let mut node = map.nodes.iter().max_by_key(|n| n.size).unwrap().clone();
    while node.level.unwrap() > 0 {
        let kids = open_node(store, doc, &node).unwrap();
        node = kids.nodes.iter().max_by_key(|n| n.size).unwrap().clone();
    }
    node
}

/// Opening a community over HTTP first fetches its members' blocks in one batch, then scans
/// them. When the server refuses the batch, the community still opens, the same as from the
/// disk: the batch was only a speed-up, and the scans fetch what they need themselves.
#[test]
fn a_community_opens_when_the_batch_ahead_fails() {
    let bytes = std::fs::read(fixture("social-20k.rete")).unwrap();
    let store = Store::default();
    let local = ops::open_path(&store, &fixture("social-20k.rete").display().to_string()).unwrap();
    let node = largest_community(&store, local.doc);
    let expected = serde_json::to_value(open_node(&store, local.doc, &node).unwrap()).unwrap();

    // Every range asked for, in order, and (once set) one range to refuse the first time.
    let asked = Arc::new(Mutex::new(Vec::new()));
    let refuse = Arc::new(Mutex::new(None::<(usize, usize)>));
    let server = |asked: Arc<Mutex<Vec<(usize, usize)>>>,
                  refuse: Arc<Mutex<Option<(usize, usize)>>>| {
        serve_with(bytes.clone(), 500, move |a, b| {
            asked.lock().unwrap().push((a, b));
            let mut r = refuse.lock().unwrap();
            (*r == Some((a, b))).then(|| {
                *r = None;
                403
            })
        })
    };

    // Nothing refused: the ranges opening the community asks for.
    let a = ops::open_url(&store, &server(asked.clone(), refuse.clone())).unwrap();
    assert_eq!(largest_community(&store, a.doc).key, node.key);
    let walked = asked.lock().unwrap().len();
    let view = open_node(&store, a.doc, &node).unwrap();
    assert_eq!(serde_json::to_value(&view).unwrap(), expected);
    // The members' pyramid block, then the batch's spans (the scans then find their blocks
    // cached): refusing any span of the batch fails it.
    let opening: Vec<(usize, usize)> = asked.lock().unwrap()[walked..].to_vec();
    assert!(opening.len() >= 2, "{opening:?}");
    let batch = opening[1];

    // The same walk on a fresh document, with that batch refused.
    let asked_b = Arc::new(Mutex::new(Vec::new()));
    let b = ops::open_url(&store, &server(asked_b.clone(), refuse.clone())).unwrap();
    assert_eq!(largest_community(&store, b.doc).key, node.key);
    assert_eq!(asked_b.lock().unwrap().len(), walked);
    *refuse.lock().unwrap() = Some(batch);
    let view = open_node(&store, b.doc, &node).expect("the scans read for themselves");
    assert_eq!(serde_json::to_value(&view).unwrap(), expected);
    assert_eq!(
        *refuse.lock().unwrap(),
        None,
        "the batch was asked for and refused"
    );
    let opening_b = asked_b.lock().unwrap()[walked..].to_vec();
    assert!(
        opening_b.len() > opening.len(),
        "{opening:?} then {opening_b:?}"
    );
}

#[test]
fn a_redirect_to_another_host_opens_only_once_the_user_agrees() {
    // Two servers on 127.0.0.1, different ports: different hosts.
    let b = serve(std::fs::read(fixture("social-1k.rete")).unwrap(), 500);
    let a = redirect_to(b.clone());
    let b_host = rete_http::redirect_host(&b).unwrap();
    let store = Store::default();
    let open = |hosts: &[String]| ops::open_url_allowing(&store, &a, hosts);
    // Without asking: the typed refusal naming the host.
    match ops::open_url(&store, &a) {
        Err(AppError::Redirect { host, .. }) => assert_eq!(host, b_host),
        other => panic!("{other:?}"),
    }
    // The user says no: nothing opens, the message says why.
    let mut asked = Vec::new();
    let e = ops::asking_for_redirects(
        |from, to| {
            asked.push((from.to_owned(), to.to_owned()));
            false
        },
        open,
    )
    .unwrap_err();
    assert!(matches!(e, AppError::Cancelled(_)), "{e:?}");
    assert_eq!(asked, [(a.clone(), b.clone())]);
    assert!(e
        .to_string()
        .contains(&format!("the redirect from {a} to {b} was not followed")));
    // Yes: it opens once, and every later read follows the redirect.
    let mut questions = 0;
    let info = ops::asking_for_redirects(
        |_, _| {
            questions += 1;
            true
        },
        open,
    )
    .unwrap();
    assert_eq!(questions, 1);
    ops::overview(&store, info.doc).unwrap();
    assert!(ops::read_stats(&store, info.doc).unwrap().requests > 1);
    let q = ops::redirect_question(&a, &b);
    let a_host = rete_http::redirect_host(&a).unwrap();
    assert!(
        q.starts_with(&format!("Follow the redirect from {a_host} to {b_host}?")),
        "{q}"
    );
    // A refusal for another reason (a loopback address from a public URL) never asks.
    let loopback = rete_http::HttpError {
        url: "https://example.org/x.rete".into(),
        kind: rete_http::HttpErrorKind::RedirectRefused {
            from: "https://example.org/x.rete".into(),
            to: "http://127.0.0.1/admin".into(),
            why: rete_http::RedirectRefusal::Address {
                ip: [127, 0, 0, 1].into(),
                class: rete_http::AddressClass::Loopback,
            },
        },
        attempts: 1,
    };
    let e = ops::asking_for_redirects(
        |_, _| panic!("asked about a loopback redirect"),
        |_| Err::<(), _>(AppError::http(loopback.clone())),
    )
    .unwrap_err();
    assert!(
        matches!(&e, AppError::Invalid(m) if m.contains("a loopback address")),
        "{e:?}"
    );
}
