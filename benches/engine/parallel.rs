//! The `parallel` section: `--jobs 2` against `--jobs 1` on subjects whose
//! single-core run takes 10 to 60 seconds: the speedup of the exploration's
//! wall time, and the imbalance of the two workers' busy times (the
//! longest over the mean). Targets: a speedup of 1.8 or more, an imbalance
//! of 1.1 or less. Beside dynamic balancing (`--balance dynamic`), rows
//! for the other ways of sharing out: trie partitions with dynamic
//! balancing on top (`trie`), trie partitions alone (`static`), and the
//! naive split of the first branch (`naive`); each timed as a whole call,
//! the shallow run that records a trie for the partitions included, with
//! the share of the workers' busy time spent replaying prefixes.
//!
//! Then a prediction, not a measurement: from the costs the run recorded
//! (its finished trie) and the partitions of a shallow trie, the speedup
//! and imbalance of 64, 256 and 1024 workers, static and with dynamic
//! balancing (`mnemo::parallel::simulate`).
//!
//! Each run is a whole `mnemo run` in this process (trie and tests
//! written), solver stores off, so that the runs do not help each other.
//! The machine's load average is printed beside each pair of runs: on a
//! machine whose cores are busy with other work, two workers cannot run
//! twice as fast as one.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mnemo::parallel::simulate::{predict, Prediction};
use mnemo::parallel::Balance;
use mnemo::run::RunConfig;
use mnemo::search::SearcherKind;
use mnemo::stats::RunStats;
use mnemo::stop::StopRequest;
use serde_json::{json, Value};

/// A subject: a program (`dir/program.c` under the repository's root) and
/// its bound, explored fresh or deepened from a shallower bound (`from`),
/// where the deeper run is the one measured. Each is deep enough that one
/// worker takes 10 to 60 s on the 2-core machine, writing a test for every
/// path as a run does by default (13 to 18 s there, in memory).
struct Subject {
    dir: &'static str,
    program: &'static str,
    from: Option<u32>,
    depth: u32,
}

const SUBJECTS: [Subject; 5] = [
    // Nested loops on nondet guards: tens of thousands of short paths, a
    // test written every few hundred instructions.
    Subject {
        dir: "testsuite",
        program: "svcomp_nested_loops",
        from: None,
        depth: 24,
    },
    // The same, deepened: the trie replays the paths to depth 20 with the
    // solver off, and the workers share the boundary nodes below.
    Subject {
        dir: "testsuite",
        program: "svcomp_nested_loops",
        from: Some(20),
        depth: 24,
    },
    // A reactive controller stepped on fresh input until the bound.
    Subject {
        dir: "benches/programs/parallel",
        program: "wbs_run",
        from: None,
        depth: 22,
    },
    // A container filled with symbolic keys: most time in the solver.
    Subject {
        dir: "benches/programs/parallel",
        program: "bintree_run",
        from: None,
        depth: 19,
    },
    // A loop on fresh input whose branches test a running sum of every
    // value read so far: few paths, long solver calls. (paper_gcd had this
    // place until the enumerate layer answered its queries without Z3.)
    Subject {
        dir: "benches/programs/parallel",
        program: "sum_run",
        from: None,
        depth: 22,
    },
];

/// The ways of sharing a run out that are compared.
const BALANCES: [Balance; 4] = [
    Balance::Dynamic,
    Balance::Trie,
    Balance::Static,
    Balance::Naive,
];

/// The numbers of workers the simulation predicts.
const SIMULATED: [usize; 3] = [64, 256, 1024];

fn config(
    bc: &Path,
    out: PathBuf,
    memo: PathBuf,
    depth: u32,
    jobs: usize,
    balance: Balance,
) -> RunConfig {
    RunConfig {
        program: bc.to_path_buf(),
        output_dir: out,
        program_args: Vec::new(),
        host_files: Vec::new(),
        max_depth: Some(depth),
        max_time: None,
        max_instructions: None,
        max_memory_mb: None,
        max_stack_frames: mnemo::exec::DEFAULT_MAX_STACK_FRAMES,
        searcher: SearcherKind::default(),
        seed: 1,
        solver: mnemo::solver::SolverConfig::default(),
        stores: vec!["none".to_string()],
        show_output: false,
        entry: "main".to_string(),
        link_runtime: true,
        optimize: false,
        quiet: true,
        memo_dir: Some(memo),
        resume: false,
        compress: false,
        targets: Vec::new(),
        heuristic: mnemo::memo::heuristic::HeuristicKind::Reachability,
        last_in_process: false,
        // As a user's run takes them (`--checkpoint`'s default): at the
        // start, then every minute.
        checkpoint: Some(Duration::from_secs(60)),
        jobs,
        balance,
        compose: None,
        test_files: Default::default(),
        max_site_fork_share: None,
        max_forks: None,
        silent_assume: false,
        retry_undecided: false,
        exit_on_error: Vec::new(),
        max_tests: None,
        skip_pending_tests: false,
        emit_all_errors: true,
        seeds: Vec::new(),
        seed_fit: Default::default(),
        only_seed: false,
        seed_time: None,
        write_conditions: false,
        write_coverage: false,
    }
}

