//! The bytes of an object while they are bytes at known places (see
//! [`super::memory::ObjectState`]): concrete bytes, and a slot per byte for
//! the symbolic ones once there is one.
//!
//! A small object keeps them flat. A large one keeps them in pages that
//! the copies of the object share: states share an object until one writes
//! it, and then copied all of it, so every path that read its input into
//! cat's 128 KiB buffer held a buffer of its own, with a megabyte of slots
//! for the symbolic bytes in it, and cat reached `--max-memory` in seconds.
//! Now a write copies the page it falls in, and a page nobody wrote (most
//! of a zeroed buffer) is held by nobody.

use std::sync::Arc;

use super::budget;
use crate::expr::ExprRef;

/// Bytes in a page, and the size from which an object is paged.
const PAGE_BITS: u32 = 12;
const PAGE: u64 = 1 << PAGE_BITS;

/// The length of page `n` of an object of `size` bytes (the last may be
/// short).
fn page_len(size: u64, n: usize) -> usize {
    (size - ((n as u64) << PAGE_BITS)).min(PAGE) as usize
}

/// Bytes and their symbolic ones.
#[derive(Clone, Debug)]
pub(super) struct Chunk {
    bytes: Vec<u8>,
    /// One slot per byte, made at the first symbolic byte.
    symbolic: Option<Box<[Option<ExprRef>]>>,
}

impl Chunk {
    fn zeroed(len: usize) -> Chunk {
        Chunk {
            bytes: vec![0; len],
            symbolic: None,
        }
    }

    fn footprint(&self) -> u64 {
        let slots = self
            .symbolic
            .as_ref()
            .map_or(0, |s| std::mem::size_of_val::<[Option<ExprRef>]>(s));
        (self.bytes.capacity() + slots) as u64
    }

    fn symbolic_at(&self, i: usize) -> Option<&ExprRef> {
        self.symbolic.as_ref()?[i].as_ref()
    }

    fn set_concrete(&mut self, i: usize, v: u8) {
        self.bytes[i] = v;
        if let Some(slots) = &mut self.symbolic {
            slots[i] = None;
        }
    }

    fn set_symbolic(&mut self, i: usize, e: ExprRef) {
        let len = self.bytes.len();
        self.symbolic
            .get_or_insert_with(|| vec![None; len].into_boxed_slice())[i] = Some(e);
    }
}

/// A page of a large object: counted against `--max-memory` by itself, as
/// the copies of the object share it.
#[derive(Debug)]
pub(super) struct Page(Chunk);

impl Page {
    fn new(chunk: Chunk) -> Page {
        budget::count(0, chunk.footprint());
        Page(chunk)
    }
}

impl Clone for Page {
    fn clone(&self) -> Page {
        Page::new(self.0.clone())
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        budget::count(self.0.footprint(), 0);
    }
}

/// A large object's size, counted against `--max-memory` once for all its
/// copies while one lives: memory the program allocated counts even where
/// it touched no page of it (200 blocks of a MiB, never written, are 200
/// MiB), as they would natively. The pages the copies write count besides.
#[derive(Debug)]
pub(super) struct Reservation(u64);

impl Reservation {
    fn new(size: u64) -> Arc<Reservation> {
        budget::count(0, size);
        Arc::new(Reservation(size))
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        budget::count(self.0, 0);
    }
}

/// An object's bytes.
#[derive(Clone, Debug)]
pub(super) enum Bytes {
    Flat(Chunk),
    Paged {
        size: u64,
        /// Held for its count, given back when the last copy goes.
        _reserved: Arc<Reservation>,
        /// `None`: a page of zeros, none symbolic.
        pages: Vec<Option<Arc<Page>>>,
        /// Whether a byte was ever made symbolic (the fast paths check).
        any_symbolic: bool,
    },
}

impl Bytes {
    /// No bytes (the contents live elsewhere).
    pub(super) fn none() -> Bytes {
        Bytes::Flat(Chunk::zeroed(0))
    }

