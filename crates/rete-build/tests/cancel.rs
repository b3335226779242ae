//! Progress phases and cancellation: the phases come in the documented order with the documented
//! totals, and a cancel at any point returns `Cancelled` leaving no output and no temp files.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_build::{
    build, BoxError, BuildError, BuildOptions, Extension, ExtensionOutput, Input, Progress, Syntax,
};
use rete_core::Rete;
use std::sync::{Arc, Mutex};

/// Records every call; asks to cancel once `trigger` says so.
#[derive(Default)]
struct Recorder {
    log: Mutex<Vec<Event>>,
    trigger: Option<Trigger>,
}

#[derive(Debug, Clone, PartialEq)]
enum Event {
    Start(String, Option<u64>),
    Inc(u64),
    Bytes(u64),
    Finish,
}

#[derive(Clone)]
enum Trigger {
    /// Cancel from the very first poll.
    Now,
    /// Cancel once the phase of this name has finished.
    After(&'static str),
    /// Cancel once this phase has seen its first `inc`.
    FirstIncOf(&'static str),
}

impl Recorder {
    fn cancelling(t: Trigger) -> Self {
        Self {
            trigger: Some(t),
            ..Self::default()
        }
    }
    fn events(&self) -> Vec<Event> {
        self.log.lock().unwrap().clone()
    }
    fn phases(&self) -> Vec<String> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                Event::Start(p, _) => Some(p),
                _ => None,
            })
            .collect()
    }
    /// Sum of `inc` inside phase `name`.
    fn incs_of(&self, name: &str) -> u64 {
        let mut cur = String::new();
        let mut n = 0;
        for e in self.events() {
            match e {
                Event::Start(p, _) => cur = p,
                Event::Inc(k) if cur == name => n += k,
                _ => {}
            }
        }
        n
    }
}

impl Progress for Recorder {
    fn start(&self, phase: &str, total: Option<u64>) {
        self.log
            .lock()
            .unwrap()
            .push(Event::Start(phase.into(), total));
    }
    fn inc(&self, n: u64) {
        self.log.lock().unwrap().push(Event::Inc(n));
    }
    fn finish(&self) {
        self.log.lock().unwrap().push(Event::Finish);
    }
    fn parsed_bytes(&self, b: u64) {
        self.log.lock().unwrap().push(Event::Bytes(b));
    }
    fn cancelled(&self) -> bool {
        let log = self.log.lock().unwrap();
        match &self.trigger {
            None => false,
            Some(Trigger::Now) => true,
            Some(Trigger::After(name)) => {
                let mut cur = None;
                for e in log.iter() {
                    match e {
                        Event::Start(p, _) => cur = Some(p.as_str()),
                        Event::Finish if cur == Some(*name) => return true,
                        _ => {}
                    }
                }
                false
            }
            Some(Trigger::FirstIncOf(name)) => {
                let mut cur = None;
                for e in log.iter() {
                    match e {
                        Event::Start(p, _) => cur = Some(p.as_str()),
                        Event::Inc(_) if cur == Some(*name) => return true,
                        _ => {}
                    }
                }
                false
            }
        }
    }
}

/// An extension that adds nothing, standing in for the pyramid and schema extensions (their
/// crates depend on this one).
struct Named(&'static str);

impl Extension for Named {
    fn name(&self) -> &str {
        self.0
    }
    fn flags(&self) -> u32 {
        0
    }
    fn sections_with_steps(&self, _: &Rete) -> Result<ExtensionOutput, BoxError> {
        Ok(ExtensionOutput::default())
    }
}

/// Quads of the test data: their permutation keys (8 bytes each) outgrow the smallest sort
/// budget (1 MiB), so every permutation spills runs.
const QUADS: u64 = 140_000;

fn ntriples() -> Vec<u8> {
    ntriples_of(QUADS)
}

fn ntriples_of(quads: u64) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..quads {
        s.push_str(&format!(
            "<http://e.org/s{}> <http://e.org/p{}> \"v{i}\" .\n",
            i / 3,
            i % 7
        ));
    }
    s.into_bytes()
}

fn options(progress: Arc<Recorder>, data: &[u8], tmp: &std::path::Path) -> BuildOptions {
    BuildOptions {
        inputs: vec![Input::bytes("big.nt", data.to_vec(), Syntax::NTriples)],
        // Small budget: quads spill while parsing and the permutations are sorted into spilled
        // runs, so there are temp files to clean up.
        memory_budget: 1 << 20,
        zstd_level: 1,
        temp_dir: Some(tmp.to_path_buf()),
        extensions: vec![Arc::new(Named("pyramid")), Arc::new(Named("schema"))],
        progress,
        ..BuildOptions::default()
    }
}

