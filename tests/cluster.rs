//! Many machines through Redis: a coordinator and three workers, each a
//! process, on a Redis server of the test's own. The coordinator is killed
//! after it set the run up and started again; a worker is killed with
//! SIGKILL while it holds a shard. The result equals a single run's: the
//! same trie, the same tests under the same numbers with the same outcomes.
//! A server that cannot be reached and a URL that names no run are clear
//! errors.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "support/cli.rs"]
mod cli;
#[path = "support/found.rs"]
mod found;
#[path = "support/process.rs"]
mod process;

use found::{differ, found, mnemo};
use mnemo::solver::store::LocalServer;
use process::{spawn_logged, Running};

/// Loops on nondeterministic guards, deep enough that each shard takes a
/// while (about 2,600 paths).
const PROGRAM: &str = "svcomp_nested_loops";
const DEPTH: &str = "16";

fn compile(dir: &Path) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testsuite")
        .join(format!("{PROGRAM}.c"));
    let bc = dir.join("prog.bc");
    mnemo(&[
        "cc".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        bc.as_os_str(),
    ])
    .expect("compile");
    bc
}

/// `mnemo run` of `bc` to `depth` alone, into `out` and `memo`.
fn plain_run(bc: &Path, depth: &str, out: &Path, memo: &Path) {
    mnemo(&[
        "run".as_ref(),
        "-q".as_ref(),
        "--store".as_ref(),
        "none".as_ref(),
        "--output-dir".as_ref(),
        out.as_os_str(),
        "--memo".as_ref(),
        memo.as_os_str(),
        "--max-depth".as_ref(),
        depth.as_ref(),
        bc.as_os_str(),
    ])
    .expect("plain run");
}

/// A scratch directory with the program compiled and its plain run to
/// [`DEPTH`] in `single` and `single-m`.
fn with_plain_run() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::Builder::new()
        .prefix("mnemo-cluster-")
        .tempdir()
        .expect("tempdir");
    let dir = tmp.path();
    let bc = compile(dir);
    plain_run(&bc, DEPTH, &dir.join("single"), &dir.join("single-m"));
    (tmp, bc)
}

/// Waits for each worker, which must end well; what they all said.
fn finished(workers: impl IntoIterator<Item = (Running, PathBuf)>) -> String {
    let mut said = String::new();
    for (w, log) in workers {
        let o = w.wait_with_output();
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(o.status.success(), "a worker failed:\n{text}");
        said.push_str(&text);
    }
    said
}

/// The cluster run in `all` and `m` found what the plain run did.
fn same_as_plain(dir: &Path, how: &str, workers_said: &str) {
    if let Err(e) = differ(
        &format!("{PROGRAM} {how}"),
        &found(dir, "single", "single-m").expect("single run"),
        &found(dir, "all", "m").expect("cluster run"),
    ) {
        panic!("{e}\nworkers:\n{workers_said}");
    }
}

/// `mnemo worker URL -j 1` in the background, its stderr into `log`.
fn worker(url: &str, log: &Path) -> Running {
    spawn(
        &[
            "worker".as_ref(),
            url.as_ref(),
            "-j".as_ref(),
            "1".as_ref(),
            "--lease".as_ref(),
            "2".as_ref(),
        ],
        log,
    )
}

/// `mnemo ARGS` in the background, its stderr into `log`. Its temporary
/// files go beside `log`, in the test's directory: a worker killed with
/// SIGKILL cannot remove its scratch directory itself.
fn spawn(args: &[&OsStr], log: &Path) -> Running {
    let mut command = cli::mnemo();
    command.current_dir(env!("CARGO_MANIFEST_DIR")).args(args);
    if let Some(dir) = log.parent() {
        command.env("TMPDIR", dir);
    }
    spawn_logged(&mut command, log)
}

