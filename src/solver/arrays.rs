//! The symbolic arrays each expression reads, remembered across queries:
//! a path condition repeats from one query to the next, and walking it
//! again for every query cost more than the solving on loop-heavy runs.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::expr::{arrays_in, ArrayRef, ExprRef};

/// Lists are dropped once this many expressions are known, so that a long
/// run's memory stays bounded.
const LIMIT: usize = 1 << 16;

/// Expression → the arrays it reads, in the order a walk meets them.
#[derive(Default)]
pub(crate) struct ArraysOf {
    lists: FxHashMap<ExprRef, Arc<[ArrayRef]>>,
}

impl ArraysOf {
    /// The arrays `e` reads.
    pub fn of(&mut self, e: &ExprRef) -> Arc<[ArrayRef]> {
        if let Some(a) = self.lists.get(e) {
            return a.clone();
        }
        if self.lists.len() >= LIMIT {
            self.lists.clear();
        }
        let mut out = Vec::new();
        arrays_in(e, &mut out);
        let out: Arc<[ArrayRef]> = out.into();
        self.lists.insert(e.clone(), out.clone());
        out
    }

    /// The arrays `exprs` read, each once, in the order of
    /// [`crate::expr::arrays_in_all`] (expressions in turn, each walked
    /// as it is): the order stored answers list their arrays in.
    pub fn of_all(&mut self, exprs: &[ExprRef]) -> Vec<ArrayRef> {
        let mut out: Vec<ArrayRef> = Vec::new();
        let mut seen: FxHashSet<*const crate::expr::Array> = FxHashSet::default();
        for e in exprs {
            for a in self.of(e).iter() {
                if seen.insert(Arc::as_ptr(a)) {
                    out.push(a.clone());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{self, arrays_in_all, read, Array, UpdateList};

    #[test]
    fn of_all_lists_arrays_as_one_walk_does() {
        let a = Array::symbolic("ao_a", 1);
        let b = Array::symbolic("ao_b", 1);
        let c = Array::symbolic("ao_c", 1);
        let r = |x: &ArrayRef| read(&UpdateList::new(x.clone()), &expr::constant(0, 64));
        let e1 = expr::eq(&r(&b), &r(&a));
        let e2 = expr::ult(&r(&c), &r(&b));
        let e3 = expr::add(&r(&a), &r(&c));
        let exprs = [e1, e2, e3];
        let mut walked = Vec::new();
        arrays_in_all(&exprs, &mut walked);
        let mut memo = ArraysOf::default();
        let listed = memo.of_all(&exprs);
        let names = |v: &[ArrayRef]| v.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&listed), names(&walked));
        assert_eq!(listed.len(), 3, "each array once: {:?}", names(&listed));
    }
}
