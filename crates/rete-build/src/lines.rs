//! N-Triples and N-Quads parsed on several threads.
//!
//! A splitter thread reads (and decompresses) the input and cuts it into chunks that end at a
//! line end; worker threads parse each chunk on its own with oxttl and encode its terms; the
//! calling thread takes the chunks' batches in input order, renames blank nodes and interns.
//! A statement never spans a line end that ends a parsed chunk, so when every chunk parses,
//! the quads are those of a sequential parse in the same order. When a chunk does not parse on
//! its own (an error, or a statement over several lines), the rest of the input, from that
//! chunk's first byte on, is parsed as one stream on the calling thread, as a sequential parse
//! would: the same error at the same line and column (lines counted from the chunk's first), or
//! the same quads.
//!
//! Memory: at most `2 × threads` chunks wait for the interner, `threads` for a worker, and one
//! is being read, each with its batch; with the default budget's 1 MiB chunks, a few tens of
//! MB on a small machine, within the headroom the budget leaves besides the interner's half.

use crate::input::{ttl_error, Batch};
use crate::lenient::{self, Known};
use crate::BuildError;
use oxrdf::GraphNameRef;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;

/// A chunk in input order.
enum Slot {
    /// Its parse, from the worker that has it.
    Chunk(Receiver<Parsed>),
    /// Reading failed: the bytes read since the last chunk, then the error.
    Failed(Vec<u8>, std::io::Error),
}

/// A worker's answer for one chunk.
struct Parsed {
    /// The chunk, kept for a sequential re-parse.
    bytes: Vec<u8>,
    /// Its quads and its lines, `None` if it does not parse on its own.
    batch: Option<(Batch, u64)>,
}

type Job = (Vec<u8>, SyncSender<Parsed>);

/// Parses N-Triples (or N-Quads if `nquads`) from `reader` on `threads` workers, handing the
/// batches to `consume` in input order on the calling thread.
pub(crate) fn parse(
    nquads: bool,
    name: &str,
    reader: Box<dyn BufRead + Send>,
    threads: usize,
    chunk_bytes: usize,
    consume: &mut dyn FnMut(Batch) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    let threads = threads.max(1);
    let chunk_bytes = chunk_bytes.max(1);
    let (job_tx, job_rx) = sync_channel::<Job>(threads);
    let job_rx = Mutex::new(job_rx);
    let (slot_tx, slot_rx) = sync_channel::<Slot>(2 * threads);
    std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(threads + 1);
        for _ in 0..threads {
            let job_rx = &job_rx;
            handles.push(s.spawn(move || work(nquads, job_rx)));
        }
        handles.push(s.spawn(move || split(reader, chunk_bytes, &job_tx, &slot_tx)));
        let r = in_order(nquads, name, &slot_rx, consume);
        // Stops the splitter (its next send fails), which stops the workers.
        drop(slot_rx);
        // Joined here so that a panicking thread is not re-raised by the scope; a chunk whose
        // worker died is already an error above.
        let panicked = handles.into_iter().any(|h| h.join().is_err());
        match r {
            Ok(()) if panicked => Err(BuildError::Invalid(format!(
                "{name}: a parser thread panicked"
            ))),
            r => r,
        }
    })
}

/// Cuts the input into chunks ending at a line end (the last one at the end of the input) and
/// queues them for the workers, in order for the consumer.
fn split(
    mut reader: Box<dyn BufRead + Send>,
    chunk_bytes: usize,
    jobs: &SyncSender<Job>,
    slots: &SyncSender<Slot>,
) {
    let mut carry = Vec::new();
    loop {
        let mut buf = std::mem::take(&mut carry);
        let eof = match fill(&mut reader, &mut buf, chunk_bytes) {
            Ok(eof) => eof,
            Err(e) => {
                let _ = slots.send(Slot::Failed(buf, e));
                return;
            }
        };
        let cut = if eof {
            buf.len()
        } else {
            match buf.iter().rposition(|&b| b == b'\n') {
                Some(p) => p + 1,
                // A line longer than a chunk: read on.
                None => {
                    carry = buf;
                    continue;
                }
            }
        };
        carry = buf.split_off(cut);
        if !buf.is_empty() {
            let (tx, rx) = sync_channel(1);
            if jobs.send((buf, tx)).is_err() || slots.send(Slot::Chunk(rx)).is_err() {
                return;
            }
        }
        if eof {
            return;
        }
    }
}

