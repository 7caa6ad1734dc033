//! The values of an input byte that a set of expressions tells apart.
//!
//! A program that classifies its input compares each byte with a few
//! constants (`c == '('`, `c - '0' < 10`) and does nothing else with it:
//! of a byte's 256 values, only as many behave differently as the
//! comparisons cut its range into. A search that tries values of bytes
//! one by one (the nearby search) needs to try one value of each such
//! class, and a search of every combination of a few bytes' values,
//! proving that none is a witness, becomes small enough to finish: GNU
//! `expr`'s questions of whether a pointer into its table of operators
//! can fall elsewhere read three or four bytes so compared, and the
//! search of their 2^24 or 2^32 combinations spent its budget and left
//! each to the solver.
//!
//! A node of the expressions whose only input is the byte `b` (constants
//! aside) is a function of `b` alone. Where every node that reads other
//! input too reads `b` only through such nodes (its children), the
//! expressions' values depend on `b` only through the values of those
//! nodes, the byte's *frontier*: two values of `b` giving each frontier
//! node the same value give every expression the same value, whatever the
//! other bytes are. A byte that a node reading other input reads directly
//! (a read at a fixed index whose writes read other input, or a read of
//! its array at an index that depends on the input) has each value its own
//! class.

use super::enumerate::compiled::Compiled;
use super::enumerate::{each, has, put, same, Byte, Values};
use crate::expr::{ArrayRef, Assignment, Evaluated, ExprKind, ExprNode, ExprRef};
use rustc_hash::FxHashMap;
use std::cell::OnceCell;
use std::sync::Arc;

/// The most frontier nodes of one byte that are evaluated under each of
/// its 256 values; a byte with more has each value its own class.
const MAX_FRONTIER: usize = 256;

/// The inputs a node reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inputs {
    /// None: a constant whatever the model.
    None,
    /// One byte, by its place in [`ValueClasses::bytes`].
    One(usize),
    /// Several bytes.
    Many,
}

impl Inputs {
    fn join(self, other: Inputs) -> Inputs {
        match (self, other) {
            (Inputs::None, x) | (x, Inputs::None) => x,
            (Inputs::One(a), Inputs::One(b)) if a == b => Inputs::One(a),
            _ => Inputs::Many,
        }
    }
}

/// For each byte that some expressions read, which of its values they
/// tell apart. A byte's classes are worked out when first asked for.
pub(super) struct ValueClasses {
    bytes: Vec<ByteClasses>,
    /// The arrays read at an index that depends on the input: each of
    /// their bytes has each value its own class.
    indexed: Vec<ArrayRef>,
}

/// One byte's place in [`ValueClasses`].
struct ByteClasses {
    byte: Byte,
    /// The nodes that read the byte alone and are read by nodes reading
    /// other input too; `None` where such a node reads it directly.
    frontier: Option<Vec<ExprRef>>,
    /// The class of each value (numbered by its least value), or `None`
    /// where every value is its own class; once asked for.
    classes: OnceCell<Option<Box<[u8; 256]>>>,
}