/// How much faster `threads` threads of pure arithmetic get through work
/// than one: the most any `--jobs` speedup can be on this machine. Virtual
/// cores need not be whole cores (siblings of one physical core, or a host
/// that is itself busy), and then no program scales to their number.
fn ceiling(threads: usize) -> f64 {
    fn spin() {
        let mut x = 0u64;
        for i in 0..400_000_000u64 {
            x = std::hint::black_box(x.wrapping_add(i.wrapping_mul(i)));
        }
        std::hint::black_box(x);
    }
    let one = Instant::now();
    spin();
    let one = one.elapsed().as_secs_f64();
    let many = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(spin);
        }
    });
    threads as f64 * one / many.elapsed().as_secs_f64().max(1e-9)
}

/// The machine's load average over the last minute.
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// One measured run: its statistics and the seconds of the whole call.
struct Measured {
    stats: RunStats,
    wall_s: f64,
    memo: PathBuf,
}

/// Runs `s` with `jobs` workers in a fresh directory under `scratch`.
fn measure(
    scratch: &Path,
    bc: &Path,
    s: &Subject,
    jobs: usize,
    balance: Balance,
) -> anyhow::Result<Measured> {
    let dir = scratch.join(format!(
        "{}-{:?}-{}-j{jobs}-{balance:?}",
        s.program, s.from, s.depth
    ));
    let memo = dir.join("memo");
    let stop = StopRequest::default();
    if let Some(from) = s.from {
        let c = config(
            bc,
            dir.join("shallow"),
            memo.clone(),
            from,
            jobs,
            Balance::Dynamic,
        );
        mnemo::run::run(&c, &stop)?;
    }
    let c = config(bc, dir.join("out"), memo.clone(), s.depth, jobs, balance);
    let start = std::time::Instant::now();
    let stats = mnemo::batch::run(&c, &stop)?;
    let wall_s = start.elapsed().as_secs_f64();
    forget_outputs(&dir)?;
    Ok(Measured {
        stats,
        wall_s,
        memo,
    })
}

/// Runs `s` as a cluster run on `server`: the coordinator in this process,
/// two `mnemo worker -j 1` processes beside it, all on this machine.
fn measure_cluster(
    scratch: &Path,
    bc: &Path,
    s: &Subject,
    server: &mnemo::solver::store::LocalServer,
) -> anyhow::Result<Measured> {
    let name = format!("{}-{}-{}", s.program, s.from.unwrap_or(0), s.depth);
    let dir = scratch.join(format!("cluster-{name}"));
    let memo = dir.join("memo");
    let stop = StopRequest::default();
    if let Some(from) = s.from {
        let c = config(
            bc,
            dir.join("shallow"),
            memo.clone(),
            from,
            1,
            Balance::Dynamic,
        );
        mnemo::run::run(&c, &stop)?;
    }
    let url = format!("{}/{name}", server.url);
    let start = std::time::Instant::now();
    let workers: Vec<std::process::Child> = (0..2)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_mnemo"))
                .args(["worker", "-q", "-j", "1", "--store", "none", &url])
                .stderr(std::process::Stdio::null())
                .spawn()
        })
        .collect::<Result<_, _>>()?;
    let c = config(bc, dir.join("out"), memo.clone(), s.depth, 2, Balance::Trie);
    let stats = mnemo::cluster::coordinate(&c, &url, &stop);
    for mut w in workers {
        if stats.is_err() {
            let _ = w.kill();
        }
        let _ = w.wait();
    }
    let wall_s = start.elapsed().as_secs_f64();
    forget_outputs(&dir)?;
    Ok(Measured {
        stats: stats?,
        wall_s,
        memo,
    })
}

