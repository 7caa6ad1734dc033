//! Numbering a run's tests anew at its end, by their places in the trie,
//! whatever order their paths ended in.
//!
//! A run may be killed while its files move. Its directory must then still
//! be what `tests.json` (of its last checkpoint) describes by name, and a
//! resumed run must take it: every test number keeps its ktest at every
//! moment, and no file is left under a name a resumed run does not know.
//! Between two moves a number may hold another test's inputs; a resumed
//! run writes every test again.

use std::path::PathBuf;

use anyhow::Context;

use super::index::{Outcome, TestRecord};
use super::stage::Role;
use super::writer::{test_name, TestWriter};
use crate::files;

impl TestWriter {
    /// Numbers the tests written so far anew: `order[k]` is the index, in
    /// the order they were listed (committed), of the test that becomes
    /// number `k + 1`.
    pub fn renumber(&mut self, order: &[usize]) -> anyhow::Result<()> {
        self.renumber_with(order, true)
    }

    /// [`TestWriter::renumber`]; `exchange`: swap names in one step where
    /// the file system can, one rename per file as a plain rename costs.
    /// Elsewhere each moving file is first linked under a temporary of its
    /// new name, then renamed over the file it replaces.
    pub(super) fn renumber_with(&mut self, order: &[usize], exchange: bool) -> anyhow::Result<()> {
        if order.len() != self.records.len() {
            return Ok(());
        }
        self.fill_gaps()?;
        let slots = Slots::new(&self.records, order);
        let mut exchange = exchange;
        let mut linked = Vec::new();
        for cycle in cycles(&slots.from) {
            if exchange && self.exchange_cycle(&slots, &cycle)? {
                continue;
            }
            exchange = false;
            linked.extend(cycle);
        }
        if !linked.is_empty() {
            let moves = self.link_renumbered(&slots, &linked)?;
            if let Err(e) = place(&moves) {
                for (tmp, _) in &moves {
                    let _ = std::fs::remove_file(tmp);
                }
                return Err(e);
            }
            self.remove_replaced(&slots, &linked)?;
        }
        let had = std::mem::take(&mut self.extras);
        self.extras = order.iter().map(|&i| had[i]).collect();
        let old = std::mem::take(&mut self.records);
        self.records = order
            .iter()
            .enumerate()
            .map(|(k, &i)| TestRecord {
                id: k as u32 + 1,
                ktest: test_name(k + 1),
                outcome: old[i].outcome.clone(),
            })
            .collect();
        Ok(())
    }

    /// Gives the tests numbered past the count the numbers left free below
    /// it: a test staged but never listed (its run failed meanwhile) kept
    /// its number.
    fn fill_gaps(&mut self) -> anyhow::Result<()> {
        let n = self.records.len();
        let mut used = vec![false; n];
        for r in &self.records {
            if let Some(u) = used.get_mut(r.id as usize - 1) {
                *u = true;
            }
        }
        let mut free = (1..=n).filter(|&k| !used[k - 1]);
        for i in 0..n {
            let from = self.records[i].id as usize;
            if from <= n {
                continue;
            }
            let to = free
                .next()
                .expect("as many free numbers as tests past the count");
            let roles = self.roles_of(i);
            for role in &roles {
                let (a, b) = (self.file(role, from - 1), self.file(role, to - 1));
                std::fs::rename(&a, &b)
                    .with_context(|| format!("cannot rename {} to {}", a.display(), b.display()))?;
            }
            let names: Vec<String> = roles.iter().map(|r| r.name(to)).collect();
            self.claim_number(to, &names)?;
            self.records[i].id = to as u32;
            self.records[i].ktest = test_name(to);
        }
        Ok(())
    }

