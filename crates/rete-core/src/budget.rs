//! The per-document decode budget: what one open document may hold decoded at once, over all
//! its sections and extension readers.
//!
//! Every decoder bounds one block or section on its own (caps, the zstd ratio, the front-coding
//! expander), but a file has many sections: each could pass its own rule and all of them together
//! still fill the memory. A [`DecodeBudget`] is shared by a document's reader and every extension
//! reader opened on it ([`Rete::decode_budget`](crate::Rete::decode_budget)). Whatever they
//! decode and keep (directories, page tables, the card, the schema, the pyramid's top and
//! directory, the search meta) is charged *before* it is decoded, as a [`Charge`] that lives as
//! long as what was built from it and gives its bytes back when dropped. A charge past the limit
//! is [`Error::DecodeBudget`]. The block caches are the other holder: each is bounded by its own
//! byte limit.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Smallest default budget, whatever the file's size: 256 MiB.
pub const DECODE_BUDGET_FLOOR: u64 = 256 << 20;

/// The default budget of a document of `file_len` bytes: [`DECODE_BUDGET_FLOOR`] or the file's
/// length if larger. Real files hold far less (docs/reliability.md has the figures: 0.23 MB for
/// the 20k-person sample, 14.7 MB for a 100 M-quad file of 1.08 GB).
pub fn default_decode_budget(file_len: u64) -> u64 {
    DECODE_BUDGET_FLOOR.max(file_len)
}

/// The count a payload starts with, capped by the items of at least `min_item` bytes it can hold:
/// what a decoder of that payload may make at most, known before it makes any (0 if the payload
/// does not start with a count).
pub fn declared_items(payload: &[u8], min_item: usize) -> u64 {
    crate::format::varint::Cursor::new(payload)
        .get()
        .unwrap_or(0)
        .min((payload.len() / min_item.max(1)) as u64)
}

/// The bytes one document may hold decoded, and what it holds now. Shared ([`Arc`]) by the
/// document's reader and its extension readers.
#[derive(Debug)]
pub struct DecodeBudget {
    file: String,
    limit: u64,
    held: AtomicU64,
    peak: AtomicU64,
}

impl DecodeBudget {
    /// A budget of `limit` bytes for the document `file` (named in errors).
    pub fn new(file: impl Into<String>, limit: u64) -> Arc<Self> {
        Arc::new(Self {
            file: file.into(),
            limit,
            held: AtomicU64::new(0),
            peak: AtomicU64::new(0),
        })
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes charged now.
    pub fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }

    /// The most bytes charged at once so far: what the document needed (the figures of the
    /// default budget were measured with it).
    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// Charges `bytes` for `section`, before they are decoded: the charge is given back when the
    /// returned [`Charge`] is dropped. Past the limit, nothing is charged and the error says
    /// what the section would hold.
    pub fn charge(self: &Arc<Self>, section: &str, bytes: u64) -> Result<Charge> {
        self.take(section, bytes)?;
        Ok(Charge {
            budget: Some(self.clone()),
            bytes,
        })
    }

    fn take(&self, section: &str, bytes: u64) -> Result<()> {
        self.held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes).filter(|&n| n <= self.limit)
            })
            .map(|held| {
                self.peak.fetch_max(held + bytes, Ordering::Relaxed);
            })
            .map_err(|held| Error::DecodeBudget {
                file: self.file.clone(),
                section: section.to_owned(),
                bytes,
                held,
                limit: self.limit,
            })
    }
}

/// Bytes charged to a [`DecodeBudget`], given back when dropped. Held by what was decoded.
#[derive(Debug, Default)]
pub struct Charge {
    budget: Option<Arc<DecodeBudget>>,
    bytes: u64,
}

impl Charge {
    /// A charge to no budget (a value built in memory rather than decoded from a document).
    pub fn none() -> Self {
        Self::default()
    }

    /// Bytes charged.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Charges `bytes` more for `section` (a decoder that learns a count before it builds its
    /// items); past the limit, nothing more is charged.
    pub fn grow(&mut self, section: &str, bytes: u64) -> Result<()> {
        if let Some(b) = &self.budget {
            b.take(section, bytes)?;
            self.bytes += bytes;
        }
        Ok(())
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        if let Some(b) = &self.budget {
            b.held.fetch_sub(self.bytes, Ordering::AcqRel);
        }
    }
}

// What an owned value holding a charge compares and prints as: the charge is bookkeeping, not
// content.
impl PartialEq for Charge {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_are_refused_past_the_limit_and_given_back_when_dropped() {
        let budget = DecodeBudget::new("f.rete", 100);
        let mut a = budget.charge("card", 60).expect("within the budget");
        assert_eq!((budget.held(), a.bytes()), (60, 60));
        let err = budget
            .charge("schema classes", 41)
            .expect_err("past the budget");
        assert_eq!(
            err.to_string(),
            "f.rete: schema classes: decoding this section would hold 41 bytes, past the \
             document's decode budget of 100 bytes (60 bytes held already)"
        );
        assert_eq!(budget.held(), 60, "a refused charge takes nothing");
        let b = budget
            .charge("schema classes", 40)
            .expect("exactly the limit");
        assert!(a.grow("card", 1).is_err());
        drop(b);
        a.grow("card", 40).expect("room again");
        assert_eq!((budget.held(), a.bytes()), (100, 100));
        drop(a);
        assert_eq!((budget.held(), budget.peak()), (0, 100));
        let mut none = Charge::none();
        none.grow("x", u64::MAX).expect("no budget, no limit");
        assert!(budget.charge("x", u64::MAX).is_err(), "no overflow");
    }
}
