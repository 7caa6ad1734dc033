//! Classifying a native run (exit status, signal, sanitizer and replay
//! library reports on stderr) and comparing it with the engine's prediction.

use std::fmt;
use std::process::ExitStatus;

use super::index::Outcome;

/// How the native process ended, before looking at what it printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    Exited(i32),
    Signaled(i32),
    TimedOut,
}

impl Termination {
    pub(crate) fn from_status(status: ExitStatus) -> Termination {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(code), _) => Termination::Exited(code),
            (None, Some(sig)) => Termination::Signaled(sig),
            // Neither code nor signal cannot happen for a waited-for child
            // on Unix; report it as a failed exit rather than panicking.
            (None, None) => Termination::Exited(-1),
        }
    }
}

/// What the natively compiled program did with a test's inputs, in the
/// vocabulary of CONTRACT.md's native replay classification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NativeOutcome {
    /// Exited normally with this status and no error report.
    Exit(u8),
    /// An error of one of the contract's kinds (`assert`, `null`, ...).
    Error(&'static str),
    /// A SEGV at an address of 4096 or more, or a SIGBUS (a touch of a
    /// mapping's page past its file's end): `ptr` or `readonly`.
    WildAccess,
    /// The processor's divide error (SIGFPE): a division by zero, or the
    /// least signed value divided by -1 (`div-by-zero` or `overflow`).
    DivideTrap,
    /// An illegal instruction (SIGILL): the `ud2` clang emits for
    /// `__builtin_trap()` (`abort`) and for a `-fsanitize-trap` check (the
    /// check's kind, which the trap does not tell).
    Trap,
    /// Killed by a signal the contract does not map to a kind.
    Signal(i32),
    /// A sanitizer report of a kind mnemo never predicts (its headline).
    UnknownReport(String),
    /// The replay library could not feed the test to the program (its
    /// message): wrong object sizes, too few objects, failed assumption.
    ReplayFailed(String),
    /// Still running when the time limit was reached; it was killed.
    Timeout,
}

impl fmt::Display for NativeOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NativeOutcome::Exit(code) => write!(f, "exit {code}"),
            NativeOutcome::Error(kind) => write!(f, "{kind}"),
            NativeOutcome::WildAccess => write!(f, "ptr or readonly (SEGV or BUS)"),
            NativeOutcome::DivideTrap => write!(f, "div-by-zero or overflow (SIGFPE)"),
            NativeOutcome::Trap => write!(f, "abort or a sanitizer check's kind (SIGILL)"),
            NativeOutcome::Signal(sig) => write!(f, "signal {sig}"),
            NativeOutcome::UnknownReport(line) => write!(f, "unclassified report: {line}"),
            NativeOutcome::ReplayFailed(msg) => write!(f, "replay failed: {msg}"),
            NativeOutcome::Timeout => write!(f, "timeout"),
        }
    }
}

/// The replay library's prefix for its own lines on stderr.
pub(crate) const MARKER: &str = "MNEMO-REPLAY: ";
/// The replay library's exit status when the test could not be replayed.
const REPLAY_FAILED_STATUS: i32 = 77;
const SIGILL: i32 = 4;
const SIGABRT: i32 = 6;
const SIGBUS: i32 = 7;
const SIGFPE: i32 = 8;
const SIGSEGV: i32 = 11;
/// Faults below this address are null dereferences (null plus an offset).
const NULL_PAGE: u64 = 4096;

