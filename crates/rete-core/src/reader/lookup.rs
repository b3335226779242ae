//! Term lookups: the term behind an id and the id of a term, through the dictionary blocks.

use super::directory::DictDir;
use super::Rete;
use crate::dict::DictBlock;
use crate::error::{Error, Result};
use crate::{term, Id, DEFAULT_GRAPH};
use oxrdf::{GraphName, GraphNameRef, Term, TermRef};
use std::sync::Arc;

impl Rete {
    fn check_id(&self, id: Id) -> Result<()> {
        if id == 0 || id > self.inner.header.terms {
            return Err(Error::Invalid(format!(
                "term id {id} is out of range (1..={})",
                self.inner.header.terms
            )));
        }
        Ok(())
    }

    /// The decoded dictionary block holding term `id`, with the id of its first term.
    pub(crate) fn dict_block_of(&self, id: Id) -> Result<(Arc<DictBlock>, Id)> {
        let (b, first) = self.dict_block_index(id)?;
        Ok((self.dict_block(b)?, first))
    }

    /// The index of the dictionary block holding term `id`, with the id of its first term.
    pub(crate) fn dict_block_index(&self, id: Id) -> Result<(usize, Id)> {
        self.check_id(id)?;
        let (idx, dir) = self.dict_dir()?;
        let found = match dir {
            DictDir::Whole(d) => d.block_of_id(id).map(|b| (b, d.blocks[b].first_id)),
            DictDir::Paged(d) => {
                d.block_of_id(id, &self.dir_reader(idx.dict_index), &self.inner.name)?
            }
        };
        found.ok_or_else(|| {
            Error::corrupt(
                &self.inner.name,
                "dictionary index",
                format!("no block holds id {id}"),
            )
        })
    }

    /// Runs `f` on the encoded bytes of term `id`, borrowed from the cached block (no copy).
    pub fn with_term_bytes<R>(&self, id: Id, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        let (block, first) = self.dict_block_of(id)?;
        match block.get((id - first) as usize) {
            Some(bytes) => Ok(f(bytes)),
            None => Err(self.missing_term(id)),
        }
    }

    /// Runs `f` on the encoded bytes of each of `ids` in turn, borrowed from the cached blocks
    /// as [`Rete::with_term_bytes`] does, except that ids in a row that one block holds (sorted
    /// ids near each other) look that block up once, not once each.
    pub fn with_terms_bytes<E: From<Error>>(
        &self,
        ids: &[Id],
        mut f: impl FnMut(Id, &[u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let mut held: Option<(Arc<DictBlock>, Id)> = None;
        for &id in ids {
            let (block, first) = match held.take() {
                Some((b, first)) if id >= first && id - first < b.len() as u64 => (b, first),
                _ => self.dict_block_of(id)?,
            };
            match block.get((id - first) as usize) {
                Some(bytes) => f(id, bytes)?,
                None => return Err(self.missing_term(id).into()),
            }
            held = Some((block, first));
        }
        Ok(())
    }

    pub(crate) fn missing_term(&self, id: Id) -> Error {
        Error::corrupt(
            &self.inner.name,
            "dictionary blocks",
            format!("block lacks id {id}"),
        )
    }

    pub(crate) fn bad_term(&self, id: Id, e: &Error) -> Error {
        Error::corrupt(
            &self.inner.name,
            "dictionary blocks",
            format!("term {id}: {e}"),
        )
    }

    /// The encoded bytes of term `id` (see [`crate::term`]).
    pub fn term_bytes(&self, id: Id) -> Result<Vec<u8>> {
        self.with_term_bytes(id, <[u8]>::to_vec)
    }

    /// The term with id `id` (decoded straight from the cached block: one allocation per
    /// string of the term).
    pub fn term(&self, id: Id) -> Result<Term> {
        self.with_term_bytes(id, term::decode)?
            .map_err(|e| self.bad_term(id, &e))
    }

    /// The graph name with id `id` (`0` is the default graph).
    pub fn graph_name(&self, id: Id) -> Result<GraphName> {
        if id == DEFAULT_GRAPH {
            return Ok(GraphName::DefaultGraph);
        }
        term::decode_graph(&self.term_bytes(id)?).map_err(|e| {
            Error::corrupt(
                &self.inner.name,
                "dictionary blocks",
                format!("graph {id}: {e}"),
            )
        })
    }

    /// The only dictionary block that may hold the encoded `enc` (the last whose first term is
    /// not above it), with its first id; `None` when `enc` comes before every term.
    pub(crate) fn dict_block_for(&self, enc: &[u8]) -> Result<Option<(usize, Id)>> {
        let (idx, dir) = self.dict_dir()?;
        Ok(match dir {
            DictDir::Whole(d) => d.block_for_term(enc).map(|b| (b, d.blocks[b].first_id)),
            DictDir::Paged(d) => {
                d.block_for_term(enc, &self.dir_reader(idx.dict_index), &self.inner.name)?
            }
        })
    }

    /// The id of an encoded term, if it is in the dictionary.
    pub fn id_of_encoded(&self, enc: &[u8]) -> Result<Option<Id>> {
        let Some((b, first)) = self.dict_block_for(enc)? else {
            return Ok(None);
        };
        Ok(self.dict_block(b)?.find(enc).map(|i| first + i as u64))
    }

    /// The smallest id whose term is not below the encoded `enc` in dictionary order
    /// (`term_count() + 1` if every term is): one directory lookup and one block, as
    /// [`Rete::id_of_encoded`] reads.
    pub(crate) fn first_id_from(&self, enc: &[u8]) -> Result<Id> {
        let Some((b, first)) = self.dict_block_for(enc)? else {
            return Ok(1);
        };
        Ok(first + self.dict_block(b)?.lower_bound(enc) as u64)
    }

    /// The id of `term`, if it is in the dictionary.
    pub fn id_of(&self, t: TermRef<'_>) -> Result<Option<Id>> {
        match term::encode(t) {
            Ok(enc) => self.id_of_encoded(&enc),
            Err(_) => Ok(None),
        }
    }

    /// The id of a graph name (`Some(0)` for the default graph).
    pub fn id_of_graph(&self, g: GraphNameRef<'_>) -> Result<Option<Id>> {
        match g {
            GraphNameRef::DefaultGraph => Ok(Some(DEFAULT_GRAPH)),
            GraphNameRef::NamedNode(n) => self.id_of(n.into()),
            GraphNameRef::BlankNode(b) => self.id_of(b.into()),
        }
    }
}
