//! What `rete summary` shows of a pyramid: one level (or one community's sub-communities) with
//! its strongest links, or a level-0 community's members, as text ([`std::fmt::Display`]) or JSON.

use crate::{Level, LevelInfo, Member, Pyramid, PyramidError};
use std::fmt;

/// Communities listed in the text form; the rest are counted.
const SHOWN_COMMUNITIES: usize = 40;
/// Super-edges listed in the text form.
const SHOWN_EDGES: usize = 15;

/// One view of a pyramid, as [`Pyramid::summary`] picks it.
#[derive(Debug, Clone)]
pub enum Summary {
    /// The members of a level-0 community.
    Members {
        /// The community.
        community: u32,
        /// Its entities.
        members: Vec<Member>,
    },
    /// A level, or the sub-communities of one community (`parent`) of the level above.
    Level {
        /// Entities in the pyramid.
        entities: u64,
        /// Facts of every level.
        levels: Vec<LevelInfo>,
        /// The communities shown.
        level: Level,
        /// The community whose sub-communities these are.
        parent: Option<u32>,
    },
}

impl Pyramid {
    /// The view `rete summary` prints: the top level by default; `level`; with `community`, the
    /// sub-communities of that community of `level` (its members on level 0).
    pub fn summary(
        &self,
        level: Option<usize>,
        community: Option<u32>,
    ) -> Result<Summary, PyramidError> {
        if let (Some(0), Some(c)) = (level, community) {
            return Ok(Summary::Members {
                community: c,
                members: self.members(c)?,
            });
        }
        let top = self.levels().saturating_sub(1);
        let shown = match (level, community) {
            (Some(l), Some(c)) => self.children(l, c)?,
            (l, _) => self.level(l.unwrap_or(top))?,
        };
        Ok(Summary::Level {
            entities: self.entity_count(),
            levels: self.level_info().to_vec(),
            level: shown,
            parent: community,
        })
    }
}

/// The JSON form: the members array, or `{"entities", "level", "levels"}`.
impl serde::Serialize for Summary {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match self {
            Summary::Members { members, .. } => members.serialize(s),
            Summary::Level {
                entities,
                levels,
                level,
                ..
            } => {
                let mut st = s.serialize_struct("Summary", 3)?;
                st.serialize_field("entities", entities)?;
                st.serialize_field("level", level)?;
                st.serialize_field("levels", levels)?;
                st.end()
            }
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (entities, levels, level, parent) = match self {
            Summary::Members { community, members } => {
                writeln!(
                    out,
                    "{} members of level-0 community {community}",
                    members.len()
                )?;
                for m in members {
                    writeln!(
                        out,
                        "  {:<40} {:<30} {}",
                        m.term,
                        m.label.as_deref().unwrap_or(""),
                        m.class.as_deref().unwrap_or("")
                    )?;
                }
                return Ok(());
            }
            Summary::Level {
                entities,
                levels,
                level,
                parent,
            } => (entities, levels, level, parent),
        };
        writeln!(out, "{entities} entities in {} levels", levels.len())?;
        for l in levels {
            writeln!(
                out,
                "  level {}: {:>7} communities, {:>8} super-edges, modularity {:.4} ({})",
                l.level, l.communities, l.super_edges, l.modularity, l.method
            )?;
        }
        let what = match parent {
            Some(c) => format!(
                "sub-communities of community {c} (level {})",
                level.level + 1
            ),
            None => format!("level {}", level.level),
        };
        writeln!(out, "\n{what}: {} communities", level.communities.len())?;
        let mut comms: Vec<_> = level.communities.iter().collect();
        comms.sort_by(|x, y| y.size.cmp(&x.size).then(x.id.cmp(&y.id)));
        for c in comms.iter().take(SHOWN_COMMUNITIES) {
            writeln!(
                out,
                "  #{:<6} {:>8} members  {:<32} {}",
                c.id,
                c.size,
                c.label,
                c.dominant_class.as_deref().unwrap_or("")
            )?;
        }
        if comms.len() > SHOWN_COMMUNITIES {
            writeln!(out, "  … {} more", comms.len() - SHOWN_COMMUNITIES)?;
        }
        let mut edges: Vec<_> = level.edges.iter().collect();
        edges.sort_by(|x, y| {
            y.weight
                .cmp(&x.weight)
                .then((x.source, x.target).cmp(&(y.source, y.target)))
        });
        if !edges.is_empty() {
            writeln!(out, "\nstrongest links")?;
            for e in edges.iter().take(SHOWN_EDGES) {
                let preds: Vec<_> = e
                    .top_predicates
                    .iter()
                    .map(|(p, n)| format!("{p} ×{n}"))
                    .collect();
                writeln!(
                    out,
                    "  #{} — #{}  weight {}  {}",
                    e.source,
                    e.target,
                    e.weight,
                    preds.join(", ")
                )?;
            }
        }
        Ok(())
    }
}
