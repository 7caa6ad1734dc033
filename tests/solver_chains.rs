//! Every solver chain answers the recorded corpus of testsuite queries as
//! fresh Z3 does (`tests/data/queries.corpus`, made by `make corpus`).
//!
//! Each chain gets its own solver and in-memory store and sees the queries
//! in the order the engine asked them, so the caches and stores are
//! exercised the way a run exercises them.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use mnemo::solver::corpus::{read_corpus, RecordedQuery};
use mnemo::solver::store::{MemoryStore, SharedStore};
use mnemo::solver::{Answer, ChainSpec, LayerKind, Solver, SolverConfig};

fn corpus() -> Vec<RecordedQuery> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/queries.corpus");
    read_corpus(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Sat or unsat of every query, under `chain`; every model is checked by
/// the solver's entry point (a bad one is counted, and must not occur).
fn answers(chain: &ChainSpec, queries: &[RecordedQuery]) -> Vec<bool> {
    let store = chain
        .uses_stores()
        .then(|| SharedStore(Arc::new(MemoryStore::default())));
    let mut solver = Solver::new(SolverConfig {
        timeout_ms: 30_000,
        chain: chain.clone(),
        store,
        ..SolverConfig::default()
    });
    let mut out = Vec::with_capacity(queries.len());
    for q in queries {
        let answer = q
            .ask(&mut solver)
            .unwrap_or_else(|e| panic!("chain {chain}: {e}"));
        if q.wants_model {
            assert!(
                matches!(answer, Answer::Unsat | Answer::Sat(Some(_))),
                "chain {chain}: no model"
            );
        }
        out.push(answer.is_sat());
    }
    assert_eq!(solver.stats().bad_models, 0, "chain {chain}: bad models");
    out
}

/// Chains such that, for every three of the layer choices (each optional
/// layer present or absent, and which Z3 layer ends the chain), every
/// combination of their values occurs in some chain: a covering array of
/// strength 3, built greedily. Every pair of optional layers thus meets,
/// and misses, each other before each Z3 layer, at a few dozen chains where
/// every subset would be a thousand. The chains with every optional layer
/// and with none are always in, before each Z3 layer.
fn every_chain() -> Vec<ChainSpec> {
    let optional: Vec<LayerKind> = LayerKind::ALL
        .iter()
        .copied()
        .filter(|k| !k.is_z3())
        .collect();
    let z3s: Vec<LayerKind> = LayerKind::ALL
        .iter()
        .copied()
        .filter(|k| k.is_z3())
        .collect();
    let rows = covering_rows(optional.len(), z3s.len());
    rows.into_iter()
        .map(|(mask, z3)| {
            let mut names: Vec<&str> = optional
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, k)| k.name())
                .collect();
            names.push(z3s[z3].name());
            names.join(",").parse().expect("a well-formed chain")
        })
        .collect()
}

/// Three factors of a covering array, by index.
type Triple = (usize, usize, usize);

