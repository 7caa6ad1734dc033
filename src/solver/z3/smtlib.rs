//! A path condition written out as an SMT-LIB 2 benchmark (`--write-smt2s`,
//! as KLEE's option of that name): what a user hands another solver, keeps
//! as a solver benchmark, or reads to see why a path was taken.
//!
//! The text is the query the Z3 layer would build for the condition, with
//! the same translation (so the same semantics: division by zero, reads
//! past an input's end), printed by Z3. Each input is declared as an array
//! from 64-bit indices to bytes under its own name, whether or not the
//! condition reads it, and the plain byte constants the translation makes
//! are tied to it: a model's values of an input are its array's.

use super::Translator;
use crate::exec::Symbolic;
use crate::expr::ExprRef;
use crate::solver::SolverError;
use std::ffi::{CStr, CString};
use std::fmt::Write as _;
use z3::ast::{Ast, Bool};

/// The SMT-LIB 2 text of the path condition `constraints` over the path's
/// `inputs` (in creation order, as its test lists them): a comment naming
/// each input and its array, the logic, the declarations, one assertion per
/// constraint (and the side conditions of the translation), `(check-sat)`.
pub fn path_condition(constraints: &[ExprRef], inputs: &[Symbolic]) -> Result<String, SolverError> {
    let mut t = Translator::default();
    // Every input gets its whole array (declared, and tied to its bytes)
    // and its name, before the constraints name anything else.
    let names: Vec<String> = inputs
        .iter()
        .map(|input| {
            t.root(&input.array);
            let slot = t.info(&input.array);
            quoted(&t.arrays[slot].name)
        })
        .collect();
    let mut assertions = Vec::with_capacity(constraints.len() + 1);
    for c in constraints {
        t.translate(c)?;
        assertions.push(t.boolean(c)?);
    }
    t.link_arrays();
    assertions.extend(t.side.iter().cloned());
    let mut text = String::from("; The path condition of a test written by mnemo.\n");
    for (i, (input, name)) in inputs.iter().zip(&names).enumerate() {
        let size = input.array.size;
        let plural = if size == 1 { "" } else { "s" };
        let _ = writeln!(
            text,
            "; input {i}, {:?}: {size} byte{plural}, the array {name}",
            input.name
        );
    }
    // A known object read at a symbolic index is a constant array (`as
    // const`), which no standard logic has: Z3 refuses it under QF_ABV.
    let constant = t
        .arrays
        .iter()
        .any(|info| info.array.is_constant() && info.whole.is_some());
    let logic = match (constant, t.uses_arrays()) {
        (true, _) => "ALL",
        (false, true) => "QF_ABV",
        (false, false) => "QF_BV",
    };
    let benchmark = benchmark(&assertions, logic)?;
    // Z3 declares only what the assertions use: every input is declared
    // after the logic, read or not, and Z3's own declarations of them
    // left out.
    let declared: Vec<String> = names
        .iter()
        .map(|name| format!("(declare-fun {name} () (Array (_ BitVec 64) (_ BitVec 8)))"))
        .collect();
    for line in benchmark.lines() {
        // The benchmark's name, empty, is a comment line of its own.
        if line.trim_end() == ";" || declared.iter().any(|d| d == line) {
            continue;
        }
        let _ = writeln!(text, "{line}");
        if line.starts_with("(set-logic ") {
            for d in &declared {
                let _ = writeln!(text, "{d}");
            }
        }
    }
    text.push_str("(exit)\n");
    Ok(text)
}

