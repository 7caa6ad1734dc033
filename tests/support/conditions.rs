//! Checks the path conditions a run wrote with `--write-smt2s` against its
//! own tests, with Z3 reading each file as another solver would: a test's
//! inputs meet its own path's condition, and the next test's (by number,
//! that is by place in the trie: the path that left this one at its
//! deepest fork, or near it) meet it only where the two paths are one.

use std::path::Path;

use mnemo::testgen::KTest;
use z3::ast::{Array as ZArray, BV};
use z3::{SatResult, Solver, Sort};

/// What [`check_conditions`] found.
#[derive(Debug, Default)]
pub struct Checked {
    /// Tests whose inputs were checked against their own condition.
    pub own: usize,
    /// Tests whose condition the next test's inputs were checked against.
    pub next: usize,
    /// Tests without a condition (written from the trie).
    pub without: usize,
}

/// One test's condition and inputs.
struct Test {
    name: String,
    text: String,
    /// Each input's name in the ktest and its array in the text.
    arrays: Vec<(String, String)>,
    ktest: KTest,
}

/// The inputs' names and arrays that the text's leading comment lists.
fn arrays_of(text: &str) -> Result<Vec<(String, String)>, String> {
    text.lines()
        .take_while(|l| l.starts_with(';'))
        .filter_map(|l| l.strip_prefix("; input "))
        .map(|l| {
            let (_, rest) = l.split_once(", \"").ok_or(format!("no name in `{l}`"))?;
            let (name, rest) = rest.split_once("\": ").ok_or(format!("no size in `{l}`"))?;
            let (_, array) = rest
                .split_once(", the array ")
                .ok_or(format!("no array in `{l}`"))?;
            let array = array.trim_start_matches('|').trim_end_matches('|');
            Ok((name.to_string(), array.to_string()))
        })
        .collect()
}

/// Whether `text` holds with its arrays set to `ktest`'s objects, in order.
fn holds(text: &str, arrays: &[(String, String)], ktest: &KTest) -> SatResult {
    let solver = Solver::new();
    solver.from_string(text);
    // Z3 drops a text it cannot parse without a word: every assertion
    // must be there.
    let written = text.lines().filter(|l| l.starts_with("(assert")).count();
    assert_eq!(
        solver.get_assertions().len(),
        written,
        "Z3 did not read:\n{text}"
    );
    let (d, r) = (Sort::bitvector(64), Sort::bitvector(8));
    for ((_, array), object) in arrays.iter().zip(&ktest.objects) {
        let array = ZArray::new_const(array.as_str(), &d, &r);
        for (i, &b) in object.bytes.iter().enumerate() {
            let at = array.select(&BV::from_u64(i as u64, 64));
            let byte = at.as_bv().expect("an array of bytes");
            solver.assert(byte.eq(BV::from_u64(b.into(), 8)));
        }
    }
    solver.check()
}

/// Checks every test listed in `out/tests.json` that has its `.smt2`: its
/// inputs are the ktest's objects, and Z3 reads it and finds it met by the
/// ktest's bytes; and, where the next test has one too and the same
/// inputs, not met by the next test's bytes.
pub fn check_conditions(out: &Path) -> Result<Checked, String> {
    let read = |name: &str| {
        std::fs::read_to_string(out.join(name)).map_err(|e| format!("cannot read {name}: {e}"))
    };
    let index: serde_json::Value =
        serde_json::from_str(&read("tests.json")?).map_err(|e| format!("tests.json: {e}"))?;
    let listed = index["tests"]
        .as_array()
        .ok_or("tests.json lists no tests")?;
    let mut tests = Vec::with_capacity(listed.len());
    for t in listed {
        let ktest = t["ktest"].as_str().ok_or("a test without its ktest")?;
        let name = ktest.trim_end_matches(".ktest").to_string();
        let file = out.join(format!("{name}.smt2"));
        if !file.exists() {
            tests.push(None);
            continue;
        }
        let text = read(&format!("{name}.smt2"))?;
        let arrays = arrays_of(&text).map_err(|e| format!("{name}.smt2: {e}"))?;
        let ktest = KTest::read(&out.join(ktest)).map_err(|e| e.to_string())?;
        let objects: Vec<&str> = ktest.objects.iter().map(|o| o.name.as_str()).collect();
        let inputs: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
        if objects != inputs {
            return Err(format!(
                "{name}.smt2 lists the inputs {inputs:?}, its ktest {objects:?}"
            ));
        }
        tests.push(Some(Test {
            name,
            text,
            arrays,
            ktest,
        }));
    }
    let mut checked = Checked::default();
    for (i, t) in tests.iter().enumerate() {
        let Some(t) = t else {
            checked.without += 1;
            continue;
        };
        let own = holds(&t.text, &t.arrays, &t.ktest);
        if own != SatResult::Sat {
            return Err(format!(
                "{}'s inputs do not meet its path condition ({own:?}):\n{}",
                t.name, t.text
            ));
        }
        checked.own += 1;
        let Some(Some(next)) = tests.get(i + 1) else {
            continue;
        };
        if next.arrays != t.arrays {
            continue;
        }
        let other = holds(&t.text, &t.arrays, &next.ktest);
        if other != SatResult::Unsat {
            return Err(format!(
                "{}'s inputs meet the path condition of {} ({other:?}):\n{}",
                next.name, t.name, t.text
            ));
        }
        checked.next += 1;
    }
    Ok(checked)
}
