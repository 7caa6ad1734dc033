//! The `seeds` section: how fast a run reaches an error its seed leads to
//! (`--seed-file`), against the same run without the seed. The subjects
//! (`benches/programs/seeds/`) are the hard cases users write, string code,
//! nonlinear arithmetic, memory at symbolic indices and a loop on fresh
//! input, each with an assertion behind a needle; each header's `seed:`
//! lines give the objects (name, bytes in hex) of the input that reaches
//! it, as a fuzzer or a bug report would. Both runs stop at the first
//! error (`--exit-on-error`, one worker).

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use mnemo::testgen::{KTest, KTestObject};
use serde_json::{json, Value};

use crate::support::{c_programs, command, ran, scratch};

const MNEMO: &str = env!("CARGO_BIN_EXE_mnemo");

/// The run's cap: the unseeded runs end far below it.
const CAP_S: &str = "120";

/// The seed a subject's header gives.
fn header_seed(source: &str) -> anyhow::Result<KTest> {
    let mut objects = Vec::new();
    for line in source.lines().take_while(|l| !l.contains("*/")) {
        let Some((_, rest)) = line.split_once("seed:") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let (Some(name), Some(hex)) = (words.next(), words.next()) else {
            anyhow::bail!("a `seed:` line names an object and its bytes in hex: {line}");
        };
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("?"), 16))
            .collect::<Result<Vec<u8>, _>>()
            .with_context(|| format!("the bytes of {line}"))?;
        objects.push(KTestObject {
            name: name.into(),
            bytes,
        });
    }
    Ok(KTest {
        args: vec!["prog".into()],
        objects,
        ..Default::default()
    })
}

/// One run to the first error: (seconds, paths ended, Z3 calls, errors).
fn first_error(bc: &Path, out: &Path, seed: Option<&Path>) -> anyhow::Result<(f64, u64, u64, u64)> {
    let mut cmd = std::process::Command::new(MNEMO);
    cmd.args(["run", "-q", "--store", "none", "--jobs", "1"])
        .args(["--exit-on-error", "--max-time", CAP_S, "--output-dir"])
        .arg(out);
    if let Some(s) = seed {
        cmd.arg("--seed-file").arg(s);
    }
    let start = Instant::now();
    let o = cmd.arg(bc).output().context("cannot start mnemo")?;
    let seconds = start.elapsed().as_secs_f64();
    if !ran(&o.status) {
        anyhow::bail!("mnemo run failed: {}", String::from_utf8_lossy(&o.stderr));
    }
    let stats: Value = serde_json::from_slice(&std::fs::read(out.join("stats.json"))?)?;
    let errors: u64 = stats["paths"]["errors"]
        .as_object()
        .map_or(0, |m| m.values().filter_map(Value::as_u64).sum());
    let ended = stats["paths"]["completed"].as_u64().unwrap_or(0) + errors;
    let z3 = stats["solver"]["z3_calls"].as_u64().unwrap_or(0);
    Ok((seconds, ended, z3, errors))
}

pub fn run(root: &Path) -> anyhow::Result<Vec<Value>> {
    let dir = root.join("benches/programs/seeds");
    let scratch = scratch()?;
    println!(
        "\n{:<14} {:>9} {:>7} {:>6} {:>9} {:>7} {:>6}",
        "seeds", "blind s", "paths", "z3", "seeded s", "paths", "z3"
    );
    let mut results = Vec::new();
    for (file, text) in c_programs("seeds")? {
        let name = file.trim_end_matches(".c");
        let seed = scratch.path().join(format!("{name}.ktest"));
        header_seed(&text)?.write_atomic(&seed)?;
        let bc = scratch.path().join(format!("{name}.bc"));
        command(
            std::process::Command::new(MNEMO)
                .arg("cc")
                .arg(dir.join(&file))
                .arg("-o")
                .arg(&bc),
            "mnemo cc",
        )?;
        let blind = first_error(&bc, &scratch.path().join(format!("{name}.blind")), None)?;
        let seeded = first_error(
            &bc,
            &scratch.path().join(format!("{name}.seeded")),
            Some(&seed),
        )?;
        println!(
            "{:<14} {:>9.2} {:>7} {:>6} {:>9.2} {:>7} {:>6}",
            name, blind.0, blind.1, blind.2, seeded.0, seeded.1, seeded.2
        );
        results.push(json!({
            "bench": "seeds", "program": name,
            "blind": {"seconds": blind.0, "paths": blind.1, "z3_calls": blind.2, "errors": blind.3},
            "seeded": {"seconds": seeded.0, "paths": seeded.1, "z3_calls": seeded.2, "errors": seeded.3},
        }));
    }
    Ok(results)
}