    pub(super) fn zeroed(size: u64) -> Bytes {
        if size <= PAGE {
            return Bytes::Flat(Chunk::zeroed(size as usize));
        }
        Bytes::Paged {
            size,
            _reserved: Reservation::new(size),
            pages: vec![None; size.div_ceil(PAGE) as usize],
            any_symbolic: false,
        }
    }

    pub(super) fn from_vec(bytes: Vec<u8>) -> Bytes {
        let size = bytes.len() as u64;
        if size <= PAGE {
            return Bytes::Flat(Chunk {
                bytes,
                symbolic: None,
            });
        }
        let pages = bytes
            .chunks(PAGE as usize)
            .map(|c| {
                (c.iter().any(|&b| b != 0)).then(|| {
                    Arc::new(Page::new(Chunk {
                        bytes: c.to_vec(),
                        symbolic: None,
                    }))
                })
            })
            .collect();
        Bytes::Paged {
            size,
            _reserved: Reservation::new(size),
            pages,
            any_symbolic: false,
        }
    }

    /// The bytes this instance holds alone: its flat buffers, or its table
    /// of pages (the pages count themselves).
    pub(super) fn own_footprint(&self) -> u64 {
        match self {
            Bytes::Flat(c) => c.footprint(),
            Bytes::Paged { pages, .. } => {
                std::mem::size_of_val::<[Option<Arc<Page>>]>(pages) as u64
            }
        }
    }

    /// Everything this instance reaches, pages it shares included (the
    /// object's [`Reservation`] is a count, not bytes held).
    pub(super) fn footprint(&self) -> u64 {
        match self {
            Bytes::Flat(c) => c.footprint(),
            Bytes::Paged { pages, .. } => {
                self.own_footprint() + pages.iter().flatten().map(|p| p.0.footprint()).sum::<u64>()
            }
        }
    }

    /// Whether every byte is concrete (conservatively: once one was
    /// symbolic, never again).
    pub(super) fn all_concrete(&self) -> bool {
        match self {
            Bytes::Flat(c) => c.symbolic.is_none(),
            Bytes::Paged { any_symbolic, .. } => !any_symbolic,
        }
    }

    /// The chunk holding `offset` (`None`: a page of zeros), the index of
    /// `offset` in it and the bytes from there to the chunk's end.
    fn chunk_at(&self, offset: u64) -> (Option<&Chunk>, usize, usize) {
        match self {
            Bytes::Flat(c) => (Some(c), offset as usize, c.bytes.len() - offset as usize),
            Bytes::Paged { size, pages, .. } => {
                let n = (offset >> PAGE_BITS) as usize;
                let i = (offset & (PAGE - 1)) as usize;
                (pages[n].as_ref().map(|p| &p.0), i, page_len(*size, n) - i)
            }
        }
    }

    /// The byte at `offset`: its expression if symbolic, else its value.
    pub(super) fn get(&self, offset: u64) -> Result<&ExprRef, u8> {
        match self.chunk_at(offset) {
            (None, ..) => Err(0),
            (Some(c), i, _) => c.symbolic_at(i).ok_or(c.bytes[i]),
        }
    }

    /// The chunk holding `offset` and the index in it, made writable:
    /// a shared page is copied, a page of zeros made.
    fn chunk_mut(&mut self, offset: u64) -> (&mut Chunk, usize) {
        match self {
            Bytes::Flat(c) => (c, offset as usize),
            Bytes::Paged { size, pages, .. } => {
                let n = (offset >> PAGE_BITS) as usize;
                let len = page_len(*size, n);
                let page = pages[n].get_or_insert_with(|| Arc::new(Page::new(Chunk::zeroed(len))));
                (&mut Arc::make_mut(page).0, (offset & (PAGE - 1)) as usize)
            }
        }
    }