/// Z3's SMT-LIB 2 benchmark of `assertions` in `logic`: the logic, the
/// declarations, the assertions, `(check-sat)`. Printed without a solver,
/// whose set-up took most of the time a solver's printing did (half of it
/// in `assert`).
fn benchmark(assertions: &[Bool], logic: &str) -> Result<String, SolverError> {
    let truth = Bool::from_bool(true);
    let (last, rest) = assertions.split_last().unwrap_or((&truth, &[]));
    let rest: Vec<z3_sys::Z3_ast> = rest.iter().map(|a| a.get_z3_ast()).collect();
    let cstr = |s: &str| CString::new(s).map_err(|_| SolverError::Unknown(format!("{s:?}")));
    let (name, logic, status, attributes) = (cstr("")?, cstr(logic)?, cstr("unknown")?, cstr("")?);
    let context = z3::Context::thread_local();
    // SAFETY: every AST is alive (borrowed from `assertions` or `truth`)
    // and belongs to this thread's context, as `context` does; the strings
    // outlive the call; the returned string is Z3's, valid until the
    // context's next call, and copied at once.
    let printed = unsafe {
        let p = z3_sys::Z3_benchmark_to_smtlib_string(
            context.get_z3_context(),
            name.as_ptr(),
            logic.as_ptr(),
            status.as_ptr(),
            attributes.as_ptr(),
            rest.len() as u32,
            rest.as_ptr(),
            last.get_z3_ast(),
        );
        (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
    };
    printed.ok_or_else(|| SolverError::Unknown("Z3 could not print the path condition".into()))
}

/// `name` as an SMT-LIB symbol: plain when it may be, else between bars
/// (as Z3 prints it).
fn quoted(name: &str) -> String {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/".contains(c));
    match plain {
        true => name.to_string(),
        false => format!("|{name}|"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{add, binary, constant, eq, read, ult, zext, Array, UpdateList};
    use crate::ir::BinOp;
    use z3::ast::{Array as ZArray, BV};
    use z3::{SatResult, Sort};

    fn input(name: &str, size: u32) -> Symbolic {
        Symbolic {
            name: name.into(),
            array: Array::symbolic(&format!("{name}#0"), size),
        }
    }

    fn byte(s: &Symbolic, i: u64) -> ExprRef {
        read(&UpdateList::new(s.array.clone()), &constant(i.into(), 64))
    }

    /// Whether the text, with the inputs' arrays holding `values`, is
    /// satisfiable, as Z3 reads it back.
    fn holds(text: &str, inputs: &[&str], values: &[&[u8]]) -> SatResult {
        let solver = z3::Solver::new();
        solver.from_string(text);
        let written = text.lines().filter(|l| l.starts_with("(assert")).count();
        assert_eq!(
            solver.get_assertions().len(),
            written,
            "Z3 did not read:\n{text}"
        );
        let (d, r) = (Sort::bitvector(64), Sort::bitvector(8));
        for (name, bytes) in inputs.iter().zip(values) {
            let array = ZArray::new_const(*name, &d, &r);
            for (i, &b) in bytes.iter().enumerate() {
                let at = array.select(&BV::from_u64(i as u64, 64));
                solver.assert(at.as_bv().expect("a byte").eq(BV::from_u64(b.into(), 8)));
            }
        }
        solver.check()
    }

    #[test]
    fn the_text_holds_for_the_inputs_that_meet_the_condition_and_only_for_them() {
        let (x, y) = (input("x", 2), input("y", 1));
        // x[0] + x[1] == 10, and y[0] / x[0] < 3 (division by a zero x[0]
        // gives 0, as the engine has it, where SMT-LIB would give all ones).
        let sum = add(&byte(&x, 0), &byte(&x, 1));
        let constraints = [
            eq(&sum, &constant(10, 8)),
            ult(
                &binary(BinOp::UDiv, &byte(&y, 0), &byte(&x, 0)),
                &constant(3, 8),
            ),
        ];
        let inputs = [x, y];
        let text = path_condition(&constraints, &inputs).expect("printed");
        assert!(
            text.contains("; input 0, \"x\": 2 bytes, the array |x#0|"),
            "{text}"
        );
        assert!(text.contains("(set-logic QF_ABV)") && text.ends_with("(check-sat)\n(exit)\n"));
        let names = ["x#0", "y#0"];
        assert_eq!(holds(&text, &names, &[&[4, 6], &[11]]), SatResult::Sat);
        assert_eq!(holds(&text, &names, &[&[0, 10], &[200]]), SatResult::Sat);
        assert_eq!(holds(&text, &names, &[&[4, 6], &[12]]), SatResult::Unsat);
        assert_eq!(holds(&text, &names, &[&[5, 6], &[0]]), SatResult::Unsat);
    }

    #[test]
    fn an_input_the_condition_does_not_read_is_declared_all_the_same() {
        let (x, unread) = (input("x", 1), input("unread", 3));
        let constraints = [eq(&byte(&x, 0), &constant(7, 8))];
        let text = path_condition(&constraints, &[x, unread]).expect("printed");
        let declaration = "(declare-fun |unread#0| () (Array (_ BitVec 64) (_ BitVec 8)))";
        assert_eq!(text.matches(declaration).count(), 1, "{text}");
        assert_eq!(text.matches("(declare-fun |x#0| ").count(), 1, "{text}");
        let names = ["x#0", "unread#0"];
        assert_eq!(holds(&text, &names, &[&[7], &[1, 2, 3]]), SatResult::Sat);
        assert_eq!(holds(&text, &names, &[&[8], &[1, 2, 3]]), SatResult::Unsat);
    }

    #[test]
    fn a_read_past_the_end_of_an_input_is_zero_as_in_the_engine() {
        let (x, y) = (input("x", 2), input("y", 1));
        let at = zext(&byte(&y, 0), 64);
        let constraints = [eq(
            &read(&UpdateList::new(x.array.clone()), &at),
            &constant(0, 8),
        )];
        let text = path_condition(&constraints, &[x, y]).expect("printed");
        let names = ["x#0", "y#0"];
        assert_eq!(holds(&text, &names, &[&[1, 1], &[5]]), SatResult::Sat);
        assert_eq!(holds(&text, &names, &[&[1, 1], &[1]]), SatResult::Unsat);
        assert_eq!(holds(&text, &names, &[&[1, 0], &[1]]), SatResult::Sat);
    }

    #[test]
    fn names_are_quoted_only_where_smtlib_needs_it() {
        assert_eq!(quoted("x!0"), "x!0");
        assert_eq!(quoted("x#0"), "|x#0|");
        assert_eq!(quoted("0x"), "|0x|");
    }
}
