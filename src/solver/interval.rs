//! The atom algebra of GreenTrie's reduction and implication store: a
//! comparison of a term with a constant is the set of values the term may
//! take, and conjunction, implication and conflict are set operations.
//!
//! Sets are unions of unsigned ranges over the term's width, so signed
//! comparisons (which are ranges that may wrap around in unsigned order)
//! and exceptional points (`x != c`, holes in a range) are exact. Nothing
//! here reasons about mathematical integers: every set is a set of w-bit
//! values.

use crate::expr::{and, bool_const, constant, eq, mask, not, or, ule, CmpOp, ExprKind, ExprRef};
use crate::ir::BinOp;

/// A set of values of a w-bit term: sorted, disjoint, non-adjacent
/// inclusive ranges.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueSet {
    width: u32,
    ranges: Vec<(u128, u128)>,
}

impl ValueSet {
    /// No value.
    pub fn empty(width: u32) -> Self {
        ValueSet {
            width,
            ranges: Vec::new(),
        }
    }

    /// Every value.
    pub fn full(width: u32) -> Self {
        ValueSet {
            width,
            ranges: vec![(0, mask(width))],
        }
    }

    /// The values `lo..=hi` (unsigned); empty when `lo > hi`.
    pub fn range(width: u32, lo: u128, hi: u128) -> Self {
        if lo > hi {
            return Self::empty(width);
        }
        ValueSet {
            width,
            ranges: vec![(lo, hi.min(mask(width)))],
        }
    }

    /// The values from `lo` to `hi` in signed order (both as w-bit
    /// patterns); empty when `lo > hi` as signed numbers.
    pub fn signed_range(width: u32, lo: u128, hi: u128) -> Self {
        let bias = 1u128 << (width - 1);
        // Adding the bias maps signed order onto unsigned order.
        let (l, h) = ((lo ^ bias) & mask(width), (hi ^ bias) & mask(width));
        if l > h {
            return Self::empty(width);
        }
        let mut out = Self::empty(width);
        for (a, b) in [(l, h.min(bias - 1)), (l.max(bias), h)] {
            if a <= b {
                out = out.union(&Self::range(width, a ^ bias, b ^ bias));
            }
        }
        out
    }

    /// The values `v` with `v op c` (or `c op v` when `const_left`).
    pub fn of_cmp(op: CmpOp, width: u32, c: u128, const_left: bool) -> Self {
        let max = mask(width);
        let smin = 1u128 << (width - 1);
        let smax = smin - 1;
        let signed_pred = |x: u128| (x.wrapping_sub(1)) & max;
        let signed_succ = |x: u128| (x + 1) & max;
        match (op, const_left) {
            (CmpOp::Eq, _) => Self::range(width, c, c),
            // v < c
            (CmpOp::Ult, false) if c == 0 => Self::empty(width),
            (CmpOp::Ult, false) => Self::range(width, 0, c - 1),
            // c < v
            (CmpOp::Ult, true) if c == max => Self::empty(width),
            (CmpOp::Ult, true) => Self::range(width, c + 1, max),
            (CmpOp::Ule, false) => Self::range(width, 0, c),
            (CmpOp::Ule, true) => Self::range(width, c, max),
            (CmpOp::Slt, false) if c == smin => Self::empty(width),
            (CmpOp::Slt, false) => Self::signed_range(width, smin, signed_pred(c)),
            (CmpOp::Slt, true) if c == smax => Self::empty(width),
            (CmpOp::Slt, true) => Self::signed_range(width, signed_succ(c), smax),
            (CmpOp::Sle, false) => Self::signed_range(width, smin, c),
            (CmpOp::Sle, true) => Self::signed_range(width, c, smax),
        }
    }

    /// The width of the values.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The ranges, in order.
    pub fn ranges(&self) -> &[(u128, u128)] {
        &self.ranges
    }

    /// Whether no value is in the set.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Whether every value is in the set.
    pub fn is_full(&self) -> bool {
        self.ranges == [(0, mask(self.width))]
    }

