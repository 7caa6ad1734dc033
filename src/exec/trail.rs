//! A persistent sequence that grows at its end: what a path appends to
//! (its decisions, its symbolic inputs) and what the paths forked from it
//! share.
//!
//! Each pending path holds one. A fork clones it in O(1), and a push
//! allocates one link holding the new element; everything before it stays
//! shared with the path's siblings. `imbl::Vector`, used before, copied its
//! whole tail chunk of 64 elements on the first push after a fork: 3 KB a
//! path for decisions alone, most of a pending path's memory on a loop
//! reading fresh input. (`rpds`' list would do, but boxes every element on
//! its own, two allocations a push, and grows at its front.)

use std::fmt;
use std::sync::Arc;

/// A persistent, append-only sequence with O(1) clone and push.
pub struct Trail<T> {
    last: Option<Arc<Link<T>>>,
    len: usize,
}

struct Link<T> {
    value: T,
    prev: Option<Arc<Link<T>>>,
}

impl<T> Trail<T> {
    /// An empty trail.
    pub fn new() -> Self {
        Trail { last: None, len: 0 }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the trail has no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `value`.
    pub fn push_back(&mut self, value: T) {
        let prev = self.last.take();
        self.last = Some(Arc::new(Link { value, prev }));
        self.len += 1;
    }

    /// The last element.
    pub fn last(&self) -> Option<&T> {
        self.last.as_deref().map(|l| &l.value)
    }

    /// The elements from the last to the first, without allocating.
    pub fn iter_rev(&self) -> impl Iterator<Item = &T> {
        let mut at = self.last.as_deref();
        std::iter::from_fn(move || {
            let link = at?;
            at = link.prev.as_deref();
            Some(&link.value)
        })
    }

    /// The elements from the first to the last. The links point backwards,
    /// so this gathers the trail's references first: one allocation of
    /// `len` pointers.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator {
        let mut refs: Vec<&T> = Vec::with_capacity(self.len);
        refs.extend(self.iter_rev());
        refs.reverse();
        refs.into_iter()
    }
}

impl<T: Clone> Trail<T> {
    /// Applies `change` to the element at `index` (counted from the first),
    /// if there is one. The links after it are rebuilt, and the link itself
    /// copied where another path shares it: this costs the distance from
    /// the end.
    pub fn update(&mut self, index: usize, change: impl FnOnce(&mut T)) {
        if index >= self.len {
            return;
        }
        let mut after = Vec::with_capacity(self.len - index - 1);
        while self.len > index + 1 {
            after.push(self.pop_cloned());
        }
        let mut value = self.pop_cloned();
        change(&mut value);
        self.push_back(value);
        for v in after.into_iter().rev() {
            self.push_back(v);
        }
    }

    /// Removes the last element, taking it out of its link when no other
    /// path shares the link.
    fn pop_cloned(&mut self) -> T {
        let link = self.last.take().expect("pop from a non-empty trail");
        self.len -= 1;
        match Arc::try_unwrap(link) {
            Ok(Link { value, prev }) => {
                self.last = prev;
                value
            }
            Err(shared) => {
                self.last = shared.prev.clone();
                shared.value.clone()
            }
        }
    }
}

impl<T> Default for Trail<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for Trail<T> {
    fn clone(&self) -> Self {
        Trail {
            last: self.last.clone(),
            len: self.len,
        }
    }
}

/// Dropped link by link: a deep path's trail is far longer than the call
/// stack a recursive drop would need.
impl<T> Drop for Trail<T> {
    fn drop(&mut self) {
        let mut at = self.last.take();
        while let Some(link) = at {
            match Arc::try_unwrap(link) {
                Ok(mut owned) => at = owned.prev.take(),
                Err(_) => break,
            }
        }
    }
}

impl<T> FromIterator<T> for Trail<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut t = Trail::new();
        for v in iter {
            t.push_back(v);
        }
        t
    }
}

impl<T: fmt::Debug> fmt::Debug for Trail<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forks_share_what_came_before_and_keep_their_own_ends() {
        let mut a: Trail<u32> = (0..5).collect();
        let mut b = a.clone();
        a.push_back(5);
        b.push_back(50);
        assert_eq!(a.iter().copied().collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
        assert_eq!(b.iter().copied().collect::<Vec<_>>(), [0, 1, 2, 3, 4, 50]);
        assert_eq!(
            b.iter_rev().copied().collect::<Vec<_>>(),
            [50, 4, 3, 2, 1, 0]
        );
        assert_eq!((a.len(), b.last()), (6, Some(&50)));
        // The first five links are one allocation each, held by both.
        let shared = |t: &Trail<u32>| t.last.as_ref().unwrap().prev.clone().unwrap();
        assert!(Arc::ptr_eq(&shared(&a), &shared(&b)));
    }

    #[test]
    fn an_update_changes_one_path_only() {
        let mut a: Trail<u32> = (0..6).collect();
        let b = a.clone();
        a.update(2, |v| *v = 20);
        a.update(5, |v| *v += 1);
        a.update(6, |_| panic!("past the end"));
        assert_eq!(a.iter().copied().collect::<Vec<_>>(), [0, 1, 20, 3, 4, 6]);
        assert_eq!(b.iter().copied().collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
        assert_eq!(a.len(), 6);
        let mut c = b.clone();
        c.update(0, |v| *v = 7);
        assert_eq!(c.iter().copied().collect::<Vec<_>>(), [7, 1, 2, 3, 4, 5]);
        assert_eq!(b.iter().copied().collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_trail_longer_than_the_stack_allows_recursion_drops() {
        let mut t = Trail::new();
        for i in 0..1_000_000u64 {
            t.push_back(i);
        }
        let half = t.clone();
        t.push_back(7);
        drop(t);
        assert_eq!(half.len(), 1_000_000);
        assert_eq!(half.last(), Some(&999_999));
        drop(half);
    }
}
