//! The testsuite's memo checks: each program's memoized runs (deepened,
//! repeated, certified, resumed, regressed) against a fresh run of it.

use std::fs;
use std::path::Path;
use std::process::Command;

use libtest_mimic::Failed;
use serde_json::Value;

use super::trial::{keep_on_failure, scratch};
use super::{
    compile, crate_root, header, host_files, mutants, read_json, replays_natively, run, Output,
};

/// The outcomes of a run's tests, as a sorted list: what must not change
/// when the same paths are found another way. (A completed path's exit
/// status is left out: it may depend on the inputs the solver picked.)
fn outcomes(out: &Path) -> Result<Vec<String>, String> {
    let tests = read_json(&out.join("tests.json"))?;
    let list = tests
        .get("tests")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{}: tests.json has no array `tests`", out.display()))?;
    let mut v: Vec<String> = list
        .iter()
        .map(|t| {
            let f = |k: &str| t.get(k).map(|v| v.to_string()).unwrap_or_default();
            match t.get("outcome").and_then(Value::as_str) {
                Some("exit") => "exit".to_string(),
                Some("error") => format!("error {} {}", f("kind"), f("line")),
                _ => format!("early {}", f("reason")),
            }
        })
        .collect();
    v.sort();
    Ok(v)
}

/// The run's trie as `mnemo trie show` prints it: every choice, every
/// unsatisfiable alternative and every path end, in a canonical order.
fn trie_text(mnemo: &str, memo: &Path, dir: &Path, label: &str) -> Result<String, String> {
    let mut cmd = Command::new(mnemo);
    cmd.arg("trie").arg("show").arg(memo);
    let o = run(cmd, dir, label)?;
    if !o.status.success() {
        return Err(format!("`mnemo trie show` failed:\n{}", o.text));
    }
    fs::read_to_string(dir.join(format!("{label}.stdout"))).map_err(|e| e.to_string())
}

