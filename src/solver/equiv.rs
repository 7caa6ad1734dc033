//! Green's equivalence store: answers kept by the exact (canonical) query,
//! in a persistent key-value store shared by runs, programs and machines.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::arrays::ArraysOf;
use super::query::{Answer, Chain, Layer, Query};
use super::store::Backend;
use super::SolverError;
use crate::expr::{serial, ArrayRef, Assignment, Evaluator, ExprRef};

/// Version of the values this layer writes; a value of another version is
/// a miss.
const VALUE_VERSION: u8 = 1;
/// Keys of this layer's entries start with this byte (the implication
/// store keeps its entries in the same backend under another prefix).
pub(crate) const KEY_PREFIX: u8 = b'E';
/// Version of the keys' form (the hash of the conjuncts' own hashes); a
/// store written under another form is a miss, never a wrong answer.
const KEY_VERSION: u8 = 2;
/// Remembered digests are dropped once this many expressions are known.
const DIGEST_LIMIT: usize = 1 << 16;

/// Looks each query up by a hash of its encoding; on a miss asks the rest
/// of the chain (for a full model, so that the entry can answer later
/// queries wanting one) and keeps the answer.
///
/// Placed after the canonical layer, two queries that differ only in the
/// names of their arrays or the order of their constraints share an entry.
/// A stored model is checked by evaluation before it is used; one that
/// does not satisfy the query is reported and ignored.
pub struct EquivalenceStore {
    backend: Arc<dyn Backend>,
    keys: Keys,
    arrays: ArraysOf,
    /// Set after the first backend error, so that a failing store warns
    /// once instead of once per query.
    warned: bool,
}

impl EquivalenceStore {
    /// A layer keeping its answers in `backend`.
    pub fn new(backend: Arc<dyn Backend>) -> Self {
        EquivalenceStore {
            backend,
            keys: Keys::default(),
            arrays: ArraysOf::default(),
            warned: false,
        }
    }

    fn warn(&mut self, what: impl std::fmt::Display) {
        if !self.warned {
            self.warned = true;
            eprintln!(
                "mnemo: warning: solver store {}: {what}",
                self.backend.describe()
            );
        }
    }

    fn lookup(&mut self, key: &[u8], q: &Query<'_>, arrays: &[ArrayRef]) -> Option<Answer> {
        let bytes = match self.backend.get(key) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return None,
            Err(e) => {
                self.warn(e);
                return None;
            }
        };
        match decode_answer(&bytes, arrays) {
            Some(Answer::Sat(Some(model))) if satisfies(&model, q) => {
                Some(Answer::Sat(Some(complete(model, q.model))))
            }
            Some(Answer::Unsat) => Some(Answer::Unsat),
            _ => {
                self.warn("an entry does not answer its query; ignoring it");
                None
            }
        }
    }
}

impl Layer for EquivalenceStore {
    fn name(&self) -> &'static str {
        "store"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        let mut exprs: Vec<ExprRef> = q.constraints.to_vec();
        exprs.push(q.expr.clone());
        let key = self.keys.key(&exprs);
        let arrays = self.arrays.of_all(&exprs);
        if let Some(answer) = self.lookup(&key, q, &arrays) {
            next.stats().hit(self.name());
            return Ok(strip(answer, q));
        }
        let mut wanted: Vec<ArrayRef> = arrays.clone();
        for a in q.model.unwrap_or(&[]) {
            if !wanted.iter().any(|w| Arc::ptr_eq(w, a)) {
                wanted.push(a.clone());
            }
        }
        let answer = next.check(&Query {
            constraints: q.constraints,
            expr: q.expr.clone(),
            model: Some(&wanted),
        })?;
        if let Some(value) = encode_answer(&answer, &arrays) {
            if let Err(e) = self.backend.put(&key, &value) {
                self.warn(e);
            }
        }
        Ok(strip(answer, q))
    }
}