impl ValueClasses {
    /// The bytes that `exprs` read, and the nodes their values reach the
    /// expressions through.
    pub(super) fn new(exprs: &[&ExprRef]) -> Self {
        let mut places: FxHashMap<(usize, u64), usize> = FxHashMap::default();
        let mut bytes: Vec<ByteClasses> = Vec::new();
        let mut inputs: FxHashMap<*const ExprNode, Inputs> = FxHashMap::default();
        let mut indexed: Vec<ArrayRef> = Vec::new();
        let mut place = |byte: Byte, bytes: &mut Vec<ByteClasses>| {
            let key = (Arc::as_ptr(&byte.0) as usize, byte.1);
            *places.entry(key).or_insert_with(|| {
                bytes.push(ByteClasses {
                    byte,
                    frontier: Some(Vec::new()),
                    classes: OnceCell::new(),
                });
                bytes.len() - 1
            })
        };
        // Post-order over the DAG: a node's inputs after its children's.
        let mut stack: Vec<(&ExprRef, bool)> = exprs.iter().map(|&e| (e, false)).collect();
        while let Some((e, children_done)) = stack.pop() {
            if e.is_const() || inputs.contains_key(&e.as_ptr()) {
                continue;
            }
            if !children_done {
                stack.push((e, true));
                e.for_each_child(|c| {
                    if !c.is_const() && !inputs.contains_key(&c.as_ptr()) {
                        stack.push((c, false));
                    }
                });
                continue;
            }
            let mut own = Inputs::None;
            e.for_each_child(|c| own = own.join(inputs_of(&inputs, c)));
            // A read at a fixed index of an input array reads that byte
            // besides its children (the index, the writes); at an index
            // that depends on the input, any of its bytes.
            let read = match e.kind() {
                ExprKind::Read { updates, index } if !updates.root.is_constant() => {
                    match index.as_const() {
                        Some(at) => Some(place((updates.root.clone(), at as u64), &mut bytes)),
                        None => {
                            own = Inputs::Many;
                            indexed.push(updates.root.clone());
                            None
                        }
                    }
                }
                _ => None,
            };
            if let Some(b) = read {
                own = own.join(Inputs::One(b));
            }
            if own == Inputs::Many {
                if let Some(b) = read {
                    bytes[b].frontier = None;
                }
                e.for_each_child(|c| {
                    if let Inputs::One(b) = inputs_of(&inputs, c) {
                        if let Some(nodes) = &mut bytes[b].frontier {
                            nodes.push(c.clone());
                        }
                    }
                });
            }
            inputs.insert(e.as_ptr(), own);
        }
        // Each byte of an array read at an index that depends on the input
        // is read whole, by a read that reads other input too.
        for b in &mut bytes {
            if indexed.iter().any(|a| Arc::ptr_eq(a, &b.byte.0)) {
                b.frontier = None;
            }
        }
        for e in exprs {
            if let Inputs::One(b) = inputs_of(&inputs, e) {
                if let Some(nodes) = &mut bytes[b].frontier {
                    nodes.push((*e).clone());
                }
            }
        }
        ValueClasses { bytes, indexed }
    }

    /// One value of each class of `byte` that meets `allowed` and holds no
    /// value of `covered` (the least such value), in a set. A byte the
    /// expressions do not read has one class.
    pub(super) fn representatives(
        &self,
        byte: &Byte,
        allowed: &Values,
        covered: &Values,
    ) -> Values {
        let classes = match self.bytes.iter().find(|b| same(&b.byte, byte)) {
            Some(b) => b.classes.get_or_init(|| classes(b)).as_deref(),
            None if self.indexed.iter().any(|a| Arc::ptr_eq(a, &byte.0)) => None,
            None => Some(&[0u8; 256]),
        };
        let Some(classes) = classes else {
            return std::array::from_fn(|i| allowed[i] & !covered[i]);
        };
        let mut taken = [false; 256];
        for v in each(covered) {
            taken[usize::from(classes[usize::from(v)])] = true;
        }
        let mut out = [0u64; 4];
        for v in (0..=u8::MAX).filter(|&v| has(allowed, v)) {
            let class = usize::from(classes[usize::from(v)]);
            if !taken[class] {
                taken[class] = true;
                put(&mut out, v);
            }
        }
        out
    }
}

fn inputs_of(inputs: &FxHashMap<*const ExprNode, Inputs>, e: &ExprRef) -> Inputs {
    if e.is_const() {
        Inputs::None
    } else {
        inputs[&e.as_ptr()]
    }
}

