//! Which layers a solver chain is built from: the `--solver-chain` option.
//!
//! A chain is written as the layers' names separated by commas, in the
//! order queries pass through them, ending with exactly one Z3 layer:
//! `reduce,slice,canon,store,cex,z3-stack`. The constant layer always runs
//! first and is not named.

use std::fmt;
use std::str::FromStr;

/// One layer of a chain, by its `--solver-chain` name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LayerKind {
    /// GreenTrie's implication store: reuse by logical subset and superset,
    /// kept in the solver stores.
    Implication,
    /// The per-run cache of exact queries.
    Cache,
    /// The counterexample cache (subset, superset and recent models).
    Cex,
    /// GreenTrie's reduction: merges comparisons of a term with constants.
    Reduce,
    /// Keeps only the constraints that share arrays with the condition.
    Slice,
    /// Green's canonical form: renames arrays, orders conjuncts.
    Canon,
    /// A per-run cache keyed by canonical form that hands misses on as
    /// written.
    CanonCache,
    /// Decides queries whose conjuncts each read one symbolic byte by
    /// trying each byte's 256 values.
    Enumerate,
    /// Decides a query by the facts its constraints state outright (a
    /// conjunct is true, a term it fixes has that value).
    Facts,
    /// Writes a wide term the constraints bound as the extension of its
    /// low bits, so that its arithmetic is done narrow.
    Narrow,
    /// Green's equivalence store: answers by exact query, kept in the
    /// solver stores (`--store`).
    Store,
    /// Z3, a fresh solver per query.
    Z3,
    /// Z3 with an assertion stack that follows the path (Liu et al.).
    Z3Stack,
    /// The stack, with shared subexpressions named once ("stackOpt").
    Z3StackOpt,
    /// The stack or a fresh solver, chosen per query; the other one when
    /// the first times out.
    Z3Auto,
}

impl LayerKind {
    /// Every kind, in the order a chain lists them when it uses them all.
    pub const ALL: &'static [LayerKind] = &[
        LayerKind::Reduce,
        LayerKind::Slice,
        LayerKind::Canon,
        LayerKind::Store,
        LayerKind::Implication,
        LayerKind::Cache,
        LayerKind::Cex,
        LayerKind::CanonCache,
        LayerKind::Enumerate,
        LayerKind::Facts,
        LayerKind::Narrow,
        LayerKind::Z3,
        LayerKind::Z3Stack,
        LayerKind::Z3StackOpt,
        LayerKind::Z3Auto,
    ];

    /// The name used on the command line and in statistics.
    pub fn name(self) -> &'static str {
        match self {
            LayerKind::Cache => "cache",
            LayerKind::Cex => "cex",
            LayerKind::Store => "store",
            LayerKind::Implication => "implication",
            LayerKind::Slice => "slice",
            LayerKind::Reduce => "reduce",
            LayerKind::Canon => "canon",
            LayerKind::CanonCache => "canon-cache",
            LayerKind::Enumerate => "enumerate",
            LayerKind::Facts => "facts",
            LayerKind::Narrow => "narrow",
            LayerKind::Z3 => "z3",
            LayerKind::Z3Stack => "z3-stack",
            LayerKind::Z3StackOpt => "z3-stackopt",
            LayerKind::Z3Auto => "z3-auto",
        }
    }

    /// Whether this is one of the Z3 layers a chain must end with.
    pub fn is_z3(self) -> bool {
        matches!(
            self,
            LayerKind::Z3 | LayerKind::Z3Stack | LayerKind::Z3StackOpt | LayerKind::Z3Auto
        )
    }
}

/// The layers of a chain, in order, Z3 last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainSpec {
    layers: Vec<LayerKind>,
}

