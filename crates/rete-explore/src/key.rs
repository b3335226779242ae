//! A node's key on the map: one type, written and parsed here only. On the wire it is a short
//! string (`e:12`, `k:7`, `c2:40`, `q:3`) so that the UI can use it as a graph key as it is.

use std::fmt;
use std::str::FromStr;

/// What a map node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKey {
    /// An entity of the file, by its term id.
    Entity(u64),
    /// The group of a class's instances, by the class's term id.
    Class(u64),
    /// A community of the pyramid.
    Community {
        /// Its level (0: the finest).
        level: u32,
        /// Its id on that level.
        id: u32,
    },
    /// A term of a query's result that is not in the file (a computed literal), by its place.
    ResultTerm(usize),
}

impl fmt::Display for NodeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Entity(id) => write!(f, "e:{id}"),
            Self::Class(id) => write!(f, "k:{id}"),
            Self::Community { level, id } => write!(f, "c{level}:{id}"),
            Self::ResultTerm(n) => write!(f, "q:{n}"),
        }
    }
}

/// A key the app did not write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("map node {0} is not a key of this app")]
pub struct BadKey(pub String);

impl FromStr for NodeKey {
    type Err = BadKey;

    fn from_str(s: &str) -> Result<Self, BadKey> {
        let bad = || BadKey(s.chars().take(64).collect());
        let (kind, id) = s.split_once(':').ok_or_else(bad)?;
        Ok(match kind {
            "e" => Self::Entity(id.parse().map_err(|_| bad())?),
            "k" => Self::Class(id.parse().map_err(|_| bad())?),
            "q" => Self::ResultTerm(id.parse().map_err(|_| bad())?),
            _ => Self::Community {
                level: kind
                    .strip_prefix('c')
                    .and_then(|l| l.parse().ok())
                    .ok_or_else(bad)?,
                id: id.parse().map_err(|_| bad())?,
            },
        })
    }
}

impl From<NodeKey> for String {
    fn from(k: NodeKey) -> Self {
        k.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::NodeKey;

    #[test]
    fn every_key_reads_back_as_written() {
        for k in [
            NodeKey::Entity(0),
            NodeKey::Entity(u64::MAX),
            NodeKey::Class(7),
            NodeKey::Community { level: 0, id: 0 },
            NodeKey::Community {
                level: 12,
                id: u32::MAX,
            },
            NodeKey::ResultTerm(3),
        ] {
            assert_eq!(k.to_string().parse::<NodeKey>(), Ok(k));
        }
        assert_eq!("c2:40".parse(), Ok(NodeKey::Community { level: 2, id: 40 }));
    }

    #[test]
    fn anything_else_is_refused() {
        for s in [
            "", "e", "e:", "e:x", "e:-1", "k:1:2", "c:1", "cx:1", "c1:", "z:1", "q:-2", "e:1 ",
        ] {
            assert!(s.parse::<NodeKey>().is_err(), "{s:?}");
        }
    }
}
