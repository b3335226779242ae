//! Reading a pyramid lazily: the top section at open, the block directory at the first request
//! below the top, then only the blocks a request needs (one range read each time).

use crate::builder::{LAYOUT_SUNFLOWER, MEMBER_COLUMNS, MEMBER_POSITIONS};
use crate::codec::{kind, DIR_MAGIC, DIR_VERSION, TOP_MAGIC, VERSION, VERSION_MIN};
use crate::layout::{self, Circle};
use crate::records::{CommRec, EdgeRec};
use crate::{Level, LevelInfo, Member, PyramidError};
use lru::LruCache;
use rayon::prelude::*;
use rete_core::block::BlockRef;
use rete_core::format::prealloc;
use rete_core::format::FLAG_PYRAMID;
use rete_core::front_coding::Expander;
use rete_core::section::SectionReader;
use rete_core::{Charge, Id, Rete};
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, OnceLock};

mod blocks;
mod decode;
#[cfg(feature = "fuzzing")]
mod fuzzing;

/// Decoded blocks kept per open pyramid.
const CACHE_BLOCKS: usize = 64;
/// Decoded bytes kept per open pyramid: past them the least recently used blocks are dropped
/// (the block just read stays). Blocks are written at about 32 KiB, but a block's decoded size
/// is the file's to declare, so the entry count alone bounds nothing.
const CACHE_BYTES: usize = 64 << 20;
/// Smallest encoding of a community record (size, label, class count, three `f32`).
const MIN_COMMUNITY: usize = 15;
/// Smallest encoding of a super-edge record.
const MIN_EDGE: usize = 4;

/// The community pyramid of an open `.rete` file. Cheap to clone; safe to share between threads.
#[derive(Debug, Clone)]
pub struct Pyramid {
    inner: Arc<Inner>,
    /// The reader's languages, most preferred first: they pick each community's label.
    languages: Arc<[String]>,
}

#[derive(Debug)]
struct Inner {
    rete: Rete,
    /// Encoding version of the records (1: no label alternatives).
    version: u8,
    entities: u64,
    edges: u64,
    triples: u64,
    resolution: f64,
    max_top: u64,
    levels: Vec<LevelInfo>,
    classes: Vec<String>,
    predicates: Vec<String>,
    top: Vec<CommRec>,
    top_edges: Vec<EdgeRec>,
    dir: OnceLock<Dir>,
    dir_lock: Mutex<()>,
    cache: Mutex<BlockCache>,
    /// The charges of the top and the directory to the document's decode budget.
    kept: Mutex<Vec<Charge>>,
}

/// What `n` items of `T` take (their heap parts aside), to charge before they are made.
fn items_bytes<T>(n: usize) -> u64 {
    (n as u64).saturating_mul(size_of::<T>() as u64)
}

/// Decoded blocks by (section kind, offset).
type BlockCache = LruCache<(u16, u64), Arc<Vec<u8>>>;
/// Community paths (finest level first), one per entity asked, `None` for one not in the pyramid.
type Paths = Vec<Option<Vec<u32>>>;

#[derive(Debug)]
struct Dir {
    /// Levels below the top: blocks keyed by their first parent, then the cross-parent edges.
    levels: Vec<(Vec<(u32, BlockRef)>, BlockRef)>,
    /// Member blocks keyed by their first level-0 community.
    members: Vec<(u32, BlockRef)>,
    /// Membership blocks keyed by their first entity id.
    membership: Vec<(u64, BlockRef)>,
}

/// A group of sibling communities as stored in a level block.
struct Group {
    parent: u32,
    first: u32,
    communities: Vec<CommRec>,
    edges: Vec<EdgeRec>,
}

/// Block directory bytes that a remote open reads with the top section.
const PREFETCH_DIRECTORY: u64 = 64 << 10;

/// On a remote file, reads the block directory with the top section when it follows it and is
/// small (how the builder writes them): the first request below the top then finds it in the
/// reader's range cache instead of costing a request of its own.
fn prefetch_directory(rete: &Rete) -> Result<(), PyramidError> {
    if !rete.reader().is_remote() {
        return Ok(());
    }
    let (Some(top), Some(dir)) = (rete.section(kind::TOP, 0), rete.section(kind::DIRECTORY, 0))
    else {
        return Ok(());
    };
    if dir.offset == top.offset + top.len && dir.len <= PREFETCH_DIRECTORY {
        let len = usize::try_from(top.len + dir.len)
            .map_err(|_| PyramidError::corrupt(rete.name(), "pyramid top", "too large"))?;
        rete.reader()
            .read_at(top.offset, len)
            .map_err(rete_core::Error::from)?;
    }
    Ok(())
}

