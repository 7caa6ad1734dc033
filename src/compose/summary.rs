//! A function's summary: the paths of its own memoization tree, each with
//! the choices it took, how it ended, and its path condition over the
//! function's parameters; and the map from those parameters to a call's
//! arguments.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::exec::lazy::{global_array_name, input_array_name, HeapCondition, InputKind};
use crate::exec::{ObjectState, Value};
use crate::expr::{self, Array, ArrayRef, ExprKind, ExprRef, UpdateList};

/// A leaf of a summary, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LeafId(pub u32);

impl LeafId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One choice a summarised path took: a choice point (named by function
/// and site, DESIGN.md invariant 2) and the alternative.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub function: String,
    pub site: u32,
    /// Source line, for `summary show` (0 when unknown).
    pub line: u32,
    pub taken: u32,
    /// How many alternatives the point had, and which were feasible.
    pub feasible: Vec<bool>,
}

/// How a summarised path ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LeafEnd {
    /// The function returned, or the program exited inside it.
    Completed,
    /// An error of this kind (`ErrorKind::as_str`) at this line.
    Error { kind: String, line: u32 },
    /// An assumption that cannot hold ended the path silently.
    Silent,
    /// The path reached the summary's depth bound at a choice with more
    /// than one feasible alternative: its condition is that of the paths
    /// below it, which the summary does not hold. A call where it is
    /// feasible is executed as usual.
    Bound,
}

/// One path of a summary.
#[derive(Clone, Debug)]
pub struct Leaf {
    pub choices: Vec<Choice>,
    pub end: LeafEnd,
    /// The path condition, over the summary's parameter arrays and the
    /// first contents of its memory inputs (`@inN`, `@global:NAME`).
    pub condition: Vec<ExprRef>,
    /// What the path assumed of its memory inputs (the paper's HeapPC).
    pub heap: HeapCondition,
}

/// A function's memoization tree as its paths: every path of the function
/// run alone on symbolic parameters, to the depth bound (a path cut there
/// is a leaf that ends in [`LeafEnd::Bound`]).
#[derive(Clone, Debug)]
pub struct Summary {
    pub function: String,
    /// What the summary is keyed by: the structural hashes of the function
    /// and of every function it may call, and the bounds it was built with.
    pub key: u64,
    /// The depth bound it was built to.
    pub bound: u32,
    /// Width in bits of each parameter.
    pub params: Vec<u32>,
    pub leaves: Vec<Leaf>,
}

/// The array standing for parameter `i` of `width` bits in a summary.
pub fn param_array(i: usize, width: u32) -> ArrayRef {
    Array::shared(&param_name(i), width.div_ceil(8), None)
}

fn param_name(i: usize) -> String {
    format!("@param{i}")
}

/// The value of parameter `i` of `width` bits: its array's bytes, little
/// endian, cut to the width.
pub fn param_value(i: usize, width: u32) -> Value {
    let array = param_array(i, width);
    let list = UpdateList::new(array.clone());
    let mut e = expr::read(&list, &expr::constant(0, 64));
    for k in 1..array.size {
        let byte = expr::read(&list, &expr::constant(k as u128, 64));
        e = expr::concat(&byte, &e);
    }
    if e.width() != width {
        e = expr::extract(&e, 0, width);
    }
    Value::from_expr(e)
}

/// Rewrites a summary's conditions for a call: each parameter's bytes
/// become the bytes of the argument passed for it, and each memory input's
/// bytes the caller's where the heap check found that input.
pub struct ParamMap {
    /// For each parameter array name, the argument widened to whole bytes.
    args: FxHashMap<String, ExprRef>,
    /// For each memory input's array name, the caller's object and the
    /// offset in it the input starts at.
    objects: FxHashMap<String, (Arc<ObjectState>, u64)>,
    done: FxHashMap<ExprRef, ExprRef>,
}

/// A condition that mentions something besides the parameters' bytes (it
/// cannot be carried over to a caller).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the summary's condition reads `{0}`, which is not a parameter of the function")]
pub struct Unmappable(pub String);

impl ParamMap {
    /// The map of a call passing `args` for parameters of `params` bits.
    pub fn new(params: &[u32], args: &[Value]) -> ParamMap {
        let args = params
            .iter()
            .zip(args)
            .enumerate()
            .map(|(i, (w, a))| {
                let bytes = w.div_ceil(8) * 8;
                let e = a.to_expr();
                let e = if e.width() > *w {
                    expr::extract(&e, 0, *w)
                } else {
                    e
                };
                let e = if bytes > e.width() {
                    expr::zext(&e, bytes)
                } else {
                    e
                };
                (param_name(i), e)
            })
            .collect();
        ParamMap {
            args,
            objects: FxHashMap::default(),
            done: FxHashMap::default(),
        }
    }

    /// Maps the memory input whose array is `array` to the caller's bytes
    /// of `object` from offset `start`.
    pub fn with_object(&mut self, array: String, object: Arc<ObjectState>, start: u64) {
        self.done.clear();
        self.objects.insert(array, (object, start));
    }

