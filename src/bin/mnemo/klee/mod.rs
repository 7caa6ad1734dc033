//! `mnemo klee`: KLEE's command line, run by mnemo. A user who has a KLEE
//! command (a script, the coreutils tutorial's line) puts `mnemo` in front
//! of it; each of KLEE 3.2's options is translated to `mnemo run`'s
//! equivalent, accepted where mnemo always does what it asks, noted where
//! mnemo has no counterpart and the run goes on without it, or refused
//! where going on would not give what was asked. Options KLEE lacks but
//! `mnemo run` has (`--jobs`, `--memo`, `--store`) pass through unchanged.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::cli::{Cli, MAX_SECONDS};

mod options;
use options::{Arity, Conv, Rule, OPTIONS};

/// KLEE's command translated: the arguments of `mnemo run`, and a note for
/// each option that does something else in mnemo, or nothing.
#[derive(Debug, PartialEq)]
pub(crate) struct Translation {
    /// `mnemo run`'s arguments, the program and its arguments last.
    pub(crate) run_args: Vec<String>,
    /// One line for each option the run goes on without.
    pub(crate) notes: Vec<String>,
    /// The bitcode, as given.
    pub(crate) program: PathBuf,
    /// Whether `--output-dir` was given; else KLEE's `klee-out-N` is made.
    pub(crate) output_dir_given: bool,
}

/// What `mnemo klee ARGS` asks for.
pub(crate) enum Request {
    /// Run it.
    Run(Translation),
    /// Print the `mnemo run` command it translates to.
    Print(Translation),
    /// Print which options do what.
    Help,
}

/// Reads `mnemo klee`'s arguments: `--print-command` first, if at all, then
/// KLEE's command line after `klee`.
pub(crate) fn request(args: &[String]) -> Result<Request, String> {
    match args.first().map(String::as_str) {
        Some("--print-command") => Ok(Request::Print(translate(&args[1..])?)),
        Some("-h" | "-help" | "--help") | None => Ok(Request::Help),
        _ => Ok(Request::Run(translate(args)?)),
    }
}

/// Translates KLEE's options (LLVM's syntax: one dash or two, `=VALUE` or
/// the value as the next argument, booleans as `-opt` or `-opt=false`)
/// up to the bitcode; what follows it is the program's.
pub(crate) fn translate(args: &[String]) -> Result<Translation, String> {
    let mut run_args = Vec::new();
    let mut notes = Vec::new();
    let mut searches = Vec::new();
    let mut env = Vec::new();
    let mut output_dir_given = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            break;
        }
        let Some(body) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            i -= 1;
            break;
        };
        if body.is_empty() {
            return Err(format!("`{arg}` is not an option"));
        }
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(rule) = OPTIONS.iter().find(|(n, _)| *n == name).map(|(_, r)| *r) else {
            pass_through(arg, name, inline, args, &mut i, &mut run_args)?;
            continue;
        };
        let value = |i: &mut usize| -> Result<String, String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            let v = args
                .get(*i)
                .ok_or_else(|| format!("--{name} needs a value"))?;
            *i += 1;
            Ok(v.clone())
        };
        match rule {
            Rule::Flag(to) => {
                if boolean(name, inline.as_deref())? {
                    run_args.push(to.to_string());
                }
            }
            Rule::BoolValue(to) => {
                let on = boolean(name, inline.as_deref())?;
                run_args.push(format!("{to}={on}"));
            }
            Rule::Value(to, conv) => {
                let v = value(&mut i)?;
                if let Some(v) = convert(name, &v, conv)? {
                    run_args.push(to.to_string());
                    run_args.push(v);
                }
                output_dir_given |= name == "output-dir";
            }
            Rule::Search => searches.push(value(&mut i)?),
            Rule::Libc => {
                let v = value(&mut i)?;
                match v.as_str() {
                    "uclibc" | "klee" => {}
                    "none" => notes.push(
                        "--libc=none: mnemo links its C library (musl) all the same, where KLEE would call the host's natively".to_string(),
                    ),
                    _ => return Err(format!("--libc={v}: KLEE's choices are none, klee and uclibc")),
                }
            }
            Rule::EnvFile => {
                let file = value(&mut i)?;
                let text = std::fs::read_to_string(&file)
                    .map_err(|e| format!("--env-file={file}: cannot read it: {e}"))?;
                for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                    env.extend(["--env".to_string(), line.to_string()]);
                }
            }
            Rule::Always => {
                if !boolean(name, inline.as_deref())? {
                    notes.push(format!("--{name}=false: ignored, mnemo always does this"));
                }
            }
            Rule::Ignored(arity, why) | Rule::Refused(arity, why) => {
                // Turned off, a boolean option asks for nothing.
                if arity == Arity::Flag && !boolean(name, inline.as_deref())? {
                    continue;
                }
                if let Rule::Refused(..) = rule {
                    return Err(format!("--{name} is not supported: {why}"));
                }
                if arity == Arity::Value {
                    // A value given apart is the option's, not the bitcode.
                    value(&mut i)?;
                }
                notes.push(format!("--{name}: ignored: {why}"));
            }
        }
    }
    let program = args.get(i).ok_or(
        "no bitcode: KLEE's command line ends with PROGRAM.bc and the program's arguments",
    )?;
    if let Some(kind) = searcher(&searches)? {
        run_args.extend(["--search".to_string(), kind.to_string()]);
    }
    // KLEE writes one test for each error and instruction by default.
    if !run_args.iter().any(|a| a.starts_with("--emit-all-errors=")) {
        run_args.push("--emit-all-errors=false".to_string());
    }
    run_args.push(program.clone());
    // The variables come first among the program's arguments, where the
    // runtime reads them as it reads the rest.
    run_args.extend(env);
    run_args.extend(args[i + 1..].iter().cloned());
    Ok(Translation {
        run_args,
        notes,
        program: PathBuf::from(program),
        output_dir_given,
    })
}