/// The chain used when none is given: the fastest combination measured
/// (see the solver benchmark). Reduction comes after the caches: they
/// match the queries as the path wrote them (with reduction first, 17 more
/// of a histogram's 269 queries missed the counterexample cache), and Z3
/// gets the merged ranges (a loop on fresh input 16% faster, an integer
/// square root 34%). What still reaches Z3 is looked up by canonical form
/// (loops and calls on fresh input ask the same question of new bytes: a
/// Rational's gcd 21.4 s -> 13.5 s), while Z3 gets the query as written.
/// A query whose conjuncts each read one input byte is decided by trying
/// the bytes' values (a histogram's solver time 0.78 s -> 0.28 s, ptx 4.5
/// times the paths in a minute). A query the facts of its path decide
/// (a conjunct true, a term it fixes at its value) is answered before Z3
/// (expr's Z3 calls in 10 M instructions 833 -> 39). Nonlinear queries are
/// narrowed to the widths their bounds leave (cmp's 6,364 queries: Z3
/// 64 s -> 35 s).
pub const DEFAULT_CHAIN: &str =
    "slice,store,cache,cex,reduce,canon-cache,enumerate,facts,narrow,z3-auto";

/// Why a `--solver-chain` value was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    #[error("unknown solver layer `{name}` (known: {known})")]
    Unknown { name: String, known: String },
    #[error("solver layer `{0}` is listed twice")]
    Twice(&'static str),
    #[error(
        "a solver chain ends with exactly one Z3 layer (z3, z3-stack, z3-stackopt or z3-auto), as its last element"
    )]
    Z3NotLast,
}

impl ChainSpec {
    /// The layers, in the order queries pass through them.
    pub fn layers(&self) -> &[LayerKind] {
        &self.layers
    }

    /// Whether a layer of the chain keeps answers in the solver stores.
    pub fn uses_stores(&self) -> bool {
        self.has(LayerKind::Store) || self.has(LayerKind::Implication)
    }

    /// Whether the chain uses `kind`.
    pub fn has(&self, kind: LayerKind) -> bool {
        self.layers.contains(&kind)
    }
}

impl Default for ChainSpec {
    fn default() -> Self {
        DEFAULT_CHAIN
            .parse()
            .expect("the default solver chain is well formed")
    }
}

impl FromStr for ChainSpec {
    type Err = ChainError;

    fn from_str(s: &str) -> Result<Self, ChainError> {
        let mut layers = Vec::new();
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let kind = LayerKind::ALL
                .iter()
                .copied()
                .find(|k| k.name() == name)
                .ok_or_else(|| ChainError::Unknown {
                    name: name.to_string(),
                    known: LayerKind::ALL
                        .iter()
                        .map(|k| k.name())
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
            if layers.contains(&kind) {
                return Err(ChainError::Twice(kind.name()));
            }
            layers.push(kind);
        }
        let z3s = layers.iter().filter(|k| k.is_z3()).count();
        if z3s != 1 || !layers.last().is_some_and(|k| k.is_z3()) {
            return Err(ChainError::Z3NotLast);
        }
        Ok(ChainSpec { layers })
    }
}

impl fmt::Display for ChainSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.layers.iter().map(|k| k.name()).collect();
        f.write_str(&names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_chains() {
        let c: ChainSpec = "cache, cex,z3".parse().unwrap();
        assert_eq!(
            c.layers(),
            &[LayerKind::Cache, LayerKind::Cex, LayerKind::Z3]
        );
        assert_eq!(c.to_string(), "cache,cex,z3");
        assert_eq!(ChainSpec::default().to_string(), DEFAULT_CHAIN);
    }

    #[test]
    fn refuses_bad_chains() {
        assert!(matches!(
            "cache,magic,z3".parse::<ChainSpec>(),
            Err(ChainError::Unknown { .. })
        ));
        assert_eq!(
            "cache,cache,z3".parse::<ChainSpec>(),
            Err(ChainError::Twice("cache"))
        );
        assert_eq!("cache".parse::<ChainSpec>(), Err(ChainError::Z3NotLast));
        assert_eq!("z3,cache".parse::<ChainSpec>(), Err(ChainError::Z3NotLast));
        assert_eq!("".parse::<ChainSpec>(), Err(ChainError::Z3NotLast));
    }
}