/// Store keys of conjunctions: a prefix byte and a hash over the hashes of
/// the conjuncts' stable encodings. A query shares all but its last few
/// conjuncts with the one before it; each conjunct is encoded once, not
/// once per query (that encoding was a sixth of a loop-heavy run).
#[derive(Default)]
struct Keys {
    digests: FxHashMap<ExprRef, [u8; 32]>,
}

impl Keys {
    fn key(&mut self, exprs: &[ExprRef]) -> Vec<u8> {
        let mut h = blake3::Hasher::new();
        h.update(&[KEY_VERSION]);
        for e in exprs {
            h.update(&self.digest(e));
        }
        let mut key = vec![KEY_PREFIX];
        key.extend_from_slice(h.finalize().as_bytes());
        key
    }

    fn digest(&mut self, e: &ExprRef) -> [u8; 32] {
        if let Some(d) = self.digests.get(e) {
            return *d;
        }
        if self.digests.len() >= DIGEST_LIMIT {
            self.digests.clear();
        }
        let d = *blake3::hash(&serial::encode(std::slice::from_ref(e))).as_bytes();
        self.digests.insert(e.clone(), d);
        d
    }
}

/// The store key of a conjunction.
#[cfg(test)]
fn key_of(exprs: &[ExprRef]) -> Vec<u8> {
    Keys::default().key(exprs)
}

/// Drops the model when the query did not ask for one.
fn strip(answer: Answer, q: &Query<'_>) -> Answer {
    match (answer, q.model) {
        (Answer::Sat(_), None) => Answer::Sat(None),
        (a, _) => a,
    }
}

fn satisfies(model: &Assignment, q: &Query<'_>) -> bool {
    let mut ev = Evaluator::new(model);
    ev.eval(&q.expr) == 1 && q.constraints.iter().all(|c| ev.eval(c) == 1)
}

/// `model` plus zeros for wanted arrays the query does not read (evaluation
/// reads missing arrays as zeros, so zeros are what satisfied it).
fn complete(mut model: Assignment, wanted: Option<&[ArrayRef]>) -> Assignment {
    for a in wanted.unwrap_or(&[]) {
        if !model.contains(a) {
            model.set(a, vec![0; a.size as usize]);
        }
    }
    model
}

/// The stored form of an answer: the version, unsat or sat, and for sat the
/// bytes of each array of the query in the order the query reads them (the
/// key fixes that order). A sat answer without a model is not stored.
pub(crate) fn encode_answer(answer: &Answer, arrays: &[ArrayRef]) -> Option<Vec<u8>> {
    let mut out = vec![VALUE_VERSION];
    match answer {
        Answer::Unsat => out.push(0),
        Answer::Sat(None) => return None,
        Answer::Sat(Some(model)) => {
            out.push(1);
            for a in arrays {
                let bytes = model.get(a)?;
                out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                out.extend_from_slice(bytes);
            }
        }
    }
    Some(out)
}

