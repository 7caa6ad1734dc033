//! Weighted random choice among slots in logarithmic time: a complete
//! binary tree whose leaves are the slots' weights and whose inner nodes
//! hold the sums below them.
//!
//! Every inner node is recomputed from its two children on each update,
//! never adjusted by a difference, so no rounding error builds up however
//! many updates a long run makes.

/// The weights of slots `0..len`, and their sums.
#[derive(Debug, Default)]
pub struct SumTree {
    /// `tree[1]` is the root; the leaves are `tree[cap..cap + cap]`.
    tree: Vec<f64>,
    cap: usize,
}

impl SumTree {
    /// Sets slot `slot`'s weight, growing the tree when the slot is past
    /// its end.
    pub fn set(&mut self, slot: usize, weight: f64) {
        if slot >= self.cap {
            self.grow(slot + 1);
        }
        let mut i = self.cap + slot;
        self.tree[i] = weight;
        while i > 1 {
            i /= 2;
            self.tree[i] = self.tree[2 * i] + self.tree[2 * i + 1];
        }
    }

    /// Slot `slot`'s weight (zero past the end).
    pub fn get(&self, slot: usize) -> f64 {
        if slot < self.cap {
            self.tree[self.cap + slot]
        } else {
            0.0
        }
    }

    /// The sum of every weight.
    pub fn total(&self) -> f64 {
        self.tree.get(1).copied().unwrap_or(0.0)
    }

    /// The slot where `point` (in `0..total()`) falls when the slots'
    /// weights are laid end to end; `None` when every weight is zero.
    pub fn find(&self, point: f64) -> Option<usize> {
        if self.total() <= 0.0 {
            return None;
        }
        let mut point = point;
        let mut i = 1;
        while i < self.cap {
            let left = self.tree[2 * i];
            // A point past the left half by rounding alone, with nothing
            // on the right, still belongs on the left.
            if point < left || self.tree[2 * i + 1] <= 0.0 {
                i *= 2;
            } else {
                point -= left;
                i = 2 * i + 1;
            }
        }
        Some(i - self.cap)
    }

    fn grow(&mut self, slots: usize) {
        let cap = slots.next_power_of_two().max(1);
        let old = std::mem::take(&mut self.tree);
        let old_cap = self.cap;
        self.cap = cap;
        self.tree = vec![0.0; 2 * cap];
        for s in 0..old_cap {
            let w = old[old_cap + s];
            if w != 0.0 {
                self.set(s, w);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_tree_finds_nothing() {
        let t = SumTree::default();
        assert_eq!(t.total(), 0.0);
        assert_eq!(t.find(0.0), None);
    }

    #[test]
    fn zero_weights_are_never_found() {
        let mut t = SumTree::default();
        t.set(0, 0.0);
        t.set(1, 2.0);
        t.set(2, 0.0);
        t.set(3, 1.0);
        for k in 0..30 {
            let p = k as f64 / 10.0;
            let s = t.find(p).unwrap();
            assert!(s == 1 || s == 3, "point {p} found slot {s}");
        }
        assert_eq!(t.find(1.99), Some(1));
        assert_eq!(t.find(2.0), Some(3));
    }

    proptest! {
        /// The slot found is the one a linear walk over the weights finds.
        #[test]
        fn finds_what_a_linear_walk_finds(
            weights in proptest::collection::vec(0.0f64..10.0, 1..40),
            updates in proptest::collection::vec((0usize..40, 0.0f64..10.0), 0..20),
            frac in 0.0f64..1.0,
        ) {
            let mut t = SumTree::default();
            let mut w = weights.clone();
            for (s, x) in w.iter().enumerate() {
                t.set(s, *x);
            }
            for (s, x) in updates {
                let s = s % w.len();
                w[s] = x;
                t.set(s, x);
            }
            let total: f64 = w.iter().sum();
            prop_assume!(total > 0.0);
            let point = frac * t.total();
            let found = t.find(point).unwrap();
            prop_assert!(w[found] > 0.0);
            let before: f64 = w[..found].iter().sum();
            // Sums in another order may differ in the last bits.
            let eps = 1e-9 * total.max(1.0);
            prop_assert!(before <= point + eps, "slot {found} starts at {before} > {point}");
            prop_assert!(point < before + w[found] + eps);
        }
    }
}