/// An option `mnemo run` has and KLEE does not, passed on as it is (with
/// two dashes); its value comes along where it takes one.
fn pass_through(
    arg: &str,
    name: &str,
    inline: Option<String>,
    args: &[String],
    i: &mut usize,
    run_args: &mut Vec<String>,
) -> Result<(), String> {
    let cli = Cli::command();
    let run = cli
        .find_subcommand("run")
        .expect("`run` is a subcommand of the grammar");
    let short = arg.len() == 2 && !arg.starts_with("--");
    let found = run.get_arguments().find(|a| {
        if short {
            a.get_short() == name.chars().next()
        } else {
            a.get_long() == Some(name)
        }
    });
    let Some(found) = found else {
        return Err(format!(
            "unknown option `{arg}`: neither KLEE 3.2 nor `mnemo run` has it (`mnemo klee --help` lists KLEE's)"
        ));
    };
    let dashes = if short { "-" } else { "--" };
    match inline {
        Some(v) => run_args.push(format!("{dashes}{name}={v}")),
        None => {
            run_args.push(format!("{dashes}{name}"));
            if found.get_action().takes_values() {
                let v = args.get(*i).ok_or_else(|| format!("{arg} needs a value"))?;
                run_args.push(v.clone());
                *i += 1;
            }
        }
    }
    Ok(())
}

/// A boolean option's value: absent is true, as LLVM reads `-opt`.
fn boolean(name: &str, v: Option<&str>) -> Result<bool, String> {
    match v {
        None | Some("true" | "TRUE" | "True" | "1") => Ok(true),
        Some("false" | "FALSE" | "False" | "0") => Ok(false),
        Some(v) => Err(format!("--{name}={v}: expected true or false")),
    }
}