    /// Whether `v` is in the set.
    pub fn contains(&self, v: u128) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= v && v <= b)
    }

    /// The values in both sets.
    pub fn intersect(&self, other: &ValueSet) -> ValueSet {
        let mut out = Vec::with_capacity(self.ranges.len().max(other.ranges.len()));
        let (mut i, mut j) = (0, 0);
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a1, b1) = self.ranges[i];
            let (a2, b2) = other.ranges[j];
            let (lo, hi) = (a1.max(a2), b1.min(b2));
            if lo <= hi {
                out.push((lo, hi));
            }
            if b1 < b2 {
                i += 1;
            } else {
                j += 1;
            }
        }
        ValueSet {
            width: self.width,
            ranges: out,
        }
    }

    /// The values in every one of `sets` (all of width `width`; every
    /// value when there are none).
    ///
    /// A byte compared with each of the 90 characters a `switch` lists
    /// leaves 90 atoms about it: intersected one by one, each step copies a
    /// set of up to 90 ranges. Here the complements' ranges are gathered,
    /// sorted once and merged, and what they leave out is the answer.
    pub fn intersect_all<'a>(width: u32, sets: impl IntoIterator<Item = &'a ValueSet>) -> ValueSet {
        let excluded = sets
            .into_iter()
            .flat_map(|s| s.complement().ranges)
            .collect();
        Self::from_ranges(width, excluded).complement()
    }

    /// The values in any of `ranges` (in any order, overlapping or not).
    fn from_ranges(width: u32, mut ranges: Vec<(u128, u128)>) -> ValueSet {
        ranges.sort_unstable();
        let mut out: Vec<(u128, u128)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match out.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => out.push((a, b)),
            }
        }
        ValueSet { width, ranges: out }
    }

    /// The values in either set.
    pub fn union(&self, other: &ValueSet) -> ValueSet {
        let all = self.ranges.iter().chain(&other.ranges).copied().collect();
        Self::from_ranges(self.width, all)
    }

    /// The values not in the set.
    pub fn complement(&self) -> ValueSet {
        let max = mask(self.width);
        let mut out = Vec::new();
        let mut next = 0u128;
        let mut done = false;
        for &(a, b) in &self.ranges {
            if a > next {
                out.push((next, a - 1));
            }
            if b == max {
                done = true;
                break;
            }
            next = b + 1;
        }
        if !done {
            out.push((next, max));
        }
        ValueSet {
            width: self.width,
            ranges: out,
        }
    }

    /// The values `v + c` (wrapping) for the values `v` of the set.
    pub fn shifted(&self, c: u128) -> ValueSet {
        let max = mask(self.width);
        let mut out = Vec::with_capacity(self.ranges.len() + 1);
        for &(a, b) in &self.ranges {
            let (a, b) = (a.wrapping_add(c) & max, b.wrapping_add(c) & max);
            if a <= b {
                out.push((a, b));
            } else {
                out.extend([(a, max), (0, b)]);
            }
        }
        Self::from_ranges(self.width, out)
    }

    /// The values `-v` (wrapping) for the values `v` of the set.
    pub fn negated(&self) -> ValueSet {
        let max = mask(self.width);
        let neg = |v: u128| v.wrapping_neg() & max;
        let mut out = Vec::with_capacity(self.ranges.len() + 1);
        for &(a, b) in &self.ranges {
            if a == 0 {
                // 0 stays; 1..=b goes to the top of the range.
                out.push((0, 0));
                if b > 0 {
                    out.push((neg(b), max));
                }
            } else {
                out.push((neg(b), neg(a)));
            }
        }
        Self::from_ranges(self.width, out)
    }

    /// Whether every value of this set is in `other`.
    pub fn is_subset(&self, other: &ValueSet) -> bool {
        self.width == other.width && self.intersect(&other.complement()).is_empty()
    }
}

/// "`term` takes a value in `set`": what a comparison of a term with a
/// constant says. A width-1 expression that is not such a comparison is
/// the atom "it is true" about itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    pub term: ExprRef,
    pub set: ValueSet,
}

