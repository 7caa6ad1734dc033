//! Property tests of the simplifier: random expression trees built through
//! the simplifying builders must evaluate exactly like the same trees
//! evaluated directly by a small reference interpreter that never
//! simplifies. The generator is shared with the solver's tests, which check
//! the Z3 translation against the same reference.

use super::{
    binary, cmp, concat, constant, eval, extract, not, read, select, sext, zext, Array, ArrayRef,
    Assignment, CmpOp, ExprRef, UpdateList,
};
use crate::ir::BinOp;
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Size of each symbolic test array.
pub(crate) const ARRAY_SIZE: u32 = 4;

/// An expression tree exactly as generated, before any simplification.
#[derive(Clone, Debug)]
pub(crate) enum T {
    Const(u128, u32),
    /// Byte `index` of symbolic array `array`.
    Byte(usize, u64),
    /// A read of symbolic array `array` at a symbolic index after writes
    /// (oldest first).
    Read(usize, Box<T>, Vec<(T, T)>),
    /// A read of the constant array at a symbolic index.
    ReadConst(Box<T>),
    Bin(BinOp, Box<T>, Box<T>),
    Cmp(CmpOp, Box<T>, Box<T>),
    Select(Box<T>, Box<T>, Box<T>),
    Concat(Box<T>, Box<T>),
    Extract(Box<T>, u32, u32),
    ZExt(Box<T>, u32),
    SExt(Box<T>, u32),
    Not(Box<T>),
}

/// The arrays a generated tree refers to.
pub(crate) struct Env {
    pub sym: Vec<ArrayRef>,
    pub konst: ArrayRef,
}

impl Env {
    pub(crate) fn new(tag: &str) -> Self {
        Env {
            sym: vec![
                Array::symbolic(&format!("{tag}_p"), ARRAY_SIZE),
                Array::symbolic(&format!("{tag}_q"), ARRAY_SIZE),
            ],
            konst: Array::constant(&format!("{tag}_k"), vec![0x80, 0x01, 0xff, 0x7f, 0x2a]),
        }
    }

    /// The assignment giving array `i` the bytes `bytes[4i..4i+4]`.
    pub(crate) fn assignment(&self, bytes: &[u8]) -> Assignment {
        let mut a = Assignment::new();
        for (i, arr) in self.sym.iter().enumerate() {
            let n = ARRAY_SIZE as usize;
            a.set(arr, bytes[i * n..(i + 1) * n].to_vec());
        }
        a
    }
}

const WIDTHS: [u32; 9] = [1, 3, 8, 13, 16, 32, 64, 65, 128];
const OPS: [BinOp; 13] = BinOp::ALL;
const CMPS: [CmpOp; 5] = [CmpOp::Eq, CmpOp::Ult, CmpOp::Ule, CmpOp::Slt, CmpOp::Sle];