/// The class of each value of a byte, numbered by the least value in it;
/// `None` where its frontier is too large to evaluate 256 times, or holds
/// the byte itself.
fn classes(b: &ByteClasses) -> Option<Box<[u8; 256]>> {
    let frontier = b.frontier.as_ref()?;
    let reads_it_whole = |n: &ExprRef| match n.kind() {
        ExprKind::Read { updates, .. } => !updates.root.is_constant(),
        _ => false,
    };
    if frontier.len() > MAX_FRONTIER || frontier.iter().any(reads_it_whole) {
        return None;
    }
    // Each frontier node reads the byte alone: the other bytes are
    // anything, and the nodes that do not read it are evaluated once.
    let compiled = Compiled::new(&b.byte, frontier);
    let mut model = Assignment::new();
    let (mut kept, mut slots) = (Evaluated::default(), Vec::new());
    let mut first: FxHashMap<Vec<u128>, u8> = FxHashMap::default();
    let mut seen = Vec::with_capacity(frontier.len());
    let mut out = Box::new([0u8; 256]);
    for v in 0..=u8::MAX {
        model.set_byte(&b.byte.0, b.byte.1 as usize, v);
        compiled.values(&model, &mut kept, &mut slots, &mut seen);
        out[usize::from(v)] = match first.get(&seen) {
            Some(&class) => class,
            None => {
                first.insert(seen.clone(), v);
                v
            }
        };
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::enumerate::{only, ALL};
    use super::*;
    use crate::expr::{self, constant, read, Array, ArrayRef, UpdateList};
    use proptest::prelude::*;

    fn byte(a: &ArrayRef, i: u128) -> ExprRef {
        read(&UpdateList::new(a.clone()), &constant(i, 64))
    }

    fn count(classes: &ValueClasses, b: &Byte) -> usize {
        each(&classes.representatives(b, &ALL, &[0; 4])).count()
    }

    #[test]
    fn a_byte_compared_with_constants_has_a_class_per_outcome() {
        let x = Array::symbolic("x", 2);
        let c = byte(&x, 0);
        let digit = expr::ult(&expr::sub(&c, &constant(b'0'.into(), 8)), &constant(10, 8));
        let paren = expr::eq(&c, &constant(b'('.into(), 8));
        // The other byte mixes with the comparisons' outcomes only.
        let e = expr::eq(
            &expr::add(&byte(&x, 1), &expr::zext(&expr::or(&digit, &paren), 8)),
            &constant(3, 8),
        );
        let classes = ValueClasses::new(&[&e, &paren]);
        // The rest, '(', the digits.
        let x0 = (x.clone(), 0);
        let none = [0; 4];
        let reps = classes.representatives(&x0, &ALL, &none);
        assert_eq!(each(&reps).collect::<Vec<_>>(), [0, b'(', b'0']);
        // With '7' tried, the digits are covered.
        let reps = classes.representatives(&x0, &ALL, &only(b'7'));
        assert_eq!(each(&reps).collect::<Vec<_>>(), [0, b'(']);
        // Byte 1 is added to: every value differs.
        assert_eq!(count(&classes, &(x.clone(), 1)), 256);
        // Allowed values alone are taken, and a byte not read has one class.
        let reps = classes.representatives(&x0, &only_digits(), &only(b'x'));
        assert_eq!(each(&reps).collect::<Vec<_>>(), [b'0']);
        assert_eq!(count(&classes, &(Array::symbolic("y", 1), 0)), 1);
    }

    fn only_digits() -> Values {
        let mut v = [0u64; 4];
        for d in b'0'..=b'9' {
            put(&mut v, d);
        }
        v
    }

    #[test]
    fn a_byte_read_where_a_write_at_another_s_index_may_land_keeps_every_value() {
        // x[0] through a write at x[1]'s value: the read's value is x[0]'s
        // or 5, as x[1] says, and it is compared with a constant alone.
        let x = Array::symbolic("x", 2);
        let written =
            UpdateList::new(x.clone()).write(expr::zext(&byte(&x, 1), 64), constant(5, 8));
        let e = expr::eq(&read(&written, &constant(0, 64)), &constant(9, 8));
        let classes = ValueClasses::new(&[&e]);
        assert_eq!(count(&classes, &(x.clone(), 0)), 256);
    }

    #[test]
    fn a_byte_that_indexes_an_input_array_keeps_every_value() {
        // x[x[0] & 3] reads another byte of x as x[0] says.
        let x = Array::symbolic("x", 4);
        let at = expr::zext(&expr::and(&byte(&x, 0), &constant(3, 8)), 64);
        let e = expr::eq(&read(&UpdateList::new(x.clone()), &at), &constant(1, 8));
        let classes = ValueClasses::new(&[&e]);
        assert_eq!(count(&classes, &(x.clone(), 0)), 256);
    }

    /// An expression over two bytes, as a tree to generate.
    #[derive(Debug, Clone)]
    enum Tree {
        Byte(u8),
        Const(u8),
        Add(Box<Tree>, Box<Tree>),
        Xor(Box<Tree>, Box<Tree>),
        Mul(Box<Tree>, Box<Tree>),
        Ult(Box<Tree>, Box<Tree>),
        Eq(Box<Tree>, Box<Tree>),
        Select(Box<Tree>, Box<Tree>, Box<Tree>),
        Lookup(Box<Tree>),
        InputAt(Box<Tree>),
    }

    fn tree() -> impl Strategy<Value = Tree> {
        let leaf = prop_oneof![
            (0..2u8).prop_map(Tree::Byte),
            any::<u8>().prop_map(Tree::Const),
        ];
        leaf.prop_recursive(5, 40, 3, |inner| {
            let two = || (inner.clone(), inner.clone());
            prop_oneof![
                two().prop_map(|(a, b)| Tree::Add(a.into(), b.into())),
                two().prop_map(|(a, b)| Tree::Xor(a.into(), b.into())),
                two().prop_map(|(a, b)| Tree::Mul(a.into(), b.into())),
                two().prop_map(|(a, b)| Tree::Ult(a.into(), b.into())),
                two().prop_map(|(a, b)| Tree::Eq(a.into(), b.into())),
                (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, a, b)| Tree::Select(
                    c.into(),
                    a.into(),
                    b.into()
                )),
                inner.clone().prop_map(|a| Tree::Lookup(a.into())),
                inner.clone().prop_map(|a| Tree::InputAt(a.into())),
            ]
        })
    }

    fn build(t: &Tree, x: &ArrayRef, table: &ArrayRef) -> ExprRef {
        let b = |t: &Tree| build(t, x, table);
        let flag = |e: ExprRef| expr::zext(&e, 8);
        match t {
            Tree::Byte(i) => byte(x, (*i).into()),
            Tree::Const(c) => constant((*c).into(), 8),
            Tree::Add(l, r) => expr::add(&b(l), &b(r)),
            Tree::Xor(l, r) => expr::xor(&b(l), &b(r)),
            Tree::Mul(l, r) => expr::mul(&b(l), &b(r)),
            Tree::Ult(l, r) => flag(expr::ult(&b(l), &b(r))),
            Tree::Eq(l, r) => flag(expr::eq(&b(l), &b(r))),
            Tree::Select(c, l, r) => {
                crate::expr::select(&expr::ne(&b(c), &constant(0, 8)), &b(l), &b(r))
            }
            Tree::Lookup(i) => read(&UpdateList::new(table.clone()), &expr::zext(&b(i), 64)),
            Tree::InputAt(i) => {
                let at = expr::zext(&expr::and(&b(i), &constant(1, 8)), 64);
                read(&UpdateList::new(x.clone()), &at)
            }
        }
    }

    proptest! {
        /// Two values of a byte in one class give the expression one value,
        /// whatever the other byte is.
        #[test]
        fn values_of_one_class_evaluate_alike(t in tree(), others in proptest::collection::vec(any::<u8>(), 4)) {
            let x = Array::symbolic("x", 2);
            let table = Array::constant("t", (0..=255u8).map(|i| i.wrapping_mul(37) ^ 0x55).collect::<Vec<_>>());
            let e = build(&t, &x, &table);
            let classes = ValueClasses::new(&[&e]);
            for k in 0..2usize {
                let reps = classes.representatives(&(x.clone(), k as u64), &ALL, &[0; 4]);
                for &other in &others {
                    let value = |v: u8| {
                        let mut bytes = [other; 2];
                        bytes[k] = v;
                        let mut m = Assignment::new();
                        m.set(&x, bytes.to_vec());
                        expr::eval(&e, &m)
                    };
                    // Each value evaluates as its class's representative,
                    // the one that `representatives` takes one of the two
                    // of when given both.
                    for v in 0..=u8::MAX {
                        let rep = each(&reps)
                            .find(|&r| {
                                let (a, b) = (only(v), only(r));
                                let pair: Values = std::array::from_fn(|i| a[i] | b[i]);
                                each(&classes.representatives(&(x.clone(), k as u64), &pair, &[0; 4])).count() == 1
                            });
                        prop_assert!(rep.is_some(), "byte {} value {} is in no class", k, v);
                        prop_assert_eq!(value(v), value(rep.unwrap()), "byte {} value {}", k, v);
                    }
                }
            }
        }
    }
}