impl Pyramid {
    /// Opens the pyramid of `rete` with one read (the top section); `None` if the file was built
    /// without one.
    pub fn open(rete: &Rete) -> Result<Option<Pyramid>, PyramidError> {
        let name = rete.name().to_owned();
        prefetch_directory(rete)?;
        let Some((bytes, charge)) = rete.kept_section(kind::TOP, 0)? else {
            if rete.has_flag(FLAG_PYRAMID) {
                return Err(PyramidError::corrupt(
                    &name,
                    "pyramid top",
                    "the header announces a pyramid but its section is missing",
                ));
            }
            return Ok(None);
        };
        Self::parse_top(rete, &bytes, charge).map(Some)
    }

    /// Decodes the top section; `charge` (its decoded bytes, charged to the document's decode
    /// budget) grows by the records it makes before they are made, and lives with the pyramid.
    fn parse_top(rete: &Rete, bytes: &[u8], mut charge: Charge) -> Result<Pyramid, PyramidError> {
        const SECTION: &str = "pyramid top";
        let name = rete.name().to_owned();
        let mut r = SectionReader::new(bytes, &name, "pyramid top");
        if r.bytes(4)? != TOP_MAGIC {
            return Err(r.err("bad magic"));
        }
        let version = r.u8()?;
        if !(VERSION_MIN..=VERSION).contains(&version) {
            return Err(r.err(format!(
                "pyramid encoding version {version} (this reader reads {VERSION_MIN} to {VERSION})"
            )));
        }
        let alt = version >= 2;
        let entities = r.varint()?;
        let edges = r.varint()?;
        let triples = r.varint()?;
        let resolution = r.f64()?;
        let max_top = r.varint()?;
        let nlevels = r.count(19)?;
        if nlevels == 0 {
            return Err(r.err("no levels"));
        }
        charge.grow(SECTION, items_bytes::<LevelInfo>(nlevels))?;
        let mut levels = Vec::with_capacity(prealloc(nlevels));
        for l in 0..nlevels {
            let communities = r.varint()?;
            let super_edges = r.varint()?;
            let modularity = r.f64()?;
            let res = r.f64()?;
            let method = r.str()?.to_owned();
            if communities > entities
                || levels
                    .last()
                    .is_some_and(|p: &LevelInfo| p.communities < communities)
                || (entities > 0 && communities == 0)
            {
                return Err(r.err(format!(
                    "implausible community count {communities} at level {l}"
                )));
            }
            levels.push(LevelInfo {
                level: l as u32,
                communities,
                super_edges,
                modularity,
                resolution: res,
                method,
            });
        }
        let mut names = |r: &mut SectionReader<'_>| -> Result<Vec<String>, PyramidError> {
            let n = r.count(1)?;
            charge.grow(SECTION, items_bytes::<String>(n))?;
            (0..n).map(|_| Ok(r.str()?.to_owned())).collect()
        };
        let classes = names(&mut r)?;
        let predicates = names(&mut r)?;
        let k_top = levels[nlevels - 1].communities;
        if k_top > (bytes.len() / MIN_COMMUNITY) as u64 {
            return Err(r.err("top level larger than its section"));
        }
        charge.grow(SECTION, items_bytes::<CommRec>(k_top as usize))?;
        let top = (0..k_top)
            .map(|_| CommRec::read(&mut r, classes.len(), alt))
            .collect::<Result<Vec<_>, _>>()?;
        if top.iter().map(|c| c.size).try_fold(0u64, u64::checked_add) != Some(entities) {
            return Err(r.err("top-level sizes do not add up to the entity count"));
        }
        let ne = r.count(MIN_EDGE)?;
        charge.grow(SECTION, items_bytes::<EdgeRec>(ne))?;
        let top_edges = (0..ne)
            .map(|_| EdgeRec::read(&mut r, 0, k_top, predicates.len()))
            .collect::<Result<Vec<_>, _>>()?;
        r.expect_end()?;
        Ok(Pyramid {
            languages: Arc::from([]),
            inner: Arc::new(Inner {
                rete: rete.clone(),
                version,
                entities,
                edges,
                triples,
                resolution,
                max_top,
                levels,
                classes,
                predicates,
                top,
                top_edges,
                dir: OnceLock::new(),
                dir_lock: Mutex::new(()),
                cache: Mutex::new(LruCache::new(
                    NonZeroUsize::new(CACHE_BLOCKS).unwrap_or(NonZeroUsize::MIN),
                )),
                kept: Mutex::new(vec![charge]),
            }),
        })
    }

    /// The same pyramid showing community labels in `languages` (BCP 47 tags such as `fr` or
    /// `de-CH`, most preferred first; see [`crate::Community::label_for`]). Shares the open file
    /// and its block cache.
    pub fn with_languages(&self, languages: &[&str]) -> Pyramid {
        Pyramid {
            inner: self.inner.clone(),
            languages: languages
                .iter()
                .map(|l| l.trim().to_owned())
                .filter(|l| !l.is_empty())
                .collect(),
        }
    }

    /// The reader's languages, most preferred first (empty: the builder's labels).
    pub fn languages(&self) -> &[String] {
        &self.languages
    }

    fn prefs(&self) -> Vec<&str> {
        self.languages.iter().map(String::as_str).collect()
    }

    /// What the block cache holds now (shared by the clones and [`Pyramid::with_languages`]).
    pub fn cache_use(&self) -> crate::CacheUse {
        let cache = self.inner.cache.lock().unwrap_or_else(|p| p.into_inner());
        crate::CacheUse {
            blocks: cache.len(),
            bytes: cache.iter().map(|(_, b)| b.len()).sum(),
            max_blocks: cache.cap().get(),
            max_bytes: CACHE_BYTES,
        }
    }

    /// Number of levels; 0 is the finest (entity communities), `levels() - 1` the top.
    pub fn levels(&self) -> usize {
        self.inner.levels.len()
    }

    /// Facts about every level (community counts, modularity, how it was formed).
    pub fn level_info(&self) -> &[LevelInfo] {
        &self.inner.levels
    }

    /// Entities in the pyramid (nodes of the entity graph).
    pub fn entity_count(&self) -> u64 {
        self.inner.entities
    }

    /// Distinct linked entity pairs and object triples between entities.
    pub fn edge_counts(&self) -> (u64, u64) {
        (self.inner.edges, self.inner.triples)
    }

    /// Resolution of level 0 and the bound on top-level communities it was built with.
    pub fn build_parameters(&self) -> (f64, u64) {
        (self.inner.resolution, self.inner.max_top)
    }

    fn name(&self) -> &str {
        self.inner.rete.name()
    }

    fn top(&self) -> usize {
        self.inner.levels.len() - 1
    }

    fn count(&self, level: usize) -> u64 {
        self.inner.levels[level].communities
    }

    fn check_level(&self, level: usize) -> Result<(), PyramidError> {
        if level >= self.levels() {
            return Err(PyramidError::NotFound(format!(
                "level {level} does not exist (the pyramid has {} levels)",
                self.levels()
            )));
        }
        Ok(())
    }

    fn check_community(&self, level: usize, community: u32) -> Result<(), PyramidError> {
        self.check_level(level)?;
        if u64::from(community) >= self.count(level) {
            return Err(PyramidError::NotFound(format!(
                "community {community} does not exist on level {level} ({} communities)",
                self.count(level)
            )));
        }
        Ok(())
    }

    /// All communities and super-edges of one level.
    pub fn level(&self, level: usize) -> Result<Level, PyramidError> {
        self.check_level(level)?;
        let inner = &self.inner;
        let prefs = self.prefs();
        let modularity = inner.levels[level].modularity;
        if level == self.top() {
            return Ok(Level {
                level: level as u32,
                communities: inner
                    .top
                    .iter()
                    .enumerate()
                    .map(|(i, c)| c.public(i as u32, level as u32, None, &inner.classes, &prefs))
                    .collect(),
                edges: inner
                    .top_edges
                    .iter()
                    .map(|e| e.public(&inner.predicates))
                    .collect(),
                modularity,
            });
        }
        let dir = self.dir()?;
        let (blocks, cross) = &dir.levels[level];
        let mut refs: Vec<BlockRef> = blocks.iter().map(|b| b.1).collect();
        refs.push(*cross);
        let data = self.fetch(kind::LEVELS, &refs)?;
        let mut communities = Vec::new();
        let mut edges = Vec::new();
        let mut next_parent = 0u64;
        for (i, bytes) in data[..blocks.len()].iter().enumerate() {
            for g in self.parse_level_block(bytes, level, blocks[i].0)? {
                if u64::from(g.first) != communities.len() as u64
                    || u64::from(g.parent) < next_parent
                {
                    return Err(self.corrupt_levels("community groups out of order"));
                }
                next_parent = u64::from(g.parent) + 1;
                for (k, c) in g.communities.iter().enumerate() {
                    communities.push(c.public(
                        g.first + k as u32,
                        level as u32,
                        Some(g.parent),
                        &inner.classes,
                        &prefs,
                    ));
                }
                edges.extend(g.edges.iter().map(|e| e.public(&inner.predicates)));
            }
        }
        if communities.len() as u64 != self.count(level) {
            return Err(self.corrupt_levels(format!(
                "level {level} holds {} communities, the top section says {}",
                communities.len(),
                self.count(level)
            )));
        }
        let mut r = SectionReader::new(&data[blocks.len()], self.name(), "pyramid levels");
        let n = r.count(MIN_EDGE)?;
        for _ in 0..n {
            let e = EdgeRec::read(&mut r, 0, self.count(level), inner.predicates.len())?;
            edges.push(e.public(&inner.predicates));
        }
        r.expect_end()?;
        edges.sort_by_key(|e| (e.source, e.target));
        Ok(Level {
            level: level as u32,
            communities,
            edges,
            modularity,
        })
    }

    /// The sub-communities (on `level - 1`) of one community of `level`, with the super-edges
    /// among them.
    pub fn children(&self, level: usize, community: u32) -> Result<Level, PyramidError> {
        self.check_community(level, community)?;
        if level == 0 {
            return Err(PyramidError::NotFound(
                "level-0 communities have members, not children".into(),
            ));
        }
        let dir = self.dir()?;
        let blocks = &dir.levels[level - 1].0;
        let i = blocks.partition_point(|b| b.0 <= community);
        let Some(&(first, block)) = i.checked_sub(1).and_then(|i| blocks.get(i)) else {
            return Err(self.corrupt_levels(format!("no block holds community {community}")));
        };
        let data = self.fetch(kind::LEVELS, &[block])?;
        let group = self
            .parse_level_block(&data[0], level - 1, first)?
            .into_iter()
            .find(|g| g.parent == community)
            .ok_or_else(|| self.corrupt_levels(format!("community {community} has no children")))?;
        let inner = &self.inner;
        let prefs = self.prefs();
        Ok(Level {
            level: (level - 1) as u32,
            communities: group
                .communities
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    c.public(
                        group.first + k as u32,
                        (level - 1) as u32,
                        Some(community),
                        &inner.classes,
                        &prefs,
                    )
                })
                .collect(),
            edges: group
                .edges
                .iter()
                .map(|e| e.public(&inner.predicates))
                .collect(),
            modularity: inner.levels[level - 1].modularity,
        })
    }

    /// The entities of a level-0 community with their positions inside its circle.
    pub fn members(&self, community: u32) -> Result<Vec<Member>, PyramidError> {
        self.check_community(0, community)?;
        let dir = self.dir()?;
        let blocks = &dir.members;
        let i = blocks.partition_point(|b| b.0 <= community);
        let Some(&(first, block)) = i.checked_sub(1).and_then(|i| blocks.get(i)) else {
            return Err(self.corrupt_members(format!("no block holds community {community}")));
        };
        let data = self.fetch(kind::MEMBERS, &[block])?;
        self.parse_members(&data[0], first, community)
    }

    /// The community of `entity` at every level, finest first; `None` if `entity` is not in the
    /// entity graph (a literal, a class only used with `rdf:type`, a predicate…).
    pub fn community_path(&self, entity: Id) -> Result<Option<Vec<u32>>, PyramidError> {
        Ok(self.community_paths(&[entity])?.pop().flatten())
    }

    /// The community paths of many entities, in their order (as [`Pyramid::community_path`]).
    /// The membership blocks they need that are not cached are read together: one batch, which
    /// a remote reader fetches in one request when the blocks lie close (search hits' paths).
    pub fn community_paths(&self, entities: &[Id]) -> Result<Vec<Option<Vec<u32>>>, PyramidError> {
        let mut out = vec![None; entities.len()];
        if entities.is_empty() {
            return Ok(out);
        }
        let blocks = &self.dir()?.membership;
        // (block, entity, its place in `entities`), by block then entity.
        let mut wanted: Vec<(usize, Id, usize)> = entities
            .iter()
            .enumerate()
            .filter_map(|(at, &e)| {
                let b = blocks.partition_point(|b| b.0 <= e).checked_sub(1)?;
                Some((b, e, at))
            })
            .collect();
        wanted.sort_unstable();
        let mut used: Vec<usize> = wanted.iter().map(|w| w.0).collect();
        used.dedup();
        let refs: Vec<BlockRef> = used.iter().map(|&b| blocks[b].1).collect();
        let data = self.fetch(kind::MEMBERSHIP, &refs)?;
        let groups: Vec<&[(usize, Id, usize)]> = wanted.chunk_by(|a, b| a.0 == b.0).collect();
        // Each block parsed on its own (on every core: a search's matches read thousands).
        let parsed: Vec<(Vec<Id>, Paths)> = data
            .par_iter()
            .zip(groups.par_iter())
            .map(|(bytes, group)| {
                let mut ids: Vec<Id> = group.iter().map(|w| w.1).collect();
                ids.dedup();
                let paths = self.parse_membership(bytes, blocks[group[0].0].0, &ids)?;
                Ok((ids, paths))
            })
            .collect::<Result<_, PyramidError>>()?;
        for ((ids, paths), group) in parsed.iter().zip(&groups) {
            for w in *group {
                out[w.2] = paths[ids.partition_point(|&e| e < w.1)].clone();
            }
        }
        Ok(out)
    }

    /// The file ranges (offset, length) that [`Pyramid::community_paths`] of `entities` would
    /// read now (their membership blocks not cached), for a caller that fetches them in one
    /// batch with other reads (a search's hits: their terms and their paths, one request over
    /// HTTP); the paths are then read from the reader's cache.
    pub fn membership_ranges(&self, entities: &[Id]) -> Result<Vec<(u64, usize)>, PyramidError> {
        if entities.is_empty() {
            return Ok(Vec::new());
        }
        let blocks = &self.dir()?.membership;
        let mut used: Vec<usize> = entities
            .iter()
            .filter_map(|&e| blocks.partition_point(|b| b.0 <= e).checked_sub(1))
            .collect();
        used.sort_unstable();
        used.dedup();
        let refs: Vec<BlockRef> = used.iter().map(|&b| blocks[b].1).collect();
        let missing = self.uncached(kind::MEMBERSHIP, &refs);
        if missing.is_empty() {
            return Ok(Vec::new());
        }
        Ok(self.read_plan(kind::MEMBERSHIP, &refs, &missing)?.1)
    }

    fn corrupt_levels(&self, message: impl Into<String>) -> PyramidError {
        PyramidError::corrupt(self.name(), "pyramid levels", message)
    }

    fn corrupt_members(&self, message: impl Into<String>) -> PyramidError {
        PyramidError::corrupt(self.name(), "pyramid members", message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PyramidExtension, PyramidOptions};
    use rete_build::{build, BuildOptions, Input};
    use rete_datagen::social::{write_ntriples, SocialParams};
    use rete_datagen::Rng;

    fn built(dir: &std::path::Path) -> Rete {
        let nt = dir.join("s.nt");
        let mut f = std::fs::File::create(&nt).unwrap();
        let params = SocialParams {
            people: 800,
            ..SocialParams::default()
        };
        write_ntriples(&params, &mut f).unwrap();
        let out = dir.join("s.rete");
        let opts = BuildOptions {
            inputs: vec![Input::path(&nt)],
            extensions: vec![Arc::new(PyramidExtension {
                options: PyramidOptions {
                    max_top: 2,
                    branching: 2,
                    ..PyramidOptions::default()
                },
            })],
            ..BuildOptions::default()
        };
        build(&opts, &out).unwrap();
        Rete::open_path(&out).unwrap()
    }

    /// Calls every accessor; errors are fine, panics are not. Returns whether all succeeded.
    fn traverse(p: &Pyramid) -> bool {
        let mut ok = true;
        for l in 0..p.levels() {
            ok &= p.level(l).is_ok();
            for c in 0..p.count(l).min(50) as u32 {
                if l > 0 {
                    ok &= p.children(l, c).is_ok();
                } else {
                    ok &= p.members(c).is_ok();
                }
            }
        }
        for e in [1, 5, 50, 500, 5000] {
            ok &= p.community_path(e).is_ok();
        }
        ok
    }

    #[test]
    fn the_block_cache_keeps_within_its_bound_and_reports_its_fill() {
        let dir = tempfile::tempdir().unwrap();
        let rete = built(dir.path());
        let p = Pyramid::open(&rete).unwrap().unwrap();
        let fresh = p.cache_use();
        assert_eq!(
            (fresh.blocks, fresh.bytes, fresh.max_blocks),
            (0, 0, CACHE_BLOCKS)
        );
        // A bound of 2 blocks, so that walking this small pyramid goes past it.
        let bound = 2;
        p.inner
            .cache
            .lock()
            .unwrap()
            .resize(NonZeroUsize::new(bound).unwrap());
        let mut most = 0;
        let mut walk = |u: crate::CacheUse| {
            assert!(u.blocks <= bound, "{u:?}");
            most = most.max(u.blocks);
        };
        for l in 1..p.levels() {
            for c in 0..p.count(l) as u32 {
                p.children(l, c).unwrap();
                walk(p.cache_use());
            }
        }
        for c in 0..p.count(0) as u32 {
            p.members(c).unwrap();
            walk(p.cache_use());
        }
        for e in 1..=p.entity_count() {
            p.community_path(e).unwrap();
            walk(p.cache_use());
        }
        assert_eq!(most, bound);
        // Shared with the clone that shows labels in other languages.
        let full = p.with_languages(&["fr"]).cache_use();
        assert_eq!((full.blocks, full.max_blocks), (bound, bound));
        assert!(full.bytes > 0);
    }

    fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
        let mut m = bytes.to_vec();
        if m.is_empty() {
            return vec![rng.below(256) as u8];
        }
        match rng.below(5) {
            0 => {
                let i = rng.below(m.len() as u64) as usize;
                m[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(m.len() as u64) as usize;
                m[i] = rng.below(256) as u8;
            }
            2 => m.truncate(rng.below(m.len() as u64) as usize),
            3 => {
                let i = rng.below(m.len() as u64) as usize;
                m.splice(i..i, [0xff, 0xff, 0xff, 0xff, 0x7f]);
            }
            _ => {
                let i = rng.below(m.len() as u64) as usize;
                m.remove(i);
            }
        }
        m
    }

    #[test]
    fn damaged_payloads_give_errors_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        let rete = built(dir.path());
        let p = Pyramid::open(&rete).unwrap().unwrap();
        assert!(p.levels() >= 3, "{} levels", p.levels());
        assert!(traverse(&p));
        let top = rete.section_payload(kind::TOP, 0).unwrap().unwrap();
        let dir_bytes = rete.section_payload(kind::DIRECTORY, 0).unwrap().unwrap();
        let d = p.dir().unwrap();
        let mut rng = Rng::new(7);
        let mut errors = 0;
        let mut trials = 0;
        let mut check = |r: bool| {
            trials += 1;
            if !r {
                errors += 1;
            }
        };
        for _ in 0..300 {
            let m = mutate(&mut rng, &top);
            match Pyramid::parse_top(&rete, &m, Charge::none()) {
                Ok(q) => check(traverse(&q)),
                Err(_) => check(false),
            }
            let m = mutate(&mut rng, &dir_bytes);
            check(p.parse_dir(&m).is_ok());
        }
        for (l, (blocks, cross)) in d.levels.iter().enumerate() {
            for &(first, b) in blocks.iter().take(3) {
                let raw = p.fetch(kind::LEVELS, &[b]).unwrap();
                for _ in 0..200 {
                    let m = mutate(&mut rng, &raw[0]);
                    check(p.parse_level_block(&m, l, first).is_ok());
                }
            }
            assert!(p.fetch(kind::LEVELS, &[*cross]).is_ok());
        }
        for &(first, b) in d.members.iter().take(3) {
            let raw = p.fetch(kind::MEMBERS, &[b]).unwrap();
            assert!(p.parse_members(&raw[0], first, first).is_ok());
            for _ in 0..300 {
                let m = mutate(&mut rng, &raw[0]);
                check(p.parse_members(&m, first, first).is_ok());
            }
        }
        for &(first, b) in d.membership.iter().take(2) {
            let raw = p.fetch(kind::MEMBERSHIP, &[b]).unwrap();
            for _ in 0..300 {
                let m = mutate(&mut rng, &raw[0]);
                check(p.parse_membership(&m, first, &[first + 7]).is_ok());
            }
        }
        // Most mutations must be detected (some, like a changed label byte, are legitimately
        // undetectable without checksums, which the block layer adds on top).
        assert!(errors * 2 > trials, "{errors} errors in {trials} trials");
    }
}
