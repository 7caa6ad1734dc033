//! The source lines each path executes (`--write-cov`), for its test's
//! `.cov` file, as KLEE's option of the same name writes: which lines a
//! test covers, without building and running it under gcov.

use super::executor::Executor;
use super::state::State;
use crate::ir::SourceLoc;

/// The lines a path has executed, as `file << 32 | line` keys; shared
/// between the paths a fork makes until one adds a line.
#[derive(Clone, Debug, Default)]
pub struct PathLines {
    seen: imbl::HashSet<u64>,
    /// The last key noted: a line's instructions run one after another, so
    /// most instructions need no look into the set.
    last: u64,
}

impl PathLines {
    /// Notes an instruction at `loc`.
    pub(super) fn note(&mut self, loc: SourceLoc) {
        let key = (u64::from(loc.file.0) << 32) | u64::from(loc.line);
        if key != self.last {
            self.last = key;
            self.seen.insert(key);
        }
    }
}

impl Executor {
    /// The program's lines `state` executed (the runtime's are not
    /// noted), one `FILE:LINE` a line, in file and line order: `None`
    /// where the run does not track them.
    pub fn covered_lines(&self, state: &State) -> Option<String> {
        let lines = state.lines.as_ref()?;
        let module = self.module();
        let mut named: Vec<(&str, u32)> = lines
            .seen
            .iter()
            .map(|&key| (module.files[(key >> 32) as usize].as_str(), key as u32))
            .filter(|(_, line)| *line != 0)
            .collect();
        named.sort_unstable();
        Some(
            named
                .iter()
                .map(|(file, line)| format!("{file}:{line}\n"))
                .collect(),
        )
    }
}