/// Memoized runs of one program against a fresh one (DESIGN.md's memo
/// invariants): deepening from a shallower bound finds the same paths and
/// tests; a re-run at the same bound executes nothing and asks the solver
/// nothing; certification holds with the solver off; a run stopped at a
/// third or two thirds of the way and resumed ends as the uninterrupted run
/// did; regress on the unchanged program redoes nothing, and on mutants
/// finds the paths and tests of a fresh run on the mutant.
pub(crate) fn check_memo(prog: &Path) -> Result<(), Failed> {
    let source =
        fs::read_to_string(prog).map_err(|e| format!("cannot read {}: {e}", prog.display()))?;
    let exp = header::parse(&source).map_err(|e| format!("{}: {e}", prog.display()))?;
    // The header's bound B (if any) and the other arguments.
    let mut bound: Option<u32> = None;
    let mut rest: Vec<String> = Vec::new();
    let mut it = exp.args.iter();
    while let Some(a) = it.next() {
        if a == "--max-depth" {
            bound = it.next().and_then(|n| n.parse().ok());
        } else {
            rest.push(a.clone());
        }
    }
    let shallow = bound.map_or(2, |b| b / 2);

    let tmp = scratch("mnemo-memo-")?;
    let dir = tmp.path().to_path_buf();
    let bc = dir.join("prog.bc");
    let mnemo = env!("CARGO_BIN_EXE_mnemo");
    // `mnemo SUB... -q --output-dir DIR/OUT --memo DIR/MEMO EXTRA... BC`:
    // its output and stats, or why it failed.
    let memo_cmd = |label: &str,
                    sub: &[&std::ffi::OsStr],
                    out: &str,
                    memo: &str,
                    extra: &[String],
                    target: &Path|
     -> Result<(String, Value), String> {
        let mut cmd = Command::new(mnemo);
        cmd.env("MNEMO_STORE", "memory");
        cmd.current_dir(crate_root())
            .args(sub)
            .arg("-q")
            .arg("--output-dir")
            .arg(dir.join(out))
            .arg("--memo")
            .arg(dir.join(memo))
            .args(extra)
            .arg(target)
            .args(&exp.program_args);
        let o = run(cmd, &dir, label)?;
        // 3: a limit stopped the run (the stopped runs, the mutants' budget).
        if !matches!(o.status.code(), Some(0 | 3)) {
            return Err(format!("{label}: `mnemo` failed:\n{}", o.text));
        }
        Ok((o.text, read_json(&dir.join(out).join("stats.json"))?))
    };
    let mnemo_run = |label: &str, out: &str, memo: &str, extra: &[String]| {
        let (text, stats) = memo_cmd(label, &["run".as_ref()], out, memo, extra, &bc)?;
        if text.contains("does not fit") || text.contains("cannot use the trie") {
            return Err(format!("{label}: the trie was not used:\n{text}"));
        }
        Ok(stats)
    };
    let full_args = exp.args.clone();
    let mut shallow_args = rest.clone();
    shallow_args.extend(["--max-depth".to_string(), shallow.to_string()]);

    let result = (|| -> Result<(), String> {
        compile(prog, &bc, &exp.cc_args, &dir)?;
        let fresh = mnemo_run("fresh", "fresh", "memo-fresh", &full_args)?;
        let fresh_trie = trie_text(mnemo, &dir.join("memo-fresh"), &dir, "trie-fresh")?;
        let fresh_outcomes = outcomes(&dir.join("fresh"))?;
        let same = |what: &str, out: &str, memo: &str| -> Result<(), String> {
            let t = trie_text(mnemo, &dir.join(memo), &dir, &format!("trie-{out}"))?;
            if t != fresh_trie {
                return Err(format!(
                    "{what}: the trie differs from a fresh run's\n--- fresh ---\n{fresh_trie}--- {what} ---\n{t}"
                ));
            }
            let o = outcomes(&dir.join(out))?;
            if o != fresh_outcomes {
                return Err(format!(
                    "{what}: the tests differ from a fresh run's:\n  fresh {fresh_outcomes:?}\n  {what} {o:?}"
                ));
            }
            Ok(())
        };

        // Iterative deepening.
        mnemo_run("shallow", "shallow", "memo", &shallow_args)?;
        let deep = mnemo_run("deepen", "deepen", "memo", &full_args)?;
        same(
            &format!("deepening {shallow} -> {bound:?}"),
            "deepen",
            "memo",
        )?;
        if deep["memo"]["reused"] != Value::Bool(true) {
            return Err(format!(
                "deepening did not reuse the trie: {}",
                deep["memo"]
            ));
        }
        let mut replay = Command::new(mnemo);
        replay
            .current_dir(crate_root())
            .arg("replay")
            .arg(prog)
            .arg(dir.join("deepen"))
            .arg("--")
            .args(&exp.cc_args);
        let o = run(replay, &dir, "replay-deepen")?;
        if replays_natively(&exp) && !o.status.success() {
            return Err(format!(
                "the deepened run's tests do not replay natively:\n{}",
                o.text
            ));
        }

        // Again at the same bound: nothing runs, nothing is asked.
        let again = mnemo_run("again", "again", "memo", &full_args)?;
        same("a re-run at the same bound", "again", "memo")?;
        if again["instructions"] != 0 || again["solver"]["queries"] != 0 {
            return Err(format!(
                "a re-run at the same bound executed {} instructions and made {} solver queries",
                again["instructions"], again["solver"]["queries"]
            ));
        }

        // Certification: every recorded path holds, with the solver off.
        let mut cert = Command::new(mnemo);
        cert.env("MNEMO_STORE", "memory")
            .arg("certify")
            .arg("--memo")
            .arg(dir.join("memo"))
            .args(host_files(&exp))
            .arg(&bc)
            .args(&exp.program_args);
        let o = run(cert, &dir, "certify")?;
        if !o.status.success() || !o.text.contains(" 0 solver queries") {
            return Err(format!("certification failed:\n{}", o.text));
        }

        // Stopped a third and two thirds of the way, then resumed.
        let total = fresh["instructions"].as_u64().unwrap_or(3);
        for part in [1, 2] {
            let at = (total * part / 3).max(1);
            let (out, memo) = (format!("resumed-{part}"), format!("memo-resume-{part}"));
            let mut stop_args = full_args.clone();
            stop_args.extend(["--max-instructions".to_string(), at.to_string()]);
            mnemo_run("stopped", &out, &memo, &stop_args)?;
            let mut resume_args = full_args.clone();
            resume_args.push("--resume".to_string());
            mnemo_run("resume", &out, &memo, &resume_args)?;
            same(&format!("resuming after {at} instructions"), &out, &memo)?;
        }

        // Regression analysis on the unchanged program: nothing to redo.
        let regress = |label: &str, new_bc: &Path, out: &str, memo: &str| {
            let sub = ["regress".as_ref(), bc.as_os_str()];
            memo_cmd(label, &sub, out, memo, &rest, new_bc).map(|(_, stats)| stats)
        };
        let r = regress("regress-same", &bc, "regress-same", "memo-fresh")?;
        same(
            "regress on the unchanged program",
            "regress-same",
            "memo-fresh",
        )?;
        if r["memo"]["recorded_paths"] != 0 || r["solver"]["queries"] != 0 {
            return Err(format!(
                "regress on the unchanged program re-explored {} paths with {} solver queries",
                r["memo"]["recorded_paths"], r["solver"]["queries"]
            ));
        }

        // Regression analysis on a mutant: the paths of a fresh run on it.
        // Mutants that do not compile, or whose fresh run is too long to be
        // a fair comparison (it would stop at the budget), are passed over.
        // Each mutant that finishes does so in under 3 s here; those that
        // reach the budget have paths without end (a loop bound the input
        // can always pass), so a longer budget only waits the longer.
        let budget = ["--max-instructions", "1000000", "--max-time", "5"].map(String::from);
        for (what, text) in mutants::mutants(&source, 3) {
            let src = dir.join("mutant.c");
            fs::write(&src, &text).map_err(|e| e.to_string())?;
            let mbc = dir.join("mutant.bc");
            let mut cc = Command::new(mnemo);
            cc.current_dir(crate_root())
                .arg("cc")
                .arg(&src)
                .arg("-o")
                .arg(&mbc)
                .arg("--")
                .args(&exp.cc_args);
            if !run(cc, &dir, "cc-mutant")?.status.success() {
                continue;
            }
            let _ = fs::remove_dir_all(dir.join("mutant-fresh"));
            let _ = fs::remove_dir_all(dir.join("memo-mutant"));
            let mut args = full_args.clone();
            args.extend(budget.iter().cloned());
            let (_, stats) = memo_cmd(
                "mutant-fresh",
                &["run".as_ref()],
                "mutant-fresh",
                "memo-mutant",
                &args,
                &mbc,
            )?;
            // A limit can stop a run with no path pending (its last one
            // ended in a solver error at the deadline): `stopped_by` says so.
            let stopped = !stats["stopped_by"].is_null()
                || ["max-instructions", "max-time"]
                    .iter()
                    .any(|r| stats["paths"]["early"][r].as_u64().unwrap_or(0) > 0);
            if stopped {
                continue;
            }
            let _ = fs::remove_dir_all(dir.join("regress-mutant"));
            regress("regress-mutant", &mbc, "regress-mutant", "memo-fresh")?;
            let mine = trie_text(
                mnemo,
                &dir.join("memo-fresh").join("mutant.trie"),
                &dir,
                "trie-rm",
            )?;
            let theirs = trie_text(
                mnemo,
                &dir.join("memo-mutant").join("mutant.trie"),
                &dir,
                "trie-fm",
            )?;
            if mine != theirs {
                return Err(format!(
                    "regress to the mutant ({what}) gives another trie than a fresh run on it\n--- fresh ---\n{theirs}--- regress ---\n{mine}"
                ));
            }
            let (a, b) = (
                outcomes(&dir.join("regress-mutant"))?,
                outcomes(&dir.join("mutant-fresh"))?,
            );
            if a != b {
                return Err(format!(
                    "regress to the mutant ({what}) gives other tests than a fresh run:\n  fresh {b:?}\n  regress {a:?}"
                ));
            }
            // Where the engine already mispredicts a fresh run's tests on the
            // mutant natively, regress cannot do better; it is held to the
            // native replay only where a fresh run passes it.
            let replay = |out: &str, label: &str| -> Result<Output, String> {
                let mut cmd = Command::new(mnemo);
                cmd.current_dir(crate_root())
                    .arg("replay")
                    .arg(&src)
                    .arg(dir.join(out));
                run(cmd, &dir, label)
            };
            // A mutant may read memory it never wrote (the strcpy mutant
            // does), and then its native replay is not deterministic: a
            // failure counts only when it holds over three tries in which
            // the fresh run's tests keep passing. (The fresh run's tests
            // are replayed only then: a replay of a large program's tests
            // takes longer than its runs.)
            for attempt in 1..=3 {
                let o = replay("regress-mutant", &format!("replay-regress-{attempt}"))?;
                if o.status.success() {
                    break;
                }
                let fresh = replay("mutant-fresh", &format!("replay-mutant-fresh-{attempt}"))?;
                if !fresh.status.success() {
                    break;
                }
                if attempt == 3 {
                    return Err(format!(
                        "the tests of regress to the mutant ({what}) do not replay natively:\n{}",
                        o.text
                    ));
                }
            }
            fs::remove_file(dir.join("memo-fresh").join("mutant.trie"))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    })();
    keep_on_failure(tmp, result)
}