/// A strength-3 covering array over `bits` two-valued factors and one
/// factor of `levels` values, as (mask, level) rows. Factor `bits` is the
/// many-valued one; a row's value for factor `f < bits` is bit `f` of its
/// mask.
fn covering_rows(bits: usize, levels: usize) -> Vec<(u32, usize)> {
    let factors = bits + 1;
    let value = |row: (u32, usize), f: usize| -> usize {
        if f == bits {
            row.1
        } else {
            ((row.0 >> f) & 1) as usize
        }
    };
    let size = |f: usize| if f == bits { levels } else { 2 };
    // One uncovered set per triple of factors, of the value combinations
    // no chosen row has yet.
    let mut uncovered: Vec<(Triple, BTreeSet<[usize; 3]>)> = Vec::new();
    for a in 0..factors {
        for b in a + 1..factors {
            for c in b + 1..factors {
                let mut all = BTreeSet::new();
                for x in 0..size(a) {
                    for y in 0..size(b) {
                        for z in 0..size(c) {
                            all.insert([x, y, z]);
                        }
                    }
                }
                uncovered.push(((a, b, c), all));
            }
        }
    }
    let candidates: Vec<(u32, usize)> = (0..1u32 << bits)
        .flat_map(|m| (0..levels).map(move |l| (m, l)))
        .collect();
    let mut rows: Vec<(u32, usize)> = (0..levels)
        .flat_map(|l| [(0, l), ((1u32 << bits) - 1, l)])
        .collect();
    let cover = |row: (u32, usize), uncovered: &mut [(Triple, BTreeSet<[usize; 3]>)]| {
        for ((a, b, c), set) in uncovered {
            set.remove(&[value(row, *a), value(row, *b), value(row, *c)]);
        }
    };
    for &row in &rows {
        cover(row, &mut uncovered);
    }
    while uncovered.iter().any(|(_, set)| !set.is_empty()) {
        // The candidate covering the most that is still uncovered; the
        // first of equals, so the chains are the same on every run.
        let gain = |row: (u32, usize)| {
            uncovered
                .iter()
                .filter(|((a, b, c), set)| {
                    set.contains(&[value(row, *a), value(row, *b), value(row, *c)])
                })
                .count()
        };
        let best = candidates
            .iter()
            .copied()
            .max_by_key(|&row| (gain(row), std::cmp::Reverse(row)))
            .expect("candidates");
        rows.push(best);
        cover(best, &mut uncovered);
    }
    rows
}

#[test]
fn the_corpus_is_the_testsuites_queries() {
    let queries = corpus();
    assert!(queries.len() >= 200, "{} queries", queries.len());
    assert!(queries.iter().any(|q| q.wants_model));
    assert!(queries.iter().any(|q| q.constraints.len() >= 5));
}

#[test]
fn every_chain_answers_as_fresh_z3_does() {
    let queries = corpus();
    let fresh: ChainSpec = "z3".parse().unwrap();
    let expected = answers(&fresh, &queries);
    assert!(expected.iter().any(|&s| s) && expected.iter().any(|&s| !s));
    let chains = every_chain();
    assert!(
        chains.len() < 64,
        "{} chains: the covering array grew",
        chains.len()
    );
    // Two threads: the machine's cores; each chain is independent.
    let chains = Arc::new(chains);
    let workers: Vec<_> = (0..2)
        .map(|w| {
            let (chains, queries, expected) = (chains.clone(), queries.clone(), expected.clone());
            std::thread::spawn(move || {
                for chain in chains.iter().skip(w).step_by(2) {
                    let got = answers(chain, &queries);
                    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                        assert_eq!(
                            g, e,
                            "chain {chain}, query {i}: sat={g}, fresh Z3 says sat={e}"
                        );
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("a chain disagreed with fresh Z3");
    }
}

#[test]
fn the_chains_cover_every_three_layer_choices() {
    let chains: Vec<Vec<String>> = every_chain()
        .iter()
        .map(|c| c.to_string().split(',').map(str::to_string).collect())
        .collect();
    let optional: Vec<&str> = LayerKind::ALL
        .iter()
        .filter(|k| !k.is_z3())
        .map(|k| k.name())
        .collect();
    let z3s: Vec<&str> = LayerKind::ALL
        .iter()
        .filter(|k| k.is_z3())
        .map(|k| k.name())
        .collect();
    let has = |chain: &[String], layer: &str| chain.iter().any(|l| l == layer);
    for z3 in &z3s {
        let ending: Vec<&Vec<String>> = chains.iter().filter(|c| has(c, z3)).collect();
        for (i, a) in optional.iter().enumerate() {
            for b in &optional[i + 1..] {
                for want in [(false, false), (false, true), (true, false), (true, true)] {
                    assert!(
                        ending.iter().any(|c| (has(c, a), has(c, b)) == want),
                        "no chain ending in {z3} with {a}={} and {b}={}",
                        want.0,
                        want.1
                    );
                }
            }
        }
    }
}