    pub(super) fn set_concrete(&mut self, offset: u64, v: u8) {
        self.write_concrete(offset, 1, u128::from(v));
    }

    pub(super) fn set_symbolic(&mut self, offset: u64, e: ExprRef) {
        let paged = match self {
            Bytes::Paged { any_symbolic, .. } => {
                *any_symbolic = true;
                true
            }
            Bytes::Flat(_) => false,
        };
        let (chunk, i) = self.chunk_mut(offset);
        let before = chunk.footprint();
        chunk.set_symbolic(i, e);
        // A page's first symbolic byte brings its slots, which the page
        // counts; a flat object's owner recounts.
        let after = chunk.footprint();
        if paged && after != before {
            budget::count(before, after);
        }
    }

    /// `n` (at most 16) concrete bytes at `offset`, little-endian; only
    /// while [`Self::all_concrete`] (a symbolic byte's place reads as the
    /// value it had before).
    pub(super) fn read_concrete(&self, offset: u64, n: u32) -> u128 {
        let (n, mut done, mut bits) = (n as usize, 0, 0u128);
        while done < n {
            let (chunk, i, left) = self.chunk_at(offset + done as u64);
            let take = left.min(n - done);
            if let Some(c) = chunk {
                for (k, b) in c.bytes[i..i + take].iter().enumerate() {
                    bits |= (*b as u128) << (8 * (done + k));
                }
            }
            done += take;
        }
        bits
    }

    /// Writes `n` concrete bytes of `bits` at `offset`, little-endian (the
    /// bytes past the 16th repeat them, as a wider store of a 128-bit
    /// value would), clearing symbolic ones there.
    pub(super) fn write_concrete(&mut self, offset: u64, n: u32, bits: u128) {
        let byte = |k: usize| (bits >> (8 * (k % 16))) as u8;
        let (n, mut done) = (n as usize, 0);
        while done < n {
            let at = offset + done as u64;
            let (chunk, _, left) = self.chunk_at(at);
            let take = left.min(n - done);
            // Zeros into a page of zeros: nothing to hold.
            if chunk.is_some() || (done..done + take).any(|k| byte(k) != 0) {
                let (c, i) = self.chunk_mut(at);
                for k in 0..take {
                    c.set_concrete(i + k, byte(done + k));
                }
            }
            done += take;
        }
    }

    /// Every concrete byte, in order (a symbolic byte's place holds the
    /// value it had before it became symbolic).
    pub(super) fn to_vec(&self) -> Vec<u8> {
        match self {
            Bytes::Flat(c) => c.bytes.clone(),
            Bytes::Paged { size, pages, .. } => {
                let mut out = Vec::with_capacity(*size as usize);
                for (n, page) in pages.iter().enumerate() {
                    match page {
                        Some(p) => out.extend_from_slice(&p.0.bytes),
                        None => out.resize(out.len() + page_len(*size, n), 0),
                    }
                }
                out
            }
        }
    }