/// The answer stored in `bytes` for a query reading `arrays`, or `None`
/// when the bytes do not fit (another version, or another query's shape).
pub(crate) fn decode_answer(bytes: &[u8], arrays: &[ArrayRef]) -> Option<Answer> {
    let (&version, rest) = bytes.split_first()?;
    if version != VALUE_VERSION {
        return None;
    }
    let (&tag, mut rest) = rest.split_first()?;
    match tag {
        0 if rest.is_empty() => Some(Answer::Unsat),
        1 => {
            let mut model = Assignment::new();
            for a in arrays {
                let (len, tail) = rest.split_first_chunk::<4>()?;
                let len = u32::from_le_bytes(*len) as usize;
                if len != a.size as usize || tail.len() < len {
                    return None;
                }
                model.set(a, tail[..len].to_vec());
                rest = &tail[len..];
            }
            rest.is_empty().then_some(Answer::Sat(Some(model)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::store::open;
    use super::super::{Solver, SolverConfig};
    use super::*;
    use crate::expr::{self, Array, UpdateList};

    fn byte(a: &ArrayRef) -> ExprRef {
        expr::read(&UpdateList::new(a.clone()), &expr::constant(0, 64))
    }

    fn solver(backend: &Arc<dyn Backend>) -> Solver {
        Solver::with_layers(
            SolverConfig::default(),
            vec![Box::new(EquivalenceStore::new(backend.clone()))],
        )
    }

    #[test]
    fn a_second_solver_reuses_the_answers_of_the_first() {
        let backend: Arc<dyn Backend> = Arc::from(open("memory").unwrap());
        let x = Array::symbolic("eq_x", 1);
        let cs = vec![expr::ult(&byte(&x), &expr::constant(9, 8))];
        let sat = expr::eq(&byte(&x), &expr::constant(4, 8));
        let unsat = expr::eq(&byte(&x), &expr::constant(12, 8));
        let mut first = solver(&backend);
        assert!(first.may_be_true(&cs, &sat).unwrap());
        assert!(!first.may_be_true(&cs, &unsat).unwrap());
        assert_eq!(first.stats().z3_calls, 2);
        let mut second = solver(&backend);
        assert!(second.may_be_true(&cs, &sat).unwrap());
        assert!(!second.may_be_true(&cs, &unsat).unwrap());
        let model = second
            .get_model(&cs, std::slice::from_ref(&x))
            .unwrap()
            .unwrap();
        assert!(model.get(&x).unwrap()[0] < 9);
        let st = second.stats();
        assert_eq!(st.hits.get("store"), Some(&2), "{st:?}");
        assert_eq!(st.z3_calls, 1, "{st:?}");
        assert_eq!(st.bad_models, 0);
    }

    #[test]
    fn a_wrong_stored_model_is_ignored() {
        let backend: Arc<dyn Backend> = Arc::from(open("memory").unwrap());
        let x = Array::symbolic("eq_bad", 1);
        let c = expr::eq(&byte(&x), &expr::constant(7, 8));
        let key = key_of(&[c.clone(), expr::bool_const(true)]);
        let mut lie = Assignment::new();
        lie.set(&x, vec![3]);
        let value = encode_answer(&Answer::Sat(Some(lie)), std::slice::from_ref(&x)).unwrap();
        backend.put(&key, &value).unwrap();
        let mut s = solver(&backend);
        let m = s
            .get_model(std::slice::from_ref(&c), std::slice::from_ref(&x))
            .unwrap()
            .unwrap();
        assert_eq!(m.get(&x).unwrap(), &[7]);
        assert_eq!(s.stats().z3_calls, 1);
    }

    #[test]
    fn answers_round_trip_and_misfits_are_misses() {
        let a = Array::symbolic("eq_a", 2);
        let b = Array::symbolic("eq_b", 1);
        let mut m = Assignment::new();
        m.set(&a, vec![1, 2]);
        m.set(&b, vec![3]);
        let arrays = vec![a.clone(), b.clone()];
        let bytes = encode_answer(&Answer::Sat(Some(m)), &arrays).unwrap();
        match decode_answer(&bytes, &arrays) {
            Some(Answer::Sat(Some(back))) => {
                assert_eq!(back.get(&a).unwrap(), &[1, 2]);
                assert_eq!(back.get(&b).unwrap(), &[3]);
            }
            other => panic!("{other:?}"),
        }
        assert!(decode_answer(&bytes, &arrays[..1]).is_none());
        assert!(decode_answer(&bytes[..bytes.len() - 1], &arrays).is_none());
        assert!(decode_answer(&[9, 0], &arrays).is_none());
        let unsat = encode_answer(&Answer::Unsat, &arrays).unwrap();
        assert!(matches!(
            decode_answer(&unsat, &arrays),
            Some(Answer::Unsat)
        ));
        assert!(encode_answer(&Answer::Sat(None), &arrays).is_none());
    }
}