/// The atom `e` states, for a width-1 non-constant `e`.
pub fn atom_of(e: &ExprRef) -> Option<Atom> {
    if e.width() != 1 || e.is_const() {
        return None;
    }
    if let ExprKind::Not(inner) = e.kind() {
        let a = atom_of(inner)?;
        return Some(Atom {
            term: a.term,
            set: a.set.complement(),
        });
    }
    if let ExprKind::Cmp { op, lhs, rhs } = e.kind() {
        let w = lhs.width();
        match (lhs.as_const(), rhs.as_const()) {
            (Some(c), None) => {
                return Some(without_offset(rhs, ValueSet::of_cmp(*op, w, c, true)));
            }
            (None, Some(c)) => {
                return Some(without_offset(lhs, ValueSet::of_cmp(*op, w, c, false)));
            }
            _ => {}
        }
    }
    Some(Atom {
        term: e.clone(),
        set: ValueSet::range(1, 1, 1),
    })
}

/// "`term` takes a value in `set`" about the term under any constant
/// added to it or subtracted from: `y - k >s 0` for many `k` (a loop
/// counting down a variable) are all sets of values of `y`, which merge
/// into one.
fn without_offset(term: &ExprRef, set: ValueSet) -> Atom {
    let (mut term, mut set) = (term.clone(), set);
    while let ExprKind::Binary { op, lhs, rhs } = term.kind() {
        let Some(c) = lhs.as_const() else {
            break;
        };
        // c + v in S: v in S - c. c - v in S: v in c - S.
        set = match op {
            BinOp::Add => set.shifted(c.wrapping_neg()),
            BinOp::Sub => set.shifted(c.wrapping_neg()).negated(),
            _ => break,
        };
        term = rhs.clone();
    }
    Atom { term, set }
}

impl Atom {
    /// Whether this atom implies `other`: the same term, and every value
    /// this one allows is one `other` allows.
    pub fn implies(&self, other: &Atom) -> bool {
        self.term == other.term && self.set.is_subset(&other.set)
    }

    /// Both atoms at once, if they are about the same term.
    pub fn and(&self, other: &Atom) -> Option<Atom> {
        (self.term == other.term).then(|| Atom {
            term: self.term.clone(),
            set: self.set.intersect(&other.set),
        })
    }

