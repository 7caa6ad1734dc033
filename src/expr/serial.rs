//! A byte encoding of expression lists that means the same thing in every
//! process: what the solver stores and the recorded query corpus keep on
//! disk.
//!
//! Each distinct node is written once, children before parents, so a DAG
//! stays a DAG; arrays are written once each in a table (name, size, and the
//! bytes of a constant array). Nothing depends on addresses or on hash-map
//! order, so equal expression lists always give equal bytes, which is what
//! lets the stores use the encoding (or its hash) as a key.
//!
//! Decoding rebuilds the nodes exactly as they were (no simplification), so
//! `encode(decode(b)) == b`, and checks every width and index: any input,
//! however damaged, gives either expressions or a [`SerialError`].

use super::intern::intern;
use super::{mask, Array, ArrayRef, CmpOp, ExprKind, ExprRef, UpdateList, UpdateNode};
use crate::ir::BinOp;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The format version, first byte of every encoding.
const VERSION: u8 = 1;

/// Item tags; expression tags follow `ExprKind`'s order.
const T_CONST: u8 = 0;
const T_READ: u8 = 1;
const T_SELECT: u8 = 2;
const T_CONCAT: u8 = 3;
const T_EXTRACT: u8 = 4;
const T_ZEXT: u8 = 5;
const T_SEXT: u8 = 6;
const T_NOT: u8 = 7;
const T_BINARY: u8 = 8;
const T_CMP: u8 = 9;
const T_UPDATE: u8 = 20;