/// Maps the headline of an AddressSanitizer report (the text after
/// "ERROR: AddressSanitizer: ") to an outcome.
fn classify_asan(headline: &str) -> NativeOutcome {
    if headline.starts_with("FPE on unknown address") {
        return NativeOutcome::DivideTrap;
    }
    if headline.starts_with("ILL on unknown address") {
        return NativeOutcome::Trap;
    }
    if headline.starts_with("BUS on unknown address") {
        return NativeOutcome::WildAccess;
    }
    if let Some(rest) = headline.strip_prefix("SEGV on unknown address") {
        // "SEGV on unknown address 0x00000000000c (pc ...)"; a fault on a
        // non-canonical address has no address, only "(pc ...)".
        let addr = rest.trim_start().strip_prefix("0x").and_then(|hex| {
            let end = hex
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(hex.len());
            u64::from_str_radix(&hex[..end], 16).ok()
        });
        return match addr {
            Some(a) if a < NULL_PAGE => NativeOutcome::Error("null"),
            _ => NativeOutcome::WildAccess,
        };
    }
    const TABLE: &[(&str, &str)] = &[
        ("heap-use-after-free", "use-after-free"),
        ("attempting double-free", "double-free"),
        (
            "attempting free on address which was not malloc()-ed",
            "invalid-free",
        ),
        ("heap-buffer-overflow", "ptr"),
        ("stack-buffer-overflow", "ptr"),
        ("stack-buffer-underflow", "ptr"),
        ("dynamic-stack-buffer-overflow", "ptr"),
        ("global-buffer-overflow", "ptr"),
        ("stack-use-after-scope", "ptr"),
        ("stack-use-after-return", "ptr"),
    ];
    for (prefix, kind) in TABLE {
        if headline.starts_with(prefix) {
            return NativeOutcome::Error(kind);
        }
    }
    NativeOutcome::UnknownReport(format!("AddressSanitizer: {headline}"))
}

/// Maps the text after UBSan's "runtime error: " to an outcome: the kind
/// the engine gives the same check (`exec::ubsan`).
fn classify_ubsan(message: &str) -> NativeOutcome {
    // By the message's start, then by what it says further on.
    const STARTS: &[(&str, &str)] = &[
        ("division by zero", "div-by-zero"),
        ("shift exponent", "overshift"),
        ("left shift of", "overflow"),
        ("signed integer overflow", "overflow"),
        ("unsigned integer overflow", "overflow"),
        ("negation of", "overflow"),
        ("division of", "overflow"),
        ("implicit conversion from", "overflow"),
        ("execution reached", "unreachable"),
        ("index ", "ptr"),
        ("pointer index expression", "ptr"),
        ("applying ", "ptr"),
        ("addition of unsigned offset", "ptr"),
        ("subtraction of unsigned offset", "ptr"),
        ("null pointer passed as argument", "null"),
        ("null pointer returned", "null"),
        ("variable length array bound", "undefined"),
        ("passing zero to", "undefined"),
        ("assumption of", "undefined"),
    ];
    const CONTAINS: &[(&str, &str)] = &[
        ("null pointer of type", "null"),
        ("misaligned address", "undefined"),
        ("insufficient space for an object", "ptr"),
        ("which is not a valid value for type", "undefined"),
        ("is outside the range of representable values", "overflow"),
    ];
    let kind = STARTS
        .iter()
        .find(|(start, _)| message.starts_with(start))
        .or_else(|| CONTAINS.iter().find(|(part, _)| message.contains(part)));
    match kind {
        Some((_, kind)) => NativeOutcome::Error(kind),
        None => NativeOutcome::UnknownReport(format!("UBSan: {message}")),
    }
}

/// Whether `line` is the report of a failed `assert`, as the C library the
/// program was linked with prints it: glibc's (a program `mnemo replay`
/// compiles) "PROG: FILE:LINE: FUNC: Assertion `EXPR' failed.", or musl's
/// (a project's program, built with `mnemo cc-project`) "Assertion failed:
/// EXPR (FILE: FUNC: LINE)". Either may follow what the program had left
/// on the line.
fn assertion_failed(line: &str) -> bool {
    let line = line.trim_end();
    let glibc = line.contains(": Assertion `") && line.ends_with("' failed.");
    let musl = line.contains("Assertion failed: ")
        && line.strip_suffix(')').is_some_and(|l| {
            let digits = l.trim_end_matches(|c: char| c.is_ascii_digit());
            digits.len() < l.len() && digits.ends_with(": ")
        });
    glibc || musl
}

