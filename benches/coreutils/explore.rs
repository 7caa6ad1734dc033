//! How the coreutils bench explores a tool: the plain run, and the
//! parallel and memoized runs measured beside it, each as a `mnemo`
//! process held to its time and memory.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{json, Value};

use super::Setup;

const MNEMO: &str = env!("CARGO_BIN_EXE_mnemo");
const KLEE_ARGS: &[&str] = &[
    "--sym-args",
    "0",
    "1",
    "10",
    "--sym-args",
    "0",
    "2",
    "2",
    "--sym-files",
    "1",
    "8",
    "--sym-stdin",
    "8",
];
/// The host's user and group databases, which the tools' native runs read
/// (`id root`, `pinky -l`, `chown root`, `ls -l`'s owner names): each run
/// may open them with `--file`, as KLEE's environment passes a concrete
/// path through to the host's file.
const HOST_FILES: &[&str] = &["/etc/passwd", "/etc/group"];
/// The share of a run's forks one branch site may make in the plain and
/// `--jobs` runs (`--max-site-fork-share`): gnulib's quotearg, switching
/// on each byte of a name it quotes into a message, made 75% to 85% of
/// the forks of cp, dd and split, and at 5 minutes cp covered 52% of its
/// own lines with it unbounded and 67% with it held to 0.3. At 0.1, 20
/// tools gained 3 points a tool on average over 0.3 (the digest tools 8
/// to 13, ls and sort lost 6). The `deepen` and `regress` runs go
/// without: they follow the whole trie.
const FORK_SHARE: &str = "0.1";
/// Past its time limit, a run has this long to write its tests.
const GRACE: Duration = Duration::from_secs(180);
/// The address space a run may have (`--max-memory` is 3000 MiB).
const ADDRESS_SPACE: u64 = 8 << 30;

/// How a tool is explored: the plain run, or one of the parallel and
/// memoized runs that are measured beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Plain,
    /// Workers sharing one run (`--jobs`).
    Jobs,
    /// Iterative deepening (`--deepen`), each bound following the trie of
    /// the one before.
    Deepen,
    /// The previous release's trie carried over to this one (`mnemo
    /// regress`).
    Regress,
}

impl Mode {
    const ALL: [Mode; 4] = [Mode::Plain, Mode::Jobs, Mode::Deepen, Mode::Regress];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Plain => "plain",
            Mode::Jobs => "jobs",
            Mode::Deepen => "deepen",
            Mode::Regress => "regress",
        }
    }

    pub fn parse(name: &str) -> anyhow::Result<Mode> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .with_context(|| {
                format!("unknown mode {name:?} in MODES (plain, jobs, deepen, regress)")
            })
    }
}

/// `--deepen A:STEP:B`'s bounds.
#[derive(Clone, Copy)]
pub struct Bounds {
    first: u32,
    step: u32,
    last: u32,
}

impl Bounds {
    pub fn parse(text: &str) -> anyhow::Result<Bounds> {
        let parts: Vec<u32> = text
            .split(':')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .with_context(|| format!("DEEPEN must be A:STEP:B, not {text:?}"))?;
        match parts[..] {
            [first, step, last] if step > 0 && first <= last => Ok(Bounds { first, step, last }),
            _ => anyhow::bail!("DEEPEN must be A:STEP:B with STEP > 0 and A <= B, not {text:?}"),
        }
    }

    fn count(self) -> u64 {
        u64::from((self.last - self.first) / self.step + 1)
    }

    fn text(self) -> String {
        format!("{}:{}:{}", self.first, self.step, self.last)
    }
}

/// Runs mnemo with `args`, limited to `seconds` and [`GRACE`] past them
/// and to [`ADDRESS_SPACE`]: (exit status, the end of stderr, seconds).
/// stderr goes to `log`, stdout to `stdout` if given.
fn mnemo_limited(
    args: &[OsString],
    seconds: u64,
    log: &Path,
    stdout: Option<&Path>,
) -> anyhow::Result<(Option<i32>, String, f64)> {
    let start = Instant::now();
    let mut command = Command::new(MNEMO);
    // One worker unless the mode asks for more (`jobs`): the other modes
    // are measured against KLEE, on one core.
    command.env("MNEMO_JOBS", "1");
    // A run whose memory grows inside one step, past --max-memory's
    // checks, must fail alone rather than take the machine down.
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the
    // parent; it runs in the child between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: ADDRESS_SPACE,
                rlim_max: ADDRESS_SPACE,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let stdout = match stdout {
        Some(path) => Stdio::from(std::fs::File::create(path)?),
        None => Stdio::null(),
    };
    let mut child = command
        .args(args)
        .stdout(stdout)
        .stderr(std::fs::File::create(log)?)
        .spawn()
        .context("cannot start mnemo")?;
    let deadline = start + Duration::from_secs(seconds) + GRACE;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let stderr = std::fs::read_to_string(log).unwrap_or_default();
    let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Ok((status, tail.join("\n"), start.elapsed().as_secs_f64()))
}

/// The options every run of the bench shares: KLEE's coreutils runs wrote
/// tests only for paths covering new code, and so do these unless
/// `ALL_TESTS` is set (replaying every test costs more than the run).
fn limits(setup: &Setup, seconds: u64, out: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "-q",
        "--store",
        "none",
        "--max-memory",
        "3000",
        "--max-time",
    ]
    .map(OsString::from)
    .to_vec();
    args.push(seconds.to_string().into());
    args.push("--output-dir".into());
    args.push(out.into());
    if !setup.all_tests {
        args.push("--only-new-coverage".into());
    }
    for file in host_files() {
        args.extend(["--file".into(), file.into()]);
    }
    args
}

