//! The fuzz targets: each reader of input from outside the process, fed
//! arbitrary bytes.
//!
//! A target returns normally for every input, whatever it is: a reader
//! answers bad bytes with an error value. A panic (or an abort) is a bug,
//! and so is a failed assertion here: where a reader accepts an input,
//! writing back what it read and reading that again must give the same
//! thing. The fuzzer in `fuzz/` (`make fuzz`) calls these functions; the
//! tests run them over the seed corpora in `fuzz/seeds/`, so the harness
//! is exercised without a fuzzer too.

use std::path::Path;
use std::sync::Arc;

use crate::expr::{serial, Array, ArrayRef};
use crate::memo::{file, show};
use crate::solver::store::{self, Backend, MemoryStore, StoreSpec};
use crate::solver::{equiv, ChainSpec, ImplicationLayer};
use crate::testgen::KTest;

/// A fuzz target: its name (the folder of its seeds, the argument of the
/// fuzz binary) and the function that reads one input.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

/// Every target, in the order `make fuzz` runs them.
pub static TARGETS: &[Target] = &[
    Target {
        name: "ktest",
        run: ktest,
    },
    Target {
        name: "trie",
        run: trie,
    },
    Target {
        name: "store",
        run: store_record,
    },
    Target {
        name: "spec",
        run: spec,
    },
    Target {
        name: "bitcode",
        run: bitcode,
    },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// A `.ktest` file (`mnemo ktest`, `mnemo replay`, and a run seeded by
/// tests). What reads must write back and read as the same test.
pub fn ktest(data: &[u8]) {
    let Ok(test) = KTest::from_bytes(data) else {
        return;
    };
    let again = KTest::from_bytes(&test.to_bytes()).expect("a written ktest reads back");
    assert_eq!(again, test, "a ktest changes when written and read again");
    let _ = test.to_text("fuzz.ktest");
}

/// A trie file (`--memo`, `mnemo trie`, `certify`, `regress`). The input
/// is read twice: as a whole file, and as the body of a file whose header
/// and checksum the target makes, since the checksum turns away nearly
/// every mutation of a real file before the body's reader sees it.
pub fn trie(data: &[u8]) {
    let path = Path::new("fuzz.trie");
    for bytes in [data.to_vec(), file::frame(data)] {
        let Ok(t) = file::decode(&bytes, path) else {
            continue;
        };
        // What `mnemo trie show|stats|dot` and a guided run do first.
        let _ = show::counts(&t);
        let _ = show::stats_text(&t, Some(bytes.len() as u64));
        let _ = show::show_text(&t);
        let _ = show::dot_text(&t);
        for leaf in t.leaves() {
            let _ = t.path_text(leaf);
        }
        let written = file::encode(&t);
        let again = file::decode(&written, path).expect("a written trie reads back");
        assert_eq!(
            again,
            t.canonical(),
            "a trie changes when written and read again"
        );
    }
}

/// A value as a solver store hands it back (the SQLite, Redis and memory
/// backends keep the same records): checked against its checksum, then read
/// as an equivalence-store answer and as an implication-store entry; and
/// the input as a key the Redis backend lists.
pub fn store_record(data: &[u8]) {
    let memory = MemoryStore::default();
    let _ = store::unseal(&memory, b"Ekey", data);
    // The answer's model must fit the arrays of the query that looks it up:
    // none, one byte, and a word beside a byte.
    let byte = Array::shared("fuzz_byte", 1, None);
    let word = Array::shared("fuzz_word", 4, None);
    let shapes: [&[ArrayRef]; 3] = [&[], std::slice::from_ref(&byte), &[word, byte.clone()]];
    for arrays in shapes {
        let _ = equiv::decode_answer(data, arrays);
    }
    let backend: Arc<dyn Backend> = Arc::new(MemoryStore::default());
    if backend.put(b"Ifuzz", data).is_ok() {
        let _ = ImplicationLayer::with_store(backend);
    }
    // The expression encoding inside an entry: what decodes encodes back to
    // the same expressions.
    if let Ok(exprs) = serial::Decoder::new().decode(data) {
        let again = serial::Decoder::new()
            .decode(&serial::encode(&exprs))
            .expect("encoded expressions decode");
        assert_eq!(again, exprs, "expressions change when encoded and decoded");
    }
    if let Some(key) = store::redis::key_of(data) {
        let back = store::redis::redis_key(&key);
        assert_eq!(back.as_bytes(), data, "a Redis key reads as another key");
    }
}

/// A `--solver-chain` or `--store` value (the command line gives them as
/// UTF-8 strings). What parses must print as a spec that parses the same.
pub fn spec(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(chain) = text.parse::<ChainSpec>() {
        let again: ChainSpec = chain.to_string().parse().expect("a printed chain parses");
        assert_eq!(again, chain, "a chain changes when printed and parsed");
    }
    if let Ok(spec) = StoreSpec::parse(text) {
        let again = StoreSpec::parse(&spec.to_string()).expect("a printed store spec parses");
        assert_eq!(again, spec, "a store spec changes when printed and parsed");
    }
}

/// A program: bitcode or textual IR, parsed by LLVM and lowered into
/// mnemo's IR (`mnemo run` and every command taking a program).
pub fn bitcode(data: &[u8]) {
    let _ = crate::ir::load_module_from_memory("fuzz.bc", data);
}
