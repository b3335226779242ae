//! Many short strings (an entity's term, its label) in one buffer: a `String` each would cost a
//! 24-byte header and an allocation per entity, more than the text itself at scale.

/// Optional strings by index, stored end to end.
#[derive(Debug, Default)]
pub(crate) struct Strs {
    text: String,
    /// End of string `i` in `text`.
    ends: Vec<u64>,
    present: Vec<bool>,
}

impl Strs {
    pub(crate) fn with_capacity(n: usize) -> Self {
        Self {
            text: String::new(),
            ends: Vec::with_capacity(n),
            present: Vec::with_capacity(n),
        }
    }

    pub(crate) fn push(&mut self, s: Option<&str>) {
        self.text.push_str(s.unwrap_or_default());
        self.ends.push(self.text.len() as u64);
        self.present.push(s.is_some());
    }

    /// String `i`, `None` when absent (or out of range).
    pub(crate) fn get(&self, i: usize) -> Option<&str> {
        if !*self.present.get(i)? {
            return None;
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.text.get(start..self.ends[i] as usize)
    }

    /// String `i`, empty when absent.
    pub(crate) fn str(&self, i: usize) -> &str {
        self.get(i).unwrap_or_default()
    }

    /// Every string in order, absent ones empty.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.ends.len()).map(|i| self.str(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut s = Strs::with_capacity(4);
        for x in [Some("<a>"), None, Some(""), Some("Zürich")] {
            s.push(x);
        }
        assert_eq!(s.get(0), Some("<a>"));
        assert_eq!(s.get(1), None);
        assert_eq!(s.get(2), Some(""));
        assert_eq!(s.get(3), Some("Zürich"));
        assert_eq!(s.get(4), None);
        assert_eq!(s.iter().collect::<Vec<_>>(), ["<a>", "", "", "Zürich"]);
    }
}
