//! The writer's extension points. Crates that add sections to a file (community pyramid, schema
//! block) or quads to it (inference) implement these traits against `rete-core` alone, so reading
//! one of their sections never links the parsers of `rete-build`, which drives them.

use crate::writer::SectionSpec;
use crate::Rete;
use oxrdf::Quad;

/// Any error an extension reports; the builder wraps it with the extension's name.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Adds sections computed from the finished base dataset (community pyramid, schema block…).
pub trait Extension: Send + Sync {
    /// Name for messages and the card.
    fn name(&self) -> &str;
    /// Header flag bits this extension sets.
    fn flags(&self) -> u32;
    /// The sections to add, with the wall time of the extension's own steps in milliseconds
    /// for build reports (none: `Ok(sections.into())`). `base` is the dataset as it will be
    /// stored.
    fn sections_with_steps(&self, base: &Rete) -> Result<ExtensionOutput, BoxError>;
    /// The sections to add, without the steps.
    fn sections(&self, base: &Rete) -> Result<Vec<SectionSpec>, BoxError> {
        Ok(self.sections_with_steps(base)?.sections)
    }
}

/// What [`Extension::sections_with_steps`] returns.
#[derive(Debug, Default)]
pub struct ExtensionOutput {
    /// The sections to add.
    pub sections: Vec<SectionSpec>,
    /// `(step, milliseconds)` in the order they ran.
    pub steps: Vec<(String, f64)>,
}

impl From<Vec<SectionSpec>> for ExtensionOutput {
    fn from(sections: Vec<SectionSpec>) -> Self {
        Self {
            sections,
            steps: Vec::new(),
        }
    }
}

/// Derives quads from a base dataset (RDFS/OWL-RL materialization).
pub trait Inference: Send + Sync {
    /// Name for messages.
    fn name(&self) -> &str;
    /// Quads entailed by `base` (may include quads already present; duplicates are dropped).
    fn infer(&self, base: &Rete) -> Result<Vec<Quad>, BoxError>;
}