/// Why bytes could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SerialError {
    #[error("the expression encoding ends early")]
    Truncated,
    #[error(
        "expression encoding version {0} is not supported (this mnemo reads version {VERSION})"
    )]
    Version(u8),
    #[error("unknown item tag {0} in the expression encoding")]
    Tag(u8),
    #[error("the expression encoding refers to a {what} that does not exist ({index})")]
    Index { what: &'static str, index: u64 },
    #[error("malformed expression encoding: {0}")]
    Malformed(&'static str),
}

/// The encoding of `exprs`, in order.
pub fn encode(exprs: &[ExprRef]) -> Vec<u8> {
    let mut enc = Encoder::default();
    let roots: Vec<u64> = exprs.iter().map(|e| enc.expr(e)).collect();
    let mut out = vec![VERSION];
    put_uint(&mut out, enc.arrays.len() as u128);
    for a in &enc.arrays {
        put_bytes(&mut out, a.name.as_bytes());
        put_uint(&mut out, a.size as u128);
        match &a.init {
            None => out.push(0),
            Some(bytes) => {
                out.push(1);
                out.extend_from_slice(bytes);
            }
        }
    }
    put_uint(&mut out, enc.items_count as u128);
    out.extend_from_slice(&enc.items);
    put_uint(&mut out, roots.len() as u128);
    for r in roots {
        put_uint(&mut out, r as u128);
    }
    out
}

#[derive(Default)]
struct Encoder {
    arrays: Vec<ArrayRef>,
    array_ids: FxHashMap<*const Array, u64>,
    expr_ids: FxHashMap<*const super::ExprNode, u64>,
    update_ids: FxHashMap<*const UpdateNode, u64>,
    next_expr: u64,
    next_update: u64,
    items: Vec<u8>,
    items_count: u64,
}

/// Work of the iterative post-order walk.
enum Step<'a> {
    Visit(&'a ExprRef),
    Emit(&'a ExprRef),
    VisitUpdate(&'a Arc<UpdateNode>, &'a ArrayRef),
    EmitUpdate(&'a Arc<UpdateNode>, &'a ArrayRef),
}

impl Encoder {
    /// Writes `root` and everything below it not yet written; its id.
    fn expr(&mut self, root: &ExprRef) -> u64 {
        // Expressions can be chains far deeper than the thread's stack.
        let mut stack = vec![Step::Visit(root)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Visit(e) => {
                    if self.expr_ids.contains_key(&e.as_ptr()) {
                        continue;
                    }
                    stack.push(Step::Emit(e));
                    match e.kind() {
                        ExprKind::Read { updates, index } => {
                            stack.push(Step::Visit(index));
                            if let Some(head) = &updates.head {
                                stack.push(Step::VisitUpdate(head, &updates.root));
                            }
                        }
                        ExprKind::Const(_) => {}
                        ExprKind::Select {
                            cond,
                            then_e,
                            else_e,
                        } => {
                            stack.push(Step::Visit(else_e));
                            stack.push(Step::Visit(then_e));
                            stack.push(Step::Visit(cond));
                        }
                        ExprKind::Concat { hi, lo } => {
                            stack.push(Step::Visit(lo));
                            stack.push(Step::Visit(hi));
                        }
                        ExprKind::Extract { expr, .. }
                        | ExprKind::ZExt(expr)
                        | ExprKind::SExt(expr)
                        | ExprKind::Not(expr) => stack.push(Step::Visit(expr)),
                        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Cmp { lhs, rhs, .. } => {
                            stack.push(Step::Visit(rhs));
                            stack.push(Step::Visit(lhs));
                        }
                    }
                }
                Step::Emit(e) => {
                    if !self.expr_ids.contains_key(&e.as_ptr()) {
                        self.emit(e);
                    }
                }
                Step::VisitUpdate(node, root) => {
                    if self.update_ids.contains_key(&Arc::as_ptr(node)) {
                        continue;
                    }
                    stack.push(Step::EmitUpdate(node, root));
                    if let Some(next) = &node.next {
                        stack.push(Step::VisitUpdate(next, root));
                    }
                    stack.push(Step::Visit(&node.value));
                    stack.push(Step::Visit(&node.index));
                }
                Step::EmitUpdate(node, root) => {
                    if self.update_ids.contains_key(&Arc::as_ptr(node)) {
                        continue;
                    }
                    let array = self.array(root);
                    let index = self.expr_ids[&node.index.as_ptr()];
                    let value = self.expr_ids[&node.value.as_ptr()];
                    let next = node
                        .next
                        .as_ref()
                        .map_or(0, |n| self.update_ids[&Arc::as_ptr(n)] + 1);
                    self.items.push(T_UPDATE);
                    for v in [array, index, value, next] {
                        put_uint(&mut self.items, v as u128);
                    }
                    self.items_count += 1;
                    self.update_ids.insert(Arc::as_ptr(node), self.next_update);
                    self.next_update += 1;
                }
            }
        }
        self.expr_ids[&root.as_ptr()]
    }

    fn array(&mut self, a: &ArrayRef) -> u64 {
        let next = self.arrays.len() as u64;
        *self.array_ids.entry(Arc::as_ptr(a)).or_insert_with(|| {
            self.arrays.push(a.clone());
            next
        })
    }

    /// Writes one node whose children are all written.
    fn emit(&mut self, e: &ExprRef) {
        let id = |s: &Self, c: &ExprRef| s.expr_ids[&c.as_ptr()] as u128;
        let mut item = Vec::new();
        match e.kind() {
            ExprKind::Const(v) => {
                item.push(T_CONST);
                put_uint(&mut item, e.width() as u128);
                put_uint(&mut item, *v);
            }
            ExprKind::Read { updates, index } => {
                let array = self.array(&updates.root);
                let head = updates
                    .head
                    .as_ref()
                    .map_or(0, |n| self.update_ids[&Arc::as_ptr(n)] + 1);
                item.push(T_READ);
                put_uint(&mut item, e.width() as u128);
                put_uint(&mut item, array as u128);
                put_uint(&mut item, head as u128);
                put_uint(&mut item, id(self, index));
            }
            ExprKind::Select {
                cond,
                then_e,
                else_e,
            } => {
                item.push(T_SELECT);
                put_uint(&mut item, e.width() as u128);
                for c in [cond, then_e, else_e] {
                    put_uint(&mut item, id(self, c));
                }
            }
            ExprKind::Concat { hi, lo } => {
                item.push(T_CONCAT);
                put_uint(&mut item, e.width() as u128);
                put_uint(&mut item, id(self, hi));
                put_uint(&mut item, id(self, lo));
            }
            ExprKind::Extract { expr, offset } => {
                item.push(T_EXTRACT);
                put_uint(&mut item, e.width() as u128);
                put_uint(&mut item, id(self, expr));
                put_uint(&mut item, *offset as u128);
            }
            ExprKind::ZExt(c) | ExprKind::SExt(c) | ExprKind::Not(c) => {
                item.push(match e.kind() {
                    ExprKind::ZExt(_) => T_ZEXT,
                    ExprKind::SExt(_) => T_SEXT,
                    _ => T_NOT,
                });
                put_uint(&mut item, e.width() as u128);
                put_uint(&mut item, id(self, c));
            }
            ExprKind::Binary { op, lhs, rhs } => {
                item.push(T_BINARY);
                put_uint(&mut item, e.width() as u128);
                item.push(op.code());
                put_uint(&mut item, id(self, lhs));
                put_uint(&mut item, id(self, rhs));
            }
            ExprKind::Cmp { op, lhs, rhs } => {
                item.push(T_CMP);
                put_uint(&mut item, e.width() as u128);
                item.push(cmp_code(*op));
                put_uint(&mut item, id(self, lhs));
                put_uint(&mut item, id(self, rhs));
            }
        }
        self.items.extend_from_slice(&item);
        self.items_count += 1;
        self.expr_ids.insert(e.as_ptr(), self.next_expr);
        self.next_expr += 1;
    }
}

fn cmp_code(op: CmpOp) -> u8 {
    match op {
        CmpOp::Eq => 0,
        CmpOp::Ult => 1,
        CmpOp::Ule => 2,
        CmpOp::Slt => 3,
        CmpOp::Sle => 4,
    }
}

fn cmp_of(code: u8) -> Option<CmpOp> {
    Some(match code {
        0 => CmpOp::Eq,
        1 => CmpOp::Ult,
        2 => CmpOp::Ule,
        3 => CmpOp::Slt,
        4 => CmpOp::Sle,
        _ => return None,
    })
}

fn binop_of(code: u8) -> Option<BinOp> {
    BinOp::ALL.iter().copied().find(|op| op.code() == code)
}

fn put_uint(out: &mut Vec<u8>, mut v: u128) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_uint(out, bytes.len() as u128);
    out.extend_from_slice(bytes);
}

