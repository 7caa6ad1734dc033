//! Every fuzz target over its seed corpus (`fuzz/seeds/TARGET/`), without a
//! fuzzer: the harness code runs in `make test`, and the seeds stay inputs
//! the readers accept.

use std::path::PathBuf;

use mnemo::fuzz::TARGETS;

/// The files of `fuzz/KIND/TARGET/`, sorted; none when it does not exist.
fn inputs(kind: &str, target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    inputs("seeds", target)
}

#[test]
fn every_target_runs_over_its_seeds() {
    for target in TARGETS {
        let seeds = seeds(target.name);
        assert!(!seeds.is_empty(), "no seeds for {}", target.name);
        for (path, bytes) in seeds {
            eprintln!("{}: {}", target.name, path.display());
            (target.run)(&bytes);
        }
    }
}

/// What fuzzing found (`fuzz/regressions/TARGET/`), each input also tested
/// beside the reader it broke.
#[test]
fn every_target_runs_over_what_fuzzing_found() {
    for target in TARGETS {
        for (path, bytes) in inputs("regressions", target.name) {
            eprintln!("{}: {}", target.name, path.display());
            (target.run)(&bytes);
        }
    }
}

#[test]
fn every_target_is_found_by_name() {
    for target in TARGETS {
        assert!(std::ptr::eq(
            mnemo::fuzz::target(target.name).unwrap(),
            target
        ));
    }
    assert!(mnemo::fuzz::target("nothing").is_none());
}

/// Seeds the readers refuse would only teach the fuzzer the error paths.
#[test]
fn the_seeds_are_accepted() {
    for (path, bytes) in seeds("bitcode") {
        if let Err(e) = mnemo::ir::load_module_from_memory("seed", &bytes) {
            panic!("{}: {e}", path.display());
        }
    }
    for (path, bytes) in seeds("ktest") {
        mnemo::testgen::KTest::from_bytes(&bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    for (path, bytes) in seeds("trie") {
        let whole = mnemo::memo::file::decode(&bytes, &path);
        let body = mnemo::memo::file::decode(&mnemo::memo::file::frame(&bytes), &path);
        assert!(whole.is_ok() || body.is_ok(), "{}", path.display());
    }
    for (path, bytes) in seeds("spec") {
        let text = String::from_utf8(bytes).unwrap();
        let chain = text.parse::<mnemo::solver::ChainSpec>();
        let store = mnemo::solver::store::StoreSpec::parse(&text);
        assert!(chain.is_ok() || store.is_ok(), "{}", path.display());
    }
}
