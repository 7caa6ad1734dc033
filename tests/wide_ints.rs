//! Integers wider than 128 bits, which clang makes for long runs of
//! bitfields and mnemo expands into 64-bit limbs: every operation the
//! expansion covers, on random operands, concrete and then symbolic (held
//! to the same values by `klee_assume`), checked against LLVM's own
//! constant folding of the same operation. A check that fails ends the
//! program with its number.

use proptest::prelude::*;
use std::fmt::Write;

#[path = "support/cli.rs"]
mod support;
use support::{run, stderr};

/// The operands of one program: two `i192`s, a shift amount and the 19
/// bytes of an `i152` (a packed struct's bitfields).
#[derive(Debug, Clone)]
struct Case {
    a: [u64; 3],
    b: [u64; 3],
    shift: u32,
    bytes: [u8; 19],
}

/// The decimal digits of the unsigned integer `words` (low word first).
fn decimal(words: &[u64]) -> String {
    let mut w: Vec<u64> = words.to_vec();
    let mut digits = Vec::new();
    while w.iter().any(|&x| x != 0) {
        let mut rem = 0u128;
        for x in w.iter_mut().rev() {
            let cur = (rem << 64) | u128::from(*x);
            *x = (cur / 10) as u64;
            rem = cur % 10;
        }
        digits.push(b'0' + rem as u8);
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    digits.reverse();
    String::from_utf8(digits).expect("digits")
}

/// `words` with bit `bit` flipped.
fn flip(mut words: [u64; 3], bit: u32) -> [u64; 3] {
    words[(bit / 64) as usize] ^= 1 << (bit % 64);
    words
}

/// A program's body, as lines of IR, and what each check compares.
#[derive(Default)]
struct Program {
    lines: Vec<String>,
    checks: Vec<String>,
    temps: usize,
}

impl Program {
    fn line(&mut self, s: impl Into<String>) {
        self.lines.push(s.into());
    }

    /// A new value named after `what`, computed by `expr`.
    fn value(&mut self, expr: &str) -> String {
        self.temps += 1;
        let name = format!("%t{}", self.temps);
        self.line(format!("  {name} = {expr}"));
        name
    }

    /// Ends the program with the check's number unless `got` equals `want`.
    fn check(&mut self, what: &str, ty: &str, got: &str, want: &str) {
        self.checks.push(what.to_string());
        let k = self.checks.len();
        self.line(format!("  %bad{k} = icmp ne {ty} {got}, {want}"));
        self.line(format!("  br i1 %bad{k}, label %fail{k}, label %ok{k}"));
        self.line(format!("fail{k}:\n  ret i32 {k}\nok{k}:"));
    }
}

/// The program checking every expanded operation on `case`.
fn program(case: &Case, symbolic: bool) -> (String, Vec<String>) {
    let (a, b) = (decimal(&case.a), decimal(&case.b));
    let mut pw = [0u64; 3];
    for (i, &byte) in case.bytes.iter().enumerate() {
        pw[i / 8] |= u64::from(byte) << (8 * (i % 8));
    }
    let p = decimal(&pw);
    let x = |t: &str| format!("{t} {a}");
    let ka = x("i192");
    let kb = format!("i192 {b}");
    let mut g = Program::default();
    if symbolic {
        // The inputs are symbolic, each word held to its value.
        for (name, size, words) in [("a", 24, &case.a[..]), ("b", 24, &case.b[..])] {
            g.line(format!(
                "  call void @klee_make_symbolic(i8* bitcast (i192* @{name} to i8*), i64 {size}, i8* getelementptr ([2 x i8], [2 x i8]* @name_{name}, i64 0, i64 0))"
            ));
            for (i, w) in words.iter().enumerate() {
                let v = g.value(&format!(
                    "load i64, i64* getelementptr (i64, i64* bitcast (i192* @{name} to i64*), i64 {i})"
                ));
                let e = g.value(&format!("icmp eq i64 {v}, {w}"));
                let z = g.value(&format!("zext i1 {e} to i64"));
                g.line(format!("  call void @klee_assume(i64 {z})"));
            }
        }
        g.line("  call void @klee_make_symbolic(i8* getelementptr ([19 x i8], [19 x i8]* @q, i64 0, i64 0), i64 19, i8* getelementptr ([2 x i8], [2 x i8]* @name_q, i64 0, i64 0))");
        for (i, byte) in case.bytes.iter().enumerate() {
            let v = g.value(&format!(
                "load i8, i8* getelementptr ([19 x i8], [19 x i8]* @q, i64 0, i64 {i})"
            ));
            let e = g.value(&format!("icmp eq i8 {v}, {byte}"));
            let z = g.value(&format!("zext i1 {e} to i64"));
            g.line(format!("  call void @klee_assume(i64 {z})"));
        }
    }
    let vx = g.value("load i192, i192* @a");
    let vy = g.value("load i192, i192* @b");

    for op in ["add", "sub", "and", "or", "xor"] {
        let r = g.value(&format!("{op} i192 {vx}, {vy}"));
        g.check(op, "i192", &r, &format!("{op} ({ka}, {kb})"));
    }
    for s in [case.shift, 0, 1, 63, 64, 100, 128, 191] {
        for op in ["shl", "lshr", "ashr"] {
            let r = g.value(&format!("{op} i192 {vx}, {s}"));
            let want = format!("{op} ({ka}, i192 {s})");
            g.check(&format!("{op} by {s}"), "i192", &r, &want);
        }
    }
    // Orders decided by each limb: the other operand differs from `a` in
    // one bit, of the low, middle or top limb, or equals it.
    let others = [
        (kb.clone(), vy.clone()),
        (x("i192"), x("i192")),
        (format!("i192 {}", decimal(&flip(case.a, 3))), String::new()),
        (
            format!("i192 {}", decimal(&flip(case.a, 70))),
            String::new(),
        ),
        (
            format!("i192 {}", decimal(&flip(case.a, 150))),
            String::new(),
        ),
        (
            format!("i192 {}", decimal(&flip(case.a, 191))),
            String::new(),
        ),
    ];
    for (k, v) in &others {
        let operand = if v.is_empty() {
            k.trim_start_matches("i192 ").to_string()
        } else {
            v.trim_start_matches("i192 ").to_string()
        };
        for pred in [
            "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
        ] {
            let r = g.value(&format!("icmp {pred} i192 {vx}, {operand}"));
            let want = format!("icmp {pred} ({ka}, {k})");
            g.check(&format!("icmp {pred} against {k}"), "i1", &r, &want);
        }
    }
    let lt = g.value(&format!("icmp ult i192 {vx}, {vy}"));
    let sel = g.value(&format!("select i1 {lt}, i192 {vx}, i192 {vy}"));
    let want_min = format!("select (i1 icmp ult ({ka}, {kb}), {ka}, {kb})");
    g.check("select", "i192", &sel, &want_min);
    g.line(format!("  br i1 {lt}, label %less, label %more"));
    g.line("less:\n  br label %join\nmore:\n  br label %join\njoin:");
    let phi = g.value(&format!("phi i192 [ {vx}, %less ], [ {vy}, %more ]"));
    g.check("phi", "i192", &phi, &want_min);

    for to in [64, 100, 128, 160] {
        let r = g.value(&format!("trunc i192 {vx} to i{to}"));
        g.check(
            &format!("trunc to i{to}"),
            &format!("i{to}"),
            &r,
            &format!("trunc ({ka} to i{to})"),
        );
        for ext in ["zext", "sext"] {
            let e = g.value(&format!("{ext} i{to} {r} to i192"));
            let want = format!("{ext} (i{to} trunc ({ka} to i{to}) to i192)");
            g.check(&format!("{ext} from i{to}"), "i192", &e, &want);
        }
    }
    let e = g.value(&format!("sext i192 {vx} to i256"));
    g.check("sext to i256", "i256", &e, &format!("sext ({ka} to i256)"));

    // Memory: limb i at byte 8 * i, as a store of the whole integer puts it.
    g.line(format!("  store i192 {vx}, i192* @buf"));
    for i in 0..3 {
        let w = g.value(&format!(
            "load i64, i64* getelementptr (i64, i64* bitcast (i192* @buf to i64*), i64 {i})"
        ));
        let want = format!("trunc (i192 lshr ({ka}, i192 {}) to i64)", 64 * i);
        g.check(&format!("word {i} in memory"), "i64", &w, &want);
    }
    // A packed struct's bitfields: 19 bytes read as one i152, a signed
    // field read out and another written in, as clang does it.
    let kp = format!("i152 {p}");
    let vp = g.value("load i152, i152* bitcast ([19 x i8]* @q to i152*)");
    g.check("i152 from bytes", "i152", &vp, &p);
    let up = g.value(&format!("shl i152 {vp}, 93"));
    let field = g.value(&format!("ashr i152 {up}, 122"));
    let field = g.value(&format!("trunc i152 {field} to i32"));
    let want = format!("trunc (i152 ashr (i152 shl ({kp}, i152 93), i152 122) to i32)");
    g.check("signed field bits 29..59", "i32", &field, &want);
    let mask = "xor (i152 shl (i152 1048575, i152 67), i152 -1)";
    let cleared = g.value(&format!("and i152 {vp}, {mask}"));
    let wide = g.value(&format!("zext i32 {field} to i152"));
    let wide = g.value(&format!("and i152 {wide}, 1048575"));
    let placed = g.value(&format!("shl i152 {wide}, 67"));
    let set = g.value(&format!("or i152 {cleared}, {placed}"));
    g.line(format!(
        "  store i152 {set}, i152* bitcast ([19 x i8]* @q to i152*)"
    ));
    let back = g.value("load i152, i152* bitcast ([19 x i8]* @q to i152*)");
    let want_set = format!(
        "or (i152 and ({kp}, i152 {mask}), i152 shl (i152 and (i152 zext (i32 {want} to i152), i152 1048575), i152 67))"
    );
    g.check("field bits 67..86 written", "i152", &back, &want_set);
    let top = g.value("load i8, i8* getelementptr ([19 x i8], [19 x i8]* @q, i64 0, i64 18)");
    let want_top = format!("trunc (i152 lshr (i152 {want_set}, i152 144) to i8)");
    g.check("byte 18 after the write", "i8", &top, &want_top);

    let init = |v: &str| {
        if symbolic {
            "zeroinitializer".to_string()
        } else {
            v.to_string()
        }
    };
    let bytes: Vec<String> = case.bytes.iter().map(|b| format!("i8 {b}")).collect();
    let mut m = String::new();
    writeln!(m, "@a = global i192 {}, align 8", init(&a)).unwrap();
    writeln!(m, "@b = global i192 {}, align 8", init(&b)).unwrap();
    writeln!(
        m,
        "@q = global [19 x i8] {}",
        init(&format!("[{}]", bytes.join(", ")))
    )
    .unwrap();
    writeln!(m, "@buf = global i192 0, align 8").unwrap();
    for name in ["a", "b", "q"] {
        writeln!(m, "@name_{name} = constant [2 x i8] c\"{name}\\00\"").unwrap();
    }
    m.push_str("declare void @klee_make_symbolic(i8*, i64, i8*)\n");
    m.push_str("declare void @klee_assume(i64)\n");
    m.push_str("define i32 @main() {\nentry:\n");
    for l in &g.lines {
        m.push_str(l);
        m.push('\n');
    }
    m.push_str("  ret i32 0\n}\n");
    (m, g.checks)
}

/// Runs the program of `case`; `Err` names the check that failed.
fn holds(case: &Case, symbolic: bool) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("scratch");
    let (text, checks) = program(case, symbolic);
    let ll = dir.path().join("wide.ll");
    std::fs::write(&ll, &text).expect("write IR");
    let out = dir.path().join("out");
    let o = run(&ll, &out, &[]);
    if !o.status.success() {
        return Err(format!("mnemo run failed: {}", stderr(&o)));
    }
    let tests = support::json(&out.join("tests.json"));
    let list = tests["tests"].as_array().cloned().unwrap_or_default();
    if list.len() != 1 {
        return Err(format!("{} paths, not 1: {tests}", list.len()));
    }
    let t = &list[0];
    let exit = (t["outcome"] == "exit")
        .then(|| t["exit_code"].as_u64())
        .flatten();
    match exit {
        Some(0) => Ok(()),
        Some(k) => Err(format!(
            "check {k} failed: {}",
            checks.get(k as usize - 1).map_or("?", String::as_str)
        )),
        None => Err(format!("the path did not exit: {t}")),
    }
}

fn word() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => any::<u64>(),
        1 => Just(0),
        1 => Just(u64::MAX),
        1 => Just(1u64 << 63),
        1 => Just(1),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        [word(), word(), word()],
        [word(), word(), word()],
        0u32..192,
        any::<[u8; 19]>(),
    )
        .prop_map(|(a, b, shift, bytes)| Case { a, b, shift, bytes })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn concrete_wide_operations_fold_as_llvm_folds_them(c in case()) {
        holds(&c, false).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn symbolic_wide_operations_take_no_path_llvm_folding_rules_out(c in case()) {
        holds(&c, true).map_err(TestCaseError::fail)?;
    }
}