/// Rebuilds expressions from [`encode`]'s bytes.
///
/// Arrays are shared ([`Array::shared`]): two encodings that mention an
/// array of the same name, size and contents get the same [`ArrayRef`], as
/// the queries of one run did.
#[derive(Default)]
pub struct Decoder {
    _private: (),
}

impl Decoder {
    /// A decoder that has seen no array yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The expressions `bytes` encodes, in order.
    pub fn decode(&mut self, bytes: &[u8]) -> Result<Vec<ExprRef>, SerialError> {
        let mut r = Reader { bytes, pos: 0 };
        let version = r.byte()?;
        if version != VERSION {
            return Err(SerialError::Version(version));
        }
        let n_arrays = r.count()?;
        let mut arrays = Vec::with_capacity(n_arrays.min(1024));
        for _ in 0..n_arrays {
            let name_len = r.count()?;
            let name = std::str::from_utf8(r.take(name_len)?)
                .map_err(|_| SerialError::Malformed("an array name is not UTF-8"))?
                .to_string();
            let size = u32::try_from(r.uint()?)
                .map_err(|_| SerialError::Malformed("an array is larger than 4 GiB"))?;
            let init: Option<Arc<[u8]>> = match r.byte()? {
                0 => None,
                1 => Some(r.take(size as usize)?.into()),
                _ => return Err(SerialError::Malformed("bad array kind")),
            };
            arrays.push(Array::shared(&name, size, init));
        }
        let n_items = r.count()?;
        let mut exprs: Vec<ExprRef> = Vec::with_capacity(n_items.min(1 << 16));
        let mut updates: Vec<(usize, Arc<UpdateNode>)> = Vec::new();
        for _ in 0..n_items {
            let tag = r.byte()?;
            if tag == T_UPDATE {
                let array = r.index(arrays.len(), "array")?;
                let index = exprs[r.index(exprs.len(), "expression")?].clone();
                let value = exprs[r.index(exprs.len(), "expression")?].clone();
                let next = match r.count()? {
                    0 => None,
                    n => {
                        let (a, node) = updates.get(n - 1).ok_or(SerialError::Index {
                            what: "write",
                            index: n as u64 - 1,
                        })?;
                        if *a != array {
                            return Err(SerialError::Malformed("a write list mixes arrays"));
                        }
                        Some(node.clone())
                    }
                };
                if index.width() != 64 || value.width() != 8 {
                    return Err(SerialError::Malformed("a write's index or value width"));
                }
                let list = UpdateList {
                    root: arrays[array].clone(),
                    head: next,
                }
                .write(index, value);
                let head = list.head.ok_or(SerialError::Malformed("empty write"))?;
                updates.push((array, head));
                continue;
            }
            let width = u32::try_from(r.uint()?)
                .ok()
                .filter(|w| (1..=128).contains(w))
                .ok_or(SerialError::Malformed("a width outside 1..=128"))?;
            let child = |r: &mut Reader| -> Result<ExprRef, SerialError> {
                Ok(exprs[r.index(exprs.len(), "expression")?].clone())
            };
            let kind = match tag {
                T_CONST => {
                    let v = r.uint()?;
                    if v & !mask(width) != 0 {
                        return Err(SerialError::Malformed("a constant wider than its node"));
                    }
                    ExprKind::Const(v)
                }
                T_READ => {
                    let array = r.index(arrays.len(), "array")?;
                    let head = match r.count()? {
                        0 => None,
                        n => {
                            let (a, node) = updates.get(n - 1).ok_or(SerialError::Index {
                                what: "write",
                                index: n as u64 - 1,
                            })?;
                            if *a != array {
                                return Err(SerialError::Malformed(
                                    "a read of a foreign write list",
                                ));
                            }
                            Some(node.clone())
                        }
                    };
                    let index = child(&mut r)?;
                    check(width == 8 && index.width() == 64, "a read's widths")?;
                    ExprKind::Read {
                        updates: UpdateList {
                            root: arrays[array].clone(),
                            head,
                        },
                        index,
                    }
                }
                T_SELECT => {
                    let (cond, then_e, else_e) = (child(&mut r)?, child(&mut r)?, child(&mut r)?);
                    check(
                        cond.width() == 1 && then_e.width() == width && else_e.width() == width,
                        "a select's widths",
                    )?;
                    ExprKind::Select {
                        cond,
                        then_e,
                        else_e,
                    }
                }
                T_CONCAT => {
                    let (hi, lo) = (child(&mut r)?, child(&mut r)?);
                    check(hi.width() + lo.width() == width, "a concatenation's widths")?;
                    ExprKind::Concat { hi, lo }
                }
                T_EXTRACT => {
                    let expr = child(&mut r)?;
                    let offset = u32::try_from(r.uint()?).unwrap_or(u32::MAX);
                    check(
                        offset
                            .checked_add(width)
                            .is_some_and(|end| end <= expr.width()),
                        "an extraction outside its operand",
                    )?;
                    ExprKind::Extract { expr, offset }
                }
                T_ZEXT | T_SEXT => {
                    let e = child(&mut r)?;
                    check(e.width() <= width, "an extension that narrows")?;
                    if tag == T_ZEXT {
                        ExprKind::ZExt(e)
                    } else {
                        ExprKind::SExt(e)
                    }
                }
                T_NOT => {
                    let e = child(&mut r)?;
                    check(e.width() == width, "a complement's width")?;
                    ExprKind::Not(e)
                }
                T_BINARY => {
                    let op = binop_of(r.byte()?)
                        .ok_or(SerialError::Malformed("unknown binary operator"))?;
                    let (lhs, rhs) = (child(&mut r)?, child(&mut r)?);
                    check(
                        lhs.width() == width && rhs.width() == width,
                        "a binary operation's widths",
                    )?;
                    ExprKind::Binary { op, lhs, rhs }
                }
                T_CMP => {
                    let op =
                        cmp_of(r.byte()?).ok_or(SerialError::Malformed("unknown comparison"))?;
                    let (lhs, rhs) = (child(&mut r)?, child(&mut r)?);
                    check(
                        width == 1 && lhs.width() == rhs.width(),
                        "a comparison's widths",
                    )?;
                    ExprKind::Cmp { op, lhs, rhs }
                }
                other => return Err(SerialError::Tag(other)),
            };
            exprs.push(intern(kind, width));
        }
        let n_roots = r.count()?;
        let mut roots = Vec::with_capacity(n_roots.min(1 << 16));
        for _ in 0..n_roots {
            roots.push(exprs[r.index(exprs.len(), "expression")?].clone());
        }
        if r.pos != bytes.len() {
            return Err(SerialError::Malformed("bytes after the end"));
        }
        Ok(roots)
    }
}