    /// Moves the tests of one cycle `s0 -> s1 -> ... -> s0` (slot `s` gets
    /// the test now in slot `from[s]`, here the next in the cycle) by
    /// swapping: `s0`'s test is carried along the cycle, each swap leaving
    /// the next test in its slot. `false` where the file system cannot
    /// swap, found at the first swap, before anything moved.
    fn exchange_cycle(&self, slots: &Slots, cycle: &[usize]) -> anyhow::Result<bool> {
        let carried = self.roles_of(slots.test[cycle[0]]);
        for (step, pair) in cycle.windows(2).enumerate() {
            let (here, next) = (pair[0], pair[1]);
            let incoming = self.roles_of(slots.test[next]);
            for role in &carried {
                let (a, b) = (self.file(role, here), self.file(role, next));
                let moved = if incoming.contains(role) {
                    match files::exchange(&a, &b) {
                        Err(e) if step == 0 && e.kind() == std::io::ErrorKind::Unsupported => {
                            return Ok(false)
                        }
                        swapped => swapped,
                    }
                } else {
                    std::fs::rename(&a, &b)
                };
                moved
                    .with_context(|| format!("cannot swap {} and {}", a.display(), b.display()))?;
            }
            for role in incoming.iter().filter(|r| !carried.contains(r)) {
                let (a, b) = (self.file(role, here), self.file(role, next));
                std::fs::rename(&b, &a)
                    .with_context(|| format!("cannot rename {} to {}", b.display(), a.display()))?;
            }
        }
        Ok(true)
    }

    /// Links the files of the test moving into each of `moving` to a
    /// temporary of its new name; returns each temporary with the name it
    /// is for. Nothing in the directory changes name.
    fn link_renumbered(
        &self,
        slots: &Slots,
        moving: &[usize],
    ) -> anyhow::Result<Vec<(PathBuf, PathBuf)>> {
        let mut moves = Vec::new();
        for &k in moving {
            let from = slots.from[k];
            for role in self.roles_of(slots.test[from]) {
                let (a, b) = (self.file(&role, from), self.file(&role, k));
                match files::link_temporary(&a, &b) {
                    Ok(tmp) => moves.push((tmp, b)),
                    Err(e) => {
                        for (tmp, _) in &moves {
                            let _ = std::fs::remove_file(tmp);
                        }
                        return Err(e).with_context(|| {
                            format!("cannot link {} for {}", a.display(), b.display())
                        });
                    }
                }
            }
        }
        Ok(moves)
    }

    /// Removes the files of `moving` that a number's old test had and its
    /// new one has not (a report of another kind, or a `.stdout`).
    fn remove_replaced(&self, slots: &Slots, moving: &[usize]) -> anyhow::Result<()> {
        for &k in moving {
            let kept = self.roles_of(slots.test[slots.from[k]]);
            for role in self.roles_of(slots.test[k]) {
                if !kept.contains(&role) {
                    let old = self.file(&role, k);
                    std::fs::remove_file(&old)
                        .with_context(|| format!("cannot remove {}", old.display()))?;
                }
            }
        }
        Ok(())
    }

    /// The files of the test listed `i`-th: its ktest, its `.err` report
    /// or its `.stdout` if it has one, and its path condition and lines if
    /// written.
    fn roles_of(&self, i: usize) -> Vec<Role> {
        let mut roles = vec![Role::Ktest];
        if let Outcome::Error { kind, .. } = &self.records[i].outcome {
            roles.push(Role::Err(kind.clone()));
        }
        if self.extras[i].stdout {
            roles.push(Role::Stdout);
        }
        if self.extras[i].condition {
            roles.push(Role::Condition);
        }
        if self.extras[i].coverage {
            roles.push(Role::Coverage);
        }
        roles
    }

    /// The file `role` of the test in slot `k` (number `k + 1`).
    fn file(&self, role: &Role, k: usize) -> PathBuf {
        self.stager.dir.join(role.name(k + 1))
    }
}

/// Where each test is and goes, by slot (number less one), the numbers
/// running from 1 to the count: `test[s]`, the index of the test now in
/// slot `s`; `from[k]`, the slot now holding the test that goes to `k`.
struct Slots {
    test: Vec<usize>,
    from: Vec<usize>,
}