/// The value for `mnemo run`, or `None` where KLEE's value means no limit.
fn convert(name: &str, v: &str, conv: Conv) -> Result<Option<String>, String> {
    let count = || {
        v.trim()
            .parse::<u64>()
            .map_err(|_| format!("--{name}={v}: expected a whole number"))
    };
    Ok(match conv {
        Conv::Text => Some(v.to_string()),
        Conv::Count => Some(count()?).filter(|&n| n > 0).map(|n| n.to_string()),
        Conv::CountZeroIs(zero) => Some(match count()? {
            0 => zero.to_string(),
            n => n.to_string(),
        }),
        Conv::Seconds => {
            let s = time_span(v).ok_or_else(|| bad_span(name, v))?;
            (s > 0.0).then(|| format!("{s}"))
        }
        Conv::Millis => {
            let s = time_span(v).ok_or_else(|| bad_span(name, v))?;
            (s > 0.0).then(|| {
                format!(
                    "{}",
                    ((s * 1000.0).ceil() as u64).clamp(1, u64::from(u32::MAX))
                )
            })
        }
        Conv::Share => {
            let p: f64 = v
                .trim()
                .parse()
                .ok()
                .filter(|p: &f64| (0.0..=1.0).contains(p))
                .ok_or_else(|| {
                    format!("--{name}={v}: expected a share from 0 to 1 (1: no limit)")
                })?;
            if p == 0.0 {
                return Err(format!(
                    "--{name}=0: mnemo's --max-site-fork-share is above 0 (a site forks at least once)"
                ));
            }
            (p < 1.0).then(|| format!("{p}"))
        }
    })
}

fn bad_span(name: &str, v: &str) -> String {
    format!("--{name}={v}: expected a time such as 90, 1.5, 1h30min or 500ms")
}

/// KLEE's time span in seconds: a decimal number of seconds, or whole
/// numbers each with a unit (`h`, `min`, `s`, `ms`, `us`, `ns`) one after
/// the other.
fn time_span(v: &str) -> Option<f64> {
    if v.is_empty() {
        return Some(0.0);
    }
    let plain = v.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if plain {
        return v.parse::<f64>().ok().filter(|s| *s <= MAX_SECONDS);
    }
    let mut total = 0.0;
    let mut rest = v;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let n: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let (unit, scale) = [
            ("min", 60.0),
            ("ms", 1e-3),
            ("us", 1e-6),
            ("ns", 1e-9),
            ("h", 3600.0),
            ("s", 1.0),
        ]
        .into_iter()
        .find(|(u, _)| rest.starts_with(u))?;
        rest = &rest[unit.len()..];
        total += n * scale;
    }
    (total <= MAX_SECONDS).then_some(total)
}

/// `mnemo run`'s searcher for KLEE's list of `--search` (taken in turn
/// where there are several), or `None` for KLEE's default, which is
/// mnemo's.
fn searcher(searches: &[String]) -> Result<Option<&'static str>, String> {
    let one = |s: &str| {
        match s {
        "dfs" => Ok("dfs"),
        "bfs" => Ok("bfs"),
        "random-path" => Ok("random-path"),
        "nurs:covnew" => Ok("covnew"),
        "random-state" | "nurs:md2u" | "nurs:depth" | "nurs:rp" | "nurs:icnt" | "nurs:cpicnt"
        | "nurs:qc" => Err(format!(
            "--search={s} is not supported: mnemo's searchers are dfs, bfs, random-path and nurs:covnew, and the last two in turn (KLEE's default)"
        )),
        _ => Err(format!("--search={s}: KLEE has no such searcher")),
    }
    };
    let kinds = searches
        .iter()
        .map(|s| one(s))
        .collect::<Result<Vec<_>, _>>()?;
    match kinds.as_slice() {
        [] => Ok(None),
        [k] => Ok(Some(k)),
        [a, b]
            if (*a, *b) == ("random-path", "covnew") || (*a, *b) == ("covnew", "random-path") =>
        {
            Ok(Some("interleaved"))
        }
        _ => Err(format!(
            "--search {}: mnemo takes one searcher, or random-path and nurs:covnew in turn",
            searches.join(" --search ")
        )),
    }
}

/// KLEE's output directory when none is given: `klee-out-N` beside the
/// bitcode, N the first number free.
pub(crate) fn free_output_dir(program: &Path) -> anyhow::Result<PathBuf> {
    // A bare file name's directory is the working one, left unnamed.
    let parent = program.parent().unwrap_or(Path::new(""));
    (0..u32::MAX)
        .map(|n| parent.join(format!("klee-out-{n}")))
        .find(|dir| !dir.exists())
        .ok_or_else(|| anyhow::anyhow!("no free klee-out-N beside {}", program.display()))
}

/// Makes the output directory [`free_output_dir`] named, and links
/// `klee-last` beside it to it (a warning where the link cannot be made).
pub(crate) fn claim_output_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Ok(());
    };
    let last = parent.join("klee-last");
    let linked = match std::fs::remove_file(&last) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => std::os::unix::fs::symlink(name, &last),
    };
    if let Err(e) = linked {
        eprintln!("mnemo: warning: cannot link {}: {e}", last.display());
    }
    Ok(())
}