/// Classifies a native run from how it ended and what it wrote on stderr,
/// following CONTRACT.md. Reports only count when the process failed, so a
/// program that merely prints such text and exits 0 is an exit.
pub fn classify_native(termination: Termination, stderr: &str) -> NativeOutcome {
    let failed = match termination {
        Termination::TimedOut => return NativeOutcome::Timeout,
        Termination::Exited(code) => code != 0,
        Termination::Signaled(_) => true,
    };
    if failed {
        // The replay library prints its line last, just before exiting.
        let marker = stderr
            .lines()
            .rev()
            .filter_map(|l| l.strip_prefix(MARKER))
            .find(|m| !m.starts_with("warning:"));
        if let Some(m) = marker {
            if m.starts_with("error user") {
                return NativeOutcome::Error("user");
            }
            if m.starts_with("error reach") {
                return NativeOutcome::Error("reach");
            }
            if termination == Termination::Exited(REPLAY_FAILED_STATUS) {
                return NativeOutcome::ReplayFailed(m.to_string());
            }
        }
        for line in stderr.lines() {
            if let Some(pos) = line.find("ERROR: AddressSanitizer: ") {
                return classify_asan(&line[pos + "ERROR: AddressSanitizer: ".len()..]);
            }
            if let Some(pos) = line.find(": runtime error: ") {
                return classify_ubsan(&line[pos + ": runtime error: ".len()..]);
            }
        }
    }
    match termination {
        Termination::Signaled(SIGABRT) => {
            let asserted = stderr.lines().any(assertion_failed);
            NativeOutcome::Error(if asserted { "assert" } else { "abort" })
        }
        Termination::Signaled(SIGFPE) => NativeOutcome::DivideTrap,
        Termination::Signaled(SIGILL) => NativeOutcome::Trap,
        Termination::Signaled(SIGSEGV | SIGBUS) => NativeOutcome::WildAccess,
        Termination::Signaled(sig) => NativeOutcome::Signal(sig),
        // Only the low 8 bits of a status reach the parent.
        Termination::Exited(code) => NativeOutcome::Exit((code & 0xff) as u8),
        Termination::TimedOut => NativeOutcome::Timeout,
    }
}

/// The kinds CONTRACT.md lists as "not predicted": replayed but not
/// compared, since native code cannot reproduce the engine's reason.
const NOT_PREDICTED_KINDS: &[&str] = &["unsupported", "external", "solver", "bad-call"];

/// The kinds whose native counterpart the classifier can recognize.
const PREDICTED_KINDS: &[&str] = &[
    "null",
    "ptr",
    "use-after-free",
    "double-free",
    "invalid-free",
    "readonly",
    "assert",
    "abort",
    "div-by-zero",
    "overshift",
    "overflow",
    "undefined",
    "user",
    "reach",
    "unreachable",
];

/// The kinds a native trap (SIGILL) may stand for: `abort` for
/// `__builtin_trap()`, the others for `-fsanitize-trap` checks
/// (`exec::ubsan::trapped`).
const TRAP_KINDS: &[&str] = &[
    "abort",
    "overflow",
    "unreachable",
    "undefined",
    "null",
    "ptr",
];

/// How a test's native run compares with the engine's prediction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Match,
    Mismatch,
    /// The engine's outcome is one native code cannot show (early end,
    /// unsupported feature, external call, solver failure, ...).
    NotPredicted,
    /// The test could not be fed to the program (bad or missing ktest,
    /// wrong input sizes, a failed assumption): the test itself is wrong.
    ReplayFailed(String),
}

/// Compares a prediction with a native outcome.
pub fn verdict(predicted: &Outcome, native: &NativeOutcome) -> Verdict {
    let kind = match predicted {
        Outcome::Early {
            signal: Some(signal),
            ..
        } => return killed_by(*signal, native),
        // A process whose every thread waits for ever hangs natively too
        // (a deadlock the native schedule avoids says nothing either way).
        Outcome::Early { reason, .. }
            if reason == "blocked" && *native == NativeOutcome::Timeout =>
        {
            return Verdict::Match
        }
        Outcome::Early { .. } => return Verdict::NotPredicted,
        Outcome::Error { kind, .. } => {
            if NOT_PREDICTED_KINDS.contains(&kind.as_str())
                || !PREDICTED_KINDS.contains(&kind.as_str())
            {
                return Verdict::NotPredicted;
            }
            Some(kind.as_str())
        }
        Outcome::Exit { .. } => None,
    };
    if let NativeOutcome::ReplayFailed(msg) = native {
        return Verdict::ReplayFailed(msg.clone());
    }
    let matched = match (predicted, kind, native) {
        (Outcome::Exit { exit_code }, _, NativeOutcome::Exit(code)) => exit_code == code,
        (_, Some(k), NativeOutcome::Error(n)) => k == *n,
        (_, Some(k), NativeOutcome::WildAccess) => k == "ptr" || k == "readonly",
        (_, Some(k), NativeOutcome::DivideTrap) => k == "div-by-zero" || k == "overflow",
        (_, Some(k), NativeOutcome::Trap) => TRAP_KINDS.contains(&k),
        _ => false,
    };
    if matched {
        Verdict::Match
    } else {
        Verdict::Mismatch
    }
}

