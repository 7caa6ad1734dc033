//! Every solver chain answers the recorded corpus of testsuite queries as
//! fresh Z3 does (`tests/data/queries.corpus`, made by `make corpus`).
//!
//! Each chain gets its own solver and in-memory store and sees the queries
//! in the order the engine asked them, so the caches and stores are
//! exercised the way a run exercises them.

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

/// Every combination of the optional layers but `enumerate`, in their
/// standard order, before each Z3 layer; `enumerate` is in the half of
/// them with an odd number of other layers, so that it meets every layer
/// with and without each other one, at half the time of every subset.
fn every_chain() -> Vec<ChainSpec> {
    let optional: Vec<LayerKind> = LayerKind::ALL
        .iter()
        .copied()
        .filter(|k| !k.is_z3() && *k != LayerKind::Enumerate)
        .collect();
    let z3s: Vec<LayerKind> = LayerKind::ALL
        .iter()
        .copied()
        .filter(|k| k.is_z3())
        .collect();
    let mut chains = Vec::new();
    for mask in 0u32..(1 << optional.len()) {
        for z3 in &z3s {
            let mut kinds: Vec<LayerKind> = optional
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, k)| *k)
                .collect();
            if mask.count_ones() % 2 == 1 {
                kinds.push(LayerKind::Enumerate);
            }
            kinds.sort_by_key(|k| LayerKind::ALL.iter().position(|x| x == k));
            let mut names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
            names.push(z3.name());
            chains.push(names.join(",").parse().expect("a well-formed chain"));
        }
    }
    chains
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
    assert_eq!(
        chains.len(),
        4 << 8,
        "every subset of 8 layers, before each of the 4 Z3 layers"
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