    /// The symbolic bytes in the order of their offsets.
    pub(super) fn symbolic(&self) -> Vec<(u64, ExprRef)> {
        let chunks: Vec<(u64, &Chunk)> = match self {
            Bytes::Flat(c) => vec![(0, c)],
            Bytes::Paged { pages, .. } => pages
                .iter()
                .enumerate()
                .filter_map(|(n, p)| Some(((n as u64) << PAGE_BITS, &p.as_ref()?.0)))
                .collect(),
        };
        let mut out = Vec::new();
        for (base, chunk) in chunks {
            if let Some(slots) = &chunk.symbolic {
                out.extend(
                    slots
                        .iter()
                        .enumerate()
                        .filter_map(|(i, e)| Some((base + i as u64, e.clone()?))),
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{self, Array, UpdateList};

    fn sym(name: &str) -> ExprRef {
        expr::read(
            &UpdateList::new(Array::symbolic(name, 1)),
            &expr::constant(0, 64),
        )
    }

    #[test]
    fn a_copy_shares_the_pages_it_does_not_write() {
        let mut a = Bytes::zeroed(32 * PAGE);
        a.set_concrete(5, 1);
        a.set_concrete(3 * PAGE + 7, 2);
        let mut b = a.clone();
        b.set_concrete(3 * PAGE + 8, 3);
        let Bytes::Paged { pages: pa, .. } = &a else {
            panic!("a large object is paged")
        };
        let Bytes::Paged { pages: pb, .. } = &b else {
            panic!("a large object is paged")
        };
        // Two pages written, the rest zeros held by nobody.
        assert_eq!(pa.iter().flatten().count(), 2);
        assert!(Arc::ptr_eq(
            pa[0].as_ref().unwrap(),
            pb[0].as_ref().unwrap()
        ));
        assert!(!Arc::ptr_eq(
            pa[3].as_ref().unwrap(),
            pb[3].as_ref().unwrap()
        ));
        assert_eq!(a.get(3 * PAGE + 8), Err(0));
        assert_eq!(b.get(3 * PAGE + 8), Err(3));
        assert_eq!(b.get(3 * PAGE + 7), Err(2));
        // Zeros written into a page of zeros make no page.
        b.set_concrete(10 * PAGE, 0);
        let Bytes::Paged { pages: pb, .. } = &b else {
            unreachable!()
        };
        assert!(pb[10].is_none());
    }

    #[test]
    fn reads_and_writes_cross_page_boundaries() {
        // An object that ends in a partial page.
        let size = 2 * PAGE + 5;
        let mut o = Bytes::from_vec((0..size).map(|i| (i % 251) as u8).collect());
        let at = PAGE - 3;
        o.write_concrete(at, 8, 0x0807_0605_0403_0201);
        assert_eq!(o.read_concrete(at, 8), 0x0807_0605_0403_0201);
        assert_eq!(o.read_concrete(at - 1, 1), ((at - 1) % 251) as u128);
        assert_eq!(o.get(size - 1), Err(((size - 1) % 251) as u8));
        let all = o.to_vec();
        assert_eq!(all.len() as u64, size);
        assert_eq!(&all[at as usize..at as usize + 3], &[1, 2, 3]);
        assert_eq!(all[PAGE as usize], 4);
    }

    #[test]
    fn symbolic_bytes_are_listed_in_order_and_cleared_by_concrete_ones() {
        for size in [100, 3 * PAGE] {
            let mut o = Bytes::zeroed(size);
            assert!(o.all_concrete());
            let (x, y) = (sym("cx"), sym("cy"));
            o.set_symbolic(size - 1, y.clone());
            o.set_symbolic(2, x.clone());
            o.set_symbolic(3, x.clone());
            o.set_concrete(3, 9);
            assert!(!o.all_concrete());
            assert_eq!(o.get(2), Ok(&x));
            assert_eq!(o.get(3), Err(9));
            assert_eq!(o.symbolic(), vec![(2, x), (size - 1, y)]);
        }
    }

    #[test]
    fn a_page_counts_itself_once_for_all_copies() {
        // The count is the process's, which other tests change at the same
        // time: only the footprints are compared here.
        let mut a = Bytes::zeroed(4 * PAGE);
        let table = a.own_footprint();
        assert_eq!(a.footprint(), table);
        a.set_concrete(PAGE, 1);
        assert_eq!(a.footprint(), table + PAGE);
        a.set_symbolic(PAGE + 1, sym("cz"));
        let slots = PAGE * std::mem::size_of::<Option<ExprRef>>() as u64;
        assert_eq!(a.footprint(), table + PAGE + slots);
        // What a copy holds alone is its page table.
        let b = a.clone();
        assert_eq!(b.own_footprint(), table);
        let flat = Bytes::zeroed(100);
        assert_eq!(flat.own_footprint(), 100);
    }
}
