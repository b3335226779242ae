//! Entry points of the fuzz targets (feature `fuzzing`): each decoder of the pyramid sections
//! called on bytes below the checksum layer, on a pyramid opened from a real file.

use super::Pyramid;
use crate::codec::kind;
use crate::PyramidError;

impl Pyramid {
    /// Decodes `data` as the payload chosen by `data[0]` (top, directory, level block, member
    /// block, membership block); later bytes pick the parameters.
    #[doc(hidden)]
    pub fn fuzz_decode(&self, data: &[u8]) -> Result<(), PyramidError> {
        let [which, a, b, c, bytes @ ..] = data else {
            return Ok(());
        };
        match which % 5 {
            0 => {
                let p = Pyramid::parse_top(&self.inner.rete, bytes, rete_core::Charge::none())?;
                p.level(p.top())?;
            }
            1 => {
                self.parse_dir(bytes)?;
            }
            2 if self.top() > 0 => {
                self.parse_level_block(bytes, usize::from(*a) % self.top(), u32::from(*b))?;
            }
            3 => {
                self.parse_members(bytes, u32::from(*a), u32::from(*b))?;
            }
            4 => {
                self.parse_membership(bytes, u64::from(*a), &[u64::from(*c)])?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Seed inputs for [`Pyramid::fuzz_decode`]: every decoded payload of this pyramid.
    #[doc(hidden)]
    pub fn fuzz_seeds(&self) -> Result<Vec<Vec<u8>>, PyramidError> {
        let rete = &self.inner.rete;
        let seed = |which: u8, a: u8, b: u8, c: u8, bytes: &[u8]| {
            let mut v = vec![which, a, b, c];
            v.extend_from_slice(bytes);
            v
        };
        let mut out = Vec::new();
        for (w, k) in [(0, kind::TOP), (1, kind::DIRECTORY)] {
            if let Some(p) = rete.section_payload(k, 0)? {
                out.push(seed(w, 0, 0, 0, &p));
            }
        }
        let dir = self.dir()?;
        for (level, (blocks, _)) in dir.levels.iter().enumerate() {
            for (first, r) in blocks.iter().take(2) {
                let d = self.fetch(kind::LEVELS, &[*r])?;
                out.push(seed(2, level as u8, *first as u8, 0, &d[0]));
            }
        }
        for (first, r) in dir.members.iter().take(2) {
            let d = self.fetch(kind::MEMBERS, &[*r])?;
            out.push(seed(3, *first as u8, *first as u8, 0, &d[0]));
        }
        for (first, r) in dir.membership.iter().take(2) {
            let d = self.fetch(kind::MEMBERSHIP, &[*r])?;
            out.push(seed(4, *first as u8, 0, *first as u8, &d[0]));
        }
        Ok(out)
    }
}