/// `mnemo klee --help`: how the command works and what each option of
/// KLEE's becomes, from the table the translation uses.
pub(crate) fn help() -> String {
    let mut out = String::from(
        "Usage: mnemo klee [--print-command] [KLEE OPTIONS] PROGRAM.bc [PROGRAM ARGUMENTS]\n\n\
         Runs KLEE's command line with mnemo: each of KLEE 3.2's options becomes `mnemo run`'s\n\
         equivalent; options KLEE lacks and `mnemo run` has (--jobs, --memo, --store) pass through.\n\
         Without --output-dir, tests go to klee-out-N beside the bitcode, and klee-last links to it.\n\
         As in KLEE, only the first error at each place gets a test unless --emit-all-errors.\n\
         --print-command prints the `mnemo run` command instead of running it.\n\n",
    );
    let mut section = |title: &str, pick: &dyn Fn(&Rule) -> Option<String>| {
        out.push_str(title);
        out.push('\n');
        for (name, rule) in OPTIONS {
            if let Some(s) = pick(rule) {
                let line = format!("  --{name:<34} {s}");
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        out.push('\n');
    };
    section("Translated:", &|r| match r {
        Rule::Flag(to) | Rule::BoolValue(to) | Rule::Value(to, _) => Some(to.to_string()),
        Rule::Search => Some("--search (random-path with nurs:covnew: interleaved)".into()),
        Rule::EnvFile => Some("--env NAME=VALUE among the program's arguments, one a line".into()),
        _ => None,
    });
    section("What mnemo always does:", &|r| {
        matches!(r, Rule::Always | Rule::Libc).then(String::new)
    });
    section("Ignored, with a note:", &|r| match r {
        Rule::Ignored(_, why) => Some(why.to_string()),
        _ => None,
    });
    section("Refused:", &|r| match r {
        Rule::Refused(_, why) => Some(why.to_string()),
        _ => None,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_coreutils_tutorial_line_translates() {
        let t = translate(&args(
            "--simplify-sym-indices --write-cvcs=false --write-cov --output-module --max-memory=1000 \
             --disable-inlining --optimize --use-forked-solver --use-cex-cache --libc=uclibc \
             --posix-runtime --external-calls=all --only-output-states-covering-new \
             --max-sym-array-size=4096 --max-solver-time=30s --max-time=60min --watchdog \
             --max-memory-inhibit=false --max-static-fork-pct=1 --max-static-solve-pct=1 \
             --max-static-cpfork-pct=1 --switch-type=internal --search=random-path \
             --search=nurs:covnew --use-batching-search --batch-instructions=10000 \
             ./cat.bc --sym-args 0 1 10 --sym-args 0 2 2 --sym-files 1 8 --sym-stdin 8 --sym-stdout",
        ));
        // `--write-cvcs=false` asks for nothing, so it is not refused.
        let err = translate(&args("--write-cvcs p.bc")).unwrap_err();
        assert!(err.contains("--write-smt2s"), "{err}");
        let t = t.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            t.run_args.join(" "),
            "--write-cov --max-memory 1000 --optimize --only-new-coverage --solver-timeout 30000 \
             --max-time 3600 --search interleaved --emit-all-errors=false ./cat.bc \
             --sym-args 0 1 10 --sym-args 0 2 2 --sym-files 1 8 --sym-stdin 8 --sym-stdout"
        );
        assert_eq!(t.program, PathBuf::from("./cat.bc"));
        assert!(!t.output_dir_given);
        let noted: Vec<&str> = t
            .notes
            .iter()
            .map(|n| n.split(':').next().unwrap_or(""))
            .collect();
        assert_eq!(
            noted,
            [
                "--simplify-sym-indices",
                "--output-module",
                "--disable-inlining",
                "--external-calls",
                "--max-sym-array-size",
                "--max-static-solve-pct",
                "--max-static-cpfork-pct",
                "--switch-type",
                "--use-batching-search",
                "--batch-instructions",
            ]
        );
    }

    #[test]
    fn values_come_inline_or_apart_with_one_dash_or_two() {
        let t = translate(&args(
            "-output-dir out -max-time 90 --max-depth=0 -max-stack-frames=0 -emit-all-errors \
             -dump-states-on-halt=false -rng-initial-seed 7 -switch-type simple p.bc -x",
        ))
        .unwrap();
        assert_eq!(
            t.run_args.join(" "),
            "--output-dir out --max-time 90 --max-stack-frames 4294967295 \
             --emit-all-errors=true --dump-states-on-halt=false --seed 7 p.bc -x"
        );
        assert!(t.output_dir_given);
    }

    #[test]
    fn mnemo_options_pass_through_and_typos_are_named() {
        let t = translate(&args("--jobs 2 -j 3 --memo=m --store none p.bc")).unwrap();
        assert_eq!(
            t.run_args.join(" "),
            "--jobs 2 -j 3 --memo=m --store none --emit-all-errors=false p.bc"
        );
        let err = translate(&args("--max-tme=5 p.bc")).unwrap_err();
        assert!(err.contains("`--max-tme=5`"), "{err}");
    }

    #[test]
    fn an_env_file_gives_the_program_its_variables() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("test.env");
        std::fs::write(&file, "HOME=/home/user\n\n  LANG=C  \n").unwrap();
        let line = format!("--env-file {} p.bc --sym-arg 1", file.display());
        let t = translate(&args(&line)).unwrap();
        assert_eq!(
            t.run_args.join(" "),
            "--emit-all-errors=false p.bc --env HOME=/home/user --env LANG=C --sym-arg 1"
        );
        let err = translate(&args("--env-file=/nonexistent/test.env p.bc")).unwrap_err();
        assert!(err.contains("cannot read it"), "{err}");
    }

    #[test]
    fn time_spans_read_as_klee_reads_them() {
        assert_eq!(time_span("90"), Some(90.0));
        assert_eq!(time_span("1.5"), Some(1.5));
        assert_eq!(time_span("1h30min"), Some(5400.0));
        assert_eq!(time_span("2min10s500ms"), Some(130.5));
        assert_eq!(time_span("1.5min"), None);
        assert_eq!(time_span("5m"), None);
        assert_eq!(time_span("min"), None);
        assert_eq!(
            convert("max-solver-time", "100us", Conv::Millis).unwrap(),
            Some("1".into())
        );
        assert_eq!(convert("max-time", "0", Conv::Seconds).unwrap(), None);
    }

    #[test]
    fn searches_map_or_are_refused() {
        let s = |v: &[&str]| searcher(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(s(&[]).unwrap(), None);
        assert_eq!(s(&["dfs"]).unwrap(), Some("dfs"));
        assert_eq!(
            s(&["nurs:covnew", "random-path"]).unwrap(),
            Some("interleaved")
        );
        assert!(s(&["nurs:md2u"]).unwrap_err().contains("not supported"));
        assert!(s(&["dfs", "bfs"]).unwrap_err().contains("one searcher"));
        assert!(s(&["best"]).unwrap_err().contains("no such searcher"));
    }

    #[test]
    fn refusals_and_bad_values_say_why() {
        for (line, says) in [
            ("--replay-ktest-file t.ktest p.bc", "mnemo replay"),
            ("--libc=glibc p.bc", "none, klee and uclibc"),
            ("--max-static-fork-pct=0 p.bc", "above 0"),
            ("--max-static-fork-pct=5 p.bc", "share from 0 to 1"),
            ("--max-time=soon p.bc", "1h30min"),
            ("--only-seed=maybe p.bc", "true or false"),
            ("--max-time", "needs a value"),
            ("--watchdog", "no bitcode"),
        ] {
            let err = translate(&args(line)).unwrap_err();
            assert!(err.contains(says), "{line}: {err}");
        }
    }

    #[test]
    fn every_option_is_listed_once_and_in_order() {
        for w in OPTIONS.windows(2) {
            assert!(w[0].0 < w[1].0, "{} before {}", w[0].0, w[1].0);
        }
        let h = help();
        for (name, _) in OPTIONS {
            assert!(
                h.contains(&format!("  --{name}")),
                "{name} missing from help"
            );
        }
    }
}
