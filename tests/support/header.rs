//! The expectation header at the top of each testsuite program: its
//! parser, and the checks of the parser registered as `header::...` trials.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use libtest_mimic::{Failed, Trial};

/// What a program's header says `mnemo run` must produce.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Expectation {
    /// Extra arguments for `mnemo run`, placed before the bitcode path.
    pub args: Vec<String>,
    /// Arguments for the program, placed after the bitcode path.
    pub program_args: Vec<String>,
    /// Extra flags for clang when `mnemo cc` compiles the program (`-O2`
    /// for optimized bitcode), after the ones it always passes.
    pub cc_args: Vec<String>,
    /// Paths that ended by returning from main or calling exit().
    pub completed: u64,
    /// Error paths per (kind, source line of the faulting instruction).
    pub errors: BTreeMap<(String, u32), u64>,
    /// Early-ended paths per reason (max-depth, ...).
    pub early: BTreeMap<String, u64>,
    /// Number of .ktest files the run writes.
    pub tests: u64,
}

impl Expectation {
    /// Error paths per kind, as stats.json reports them.
    pub fn errors_by_kind(&self) -> BTreeMap<String, u64> {
        let mut by_kind = BTreeMap::new();
        for ((kind, _), n) in &self.errors {
            *by_kind.entry(kind.clone()).or_insert(0) += n;
        }
        by_kind
    }

    /// Total number of error paths.
    pub fn error_total(&self) -> u64 {
        self.errors.values().sum()
    }
}

fn parse_count(key: &str, text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("`{key}`: `{text}` is not a non-negative integer"))
}

/// Parses the leading `/* ... */` comment of a program into its
/// expectations, rejecting unknown keys, duplicates and totals that do
/// not add up (every completed, error and early path gets one test).
pub fn parse(source: &str) -> Result<Expectation, String> {
    let trimmed = source.trim_start();
    if !trimmed.starts_with("/*") {
        return Err("the program has no header comment (it must start with `/*`)".into());
    }
    let end = trimmed
        .find("*/")
        .ok_or_else(|| "the header comment is not closed".to_string())?;
    let body = &trimmed[2..end];

    let mut exp = Expectation::default();
    let mut seen_completed = false;
    let mut seen_tests = false;
    let mut seen_args = false;
    let mut seen_program_args = false;
    let mut seen_cc_args = false;
    for raw in body.lines() {
        let line = raw.trim().trim_start_matches('*').trim();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if !["expect-", "mnemo-", "program-", "cc-"]
            .iter()
            .any(|p| key.starts_with(p))
        {
            continue;
        }
        let fields: Vec<&str> = value.split_whitespace().collect();
        match key {
            "mnemo-args" => {
                if seen_args {
                    return Err("`mnemo-args` given twice".into());
                }
                seen_args = true;
                exp.args = fields.iter().map(|s| s.to_string()).collect();
            }
            "cc-args" => {
                if seen_cc_args {
                    return Err("`cc-args` given twice".into());
                }
                seen_cc_args = true;
                exp.cc_args = fields.iter().map(|s| s.to_string()).collect();
            }
            "program-args" => {
                if seen_program_args {
                    return Err("`program-args` given twice".into());
                }
                seen_program_args = true;
                exp.program_args = fields.iter().map(|s| s.to_string()).collect();
            }
            "expect-completed" | "expect-tests" => {
                let [n] = fields[..] else {
                    return Err(format!("`{key}` takes one count, got `{}`", value.trim()));
                };
                let n = parse_count(key, n)?;
                let seen = if key == "expect-completed" {
                    exp.completed = n;
                    &mut seen_completed
                } else {
                    exp.tests = n;
                    &mut seen_tests
                };
                if *seen {
                    return Err(format!("`{key}` given twice"));
                }
                *seen = true;
            }
            "expect-error" => {
                let [kind, line, n] = fields[..] else {
                    return Err(format!(
                        "`expect-error` takes `<kind> <line> <count>`, got `{}`",
                        value.trim()
                    ));
                };
                let line_no = line
                    .parse::<u32>()
                    .map_err(|_| format!("`expect-error`: `{line}` is not a line number"))?;
                let n = parse_count(key, n)?;
                if exp.errors.insert((kind.to_string(), line_no), n).is_some() {
                    return Err(format!("`expect-error: {kind} {line_no}` given twice"));
                }
            }
            "expect-early" => {
                let [reason, n] = fields[..] else {
                    return Err(format!(
                        "`expect-early` takes `<reason> <count>`, got `{}`",
                        value.trim()
                    ));
                };
                let n = parse_count(key, n)?;
                if exp.early.insert(reason.to_string(), n).is_some() {
                    return Err(format!("`expect-early: {reason}` given twice"));
                }
            }
            other => return Err(format!("unknown header key `{other}`")),
        }
    }
    if !seen_completed {
        return Err("the header has no `expect-completed` line".into());
    }
    if !seen_tests {
        return Err("the header has no `expect-tests` line".into());
    }
    let sum = exp.completed + exp.error_total() + exp.early.values().sum::<u64>();
    if sum != exp.tests {
        return Err(format!(
            "`expect-tests: {}` but completed + errors + early = {sum}",
            exp.tests
        ));
    }
    Ok(exp)
}