fn m(w: u32) -> u128 {
    if w == 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

impl T {
    pub(crate) fn width(&self) -> u32 {
        match self {
            T::Const(_, w) => *w,
            T::Byte(..) | T::Read(..) | T::ReadConst(_) => 8,
            T::Bin(_, a, _) | T::Not(a) => a.width(),
            T::Cmp(..) => 1,
            T::Select(_, t, _) => t.width(),
            T::Concat(a, b) => a.width() + b.width(),
            T::Extract(_, _, w) | T::ZExt(_, w) | T::SExt(_, w) => *w,
        }
    }
}

/// Random trees of a requested width.
pub(crate) struct Gen {
    rng: SmallRng,
}

impl Gen {
    pub(crate) fn new(seed: u64) -> Self {
        Gen {
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    pub(crate) fn width(&mut self) -> u32 {
        WIDTHS[self.rng.gen_range(0..WIDTHS.len())]
    }

    fn konst(&mut self, w: u32) -> T {
        let special = [0, 1, 2, m(w), m(w) >> 1, 1u128 << (w - 1), 7];
        let v = if self.rng.gen_bool(0.6) {
            special[self.rng.gen_range(0..special.len())]
        } else {
            self.rng.gen::<u128>()
        };
        T::Const(v & m(w), w)
    }

    /// Symbolic bytes glued and cut to `w` bits.
    fn sym_leaf(&mut self, w: u32) -> T {
        let mut t = self.byte();
        while t.width() < w {
            let b = self.byte();
            t = T::Concat(Box::new(b), Box::new(t));
        }
        if t.width() > w {
            let off = self.rng.gen_range(0..=t.width() - w);
            t = T::Extract(Box::new(t), off, w);
        }
        t
    }

    fn byte(&mut self) -> T {
        T::Byte(
            self.rng.gen_range(0..2),
            self.rng.gen_range(0..ARRAY_SIZE as u64 + 1),
        )
    }

    /// A 64-bit index that is mostly small, sometimes out of bounds.
    fn index(&mut self, depth: u32) -> T {
        if self.rng.gen_bool(0.3) {
            return T::Const(self.rng.gen_range(0..ARRAY_SIZE as u128 + 2), 64);
        }
        let small = self.gen(3, depth.saturating_sub(1));
        T::ZExt(Box::new(small), 64)
    }

    pub(crate) fn gen(&mut self, w: u32, depth: u32) -> T {
        if depth == 0 || self.rng.gen_bool(0.2) {
            return if self.rng.gen_bool(0.4) {
                self.konst(w)
            } else {
                self.sym_leaf(w)
            };
        }
        let d = depth - 1;
        // Conditions are mostly comparisons, as in real programs; this also
        // puts the comparison rules under heavy test.
        let cmp_bias = w == 1 && self.rng.gen_bool(0.5);
        loop {
            match if cmp_bias {
                3
            } else {
                self.rng.gen_range(0..10)
            } {
                0..=2 => {
                    let op = OPS[self.rng.gen_range(0..OPS.len())];
                    // Constant operands are what most rewrite rules look
                    // for, so make them common on either side.
                    let a = if self.rng.gen_bool(0.25) {
                        self.konst(w)
                    } else {
                        self.gen(w, d)
                    };
                    let b = if matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr)
                        && self.rng.gen_bool(0.5)
                    {
                        T::Const(self.rng.gen_range(0..w as u128 + 2) & m(w), w)
                    } else if self.rng.gen_bool(0.25) {
                        self.konst(w)
                    } else {
                        self.gen(w, d)
                    };
                    return T::Bin(op, Box::new(a), Box::new(b));
                }
                3 if w == 1 => {
                    let wi = self.width();
                    let op = CMPS[self.rng.gen_range(0..CMPS.len())];
                    let a = self.gen(wi, d);
                    let b = if self.rng.gen_bool(0.4) {
                        self.konst(wi)
                    } else {
                        self.gen(wi, d)
                    };
                    return T::Cmp(op, Box::new(a), Box::new(b));
                }
                4 => {
                    let c = self.gen(1, d);
                    return T::Select(
                        Box::new(c),
                        Box::new(self.gen(w, d)),
                        Box::new(self.gen(w, d)),
                    );
                }
                5 if w >= 2 => {
                    let lo = self.rng.gen_range(1..w);
                    let a = self.gen(w - lo, d);
                    let b = self.gen(lo, d);
                    return T::Concat(Box::new(a), Box::new(b));
                }
                6 => {
                    let candidates: Vec<u32> = WIDTHS.iter().copied().filter(|&x| x >= w).collect();
                    let ws = candidates[self.rng.gen_range(0..candidates.len())];
                    let off = self.rng.gen_range(0..=ws - w);
                    return T::Extract(Box::new(self.gen(ws, d)), off, w);
                }
                7 if w >= 2 => {
                    let candidates: Vec<u32> = WIDTHS.iter().copied().filter(|&x| x < w).collect();
                    let wi = candidates[self.rng.gen_range(0..candidates.len())];
                    let inner = Box::new(self.gen(wi, d));
                    return if self.rng.gen_bool(0.5) {
                        T::ZExt(inner, w)
                    } else {
                        T::SExt(inner, w)
                    };
                }
                8 => return T::Not(Box::new(self.gen(w, d))),
                9 if w == 8 => {
                    if self.rng.gen_bool(0.3) {
                        return T::ReadConst(Box::new(self.index(d)));
                    }
                    let n = self.rng.gen_range(0..4);
                    let writes = (0..n).map(|_| (self.index(d), self.gen(8, d))).collect();
                    return T::Read(self.rng.gen_range(0..2), Box::new(self.index(d)), writes);
                }
                _ => continue,
            }
        }
    }
}

impl Gen {
    fn leaf_or_const(&mut self, w: u32) -> T {
        if self.rng.gen_bool(0.5) {
            self.konst(w)
        } else {
            self.sym_leaf(w)
        }
    }

    /// One-level shape number `k` (of [`INNER_SHAPES`]) over leaves and
    /// constants: what the rewrite rules look for below the node they
    /// rewrite. Shapes that do not exist at width `w` give a leaf.
    pub(crate) fn inner(&mut self, w: u32, k: usize) -> T {
        let n = OPS.len();
        match k {
            _ if k < n => T::Bin(OPS[k], Box::new(self.konst(w)), Box::new(self.sym_leaf(w))),
            _ if k < 2 * n => T::Bin(
                OPS[k - n],
                Box::new(self.sym_leaf(w)),
                Box::new(self.konst(w)),
            ),
            26 => T::Not(Box::new(self.sym_leaf(w))),
            27 | 28 if w >= 2 => {
                let wi = if self.rng.gen_bool(0.3) {
                    1
                } else {
                    self.rng.gen_range(1..w)
                };
                let x = Box::new(self.sym_leaf(wi));
                if k == 27 {
                    T::ZExt(x, w)
                } else {
                    T::SExt(x, w)
                }
            }
            29 if w >= 2 => {
                let lo = self.rng.gen_range(1..w);
                T::Concat(
                    Box::new(self.leaf_or_const(w - lo)),
                    Box::new(self.leaf_or_const(lo)),
                )
            }
            30 if w < 128 => {
                let ws = self.rng.gen_range(w + 1..=128.min(w + 16));
                let off = self.rng.gen_range(0..=ws - w);
                T::Extract(Box::new(self.sym_leaf(ws)), off, w)
            }
            31 => {
                let c = Box::new(self.sym_leaf(1));
                T::Select(
                    c,
                    Box::new(self.leaf_or_const(w)),
                    Box::new(self.leaf_or_const(w)),
                )
            }
            32..=36 if w == 1 => {
                let wi = self.width();
                T::Cmp(
                    CMPS[k - 32],
                    Box::new(self.sym_leaf(wi)),
                    Box::new(self.leaf_or_const(wi)),
                )
            }
            37 if w == 8 => {
                let i = self.index(1);
                let v = self.leaf_or_const(8);
                T::Read(
                    self.rng.gen_range(0..2),
                    Box::new(self.index(1)),
                    vec![(i, v)],
                )
            }
            38 => self.konst(w),
            _ => self.sym_leaf(w),
        }
    }

    fn any_inner(&mut self, w: u32) -> T {
        if self.rng.gen_bool(0.4) {
            self.konst(w)
        } else {
            let k = self.rng.gen_range(0..INNER_SHAPES);
            self.inner(w, k)
        }
    }

    /// A two-level tree: outer operation number `o` (of [`OUTER_SHAPES`])
    /// over inner shapes; `first`/`second` fix the shape of the first or
    /// second operand (random when `None`).
    pub(crate) fn local(&mut self, o: usize, first: Option<usize>, second: Option<usize>) -> T {
        let operand = |g: &mut Gen, w: u32, which: Option<usize>| match which {
            Some(k) => g.inner(w, k),
            None => g.any_inner(w),
        };
        let n = OPS.len();
        match o {
            _ if o < n => {
                let w = self.width();
                let a = operand(self, w, first);
                let b = operand(self, w, second);
                T::Bin(OPS[o], Box::new(a), Box::new(b))
            }
            _ if o < n + CMPS.len() => {
                let wi = self.width();
                let a = operand(self, wi, first);
                let b = operand(self, wi, second);
                T::Cmp(CMPS[o - n], Box::new(a), Box::new(b))
            }
            18 => {
                let w = self.width();
                T::Not(Box::new(operand(self, w, first)))
            }
            19 => {
                let ws = self.width().max(2);
                let w = self.rng.gen_range(1..ws);
                let off = self.rng.gen_range(0..=ws - w);
                T::Extract(Box::new(operand(self, ws, first)), off, w)
            }
            20 | 21 => {
                let wi = self.width().min(127);
                let w = self.rng.gen_range(wi + 1..=128);
                let x = Box::new(operand(self, wi, first));
                if o == 20 {
                    T::ZExt(x, w)
                } else {
                    T::SExt(x, w)
                }
            }
            22 => {
                let w = self.width().max(2);
                let lo = self.rng.gen_range(1..w);
                let a = operand(self, w - lo, first);
                let b = operand(self, lo, second);
                T::Concat(Box::new(a), Box::new(b))
            }
            23 => {
                let w = self.width();
                let c = operand(self, 1, first);
                let a = operand(self, w, second);
                let b = self.any_inner(w);
                T::Select(Box::new(c), Box::new(a), Box::new(b))
            }
            _ => {
                let j = operand(self, 64, first);
                let v = operand(self, 8, second);
                let i = self.any_inner(64);
                T::Read(self.rng.gen_range(0..2), Box::new(j), vec![(i, v)])
            }
        }
    }
}

/// Number of shapes [`Gen::inner`] knows.
pub(crate) const INNER_SHAPES: usize = 40;
/// Number of shapes [`Gen::local`] knows.
pub(crate) const OUTER_SHAPES: usize = 25;

/// The one byte of a fresh symbolic array `name`: an unknown for tests of
/// the layers above the builders.
pub(crate) fn input_byte(name: &str) -> ExprRef {
    read(&UpdateList::new(Array::symbolic(name, 1)), &constant(0, 64))
}

/// Builds the tree with the simplifying builders.
pub(crate) fn build(t: &T, env: &Env) -> ExprRef {
    let b = |x: &T| build(x, env);
    match t {
        T::Const(v, w) => constant(*v, *w),
        T::Byte(a, i) => read(
            &UpdateList::new(env.sym[*a].clone()),
            &constant(*i as u128, 64),
        ),
        T::Read(a, idx, writes) => {
            let mut l = UpdateList::new(env.sym[*a].clone());
            for (i, v) in writes {
                l = l.write(b(i), b(v));
            }
            read(&l, &b(idx))
        }
        T::ReadConst(idx) => read(&UpdateList::new(env.konst.clone()), &b(idx)),
        T::Bin(op, x, y) => binary(*op, &b(x), &b(y)),
        T::Cmp(op, x, y) => cmp(*op, &b(x), &b(y)),
        T::Select(c, x, y) => select(&b(c), &b(x), &b(y)),
        T::Concat(x, y) => concat(&b(x), &b(y)),
        T::Extract(x, off, w) => extract(&b(x), *off, *w),
        T::ZExt(x, w) => zext(&b(x), *w),
        T::SExt(x, w) => sext(&b(x), *w),
        T::Not(x) => not(&b(x)),
    }
}

/// Two's complement value of `v` at width `w`, computed from the sign bit.
fn signed(v: u128, w: u32) -> i128 {
    if w < 128 && v >> (w - 1) & 1 == 1 {
        (v as i128) - (1i128 << (w - 1)) - (1i128 << (w - 1))
    } else {
        v as i128
    }
}

/// Evaluates the tree directly, following the LLVM semantics (and the
/// engine's conventions for division by zero and oversized shifts).
pub(crate) fn reference(t: &T, env: &Env, bytes: &[u8]) -> u128 {
    let r = |x: &T| reference(x, env, bytes);
    let sym = |a: usize, i: u128| -> u128 {
        if i < ARRAY_SIZE as u128 {
            bytes[a * ARRAY_SIZE as usize + i as usize] as u128
        } else {
            0
        }
    };
    match t {
        T::Const(v, _) => *v,
        T::Byte(a, i) => sym(*a, *i as u128),
        T::Read(a, idx, writes) => {
            let i = r(idx);
            for (wi, wv) in writes.iter().rev() {
                if r(wi) == i {
                    return r(wv);
                }
            }
            sym(*a, i)
        }
        T::ReadConst(idx) => {
            let i = r(idx);
            let init = env.konst.init.as_deref().unwrap_or(&[]);
            if i < init.len() as u128 {
                init[i as usize] as u128
            } else {
                0
            }
        }
        T::Bin(op, x, y) => {
            let w = x.width();
            let (a, b) = (r(x), r(y));
            let res = match op {
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_add((!b).wrapping_add(1)),
                BinOp::Mul => {
                    // Shift-and-add multiplication.
                    let mut acc = 0u128;
                    for bit in 0..w {
                        if b >> bit & 1 == 1 {
                            acc = acc.wrapping_add(a << bit);
                        }
                    }
                    acc
                }
                BinOp::UDiv => a.checked_div(b).unwrap_or(0),
                BinOp::URem => {
                    if b == 0 {
                        0
                    } else {
                        a % b
                    }
                }
                BinOp::SDiv | BinOp::SRem => {
                    if b == 0 {
                        0
                    } else {
                        // Sign and magnitude: C truncates toward zero, the
                        // remainder has the dividend's sign.
                        let (sa, sb) = (signed(a, w), signed(b, w));
                        let (ma, mb) = (sa.unsigned_abs(), sb.unsigned_abs());
                        if *op == BinOp::SDiv {
                            let q = ma / mb;
                            if (sa < 0) != (sb < 0) {
                                q.wrapping_neg()
                            } else {
                                q
                            }
                        } else {
                            let rem = ma % mb;
                            if sa < 0 {
                                rem.wrapping_neg()
                            } else {
                                rem
                            }
                        }
                    }
                }
                BinOp::And => a & b,
                BinOp::Or => a | b,
                BinOp::Xor => a ^ b,
                BinOp::Shl => (0..w).fold(0, |acc, bit| {
                    let src = bit as u128;
                    if src >= b && a >> (src - b) & 1 == 1 {
                        acc | 1u128 << bit
                    } else {
                        acc
                    }
                }),
                BinOp::LShr | BinOp::AShr => {
                    let sign = a >> (w - 1) & 1;
                    (0..w).fold(0, |acc, bit| {
                        let src = (bit as u128).saturating_add(b);
                        let v = if src < w as u128 {
                            a >> src & 1
                        } else if *op == BinOp::AShr {
                            sign
                        } else {
                            0
                        };
                        acc | v << bit
                    })
                }
            };
            res & m(w)
        }
        T::Cmp(op, x, y) => {
            let w = x.width();
            let (a, b) = (r(x), r(y));
            let res = match op {
                CmpOp::Eq => a == b,
                CmpOp::Ult => a < b,
                CmpOp::Ule => a <= b,
                CmpOp::Slt => signed(a, w) < signed(b, w),
                CmpOp::Sle => signed(a, w) <= signed(b, w),
            };
            res as u128
        }
        T::Select(c, x, y) => {
            if r(c) != 0 {
                r(x)
            } else {
                r(y)
            }
        }
        T::Concat(x, y) => r(x) << y.width() | r(y),
        T::Extract(x, off, w) => r(x) >> off & m(*w),
        T::ZExt(x, _) => r(x),
        T::SExt(x, w) => {
            let xw = x.width();
            let v = r(x);
            if v >> (xw - 1) & 1 == 1 {
                (v | (m(*w) & !m(xw))) & m(*w)
            } else {
                v
            }
        }
        T::Not(x) => !r(x) & m(x.width()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn simplified_expressions_evaluate_like_the_reference(
        seed in any::<u64>(),
        depth in 1u32..6,
        bytes in proptest::collection::vec(any::<u8>(), 8),
    ) {
        let env = Env::new("pt");
        let mut g = Gen::new(seed);
        let w = if seed % 3 == 0 { 1 } else { g.width() };
        let tree = g.gen(w, depth);
        let e = build(&tree, &env);
        prop_assert_eq!(e.width(), w);
        let special: [Vec<u8>; 3] = [vec![0; 8], vec![0xff; 8], vec![0x80, 1, 2, 3, 0x7f, 0, 4, 0xfe]];
        for bs in std::iter::once(&bytes).chain(special.iter()) {
            let asg = env.assignment(bs);
            let expected = reference(&tree, &env, bs);
            prop_assert_eq!(eval(&e, &asg), expected, "tree {:?}\nbuilt {:?}", tree, e);
        }
    }

    #[test]
    fn simplified_local_shapes_evaluate_like_the_reference(
        seed in any::<u64>(),
        bytes in proptest::collection::vec(any::<u8>(), 8),
    ) {
        let env = Env::new("pl");
        let mut g = Gen::new(seed);
        let tree = g.local((seed % OUTER_SHAPES as u64) as usize, None, None);
        let e = build(&tree, &env);
        prop_assert_eq!(e.width(), tree.width());
        let special: [Vec<u8>; 3] = [vec![0; 8], vec![0xff; 8], vec![0x80, 1, 2, 3, 0x7f, 0, 4, 0xfe]];
        for bs in std::iter::once(&bytes).chain(special.iter()) {
            let asg = env.assignment(bs);
            let expected = reference(&tree, &env, bs);
            prop_assert_eq!(eval(&e, &asg), expected, "tree {:?}\nbuilt {:?}", tree, e);
        }
    }
}

/// Every rewrite rule looks at most two levels deep, so every pair of an
/// outer operation and an operand shape is tried, in both operand
/// positions, with random constants, widths and assignments.
#[test]
fn every_two_level_shape_evaluates_like_the_reference() {
    let env = Env::new("shape");
    let mut g = Gen::new(0x5eed);
    let mut rng = SmallRng::seed_from_u64(7);
    for o in 0..OUTER_SHAPES {
        for k in 0..INNER_SHAPES {
            for rep in 0..12 {
                let tree = if rep % 2 == 0 {
                    g.local(o, Some(k), None)
                } else {
                    g.local(o, None, Some(k))
                };
                let e = build(&tree, &env);
                assert_eq!(e.width(), tree.width(), "{tree:?}");
                for _ in 0..3 {
                    let bytes: Vec<u8> = (0..8)
                        .map(|_| [0, 1, 0x7f, 0x80, 0xff, rng.gen()][rng.gen_range(0..6)])
                        .collect();
                    let asg = env.assignment(&bytes);
                    assert_eq!(
                        eval(&e, &asg),
                        reference(&tree, &env, &bytes),
                        "tree {tree:?}\nbuilt {e:?}\nbytes {bytes:?}"
                    );
                }
            }
        }
    }
}