impl Slots {
    fn new(records: &[TestRecord], order: &[usize]) -> Slots {
        let mut test = vec![0; records.len()];
        for (i, r) in records.iter().enumerate() {
            test[r.id as usize - 1] = i;
        }
        let from = order.iter().map(|&i| records[i].id as usize - 1).collect();
        Slots { test, from }
    }
}

/// The cycles of the permutation `from` that move something, each from
/// its smallest slot: slot `s` is followed by `from[s]`.
fn cycles(from: &[usize]) -> Vec<Vec<usize>> {
    let mut done = vec![false; from.len()];
    let mut cycles = Vec::new();
    for start in 0..from.len() {
        if done[start] || from[start] == start {
            continue;
        }
        let mut cycle = Vec::new();
        let mut s = start;
        while !done[s] {
            done[s] = true;
            cycle.push(s);
            s = from[s];
        }
        cycles.push(cycle);
    }
    cycles
}

/// Renames each temporary over the file it is for.
fn place(moves: &[(PathBuf, PathBuf)]) -> anyhow::Result<()> {
    for (tmp, to) in moves {
        std::fs::rename(tmp, to)
            .with_context(|| format!("cannot rename {} to {}", tmp.display(), to.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::stage::PathFiles;
    use crate::testgen::writer::tests::{names, test};
    use crate::testgen::writer::{err_name, is_temporary, stdout_name, test_number};
    use crate::testgen::KTest;

    /// Five tests written with tags 0..5 in this order; 1 and 3 are errors.
    fn five(dir: &std::path::Path) -> TestWriter {
        let mut w = TestWriter::create(dir, "p", Vec::new()).expect("writer");
        for tag in 0..5u8 {
            w.write(&test(tag, tag % 2 == 1)).expect("write");
        }
        w
    }

    /// Numbers 1..5 go to the tests written 3rd, 1st, 5th, 2nd, 4th: the
    /// cycle 0 -> 2 -> 4 -> 3 -> 1 -> 0 over the slots.
    const ORDER: [usize; 5] = [2, 0, 4, 1, 3];

    #[test]
    fn renumbering_moves_every_file_with_its_test_swapping_or_linking() {
        for exchange in [true, false] {
            let dir = tempfile::tempdir().expect("tempdir");
            let mut w = five(dir.path());
            w.renumber_with(&ORDER, exchange).expect("renumber");
            for (k, &i) in ORDER.iter().enumerate() {
                let k = KTest::read(&dir.path().join(test_name(k + 1))).expect("ktest");
                assert_eq!(k.objects[0].bytes, vec![i as u8]);
            }
            // The errors (tags 1 and 3) are now tests 4 and 5.
            let mut expect: Vec<String> = (1..=5).map(test_name).collect();
            expect.extend([err_name(4, "assert"), err_name(5, "assert")]);
            expect.extend((1..=3).map(stdout_name));
            expect.sort();
            assert_eq!(names(dir.path()), expect, "exchange {exchange}");
            // Each completed test's output went with it: test 1 is tag 2's.
            let out = std::fs::read(dir.path().join(stdout_name(1))).expect("stdout");
            assert_eq!(out, vec![2]);
            let err = std::fs::read_to_string(dir.path().join(err_name(5, "assert"))).expect("err");
            assert!(err.contains("failed 3"), "{err}");
            assert_eq!(w.records[3].id, 4);
            assert!(matches!(
                w.records[0].outcome,
                Outcome::Exit { exit_code: 2 }
            ));
        }
    }

    /// What a run killed at `stop` leaves: every number has its ktest, each
    /// name is a test's or a temporary's, and a resumed run takes the
    /// directory and leaves only its own tests.
    fn killed_then_resumed(dir: &std::path::Path, stop: &str) {
        for k in 1..=5 {
            assert!(dir.join(test_name(k)).exists(), "test {k} {stop}");
        }
        for n in names(dir) {
            assert!(test_number(&n).is_some() || is_temporary(&n), "{n} {stop}");
        }
        let mut again = TestWriter::resume(dir, "p", Vec::new()).expect("resumed");
        for tag in 0..5u8 {
            again.write(&test(tag, false)).expect("write");
        }
        again.finish().expect("finish");
        for k in 0..5u8 {
            let t = KTest::read(&dir.join(test_name(k as usize + 1))).expect("ktest");
            assert_eq!(t.objects[0].bytes, vec![k], "{stop}");
        }
        // The killed run's error reports went with its numbering.
        let reports: Vec<String> = names(dir)
            .into_iter()
            .filter(|n| n.ends_with(".err"))
            .collect();
        assert!(reports.is_empty(), "{reports:?} {stop}");
    }

    #[test]
    fn a_run_killed_while_renumbering_keeps_a_ktest_for_every_number_and_resumes() {
        let cycle = &cycles(&ORDER)[0];
        assert_eq!(cycle, &[0, 2, 4, 3, 1]);
        // Killed after each swap of the cycle.
        for swaps in 1..cycle.len() {
            let dir = tempfile::tempdir().expect("tempdir");
            let w = five(dir.path());
            let slots = Slots::new(&w.records, &ORDER);
            // A file system that cannot swap has the renames below alone.
            if !w.exchange_cycle(&slots, &cycle[..=swaps]).expect("swap") {
                break;
            }
            killed_then_resumed(dir.path(), &format!("after {swaps} swaps"));
        }
        // Killed after the links, and after each rename over a test's file.
        let moving: Vec<usize> = (0..5).collect();
        for placed in 0..=7 {
            let dir = tempfile::tempdir().expect("tempdir");
            let w = five(dir.path());
            let slots = Slots::new(&w.records, &ORDER);
            let moves = w.link_renumbered(&slots, &moving).expect("link");
            assert_eq!(moves.len(), 10);
            place(&moves[..placed]).expect("place");
            killed_then_resumed(dir.path(), &format!("after {placed} renames"));
        }
    }

    #[test]
    fn tests_listed_out_of_their_numbers_order_and_a_gap_are_renumbered() {
        for exchange in [true, false] {
            let dir = tempfile::tempdir().expect("tempdir");
            let mut w = TestWriter::create(dir.path(), "p", Vec::new()).expect("writer");
            // Numbers 1..=6 staged for tags 0..6 (1, 3 and 5 are errors);
            // number 3 is never listed; the rest are listed 6, 2, 5, 1, 4.
            let mut staged: Vec<Option<_>> = (0..6u8)
                .map(|tag| {
                    Some(
                        w.stager()
                            .stage(test(tag, tag % 2 == 1), PathFiles::default())
                            .expect("stage"),
                    )
                })
                .collect();
            drop(staged[2].take());
            for number in [6, 2, 5, 1, 4] {
                let s = staged[number - 1].take().expect("staged");
                w.commit(s).expect("commit");
            }
            // The numbers go by tag, backwards: tags 5, 4, 3, 1, 0.
            let order = [0, 2, 4, 1, 3];
            w.renumber_with(&order, exchange).expect("renumber");
            w.finish().expect("finish");
            for (k, tag) in [5u8, 4, 3, 1, 0].into_iter().enumerate() {
                let t = KTest::read(&dir.path().join(test_name(k + 1))).expect("ktest");
                assert_eq!(t.objects[0].bytes, vec![tag], "exchange {exchange}");
            }
            let mut expect: Vec<String> = (1..=5).map(test_name).collect();
            expect.extend([1, 3, 4].map(|k| err_name(k, "assert")));
            expect.extend([2, 5].map(stdout_name));
            expect.push("tests.json".to_string());
            expect.sort();
            assert_eq!(names(dir.path()), expect, "exchange {exchange}");
        }
    }
}