#[test]
fn phases_come_in_order_with_their_totals() {
    let data = ntriples();
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let rec = Arc::new(Recorder::default());
    let out = dir.path().join("out.rete");
    let report = build(&options(rec.clone(), &data, &tmp), &out).unwrap();
    assert_eq!(report.quads, QUADS);
    assert_eq!(
        rec.phases(),
        [
            "parse",
            "dictionary",
            "sort",
            "permutations",
            "pyramid",
            "schema",
            "write"
        ]
    );
    let events = rec.events();
    assert_eq!(
        events[0],
        Event::Start("parse".into(), Some(data.len() as u64))
    );
    assert_eq!(rec.incs_of("parse"), QUADS);
    let last_bytes = events
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Bytes(b) => Some(*b),
            _ => None,
        })
        .unwrap();
    assert_eq!(last_bytes, data.len() as u64);
    assert!(events.contains(&Event::Start("sort".into(), Some(6))));
    assert_eq!(rec.incs_of("sort"), 6);
    assert_eq!(rec.incs_of("permutations"), 6);
    // Every start has its finish.
    let starts = events
        .iter()
        .filter(|e| matches!(e, Event::Start(..)))
        .count();
    let finishes = events.iter().filter(|e| **e == Event::Finish).count();
    assert_eq!(starts, finishes);
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    assert!(
        report.spilled_runs > 0,
        "the test must exercise spilled runs"
    );
}

#[test]
fn cancel_at_every_phase_leaves_nothing() {
    let data = ntriples();
    let cases = [
        (Trigger::Now, "before parse"),
        (Trigger::FirstIncOf("parse"), "during parse"),
        (Trigger::After("parse"), "before dictionary"),
        (Trigger::After("dictionary"), "before sort"),
        (Trigger::FirstIncOf("sort"), "between sorted permutations"),
        (Trigger::After("sort"), "before permutations"),
        (Trigger::FirstIncOf("permutations"), "between permutations"),
        (Trigger::After("permutations"), "before pyramid"),
        (Trigger::After("pyramid"), "before schema"),
        (Trigger::After("schema"), "before write"),
    ];
    for (trigger, what) in cases {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let rec = Arc::new(Recorder::cancelling(trigger.clone()));
        let out = dir.path().join("out.rete");
        // One worker thread: the six permutations sort and write in parallel, so with more
        // threads the ones running beside the first would also count before the check stops
        // the build, and "stopped at the first check" could not be asserted exactly.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let r = pool.install(|| build(&options(rec.clone(), &data, &tmp), &out));
        assert!(
            matches!(r, Err(BuildError::Cancelled)),
            "{what}: expected Cancelled, got {r:?}"
        );
        assert!(!out.exists(), "{what}: output written");
        let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
        assert!(left.is_empty(), "{what}: temp files left: {left:?}");
        let next: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(next, ["tmp"], "{what}: files left next to the output");
        match trigger {
            // Stopped at the first check inside the loop, not at the end of the input.
            Trigger::FirstIncOf("parse") => assert_eq!(rec.incs_of("parse"), 65536, "{what}"),
            Trigger::FirstIncOf("sort") => assert_eq!(rec.incs_of("sort"), 1, "{what}"),
            Trigger::FirstIncOf("permutations") => {
                assert_eq!(rec.incs_of("permutations"), 1, "{what}")
            }
            Trigger::Now => assert!(rec.phases().is_empty(), "{what}"),
            _ => {}
        }
        assert!(
            !rec.phases().contains(&"write".to_owned()),
            "{what}: write started"
        );
    }
}

/// With fewer quads one permutation's keys fit the budget: the permutations are sorted and
/// written one at a time. A cancel between them stops at once and leaves nothing.
#[test]
fn cancel_between_permutations_sorted_one_at_a_time() {
    let data = ntriples_of(QUADS / 2);
    for (trigger, sorted) in [(Trigger::FirstIncOf("sort"), 1), (Trigger::Now, 0)] {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let rec = Arc::new(Recorder::cancelling(trigger));
        let out = dir.path().join("out.rete");
        let r = build(&options(rec.clone(), &data, &tmp), &out);
        assert!(matches!(r, Err(BuildError::Cancelled)), "{r:?}");
        assert_eq!(rec.incs_of("sort"), sorted);
        assert!(!out.exists());
        assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    }
    // Not cancelled: the same data builds, one permutation at a time, spilling no run.
    let dir = tempfile::tempdir().unwrap();
    let rec = Arc::new(Recorder::default());
    let report = build(
        &options(rec.clone(), &data, dir.path()),
        &dir.path().join("o.rete"),
    )
    .unwrap();
    assert!(report.permutations_one_at_a_time, "{report:?}");
    assert_eq!(report.permutation_runs, 0, "{report:?}");
    assert_eq!(rec.incs_of("sort"), 6);
    assert_eq!(rec.incs_of("permutations"), 6);
}

#[test]
fn cancelled_error_message() {
    assert_eq!(BuildError::Cancelled.to_string(), "build cancelled");
}