/// Those of [`HOST_FILES`] this machine has: the runs read them with
/// `--file`, and the replays find them in the model's file system.
pub fn host_files() -> Vec<PathBuf> {
    HOST_FILES
        .iter()
        .map(PathBuf::from)
        .filter(|f| f.is_file())
        .collect()
}

/// What exploring a tool gave: the run whose tests are measured, and for
/// `regress` what the analysis found and the old version's run.
pub struct Explored {
    pub status: Option<i32>,
    pub stderr: String,
    pub seconds: f64,
    /// What the mode adds (for `regress`: the analysis and the old run).
    pub extra: Value,
}

/// Explores one tool in `mode`; its tests go to `dir/out`.
pub fn explore(setup: &Setup, tool: &str, mode: Mode, dir: &Path) -> anyhow::Result<Explored> {
    let out = dir.join("out");
    let log = dir.join("run.log");
    let program: OsString = setup.bitcode.join(format!("{tool}.bc")).into();
    let failures: Vec<OsString> = match setup.max_fail {
        0 => Vec::new(),
        n => vec!["--max-fail".into(), n.to_string().into()],
    };
    let klee_args = KLEE_ARGS.iter().map(OsString::from).chain(failures).chain(
        setup
            .environ
            .iter()
            .flat_map(|v| ["--env".into(), v.into()]),
    );
    let run = |mut args: Vec<OsString>, seconds: u64, stdout: Option<&Path>| {
        args.extend(klee_args.clone());
        mnemo_limited(&args, seconds, &log, stdout)
    };
    let mut args: Vec<OsString> = vec!["run".into()];
    let ((status, stderr, seconds), extra) = match mode {
        Mode::Plain => {
            args.extend(limits(setup, setup.seconds, &out));
            args.extend(["--max-site-fork-share".into(), FORK_SHARE.into(), program]);
            (run(args, setup.seconds, None)?, Value::Null)
        }
        Mode::Jobs => {
            args.extend(limits(setup, setup.seconds, &out));
            args.extend(["--max-site-fork-share".into(), FORK_SHARE.into()]);
            args.extend(["--jobs".into(), setup.run_jobs.to_string().into(), program]);
            (run(args, setup.seconds, None)?, Value::Null)
        }
        Mode::Deepen => {
            let each = (setup.seconds / setup.deepen.count()).max(1);
            args.extend(limits(setup, each, &out));
            args.extend(["--deepen".into(), setup.deepen.text().into(), program]);
            let ran = run(args, setup.seconds, None)?;
            // stats.json is the last bound's; each bound's line in the log
            // ends with its solver queries.
            let log = std::fs::read_to_string(&log).unwrap_or_default();
            let queries: Vec<u64> = log
                .lines()
                .filter(|l| l.starts_with("mnemo: depth "))
                .filter_map(|l| {
                    l.strip_suffix(" solver queries")?
                        .rsplit(' ')
                        .next()?
                        .parse()
                        .ok()
                })
                .collect();
            let extra = json!({"seconds_per_bound": each, "bound_queries": queries,
                               "solver_queries": queries.iter().sum::<u64>()});
            (ran, extra)
        }
        Mode::Regress => {
            let old: OsString = setup.old_bitcode.join(format!("{tool}.bc")).into();
            anyhow::ensure!(
                Path::new(&old).is_file(),
                "no {tool} in {}: coreutils 8.32 has no such tool, or `make coreutils-old` was not run",
                setup.old_bitcode.display()
            );
            let memo = dir.join("memo");
            args.extend(limits(setup, setup.seconds, &dir.join("old-out")));
            args.extend(["--memo".into(), memo.clone().into(), old.clone()]);
            let (old_status, old_stderr, old_seconds) = run(args, setup.seconds, None)?;
            anyhow::ensure!(
                matches!(old_status, Some(0 | 3)),
                "the run of {tool} 8.32 failed ({old_status:?}):\n{old_stderr}"
            );
            let old_stats = read_json(&dir.join("old-out/stats.json"));
            let mut args: Vec<OsString> = vec!["regress".into()];
            args.extend(limits(setup, setup.seconds, &out));
            args.extend(["--memo".into(), memo.into(), old, program]);
            let report = dir.join("regress.txt");
            let ran = run(args, setup.seconds, Some(&report))?;
            let report = std::fs::read_to_string(&report).unwrap_or_default();
            let changed = report
                .lines()
                .find_map(|l| l.strip_prefix("changed functions: "))
                .map_or(0, |l| {
                    if l == "none" {
                        0
                    } else {
                        l.split(", ").count()
                    }
                });
            let impacted = report
                .lines()
                .find_map(|l| l.strip_prefix("impacted nodes: "))
                .and_then(|n| n.trim().parse::<u64>().ok());
            let extra = json!({
                "old_seconds": old_seconds, "old_paths": paths_of(&old_stats),
                "changed_functions": changed, "impacted_nodes": impacted,
                "layout_changed": report.contains("layout of globals or functions changed"),
            });
            (ran, extra)
        }
    };
    Ok(Explored {
        status,
        stderr,
        seconds,
        extra,
    })
}

pub fn read_json(path: &Path) -> Value {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null)
}

/// The paths a run's statistics count: completed, with errors, ended early.
pub fn paths_of(stats: &Value) -> u64 {
    stats["paths"]["completed"].as_u64().unwrap_or(0)
        + ["errors", "early"]
            .iter()
            .filter_map(|k| stats["paths"][k].as_object())
            .flat_map(|m| m.values().filter_map(Value::as_u64))
            .sum::<u64>()
}