    /// `e` with every parameter byte replaced by the argument's.
    pub fn map(&mut self, root: &ExprRef) -> Result<ExprRef, Unmappable> {
        let (args, objects) = (&self.args, &self.objects);
        let replace = |e: &ExprRef| {
            let ExprKind::Read { updates, index } = e.kind() else {
                return Ok(None);
            };
            let name = &updates.root.name;
            let k = index.as_const().filter(|_| updates.head.is_none());
            match (args.get(name), objects.get(name), k) {
                (Some(arg), _, Some(k)) if (k as u32 + 1) * 8 <= arg.width() => {
                    Ok(Some(expr::extract(arg, k as u32 * 8, 8)))
                }
                (None, Some((object, start)), Some(k)) if start + (k as u64) < object.size() => {
                    Ok(Some(object.byte(start + k as u64).to_expr()))
                }
                _ => Err(Unmappable(name.clone())),
            }
        };
        // Every read is replaced: the rest is rebuilt over the bytes.
        expr::rewrite_in(root, &mut self.done, replace, |e, done| {
            expr::rebuilt(e, |c| done[c].clone())
        })
    }

    /// The conjunction of a leaf's condition, mapped.
    pub fn condition(&mut self, leaf: &Leaf) -> Result<ExprRef, Unmappable> {
        Ok(conjunction(&self.conjuncts(leaf)?))
    }

    /// The leaf's conditions one by one, over the call's arguments.
    pub fn conjuncts(&mut self, leaf: &Leaf) -> Result<Vec<ExprRef>, Unmappable> {
        leaf.condition.iter().map(|e| self.map(e)).collect()
    }
}

/// The conjunction of `conds` (true when there are none).
pub fn conjunction(conds: &[ExprRef]) -> ExprRef {
    conds
        .iter()
        .fold(expr::bool_const(true), |c, e| expr::and(&c, e))
}

/// Whether an expression reads only the parameter arrays of a function
/// with `params` and the memory inputs of `heap` (what a summary's
/// conditions may mention).
pub fn reads_only_inputs(e: &ExprRef, params: usize, heap: &HeapCondition) -> bool {
    let mut arrays = Vec::new();
    expr::arrays_in(e, &mut arrays);
    arrays.iter().all(|a| {
        let param = (0..params).any(|i| a.name == param_name(i));
        let input = heap
            .objects
            .iter()
            .enumerate()
            .any(|(i, o)| input_array(i, &o.kind).is_some_and(|n| n == a.name));
        (param || input) && a.init.is_none()
    })
}

/// The name of the array holding input object `i`'s first contents, if it
/// has one (a read-only global's are part of the summary).
pub fn input_array(i: usize, kind: &InputKind) -> Option<String> {
    match kind {
        InputKind::Lazy => Some(input_array_name(i)),
        InputKind::Global {
            name, read_only, ..
        } => (!read_only).then(|| global_array_name(name)),
    }
}

/// A summary shared by the run's composer and its workers.
pub type SharedSummary = Arc<Summary>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_map_to_the_arguments_bytes() {
        let x = param_value(0, 32).to_expr();
        let y = param_value(1, 8).to_expr();
        let cond = expr::slt(&expr::add(&x, &expr::constant(1, 32)), &expr::zext(&y, 32));
        let caller = Array::symbolic("a", 4);
        let list = UpdateList::new(caller.clone());
        let mut a = expr::read(&list, &expr::constant(0, 64));
        for k in 1..4 {
            a = expr::concat(&expr::read(&list, &expr::constant(k, 64)), &a);
        }
        let mut map = ParamMap::new(
            &[32, 8],
            &[Value::from_expr(a.clone()), Value::concrete(7, 8)],
        );
        let mapped = map.map(&cond).expect("maps");
        let want = expr::slt(
            &expr::add(&a, &expr::constant(1, 32)),
            &expr::constant(7, 32),
        );
        assert_eq!(mapped, want);
        let none = HeapCondition::default();
        assert!(reads_only_inputs(&cond, 2, &none));
        assert!(!reads_only_inputs(&cond, 1, &none));
        assert!(!reads_only_inputs(&mapped, 2, &none));
    }

    #[test]
    fn a_condition_on_other_inputs_cannot_be_mapped() {
        let other = Array::symbolic("z", 1);
        let e = expr::eq(
            &expr::read(&UpdateList::new(other), &expr::constant(0, 64)),
            &expr::constant(3, 8),
        );
        let mut map = ParamMap::new(&[8], &[Value::concrete(1, 8)]);
        assert_eq!(map.map(&e), Err(Unmappable("z".into())));
    }

    #[test]
    fn an_input_objects_bytes_map_to_the_callers_from_its_start() {
        // Input object 0 starts at offset 4 of the caller's object, whose
        // byte 6 is symbolic and byte 5 concrete.
        let caller = Array::symbolic("c", 1);
        let sym = expr::read(&UpdateList::new(caller), &expr::constant(0, 64));
        let mut object = ObjectState::zeroed(8);
        object.set_byte(5, crate::exec::Byte::Concrete(9));
        object.set_byte(6, crate::exec::Byte::Symbolic(sym.clone()));
        let input = Array::shared(&input_array_name(0), 4096, None);
        let list = UpdateList::new(input);
        let b = |k: u128| expr::read(&list, &expr::constant(k, 64));
        let cond = expr::ult(&b(1), &b(2));
        let mut map = ParamMap::new(&[], &[]);
        map.with_object(input_array_name(0), Arc::new(object), 4);
        let mapped = map.map(&cond).expect("maps");
        assert_eq!(mapped, expr::ult(&expr::constant(9, 8), &sym));
        // Past the caller's object, the byte is not the caller's to give.
        assert!(map.map(&expr::eq(&b(4), &b(0))).is_err());
    }

    #[test]
    fn a_one_bit_parameter_takes_the_low_bit_of_its_byte() {
        let b = param_value(0, 1).to_expr();
        assert_eq!(b.width(), 1);
        let mut map = ParamMap::new(&[1], &[Value::concrete(1, 1)]);
        assert_eq!(map.map(&b).expect("maps").as_const(), Some(1));
    }
}