fn check(ok: bool, what: &'static str) -> Result<(), SerialError> {
    if ok {
        Ok(())
    } else {
        Err(SerialError::Malformed(what))
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, SerialError> {
        let b = *self.bytes.get(self.pos).ok_or(SerialError::Truncated)?;
        self.pos += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], SerialError> {
        let end = self.pos.checked_add(n).ok_or(SerialError::Truncated)?;
        let s = self
            .bytes
            .get(self.pos..end)
            .ok_or(SerialError::Truncated)?;
        self.pos = end;
        Ok(s)
    }

    fn uint(&mut self) -> Result<u128, SerialError> {
        let mut v: u128 = 0;
        for shift in (0..=126).step_by(7) {
            let b = self.byte()?;
            let bits = (b & 0x7f) as u128;
            if shift == 126 && bits > 3 {
                break;
            }
            v |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(SerialError::Malformed("a number wider than 128 bits"))
    }

    /// A count or index that must fit in memory.
    fn count(&mut self) -> Result<usize, SerialError> {
        let v = self.uint()?;
        usize::try_from(v)
            .ok()
            .filter(|&n| n <= self.bytes.len().saturating_mul(8).max(16))
            .ok_or(SerialError::Malformed("an impossible count"))
    }

    /// An index below `len` into the table of `what`s read so far.
    fn index(&mut self, len: usize, what: &'static str) -> Result<usize, SerialError> {
        let v = self.uint()?;
        usize::try_from(v)
            .ok()
            .filter(|&i| i < len)
            .ok_or(SerialError::Index {
                what,
                index: u64::try_from(v).unwrap_or(u64::MAX),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::proptests::{build, Env, Gen};
    use crate::expr::{add, constant, read, ult};
    use proptest::prelude::*;

    fn random_exprs(seed: u64, n: usize) -> (Env, Vec<ExprRef>) {
        let env = Env::new(&format!("serial{seed}"));
        let mut g = Gen::new(seed);
        let exprs = (0..n)
            .map(|_| {
                let w = g.width();
                build(&g.gen(w, 4), &env)
            })
            .collect();
        (env, exprs)
    }

    #[test]
    fn random_expressions_round_trip_exactly() {
        for seed in 0..300 {
            let (_env, exprs) = random_exprs(seed, 4);
            let bytes = encode(&exprs);
            let back = Decoder::new().decode(&bytes).unwrap();
            assert_eq!(encode(&back), bytes, "seed {seed}");
            assert_eq!(back.len(), exprs.len());
            for (a, b) in exprs.iter().zip(&back) {
                assert_eq!(a.structural_hash(), b.structural_hash(), "seed {seed}");
                assert_eq!(a.width(), b.width());
            }
        }
    }

    #[test]
    fn equal_lists_encode_equally_and_shared_nodes_once() {
        let a = Array::symbolic("a", 8);
        let x = read(&UpdateList::new(a.clone()), &constant(0, 64));
        let y = add(&x, &x);
        let once = encode(std::slice::from_ref(&y));
        let twice = encode(&[y.clone(), y.clone()]);
        assert_eq!(once, encode(std::slice::from_ref(&y)));
        // The second root costs a reference, not a second copy of the tree.
        assert!(twice.len() <= once.len() + 2);
    }

    #[test]
    fn one_decoder_shares_arrays_across_calls() {
        let a = Array::symbolic("a", 4);
        let k = Array::constant("k", vec![1, 2, 3]);
        let e1 = ult(
            &read(&UpdateList::new(a.clone()), &constant(1, 64)),
            &read(
                &UpdateList::new(k.clone()),
                &crate::expr::zext(&read(&UpdateList::new(a.clone()), &constant(0, 64)), 64),
            ),
        );
        let mut d = Decoder::new();
        let x = d.decode(&encode(std::slice::from_ref(&e1))).unwrap();
        let y = d.decode(&encode(std::slice::from_ref(&e1))).unwrap();
        assert_eq!(x[0], y[0], "the same decoder gives the same interned node");
        let other = Decoder::new()
            .decode(&encode(std::slice::from_ref(&e1)))
            .unwrap();
        assert_eq!(x[0], other[0], "arrays are shared by every decoder");
        assert_ne!(x[0], e1, "but not with arrays made otherwise");
    }

    #[test]
    fn writes_at_symbolic_indices_round_trip() {
        let a = Array::symbolic("w", 16);
        let i = read(&UpdateList::new(a.clone()), &constant(0, 64));
        let idx = crate::expr::zext(&i, 64);
        let list = UpdateList::new(a.clone())
            .write(idx.clone(), constant(7, 8))
            .write(constant(3, 64), i.clone());
        let e = read(&list, &idx);
        let bytes = encode(std::slice::from_ref(&e));
        let back = Decoder::new().decode(&bytes).unwrap();
        assert_eq!(encode(&back), bytes);
        match back[0].kind() {
            ExprKind::Read { updates, .. } => assert_eq!(updates.len(), 2),
            other => panic!("not a read: {other:?}"),
        }
    }

    #[test]
    fn damaged_encodings_are_errors() {
        let (_env, exprs) = random_exprs(7, 3);
        let bytes = encode(&exprs);
        assert_eq!(
            Decoder::new().decode(&[9]).unwrap_err(),
            SerialError::Version(9)
        );
        for cut in 0..bytes.len() {
            assert!(
                Decoder::new().decode(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn mutated_encodings_never_panic(seed in 0u64..1000, pos in any::<usize>(), byte in any::<u8>()) {
            let (_env, exprs) = random_exprs(seed, 2);
            let mut bytes = encode(&exprs);
            let at = pos % bytes.len();
            bytes[at] = byte;
            if let Ok(back) = Decoder::new().decode(&bytes) {
                // Whatever decodes is well formed enough to encode again.
                let _ = encode(&back);
            }
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut b = bytes;
            if !b.is_empty() { b[0] = VERSION; }
            let _ = Decoder::new().decode(&b);
        }
    }
}
