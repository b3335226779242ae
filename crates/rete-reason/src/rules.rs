//! What materialization may derive: the rule sets a user turns on and the rules (groups) that
//! name each derived statement. Apart from the fixpoint so that the schema closure and the
//! materializer both read it without depending on each other.

use crate::{ReasonError, Result};
use serde::Serialize;

/// Which rule sets run. The OWL sets build on the RDFS rules: enabling any of them enables
/// [`MaterializeOptions::rdfs`] too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MaterializeOptions {
    /// rdfs2 (domain), rdfs3 (range), rdfs5 (subPropertyOf transitivity), rdfs7 (subPropertyOf
    /// propagation), rdfs9 (type propagation), rdfs11 (subClassOf transitivity).
    pub rdfs: bool,
    /// `owl:inverseOf` (prp-inv1/2), `owl:SymmetricProperty` (prp-symp),
    /// `owl:TransitiveProperty` (prp-trp).
    pub owl_properties: bool,
    /// `owl:equivalentClass` / `owl:equivalentProperty` as mutual subClassOf / subPropertyOf
    /// (scm-eqc1/2, scm-eqp1/2, cax-eqc1/2, prp-eqp1/2).
    pub owl_equivalence: bool,
    /// Schema-level domain and range propagation (scm-dom1/2, scm-rng1/2).
    pub owl_schema: bool,
    /// `owl:sameAs`: symmetric/transitive closure (eq-sym, eq-trans) and copying of statements
    /// across cliques (eq-rep-s/p/o), both bounded by clique size.
    pub same_as: bool,
    /// Cliques of at most this many members get their full sameAs closure (n·(n−1) statements).
    pub same_as_closure_limit: usize,
    /// Cliques of at most this many members get every statement about a member copied to the
    /// other members. Clamped to `same_as_closure_limit`.
    pub same_as_copy_limit: usize,
    /// Apply rules to large deltas on the rayon pool.
    pub parallel: bool,
}

impl Default for MaterializeOptions {
    fn default() -> Self {
        Self::owl_rl()
    }
}

/// Names of the rule sets for [`MaterializeOptions::with_rule_sets`].
pub const RULE_SETS: [&str; 5] = [
    "rdfs",
    "owl-properties",
    "owl-equivalence",
    "owl-schema",
    "same-as",
];

impl MaterializeOptions {
    /// RDFS rules only.
    pub fn rdfs() -> Self {
        Self {
            rdfs: true,
            owl_properties: false,
            owl_equivalence: false,
            owl_schema: false,
            same_as: false,
            ..Self::owl_rl()
        }
    }

    /// Every supported rule (the default).
    pub fn owl_rl() -> Self {
        Self {
            rdfs: true,
            owl_properties: true,
            owl_equivalence: true,
            owl_schema: true,
            same_as: true,
            same_as_closure_limit: 1000,
            same_as_copy_limit: 32,
            parallel: true,
        }
    }

    /// Options with exactly the named rule sets (see [`RULE_SETS`]; `owl` means every OWL set,
    /// `all` everything), other settings default.
    pub fn with_rule_sets<S: AsRef<str>>(names: &[S]) -> Result<Self> {
        let mut o = Self {
            rdfs: false,
            owl_properties: false,
            owl_equivalence: false,
            owl_schema: false,
            same_as: false,
            ..Self::owl_rl()
        };
        for n in names {
            match n.as_ref() {
                "rdfs" => o.rdfs = true,
                "owl-properties" => o.owl_properties = true,
                "owl-equivalence" => o.owl_equivalence = true,
                "owl-schema" => o.owl_schema = true,
                "same-as" => o.same_as = true,
                "owl" => {
                    o.owl_properties = true;
                    o.owl_equivalence = true;
                    o.owl_schema = true;
                    o.same_as = true;
                }
                "all" => o = Self::owl_rl(),
                other => {
                    return Err(ReasonError::Invalid(format!(
                        "unknown rule set {other:?} (expected one of: {}, owl, all)",
                        RULE_SETS.join(", ")
                    )))
                }
            }
        }
        Ok(o.normalized())
    }

    pub(crate) fn normalized(mut self) -> Self {
        if self.owl_properties || self.owl_equivalence || self.owl_schema || self.same_as {
            self.rdfs = true;
        }
        self.same_as_copy_limit = self.same_as_copy_limit.min(self.same_as_closure_limit);
        self
    }
}

/// The rule (group) that derived a statement, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// `A subClassOf C` from a chain of subClassOf / equivalentClass.
    SubClassOf,
    /// `P subPropertyOf R` from a chain of subPropertyOf / equivalentProperty.
    SubPropertyOf,
    /// `A equivalentClass B` from mutual subsumption.
    EquivalentClass,
    /// `P equivalentProperty Q` from mutual subsumption.
    EquivalentProperty,
    /// `P domain D` from a super-domain or a superproperty's domain.
    DomainPropagation,
    /// `P range D` likewise.
    RangePropagation,
    /// `x type D` from `x type C`, `C subClassOf D`.
    Type,
    /// `x Q y` from `x P y`, `P subPropertyOf Q`.
    SubProperty,
    /// `x type C` from `x P y`, `P domain C`.
    Domain,
    /// `y type C` from `x P y`, `P range C`.
    Range,
    /// `y Q x` from `x P y`, `P inverseOf Q` (either direction).
    Inverse,
    /// `y P x` from `x P y`, `P a SymmetricProperty`.
    Symmetric,
    /// `x P z` from `x P y`, `y P z`, `P a TransitiveProperty`.
    Transitive,
    /// `a sameAs b` within a clique.
    SameAsClosure,
    /// A statement copied to another member of a sameAs clique.
    SameAsReplacement,
}

impl Rule {
    /// The RDFS / OWL 2 RL rule names this group implements.
    pub fn spec(self) -> &'static str {
        match self {
            Rule::SubClassOf => "rdfs11 scm-sco scm-eqc1",
            Rule::SubPropertyOf => "rdfs5 scm-spo scm-eqp1",
            Rule::EquivalentClass => "scm-eqc2",
            Rule::EquivalentProperty => "scm-eqp2",
            Rule::DomainPropagation => "scm-dom1 scm-dom2",
            Rule::RangePropagation => "scm-rng1 scm-rng2",
            Rule::Type => "rdfs9 cax-sco cax-eqc1 cax-eqc2",
            Rule::SubProperty => "rdfs7 prp-spo1 prp-eqp1 prp-eqp2",
            Rule::Domain => "rdfs2 prp-dom",
            Rule::Range => "rdfs3 prp-rng",
            Rule::Inverse => "prp-inv1 prp-inv2",
            Rule::Symmetric => "prp-symp",
            Rule::Transitive => "prp-trp",
            Rule::SameAsClosure => "eq-sym eq-trans",
            Rule::SameAsReplacement => "eq-rep-s eq-rep-p eq-rep-o",
        }
    }

    pub(crate) fn schema_level(self) -> bool {
        matches!(
            self,
            Rule::SubClassOf
                | Rule::SubPropertyOf
                | Rule::EquivalentClass
                | Rule::EquivalentProperty
                | Rule::DomainPropagation
                | Rule::RangePropagation
                | Rule::SameAsClosure
        )
    }
}
