//! The symbolic arrays each expression reads, remembered across queries:
//! a path condition repeats from one query to the next, and walking it
//! again for every query cost more than the solving on loop-heavy runs.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::expr::{arrays_in, ArrayRef, ExprRef};

/// A generation holds this many expressions before it is set aside for a
/// new one, so that a long run's memory stays bounded. The generation
/// before stays readable: the path conditions still being explored move
/// over as they are asked about, where emptying the map made every live
/// constraint be walked again.
const LIMIT: usize = 1 << 15;

/// Where one expression's arrays lie in [`ArraysOf`]'s list of lists.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    start: u32,
    len: u32,
}

/// Expressions and the arrays each reads, one generation of them.
#[derive(Default)]
struct Generation {
    spans: FxHashMap<ExprRef, Span>,
    /// Every expression's arrays, one after another.
    lists: Vec<ArrayRef>,
}

impl Generation {
    fn get(&self, span: Span) -> &[ArrayRef] {
        &self.lists[span.start as usize..(span.start + span.len) as usize]
    }

    fn push(&mut self, e: &ExprRef, arrays: impl IntoIterator<Item = ArrayRef>) -> Span {
        let start = self.lists.len();
        self.lists.extend(arrays);
        let span = Span {
            start: start as u32,
            len: (self.lists.len() - start) as u32,
        };
        self.spans.insert(e.clone(), span);
        span
    }
}

/// Expression → the arrays it reads, in the order a walk meets them.
///
/// An expression's arrays are given as a [`Span`], read with
/// [`ArraysOf::get`]: a fork's query looks up every constraint of its
/// path, and a shared list for each cost two counts written per lookup.
/// Spans are good until the next [`ArraysOf::spans`].
#[derive(Default)]
pub(crate) struct ArraysOf {
    current: Generation,
    older: Generation,
}

impl ArraysOf {
    /// The spans of `exprs`' arrays, in `out` (cleared first).
    pub fn spans<'e>(&mut self, exprs: impl IntoIterator<Item = &'e ExprRef>, out: &mut Vec<Span>) {
        out.clear();
        // A new generation only here, between batches: the spans handed
        // out before stay good until the next batch.
        if self.current.spans.len() >= LIMIT || self.current.lists.len() >= u32::MAX as usize / 2 {
            self.older = std::mem::take(&mut self.current);
        }
        let mut walked = Vec::new();
        for e in exprs {
            let span = match self.current.spans.get(e) {
                Some(&span) => span,
                None => match self.older.spans.get(e) {
                    Some(&old) => {
                        let older = &self.older;
                        self.current.push(e, older.get(old).iter().cloned())
                    }
                    None => {
                        walked.clear();
                        arrays_in(e, &mut walked);
                        self.current.push(e, walked.drain(..))
                    }
                },
            };
            out.push(span);
        }
    }

    /// The arrays at `span`, from the last [`ArraysOf::spans`].
    pub fn get(&self, span: Span) -> &[ArrayRef] {
        self.current.get(span)
    }

    /// The arrays `exprs` read, each once, in the order of
    /// [`crate::expr::arrays_in_all`] (expressions in turn, each walked
    /// as it is): the order stored answers list their arrays in.
    pub fn of_all(&mut self, exprs: &[ExprRef]) -> Vec<ArrayRef> {
        let mut spans = Vec::with_capacity(exprs.len());
        self.spans(exprs, &mut spans);
        let mut out: Vec<ArrayRef> = Vec::new();
        let mut seen: FxHashSet<*const crate::expr::Array> = FxHashSet::default();
        for &span in &spans {
            for a in self.get(span) {
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

    #[test]
    fn lists_outlive_a_new_generation() {
        let a = Array::symbolic("ao_ga", 1 << 16);
        let b = Array::symbolic("ao_gb", 4);
        let byte =
            |x: &ArrayRef, i: u128| read(&UpdateList::new(x.clone()), &expr::constant(i, 64));
        let kept = expr::ult(&byte(&a, 0), &byte(&b, 1));
        let mut memo = ArraysOf::default();
        let mut spans = Vec::new();
        memo.spans([&kept], &mut spans);
        // Enough other expressions to fill a generation, asked one batch
        // at a time as queries ask them.
        for i in 0..LIMIT as u128 + 2 {
            let e = expr::ult(&byte(&a, i), &byte(&a, i + 1));
            memo.spans([&e], &mut spans);
            assert_eq!(memo.get(spans[0]).len(), 1);
        }
        assert!(!memo.older.spans.is_empty(), "a new generation began");
        let fresh = expr::ult(&byte(&b, 2), &byte(&b, 3));
        memo.spans([&fresh, &kept], &mut spans);
        let names = |v: &[ArrayRef]| v.iter().map(|x| x.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(memo.get(spans[0])), ["ao_gb"]);
        assert_eq!(names(memo.get(spans[1])), ["ao_ga", "ao_gb"]);
    }
}