/// Removes a measured run's tests, keeping its trie: the scratch directory
/// is in memory, and a subject's tests take half a gigabyte a run.
fn forget_outputs(dir: &Path) -> std::io::Result<()> {
    for sub in ["out", "shallow"] {
        match std::fs::remove_dir_all(dir.join(sub)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// The share of the workers' busy time spent replaying prefixes.
fn replay_share(s: &RunStats) -> f64 {
    let busy: f64 = s.parallel.busy_s.iter().sum();
    if busy > 0.0 {
        s.memo.replay_s / busy
    } else {
        0.0
    }
}

/// Predicts [`SIMULATED`] workers for `s`: partitions of a shallow trie
/// (as `--balance trie` records one for 4 pieces a worker of the largest
/// number), costs from `done`, the finished run's trie.
fn simulate(
    scratch: &Path,
    bc: &Path,
    s: &Subject,
    done: &Path,
) -> anyhow::Result<Vec<Prediction>> {
    let dir = scratch.join(format!("{}-{:?}-{}-sim", s.program, s.from, s.depth));
    let memo = dir.join("memo");
    let c = config(bc, dir.join("out"), memo.clone(), s.depth, 1, Balance::Trie);
    let want = SIMULATED[SIMULATED.len() - 1] * mnemo::parallel::partition::PIECES_PER_LIST;
    let program = mnemo::run::load_program(bc, c.link_runtime, c.optimize)?;
    let want = mnemo::batch::Want::exactly(want);
    mnemo::batch::shallow_trie(&c, &program, want, &StopRequest::default())?;
    let key = mnemo::run::program_key(bc);
    let base = mnemo::memo::file::load(&mnemo::memo::trie_path(&memo, &key))?;
    let done = mnemo::memo::file::load(&mnemo::memo::trie_path(done, &key))?;
    let candidates = mnemo::memo::mark::boundary_nodes(&base);
    Ok(SIMULATED
        .iter()
        .map(|&w| predict(&base, &candidates, Some(s.depth), &done, w))
        .collect())
}

pub fn run(root: &Path, toolchain: &mnemo::testgen::Toolchain) -> anyhow::Result<Vec<Value>> {
    let scratch = crate::support::scratch()?;
    let mut results = Vec::new();
    let ceiling = ceiling(2);
    println!(
        "\nthis machine: 2 threads of pure arithmetic get through {ceiling:.2}x the work of one (the ceiling of any --jobs 2 speedup here)"
    );
    results.push(json!({"bench": "parallel-ceiling", "threads": 2, "speedup": ceiling}));
    println!(
        "\n{:<22} {:>6} {:>6} | {:>7} | {:>7} {:>7} {:>7} {:>7} | {:>6} {:>6} {:>6} {:>6} | {:>9} | {:>7} {:>5}",
        "parallel (--jobs 2)",
        "depth",
        "paths",
        "jobs1 s",
        "dyn s",
        "trie s",
        "stat s",
        "naive s",
        "x dyn",
        "x trie",
        "x stat",
        "x naiv",
        "imb d/t",
        "replay",
        "load"
    );
    let server = mnemo::solver::store::LocalServer::start();
    let mut clusters = Vec::new();
    let mut predictions = Vec::new();
    for s in &SUBJECTS {
        let source = root.join(s.dir).join(format!("{}.c", s.program));
        let bc = scratch.path().join(format!("{}.bc", s.program));
        toolchain.compile_bitcode(&source, &bc, &[])?;
        let load = load_average();
        let one = measure(scratch.path(), &bc, s, 1, Balance::Dynamic)?;
        let mut two = Vec::new();
        for b in BALANCES {
            two.push((b, measure(scratch.path(), &bc, s, 2, b)?));
        }
        let depth = match s.from {
            Some(a) => format!("{a}->{}", s.depth),
            None => s.depth.to_string(),
        };
        let paths = one.stats.paths.completed
            + one.stats.paths.errors.values().sum::<u64>()
            + one.stats.paths.early.values().sum::<u64>();
        let trie_run = &two[1].1;
        println!(
            "{:<22} {:>6} {:>6} | {:>7.2} | {} | {} | {:>4.2}/{:<4.2} | {:>6.1}% {:>5.1}",
            s.program,
            depth,
            paths,
            one.wall_s,
            two.iter()
                .map(|(_, m)| format!("{:>7.2}", m.wall_s))
                .collect::<Vec<_>>()
                .join(" "),
            two.iter()
                .map(|(_, m)| format!("{:>5.2}x", one.wall_s / m.wall_s.max(1e-9)))
                .collect::<Vec<_>>()
                .join(" "),
            two[0].1.stats.parallel.imbalance,
            trie_run.stats.parallel.imbalance,
            100.0 * replay_share(&trie_run.stats),
            load
        );
        let rows: Vec<Value> = two
            .iter()
            .map(|(b, m)| {
                json!({
                    "balance": format!("{b:?}").to_lowercase(), "wall_s": m.wall_s,
                    "speedup": one.wall_s / m.wall_s.max(1e-9),
                    "imbalance": m.stats.parallel.imbalance, "busy_s": m.stats.parallel.busy_s,
                    "moved": m.stats.parallel.moved, "replay_s": m.stats.memo.replay_s,
                    "replay_share": replay_share(&m.stats), "z3_calls": m.stats.solver.z3_calls,
                })
            })
            .collect();
        if let Some(server) = &server {
            let m = measure_cluster(scratch.path(), &bc, s, server)?;
            clusters.push((
                s,
                depth.clone(),
                one.wall_s,
                m.wall_s,
                m.stats.parallel.imbalance,
            ));
            results.push(json!({
                "bench": "parallel-cluster", "program": s.program, "from": s.from,
                "max_depth": s.depth, "jobs1_s": one.wall_s, "wall_s": m.wall_s,
                "speedup": one.wall_s / m.wall_s.max(1e-9),
                "imbalance": m.stats.parallel.imbalance, "busy_s": m.stats.parallel.busy_s,
            }));
        }
        let sim = simulate(scratch.path(), &bc, s, &one.memo)?;
        predictions.push((s, depth.clone(), sim.clone()));
        results.push(json!({
            "bench": "parallel", "program": s.program, "from": s.from, "max_depth": s.depth,
            "paths": paths, "jobs1_s": one.wall_s, "jobs2": rows, "load_average": load,
            "prediction": sim.iter().map(|p| json!({
                "workers": p.workers, "static_speedup": p.static_speedup,
                "static_imbalance": p.static_imbalance, "speedup": p.speedup,
                "imbalance": p.imbalance,
            })).collect::<Vec<_>>(),
        }));
    }
    println!("(targets: speedup >= 1.8x, imbalance <= 1.1 (imb d/t: of the dyn and trie runs), replay <= 5% of the busy time (of the trie run); wall times are whole calls writing a test per path into memory, a shallow run for the partitions included; load: the 1-minute load average before the runs: with other work on the cores, speedups measured here are unreliable)");
    println!(
        "\n{:<22} {:>6} | {:>7} | {:>9} {:>7} {:>9}",
        "cluster (2 workers)", "depth", "jobs1 s", "cluster s", "x", "imbalance"
    );
    for (s, depth, one, two, imbalance) in &clusters {
        println!(
            "{:<22} {:>6} | {:>7.2} | {:>9.2} {:>6.2}x {:>9.2}",
            s.program,
            depth,
            one,
            two,
            one / two.max(1e-9),
            imbalance
        );
    }
    if server.is_none() {
        println!("(no Redis server could be started: no cluster rows)");
    }
    println!("(a coordinator and two `mnemo worker -j 1` processes on a Redis server on this machine: shards of the trie, several candidates a run where each is quick, split off to an idle worker; each worker loads the program once)");
    println!(
        "\n{:<22} {:>6} | {}",
        "predicted (not measured)",
        "depth",
        SIMULATED
            .iter()
            .map(|w| format!("{:>5}w static x/imb  dynamic x/imb", w))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    for (s, depth, sim) in predictions {
        println!(
            "{:<22} {:>6} | {}",
            s.program,
            depth,
            sim.iter()
                .map(|p| format!(
                    "{:>12.1}x/{:<5.2} {:>7.1}x/{:<5.2}",
                    p.static_speedup, p.static_imbalance, p.speedup, p.imbalance
                ))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    println!("(a simulation from the finished run's trie: a node costs 1 + the blocks it executed; partitions of a shallow trie packed largest first, and with dynamic balancing an idle worker takes the shallowest pending node of the busiest)");
    Ok(results)
}