/// Whether a native run ended as a process killed by `signal` (which it
/// sent itself, printing no report) is classified.
fn killed_by(signal: u8, native: &NativeOutcome) -> Verdict {
    if let NativeOutcome::ReplayFailed(msg) = native {
        return Verdict::ReplayFailed(msg.clone());
    }
    if classify_native(Termination::Signaled(i32::from(signal)), "") == *native {
        Verdict::Match
    } else {
        Verdict::Mismatch
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    // Real reports, captured from programs built with the native replay
    // flags (toolchain::NATIVE_FLAGS) and run with replay's ASAN_OPTIONS.
    const UBSAN_DIV: &str = "ub.c:9:21: runtime error: division by zero\n\
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior ub.c:9:21 in \n";
    const UBSAN_SHIFT: &str =
        "ub.c:10:20: runtime error: shift exponent 40 is too large for 32-bit type 'int'\n\
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior ub.c:10:20 in \n";
    const UBSAN_NEG_SHIFT: &str = "ub.c:24:21: runtime error: shift exponent -1 is negative\n\
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior ub.c:24:21 in \n";
    const UBSAN_UNREACHABLE: &str =
        "ub.c:11:11: runtime error: execution reached an unreachable program point\n\
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior ub.c:11:11 in \n";
    const ASAN_NULL: &str = "AddressSanitizer:DEADLYSIGNAL\n\
=================================================================\n\
==5458==ERROR: AddressSanitizer: SEGV on unknown address 0x00000000000c (pc 0x55a23bc012e5 bp 0x7ffd8ea1e7b0 sp 0x7ffd8ea1e5c0 T0)\n\
==5458==The signal is caused by a READ memory access.\n\
==5458==Hint: address points to the zero page.\n\
    #0 0x55a23bc012e5 in main /home/dev/ub.c:12:25\n\
\n\
AddressSanitizer can not provide additional info.\n\
SUMMARY: AddressSanitizer: SEGV /home/dev/ub.c:12:25 in main\n\
==5458==ABORTING\n";
    const ASAN_WILD_WRITE: &str = "AddressSanitizer:DEADLYSIGNAL\n\
=================================================================\n\
==5478==ERROR: AddressSanitizer: SEGV on unknown address 0x5612f22a7460 (pc 0x5612f229441b bp 0x7ffdb7a6a800 sp 0x7ffdb7a6a600 T0)\n\
==5478==The signal is caused by a WRITE memory access.\n\
    #0 0x5612f229441b in main /home/dev/ub.c:16:16\n\
SUMMARY: AddressSanitizer: SEGV /home/dev/ub.c:16:16 in main\n\
==5478==ABORTING\n";
    /// A read of a mapping's page past its file's end: no address.
    const ASAN_BUS: &str = "AddressSanitizer:DEADLYSIGNAL\n\
=================================================================\n\
==7310==ERROR: AddressSanitizer: BUS on unknown address (pc 0x0000004dd194 bp 0x7ffcd23cf890 sp 0x7ffcd23cf830 T0)\n\
    #0 0x4dd194 in main /home/dev/bus.c:21:28\n\
SUMMARY: AddressSanitizer: BUS /home/dev/bus.c:21:28 in main\n\
==7310==ABORTING\n";
    const ASAN_UAF: &str = "=================================================================\n\
==5463==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x55837bdc9359 bp 0x7ffef837c3d0 sp 0x7ffef837c3c8\n\
READ of size 4 at 0x602000000010 thread T0\n\
    #0 0x55837bdc9358 in main /home/dev/ub.c:13:42\n";
    const ASAN_DOUBLE_FREE: &str = "=================================================================\n\
==5468==ERROR: AddressSanitizer: attempting double-free on 0x602000000010 in thread T0:\n\
    #0 0x564c0c260eb2 in free (/home/dev/ub+0xa3eb2) (BuildId: d564332142855fe236e9bce437faab407061e227)\n";
    const ASAN_STACK_FREE: &str = "=================================================================\n\
==5473==ERROR: AddressSanitizer: attempting free on address which was not malloc()-ed: 0x7ffeedc9e100 in thread T0\n\
    #0 0x556866a68eb2 in free (/home/dev/ub+0xa3eb2) (BuildId: d564332142855fe236e9bce437faab407061e227)\n";
    const ASAN_HEAP_OVERFLOW: &str = "=================================================================\n\
==5483==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000018 at pc 0x55b4172884eb bp 0x7ffe27df3ab0 sp 0x7ffe27df3aa8\n\
READ of size 4 at 0x602000000018 thread T0\n";
    const ASAN_STACK_OVERFLOW: &str = "=================================================================\n\
==5488==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7ffe7e003d14 at pc 0x55ab3336459e bp 0x7ffe7e003cb0 sp 0x7ffe7e003ca8\n\
READ of size 4 at 0x7ffe7e003d14 thread T0\n";
    const ASAN_FPE: &str = "AddressSanitizer:DEADLYSIGNAL\n\
=================================================================\n\
==5509==ERROR: AddressSanitizer: FPE on unknown address 0x55ef8f60581c (pc 0x55ef8f60581c bp 0x7ffd2af3f710 sp 0x7ffd2af3f520 T0)\n\
SUMMARY: AddressSanitizer: FPE /home/dev/ub.c:23:76 in main\n";
    const GLIBC_ASSERT: &str = "ub: ub.c:19: int main(int, char **): Assertion `k == 3' failed.\n";
    const MUSL_ASSERT: &str = "read 1\nAssertion failed: c != 'x' (a.c: main: 10)\n";

    #[test]
    fn classifies_sanitizer_reports() {
        let e1 = Termination::Exited(1);
        assert_eq!(
            classify_native(e1, UBSAN_DIV),
            NativeOutcome::Error("div-by-zero")
        );
        assert_eq!(
            classify_native(e1, UBSAN_SHIFT),
            NativeOutcome::Error("overshift")
        );
        assert_eq!(
            classify_native(e1, UBSAN_NEG_SHIFT),
            NativeOutcome::Error("overshift")
        );
        assert_eq!(
            classify_native(e1, UBSAN_UNREACHABLE),
            NativeOutcome::Error("unreachable")
        );
        assert_eq!(classify_native(e1, ASAN_NULL), NativeOutcome::Error("null"));
        assert_eq!(
            classify_native(e1, ASAN_WILD_WRITE),
            NativeOutcome::WildAccess
        );
        assert_eq!(classify_native(e1, ASAN_BUS), NativeOutcome::WildAccess);
        assert_eq!(
            classify_native(e1, ASAN_UAF),
            NativeOutcome::Error("use-after-free")
        );
        assert_eq!(
            classify_native(e1, ASAN_DOUBLE_FREE),
            NativeOutcome::Error("double-free")
        );
        assert_eq!(
            classify_native(e1, ASAN_STACK_FREE),
            NativeOutcome::Error("invalid-free")
        );
        assert_eq!(
            classify_native(e1, ASAN_HEAP_OVERFLOW),
            NativeOutcome::Error("ptr")
        );
        assert_eq!(
            classify_native(e1, ASAN_STACK_OVERFLOW),
            NativeOutcome::Error("ptr")
        );
        assert_eq!(classify_native(e1, ASAN_FPE), NativeOutcome::DivideTrap);
        let odd = "==1==ERROR: AddressSanitizer: stack-overflow on address 0x7ffe\n";
        assert!(matches!(
            classify_native(e1, odd),
            NativeOutcome::UnknownReport(_)
        ));
    }

    #[test]
    fn classifies_the_checks_of_further_sanitizers_as_the_engine_names_them() {
        // The text after "runtime error: " of clang 14's UBSan, captured
        // from a program built with the checks `exec::ubsan` handles.
        let reports = [
            ("signed integer overflow: 1 + 2147483647 cannot be represented in type 'int'", "overflow"),
            ("negation of -2147483648 cannot be represented in type 'int'; cast to an unsigned type to negate this value to itself", "overflow"),
            ("division of -2147483648 by -1 cannot be represented in type 'int'", "overflow"),
            ("left shift of 1 by 31 places cannot be represented in type 'int'", "overflow"),
            ("left shift of negative value -1", "overflow"),
            ("unsigned integer overflow: 7 * 4000000000 cannot be represented in type 'unsigned int'", "overflow"),
            ("1e+20 is outside the range of representable values of type 'int'", "overflow"),
            ("index 6 out of bounds for type 'int[4]'", "ptr"),
            ("member access within null pointer of type 'struct S'", "null"),
            ("load of misaligned address 0x7fff42acf441 for type 'int', which requires 4 byte alignment", "undefined"),
            ("load of value 2, which is not a valid value for type '_Bool'", "undefined"),
        ];
        for (message, kind) in reports {
            let stderr = format!(
                "nat.c:10:19: runtime error: {message}\n\
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior nat.c:10:19 in \n"
            );
            assert_eq!(
                classify_native(Termination::Exited(1), &stderr),
                NativeOutcome::Error(kind),
                "{message}"
            );
        }
    }

    #[test]
    fn classifies_signals_and_exits() {
        let abrt = Termination::Signaled(SIGABRT);
        assert_eq!(
            classify_native(abrt, GLIBC_ASSERT),
            NativeOutcome::Error("assert")
        );
        assert_eq!(
            classify_native(abrt, MUSL_ASSERT),
            NativeOutcome::Error("assert")
        );
        // After what the program left on the line.
        assert_eq!(
            classify_native(abrt, "partAssertion failed: x (a.c: f: 3)"),
            NativeOutcome::Error("assert")
        );
        // Printed by the program, not by musl: no line at the end.
        assert_eq!(
            classify_native(abrt, "Assertion failed: see the log (above)\n"),
            NativeOutcome::Error("abort")
        );
        assert_eq!(classify_native(abrt, ""), NativeOutcome::Error("abort"));
        assert_eq!(
            classify_native(Termination::Signaled(SIGFPE), ""),
            NativeOutcome::DivideTrap
        );
        assert_eq!(
            classify_native(Termination::Signaled(SIGILL), ""),
            NativeOutcome::Trap
        );
        // A touch of a mapping's page past its file's end.
        for sig in [SIGSEGV, SIGBUS] {
            assert_eq!(
                classify_native(Termination::Signaled(sig), ""),
                NativeOutcome::WildAccess
            );
        }
        assert_eq!(
            classify_native(Termination::Signaled(9), ""),
            NativeOutcome::Signal(9)
        );
        assert_eq!(
            classify_native(Termination::Exited(0), ""),
            NativeOutcome::Exit(0)
        );
        assert_eq!(
            classify_native(Termination::Exited(300), ""),
            NativeOutcome::Exit(44)
        );
        assert_eq!(
            classify_native(Termination::TimedOut, ASAN_NULL),
            NativeOutcome::Timeout
        );
        // Text that only looks like a report does not count on success.
        assert_eq!(
            classify_native(Termination::Exited(0), UBSAN_DIV),
            NativeOutcome::Exit(0)
        );
        assert_eq!(
            classify_native(Termination::Exited(0), GLIBC_ASSERT),
            NativeOutcome::Exit(0)
        );
    }

    #[test]
    fn classifies_replay_library_lines() {
        let e1 = Termination::Exited(1);
        let user = "MNEMO-REPLAY: warning: w\nMNEMO-REPLAY: error user: bad input\n";
        assert_eq!(classify_native(e1, user), NativeOutcome::Error("user"));
        assert_eq!(
            classify_native(e1, "MNEMO-REPLAY: error reach\n"),
            NativeOutcome::Error("reach")
        );
        let failed = "MNEMO-REPLAY: assumption failed\n";
        assert_eq!(
            classify_native(Termination::Exited(77), failed),
            NativeOutcome::ReplayFailed("assumption failed".into())
        );
        // A program that exits 77 by itself is an ordinary exit.
        assert_eq!(
            classify_native(Termination::Exited(77), ""),
            NativeOutcome::Exit(77)
        );
    }

    pub(crate) fn err(kind: &str) -> Outcome {
        Outcome::Error {
            kind: kind.into(),
            file: "p.c".into(),
            line: 3,
            message: "m".into(),
        }
    }

    #[test]
    fn verdicts() {
        let exit0 = Outcome::Exit { exit_code: 0 };
        assert_eq!(verdict(&exit0, &NativeOutcome::Exit(0)), Verdict::Match);
        assert_eq!(verdict(&exit0, &NativeOutcome::Exit(1)), Verdict::Mismatch);
        assert_eq!(
            verdict(&exit0, &NativeOutcome::Error("assert")),
            Verdict::Mismatch
        );
        assert_eq!(verdict(&exit0, &NativeOutcome::Timeout), Verdict::Mismatch);
        assert_eq!(
            verdict(&err("assert"), &NativeOutcome::Error("assert")),
            Verdict::Match
        );
        assert_eq!(
            verdict(&err("assert"), &NativeOutcome::Error("abort")),
            Verdict::Mismatch
        );
        assert_eq!(
            verdict(&err("ptr"), &NativeOutcome::WildAccess),
            Verdict::Match
        );
        assert_eq!(
            verdict(&err("readonly"), &NativeOutcome::WildAccess),
            Verdict::Match
        );
        assert_eq!(
            verdict(&err("null"), &NativeOutcome::WildAccess),
            Verdict::Mismatch
        );
        for kind in ["div-by-zero", "overflow"] {
            assert_eq!(
                verdict(&err(kind), &NativeOutcome::DivideTrap),
                Verdict::Match
            );
        }
        for kind in ["abort", "overflow", "null"] {
            assert_eq!(verdict(&err(kind), &NativeOutcome::Trap), Verdict::Match);
        }
        assert_eq!(
            verdict(&err("assert"), &NativeOutcome::Trap),
            Verdict::Mismatch
        );
        assert_eq!(
            verdict(&err("overshift"), &NativeOutcome::DivideTrap),
            Verdict::Mismatch
        );
        assert_eq!(
            verdict(&err("external"), &NativeOutcome::Exit(0)),
            Verdict::NotPredicted
        );
        assert_eq!(
            verdict(&err("solver"), &NativeOutcome::Timeout),
            Verdict::NotPredicted
        );
        let early = Outcome::Early {
            reason: "max-depth".into(),
            signal: None,
        };
        assert_eq!(
            verdict(&early, &NativeOutcome::ReplayFailed("x".into())),
            Verdict::NotPredicted
        );
        // A path blocked for ever: a native run that hangs matches it.
        let blocked = Outcome::Early {
            reason: "blocked".into(),
            signal: None,
        };
        assert_eq!(verdict(&blocked, &NativeOutcome::Timeout), Verdict::Match);
        assert_eq!(
            verdict(&blocked, &NativeOutcome::Exit(0)),
            Verdict::NotPredicted
        );
        assert_eq!(
            verdict(&early, &NativeOutcome::Timeout),
            Verdict::NotPredicted
        );
        // A process killed by a signal it sent itself: the signal's number
        // is predicted, and the classifier's name for it counts.
        let killed = |signal| Outcome::Early {
            reason: "signalled".into(),
            signal: Some(signal),
        };
        assert_eq!(
            verdict(&killed(15), &NativeOutcome::Signal(15)),
            Verdict::Match
        );
        assert_eq!(
            verdict(&killed(15), &NativeOutcome::Signal(10)),
            Verdict::Mismatch
        );
        assert_eq!(
            verdict(&killed(15), &NativeOutcome::Exit(0)),
            Verdict::Mismatch
        );
        assert_eq!(
            verdict(&killed(6), &NativeOutcome::Error("abort")),
            Verdict::Match
        );
        assert_eq!(
            verdict(&killed(11), &NativeOutcome::WildAccess),
            Verdict::Match
        );
        assert_eq!(
            verdict(
                &exit0,
                &NativeOutcome::ReplayFailed("assumption failed".into())
            ),
            Verdict::ReplayFailed("assumption failed".into())
        );
    }
}