/// Checks of the header parser itself, registered as `header::...` trials;
/// `programs` lists the suite's programs, whose headers must all parse.
pub fn trials(programs: fn() -> Result<Vec<PathBuf>, String>) -> Vec<Trial> {
    fn expect_err(src: &str, needle: &str) -> Result<(), Failed> {
        match parse(src) {
            Ok(e) => Err(format!("accepted a bad header as {e:?}").into()),
            Err(msg) if msg.contains(needle) => Ok(()),
            Err(msg) => {
                Err(format!("wrong error `{msg}`, wanted one mentioning `{needle}`").into())
            }
        }
    }
    vec![
        Trial::test("header::parses_every_key", || {
            let src = "/* what it does\n * mnemo-args: --max-depth 12 --seed 3\n \
                       * program-args: --sym-arg 3 x\n * cc-args: -O2 -DN=3\n \
                       * expect-completed: 12\n * expect-error: assert 23 1\n \
                       * expect-error: null 30 2\n * expect-early: max-depth 3\n \
                       * expect-tests: 18\n */\nint main(void) { return 0; }\n";
            let e = parse(src)?;
            let mut errors = std::collections::BTreeMap::new();
            errors.insert(("assert".to_string(), 23), 1);
            errors.insert(("null".to_string(), 30), 2);
            let mut early = std::collections::BTreeMap::new();
            early.insert("max-depth".to_string(), 3);
            let want = Expectation {
                args: vec![
                    "--max-depth".into(),
                    "12".into(),
                    "--seed".into(),
                    "3".into(),
                ],
                program_args: vec!["--sym-arg".into(), "3".into(), "x".into()],
                cc_args: vec!["-O2".into(), "-DN=3".into()],
                completed: 12,
                errors,
                early,
                tests: 18,
            };
            if e != want {
                return Err(format!("parsed {e:?}, wanted {want:?}").into());
            }
            let by_kind = e.errors_by_kind();
            if by_kind.get("null") != Some(&2) || by_kind.len() != 2 {
                return Err(format!("errors_by_kind gave {by_kind:?}").into());
            }
            Ok(())
        }),
        Trial::test("header::rejects_unknown_key", || {
            expect_err(
                "/* x\n * expect-complete: 1\n * expect-completed: 1\n * expect-tests: 1\n */",
                "unknown header key `expect-complete`",
            )?;
            expect_err(
                "/* x\n * mnemo-arg: --max-depth 2\n * expect-completed: 1\n * expect-tests: 1\n */",
                "unknown header key `mnemo-arg`",
            )?;
            expect_err(
                "/* x\n * program-arg: a\n * expect-completed: 1\n * expect-tests: 1\n */",
                "unknown header key `program-arg`",
            )?;
            expect_err(
                "/* x\n * cc-arg: -O2\n * expect-completed: 1\n * expect-tests: 1\n */",
                "unknown header key `cc-arg`",
            )?;
            expect_err(
                "/* x\n * cc-args: -O2\n * cc-args: -O1\n * expect-completed: 1\n * expect-tests: 1\n */",
                "`cc-args` given twice",
            )?;
            expect_err(
                "/* x\n * program-args: a\n * program-args: b\n * expect-completed: 1\n * expect-tests: 1\n */",
                "`program-args` given twice",
            )
        }),
        Trial::test("header::rejects_missing_or_malformed", || {
            expect_err("int main(void) { return 0; }\n", "no header comment")?;
            expect_err("/* only words */\n", "no `expect-completed`")?;
            expect_err("/* x\n * expect-completed: 1\n */", "no `expect-tests`")?;
            expect_err(
                "/* x\n * expect-completed: 1\n * expect-error: assert 1\n * expect-tests: 2\n */",
                "takes `<kind> <line> <count>`",
            )?;
            expect_err(
                "/* x\n * expect-completed: one\n * expect-tests: 1\n */",
                "not a non-negative integer",
            )?;
            expect_err(
                "/* x\n * expect-completed: 1\n * expect-completed: 1\n * expect-tests: 1\n */",
                "given twice",
            )
        }),
        Trial::test("header::rejects_totals_that_do_not_add_up", || {
            expect_err(
                "/* x\n * expect-completed: 2\n * expect-error: abort 4 1\n * expect-tests: 2\n */",
                "completed + errors + early = 3",
            )
        }),
        Trial::test("header::every_program_has_a_valid_header", move || {
            let mut bad = Vec::new();
            for prog in programs()? {
                let src = fs::read_to_string(&prog)
                    .map_err(|e| format!("cannot read {}: {e}", prog.display()))?;
                if let Err(e) = parse(&src) {
                    bad.push(format!("{}: {e}", prog.display()));
                }
            }
            if bad.is_empty() {
                Ok(())
            } else {
                Err(bad.join("\n").into())
            }
        }),
    ]
}