    /// Constraints equivalent to the atom: none when it says nothing,
    /// `false` when it allows no value.
    pub fn to_exprs(&self) -> Vec<ExprRef> {
        let t = &self.term;
        let w = t.width();
        let max = mask(w);
        if self.set.is_empty() {
            return vec![bool_const(false)];
        }
        if self.set.is_full() {
            return Vec::new();
        }
        if w == 1 {
            // Not empty, not full: exactly one value.
            return vec![if self.set.contains(1) {
                t.clone()
            } else {
                not(t)
            }];
        }
        let range = |a: u128, b: u128| -> Vec<ExprRef> {
            if a == b {
                return vec![eq(&constant(a, w), t)];
            }
            let mut v = Vec::new();
            if a > 0 {
                v.push(ule(&constant(a, w), t));
            }
            if b < max {
                v.push(ule(t, &constant(b, w)));
            }
            v
        };
        let ranges = self.set.ranges();
        if let [(a, b)] = ranges {
            return range(*a, *b);
        }
        // A few holes: `t != c` for each.
        let holes = self.set.complement();
        if holes.ranges().iter().all(|(a, b)| a == b) && holes.ranges().len() <= 4 {
            return holes
                .ranges()
                .iter()
                .map(|(c, _)| not(&eq(&constant(*c, w), t)))
                .collect();
        }
        // A signed range: wraps around in unsigned order.
        let bias = 1u128 << (w - 1);
        if let [(0, b), (a, m)] = ranges {
            if *m == max && *b < bias && *a >= bias {
                return vec![
                    crate::expr::sle(&constant(*a, w), t),
                    crate::expr::sle(t, &constant(*b, w)),
                ];
            }
        }
        let disjuncts: Vec<ExprRef> = ranges
            .iter()
            .map(|&(a, b)| {
                range(a, b)
                    .into_iter()
                    .reduce(|x, y| and(&x, &y))
                    .unwrap_or_else(|| bool_const(true))
            })
            .collect();
        vec![disjuncts
            .into_iter()
            .reduce(|x, y| or(&x, &y))
            .unwrap_or_else(|| bool_const(false))]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{self, read, Array, Assignment, UpdateList};
    use proptest::prelude::*;

    fn term(width: u32) -> (ExprRef, Array2) {
        let a = Array::symbolic(&format!("iv{width}"), 16);
        let mut e = read(&UpdateList::new(a.clone()), &constant(0, 64));
        let mut i = 1;
        while e.width() < width {
            let b = read(&UpdateList::new(a.clone()), &constant(i, 64));
            e = expr::concat(&b, &e);
            i += 1;
        }
        (expr::extract(&e, 0, width), a)
    }
    type Array2 = crate::expr::ArrayRef;

    fn value_of(a: &Array2, v: u128) -> Assignment {
        let mut asg = Assignment::new();
        asg.set(a, v.to_le_bytes().to_vec());
        asg
    }

    fn interesting(width: u32, c: u128) -> Vec<u128> {
        let max = mask(width);
        let smin = 1u128 << (width - 1);
        let mut v = vec![0, 1, max, max - 1, smin, smin - 1, smin + 1];
        for d in [0u128, 1, 2] {
            v.push(c.wrapping_add(d) & max);
            v.push(c.wrapping_sub(d) & max);
        }
        v.into_iter().map(|x| x & max).collect()
    }

    fn cmp_builder(op: u8) -> fn(&ExprRef, &ExprRef) -> ExprRef {
        [
            expr::eq,
            expr::ne,
            expr::ult,
            expr::ule,
            expr::ugt,
            expr::uge,
            expr::slt,
            expr::sle,
            expr::sgt,
            expr::sge,
        ][op as usize % 10]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The atom of a comparison allows exactly the values that make it
        /// true, and its rebuilt constraints say the same.
        #[test]
        fn atoms_agree_with_evaluation(w in prop::sample::select(vec![1u32, 8, 16, 32, 64]), c in any::<u128>(), op in 0u8..10, left in any::<bool>(), negate in any::<bool>()) {
            let (t, arr) = term(w);
            let c = c & mask(w);
            let k = constant(c, w);
            let f = cmp_builder(op);
            let mut e = if left { f(&k, &t) } else { f(&t, &k) };
            if negate { e = not(&e); }
            if e.is_const() { return Ok(()); }
            let atom = atom_of(&e).unwrap();
            let rebuilt = atom.to_exprs();
            for v in interesting(w, c) {
                let asg = value_of(&arr, v);
                let truth = expr::eval(&e, &asg) == 1;
                if atom.term == t {
                    prop_assert_eq!(atom.set.contains(v), truth, "{:?} at {}", e, v);
                }
                let r = rebuilt.iter().all(|x| expr::eval(x, &asg) == 1);
                prop_assert_eq!(r, truth, "rebuilt {:?} at {}", rebuilt, v);
            }
        }

        /// A comparison of the term plus or minus constants is an atom
        /// about the term itself, exact at every value (wrapping included).
        #[test]
        fn offsets_move_onto_the_term(w in prop::sample::select(vec![8u32, 16, 32, 128]), c in any::<u128>(), offsets in prop::collection::vec((any::<u128>(), any::<bool>()), 1..3), op in 0u8..10, left in any::<bool>()) {
            let (t, arr) = term(w);
            let c = c & mask(w);
            let mut shifted = t.clone();
            let mut points = interesting(w, c);
            for &(o, minus) in &offsets {
                let o = constant(o & mask(w), w);
                shifted = if minus { expr::sub(&o, &shifted) } else { expr::add(&o, &shifted) };
            }
            for &(o, _) in &offsets {
                points.extend(interesting(w, c.wrapping_sub(o) & mask(w)));
                points.extend(interesting(w, o.wrapping_sub(c) & mask(w)));
            }
            let k = constant(c, w);
            let f = cmp_builder(op);
            let e = if left { f(&k, &shifted) } else { f(&shifted, &k) };
            // The builders may have split the comparison (an equality by
            // bytes) or folded it.
            let cmp = |x: &ExprRef| matches!(x.kind(), ExprKind::Cmp { .. });
            if !(cmp(&e) || matches!(e.kind(), ExprKind::Not(x) if cmp(x))) { return Ok(()); }
            let atom = atom_of(&e).unwrap();
            prop_assert_eq!(&atom.term, &t, "{:?}", e);
            let rebuilt = atom.to_exprs();
            for v in points {
                let asg = value_of(&arr, v);
                let truth = expr::eval(&e, &asg) == 1;
                prop_assert_eq!(atom.set.contains(v), truth, "{:?} at {}", e, v);
                let r = rebuilt.iter().all(|x| expr::eval(x, &asg) == 1);
                prop_assert_eq!(r, truth, "rebuilt {:?} at {}", rebuilt, v);
            }
        }

        /// Intersecting many sets at once gives what intersecting them one
        /// by one gives, at every width (128 included, where the largest
        /// value has no successor).
        #[test]
        fn intersecting_all_at_once_is_intersecting_in_turn(
            w in prop::sample::select(vec![1u32, 8, 64, 128]),
            atoms in prop::collection::vec((0u8..10, any::<u128>(), any::<bool>()), 0..40),
        ) {
            let sets: Vec<ValueSet> = atoms
                .iter()
                .map(|&(op, c, left)| {
                    let op = [CmpOp::Eq, CmpOp::Ult, CmpOp::Ule, CmpOp::Slt, CmpOp::Sle][op as usize % 5];
                    let set = ValueSet::of_cmp(op, w, c & mask(w), left);
                    if c % 3 == 0 { set.complement() } else { set }
                })
                .collect();
            let in_turn = sets.iter().fold(ValueSet::full(w), |s, x| s.intersect(x));
            prop_assert_eq!(ValueSet::intersect_all(w, &sets), in_turn);
        }

        /// An implication the algebra claims is never refuted by a value.
        #[test]
        fn implications_hold(w in prop::sample::select(vec![8u32, 16, 64]), c1 in any::<u128>(), c2 in any::<u128>(), op1 in 0u8..10, op2 in 0u8..10) {
            let (t, arr) = term(w);
            let (c1, c2) = (c1 & mask(w), c2 & mask(w));
            let e1 = cmp_builder(op1)(&t, &constant(c1, w));
            let e2 = cmp_builder(op2)(&t, &constant(c2, w));
            if e1.is_const() || e2.is_const() { return Ok(()); }
            let (a1, a2) = (atom_of(&e1).unwrap(), atom_of(&e2).unwrap());
            // The builders may have rewritten one comparison onto another term.
            let Some(both) = a1.and(&a2) else { return Ok(()) };
            let mut points = interesting(w, c1);
            points.extend(interesting(w, c2));
            for v in points {
                let asg = value_of(&arr, v);
                let (x, y) = (expr::eval(&e1, &asg) == 1, expr::eval(&e2, &asg) == 1);
                if a1.implies(&a2) {
                    prop_assert!(!x || y, "{:?} => {:?} refuted by {}", e1, e2, v);
                }
                prop_assert_eq!(both.set.contains(v), x && y);
            }
        }
    }

    #[test]
    fn set_operations() {
        let s = ValueSet::range(8, 10, 20).union(&ValueSet::range(8, 21, 30));
        assert_eq!(s.ranges(), &[(10, 30)]);
        assert_eq!(s.complement().ranges(), &[(0, 9), (31, 255)]);
        assert!(ValueSet::range(8, 12, 14).is_subset(&s));
        assert!(!ValueSet::range(8, 5, 14).is_subset(&s));
        // Signed: -2..=1 wraps around in unsigned order.
        let sr = ValueSet::signed_range(8, 0xfe, 1);
        assert_eq!(sr.ranges(), &[(0, 1), (0xfe, 0xff)]);
        assert!(ValueSet::of_cmp(CmpOp::Ult, 8, 0, false).is_empty());
        assert!(ValueSet::of_cmp(CmpOp::Slt, 8, 0x80, false).is_empty());
        assert!(ValueSet::full(8).complement().is_empty());
        // Shifts and negation wrap around.
        let r = ValueSet::range(8, 250, 255);
        assert_eq!(r.shifted(10).ranges(), &[(4, 9)]);
        assert_eq!(r.shifted(3).ranges(), &[(0, 2), (253, 255)]);
        assert_eq!(
            ValueSet::range(8, 0, 2).negated().ranges(),
            &[(0, 0), (254, 255)]
        );
        assert_eq!(ValueSet::range(8, 1, 2).negated().ranges(), &[(254, 255)]);
        // An exceptional point: x != 3 within [0, 5].
        let hole = ValueSet::range(8, 0, 5).intersect(&ValueSet::range(8, 3, 3).complement());
        assert_eq!(hole.ranges(), &[(0, 2), (4, 5)]);
    }
}
