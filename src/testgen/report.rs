//! What a native replay reports: each test's predicted and native
//! outcome, its verdict, and how its stdout differed.

use std::fmt;

use super::classify::{verdict, NativeOutcome, Verdict};
use super::index::Outcome;

/// One replayed test.
#[derive(Clone, Debug)]
pub struct ReplayResult {
    pub id: u32,
    pub ktest: String,
    pub predicted: Outcome,
    pub native: NativeOutcome,
    pub verdict: Verdict,
    /// A short diff when the recorded stdout differs from the native one
    /// (the verdict is then a mismatch).
    pub stdout_diff: Option<String>,
    /// The end of what the program wrote on stderr, for diagnosing a
    /// mismatch.
    pub stderr: String,
}

impl ReplayResult {
    /// Whether the native run ended otherwise than predicted (its exit, or
    /// the kind of its error), whatever it wrote: a mismatch that is not
    /// only a difference of stdout, which a program printing the machine's
    /// time, working directory or processors may show on any replay.
    pub fn outcome_differs(&self) -> bool {
        verdict(&self.predicted, &self.native) == Verdict::Mismatch
    }
}

/// The results of replaying every test of an output directory.
#[derive(Clone, Debug, Default)]
pub struct ReplayReport {
    pub results: Vec<ReplayResult>,
}

impl ReplayReport {
    /// True when no test mismatched or failed to replay; tests whose
    /// outcome is not predicted do not count against it.
    pub fn all_match(&self) -> bool {
        self.results
            .iter()
            .all(|r| matches!(r.verdict, Verdict::Match | Verdict::NotPredicted))
    }

    /// How many results have each verdict: (match, mismatch, not predicted,
    /// replay failed).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let mut c = (0, 0, 0, 0);
        for r in &self.results {
            match r.verdict {
                Verdict::Match => c.0 += 1,
                Verdict::Mismatch => c.1 += 1,
                Verdict::NotPredicted => c.2 += 1,
                Verdict::ReplayFailed(_) => c.3 += 1,
            }
        }
        c
    }
}

impl fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.results {
            let v = match (&r.verdict, &r.stdout_diff) {
                (Verdict::Match, _) => "match".to_string(),
                (Verdict::Mismatch, Some(_)) => "MISMATCH (stdout differs)".to_string(),
                (Verdict::Mismatch, None) => "MISMATCH".to_string(),
                (Verdict::NotPredicted, _) => "not predicted".to_string(),
                (Verdict::ReplayFailed(m), _) => format!("REPLAY FAILED ({m})"),
            };
            writeln!(
                f,
                "{}: predicted {}, native {}: {v}",
                r.ktest, r.predicted, r.native
            )?;
            if let Some(diff) = &r.stdout_diff {
                for line in diff.lines() {
                    writeln!(f, "    {line}")?;
                }
            }
        }
        let (m, mm, np, rf) = self.counts();
        writeln!(
            f,
            "{} tests: {m} match, {mm} mismatch, {np} not predicted, {rf} replay failed",
            self.results.len()
        )
    }
}

/// A short description of how `got` (the native stdout) differs
/// from `expected`, or `None` when they are equal: the first differing
/// line of each, escaped.
pub fn stdout_diff(expected: &[u8], got: &[u8]) -> Option<String> {
    if expected == got {
        return None;
    }
    let at = expected
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(got.len()));
    let line_start = expected[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line_no = expected[..line_start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1;
    let line_of = |bytes: &[u8]| -> String {
        let rest = bytes.get(line_start..).unwrap_or(&[]);
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |p| p + 1);
        let shown = &rest[..end.min(200)];
        let more = if end > shown.len() { "..." } else { "" };
        if rest.is_empty() {
            "(end of output)".to_string()
        } else {
            format!("\"{}\"{more}", shown.escape_ascii())
        }
    };
    Some(format!(
        "stdout differs at byte {at} (line {line_no}): expected {} bytes, got {}\n\
         - expected: {}\n\
         + native:   {}",
        expected.len(),
        got.len(),
        line_of(expected),
        line_of(got)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_diffs_name_the_first_differing_line() {
        assert_eq!(stdout_diff(b"a\nb\n", b"a\nb\n"), None);
        let d = stdout_diff(b"a\nb\n", b"a\nc\n").unwrap();
        assert!(d.starts_with("stdout differs at byte 2 (line 2)"), "{d}");
        assert!(
            d.contains("- expected: \"b\\n\"") && d.contains("+ native:   \"c\\n\""),
            "{d}"
        );
        let d = stdout_diff(b"a\n", b"a\nmore").unwrap();
        assert!(
            d.contains("(end of output)") && d.contains("\"more\""),
            "{d}"
        );
        let d = stdout_diff(b"ab", b"abc").unwrap();
        assert!(d.contains("expected 2 bytes, got 3"), "{d}");
    }
}