/// Waits until `log` holds `text`.
fn wait_for_line(log: &Path, text: &str) {
    let start = Instant::now();
    loop {
        let now = std::fs::read_to_string(log).unwrap_or_default();
        if now.contains(text) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{} never said `{text}`:\n{now}",
            log.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The coordinator's command line.
fn coordinator(dir: &Path, url: &str) -> Vec<std::ffi::OsString> {
    let mut a: Vec<std::ffi::OsString> =
        ["run", "--store", "none", "--jobs", "3", "--cluster", url]
            .iter()
            .map(Into::into)
            .collect();
    a.extend(["--output-dir".into(), dir.join("all").into()]);
    a.extend(["--memo".into(), dir.join("m").into()]);
    a.extend(["--max-depth".into(), DEPTH.into()]);
    a.push(dir.join("prog.bc").into());
    a
}

fn os(v: &[std::ffi::OsString]) -> Vec<&OsStr> {
    v.iter().map(|s| s.as_os_str()).collect()
}

/// Shards taken over from a worker whose lease expired, as the workers'
/// final reports count them.
fn reclaimed(log: &str) -> usize {
    log.lines()
        .filter_map(|l| l.strip_prefix("worker: "))
        .filter_map(|l| {
            l.split('(')
                .nth(1)?
                .split(' ')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum()
}

/// The candidates the workers' reports say they explored, and in how many
/// runs.
fn explored(log: &str) -> (usize, usize) {
    let mut sums = (0, 0);
    for l in log.lines().filter_map(|l| l.strip_prefix("worker: ")) {
        let words: Vec<&str> = l.split_whitespace().collect();
        let before = |w: &str| {
            let at = words.iter().position(|x| *x == w)?;
            words.get(at.checked_sub(1)?)?.parse::<usize>().ok()
        };
        sums.0 += before("candidates").unwrap_or(0);
        sums.1 += before("runs,").unwrap_or(0);
    }
    sums
}

#[test]
fn killed_workers_and_a_restarted_coordinator_lose_nothing() {
    let Some(server) = LocalServer::start() else {
        return;
    };
    let (tmp, _) = with_plain_run();
    let dir = tmp.path();

    let url = format!("{}/nested", server.url);
    let args = coordinator(dir, &url);
    // The first coordinator dies once the run is set up.
    let first_log = dir.join("coordinator-1.log");
    let first = spawn(&os(&args), &first_log);
    wait_for_line(&first_log, "waiting for workers");
    drop(first);

    let worker = |i: usize| {
        let log = dir.join(format!("worker-{i}.log"));
        (worker(&url, &log), log)
    };
    let (doomed, doomed_log) = worker(0);
    wait_for_line(&doomed_log, "claimed shard");
    let survivors = [worker(1), worker(2)];
    process::signal(&doomed, libc::SIGKILL);
    drop(doomed);

    let second = spawn(&os(&args), &dir.join("coordinator-2.log"));
    let o = second.wait_with_output();
    let second_log = std::fs::read_to_string(dir.join("coordinator-2.log")).unwrap_or_default();
    assert!(o.status.success(), "the coordinator failed:\n{second_log}");
    assert!(second_log.contains("going on with it"), "{second_log}");
    let workers_said = finished(survivors);
    assert!(
        reclaimed(&workers_said) >= 1,
        "the killed worker's shard was not taken over:\n{workers_said}"
    );

    same_as_plain(dir, "on a cluster", &workers_said);
    let stats = cli::json(&dir.join("all/stats.json"));
    assert_eq!(stats["parallel"]["jobs"], 2, "{}", stats["parallel"]);

    // A coordinator for another build of the program is refused.
    let other = dir.join("other.bc");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testsuite/svcomp_counter_loop.c");
    mnemo(&[
        "cc".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        other.as_os_str(),
    ])
    .expect("compile");
    let mut again = coordinator(dir, &url);
    *again.last_mut().expect("a program") = other.into();
    let msg = mnemo(&os(&again)).expect_err("another build");
    assert!(msg.contains("was set up for another build"), "{msg}");
}

/// A run deepened from a trie has a candidate for every path its bound
/// cut, each of a few paths below: the workers explore them several to a
/// run, and the result is a plain run's.
#[test]
fn a_deepened_run_explores_many_candidates_several_to_a_run() {
    let Some(server) = LocalServer::start() else {
        return;
    };
    let (tmp, bc) = with_plain_run();
    let dir = tmp.path();
    plain_run(&bc, "10", &dir.join("shallow"), &dir.join("m"));
    let url = format!("{}/deeper", server.url);
    let workers: Vec<(Running, PathBuf)> = (0..2)
        .map(|i| {
            let log = dir.join(format!("worker-{i}.log"));
            (worker(&url, &log), log)
        })
        .collect();
    mnemo(&os(&coordinator(dir, &url))).expect("coordinator");
    let workers_said = finished(workers);
    let (candidates, runs) = explored(&workers_said);
    assert!(
        candidates >= 50 && runs > 0 && runs < candidates / 2,
        "{candidates} candidates in {runs} runs:\n{workers_said}"
    );
    same_as_plain(dir, "deepened on a cluster", &workers_said);
}

#[test]
fn unreachable_servers_and_bad_urls_are_clear_errors() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bc = compile(tmp.path());
    let out = tmp.path().join("out");
    for args in [
        vec!["worker", "redis://127.0.0.1:1/r"],
        vec!["run", "--cluster", "redis://127.0.0.1:1/r"],
    ] {
        let mut a: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        if args[0] == "run" {
            a.extend(["--output-dir".as_ref(), out.as_os_str(), bc.as_os_str()]);
        }
        let msg = mnemo(&a).expect_err("no server there");
        assert!(
            msg.contains("cannot reach the Redis server of redis://127.0.0.1:1/r"),
            "{msg}"
        );
    }
    let msg = mnemo(&["worker".as_ref(), "redis://127.0.0.1:1".as_ref()]).expect_err("no run");
    assert!(msg.contains("does not name a cluster run"), "{msg}");
    let msg = mnemo(&[
        "worker".as_ref(),
        "redis://127.0.0.1:1/r".as_ref(),
        "--lease".as_ref(),
        "0.5".as_ref(),
    ])
    .expect_err("a lease too short");
    assert!(msg.contains("--lease must be at least 1 second"), "{msg}");
}