/// Appends up to `n` bytes; `true` at the end of the input.
fn fill(reader: &mut dyn Read, buf: &mut Vec<u8>, n: usize) -> std::io::Result<bool> {
    let start = buf.len();
    buf.resize(start + n, 0);
    let mut len = start;
    let r = loop {
        if len == buf.len() {
            break Ok(false);
        }
        match reader.read(&mut buf[len..]) {
            Ok(0) => break Ok(true),
            Ok(k) => len += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    buf.truncate(len);
    r
}

/// Parses chunks until the splitter is done.
fn work(nquads: bool, jobs: &Mutex<Receiver<Job>>) {
    let mut known = Known::default();
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok((bytes, tx)) = job else { return };
        // Lines are counted here rather than on the thread that interns, which is serial.
        let batch = lenient::parse(nquads, &bytes, &mut known)
            .or_else(|| parse_chunk(nquads, &bytes))
            .map(|b| (b, count_lines(&bytes)));
        // The consumer may have stopped: nothing to do then.
        let _ = tx.send(Parsed { bytes, batch });
    }
}

/// The quads of a chunk parsed on its own (strictly), `None` if it does not parse.
pub(crate) fn parse_chunk(nquads: bool, bytes: &[u8]) -> Option<Batch> {
    let mut batch = Batch::default();
    if nquads {
        for q in oxttl::NQuadsParser::new().for_slice(bytes) {
            batch.push(q.ok()?.as_ref()).ok()?;
        }
    } else {
        for t in oxttl::NTriplesParser::new().for_slice(bytes) {
            batch
                .push(t.ok()?.as_ref().in_graph(GraphNameRef::DefaultGraph))
                .ok()?;
        }
    }
    Some(batch)
}

/// Lines of a chunk as oxttl counts them: `\n`, `\r\n` and a lone `\r` each end one.
fn count_lines(bytes: &[u8]) -> u64 {
    memchr::memchr2_iter(b'\n', b'\r', bytes)
        .filter(|&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
        .count() as u64
}

/// Consumes the chunks in input order; from the first that does not parse on its own, parses
/// the rest as one stream.
fn in_order(
    nquads: bool,
    name: &str,
    slots: &Receiver<Slot>,
    consume: &mut dyn FnMut(Batch) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    let mut lines = 0u64;
    while let Ok(slot) = slots.recv() {
        let (bytes, failure) = match slot {
            Slot::Chunk(rx) => {
                let parsed = rx.recv().map_err(|_| died(name))?;
                match parsed.batch {
                    Some((b, n)) => {
                        consume(b)?;
                        lines += n;
                        continue;
                    }
                    None => (parsed.bytes, None),
                }
            }
            Slot::Failed(bytes, e) => (bytes, Some(e)),
        };
        let rest = Rest {
            cur: Cursor::new(bytes),
            failure,
            slots,
        };
        return sequential(nquads, name, rest, lines, consume);
    }
    Ok(())
}

fn died(name: &str) -> BuildError {
    BuildError::Invalid(format!("{name}: a parser thread stopped"))
}

/// Parses the rest of the input as one stream, lines numbered from `lines`.
fn sequential(
    nquads: bool,
    name: &str,
    rest: Rest<'_>,
    lines: u64,
    consume: &mut dyn FnMut(Batch) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    let reader = BufReader::with_capacity(1 << 16, rest);
    let mut batch = Batch::default();
    let err = |e| ttl_error(name, e, lines);
    let mut push = |q: oxrdf::QuadRef<'_>, batch: &mut Batch| -> Result<(), BuildError> {
        batch.push(q)?;
        if batch.len() >= 4096 {
            consume(std::mem::take(batch))?;
        }
        Ok(())
    };
    let r = if nquads {
        oxttl::NQuadsParser::new()
            .for_reader(reader)
            .try_for_each(|q| push(q.map_err(err)?.as_ref(), &mut batch))
    } else {
        oxttl::NTriplesParser::new()
            .for_reader(reader)
            .try_for_each(|t| {
                let t = t.map_err(err)?;
                push(t.as_ref().in_graph(GraphNameRef::DefaultGraph), &mut batch)
            })
    };
    // The quads before an error are consumed first, as they were parsed before it.
    if batch.len() > 0 {
        consume(batch)?;
    }
    r
}

/// The input from a chunk on: its bytes, then the later chunks' as they arrive, then the read
/// error if reading failed.
struct Rest<'a> {
    cur: Cursor<Vec<u8>>,
    failure: Option<std::io::Error>,
    slots: &'a Receiver<Slot>,
}

impl Read for Rest<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = self.cur.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            if let Some(e) = self.failure.take() {
                return Err(e);
            }
            let bytes = match self.slots.recv() {
                Err(_) => return Ok(0),
                Ok(Slot::Chunk(rx)) => {
                    rx.recv()
                        .map_err(|_| std::io::Error::other("a parser thread stopped"))?
                        .bytes
                }
                Ok(Slot::Failed(bytes, e)) => {
                    self.failure = Some(e);
                    bytes
                }
            };
            self.cur = Cursor::new(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::count_lines;

    #[test]
    fn lines_are_counted_like_oxttl() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a\nb\n"), 2);
        assert_eq!(count_lines(b"a\r\nb\r\n"), 2);
        assert_eq!(count_lines(b"a\rb\n"), 2);
        assert_eq!(count_lines(b"a\r"), 1);
        assert_eq!(count_lines(b"\r\r\n\n"), 3);
    }
}
