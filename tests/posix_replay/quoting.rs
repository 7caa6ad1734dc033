//! Scripts' quoting: any bytes an argument, a file or stdin holds reach
//! the program as they are (property tests against a native dumper).

use super::*;
use mnemo::testgen::commands::script;
use proptest::prelude::*;

/// Prints, in hex, every argument, file A (with its permission bits) and
/// stdin: what a script handed the program.
const DUMPER: &str = r#"
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

extern char **environ;

static void hex(FILE *f) {
  int c;
  while ((c = fgetc(f)) != EOF)
    printf("%02x", c);
  printf("\n");
}

int main(int argc, char **argv) {
  struct stat st;
  for (int i = 1; i < argc; i++) {
    printf("arg ");
    for (size_t j = 0; j < strlen(argv[i]); j++)
      printf("%02x", (unsigned char)argv[i][j]);
    printf("\n");
  }
  if (stat("A", &st) == 0) {
    FILE *f = fopen("A", "rb");
    printf("A %o ", (unsigned)(st.st_mode & 0777));
    if (f)
      hex(f);
  }
  printf("stdin ");
  hex(stdin);
  for (char **v = environ; *v; v++) {
    printf("env ");
    for (size_t j = 0; j < strlen(*v); j++)
      printf("%02x", (unsigned char)(*v)[j]);
    printf("\n");
  }
  return 0;
}
"#;

/// The dumper, compiled natively once per test process.
fn dumper() -> &'static Path {
    static BUILT: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = BUILT.get_or_init(|| {
        let tc = toolchain();
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("dump.c");
        fs::write(&src, DUMPER).unwrap();
        let bin = dir.path().join("dump");
        tc.compile_native(&src, &bin).unwrap();
        (dir, bin)
    });
    path
}

/// Bytes a shell or printf could take for syntax, and any other byte.
fn hostile(least: usize) -> impl Strategy<Value = Vec<u8>> {
    let special =
        prop::sample::select(b"'\"\\$`!*?[]{}();&|<>~#%\n\t -=\x7f\xff\x80\xc3\x00017".to_vec());
    prop::collection::vec(prop_oneof![special, any::<u8>()], least..14)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn scripts_hand_the_program_exactly_the_test_bytes(
        sym_args in prop::collection::vec(hostile(0), 0..3),
        concrete in prop::collection::vec("[\\PC'\"$`\\\\\n]{0,8}", 0..3),
        contents in hostile(1),
        perms in 0u32..0o1000,
        stdin in prop::option::of(hostile(1)),
        vars in prop::collection::btree_map("[A-Z_][A-Z_0-9]{0,3}", "[\\PC'\"$`\\\\\n=]{0,8}", 0..3),
    ) {
        let max_len = 14;
        let mut args = vec!["prog.bc".to_string()];
        // Given in reverse: the environment is sorted by name.
        for (name, value) in vars.iter().rev() {
            args.extend(["--env".to_string(), format!("{name}={value}")]);
        }
        let mut objects = Vec::new();
        for (i, a) in sym_args.iter().enumerate() {
            args.extend(["--sym-arg".to_string(), max_len.to_string()]);
            objects.push(arg(i as u32, max_len, a));
        }
        args.extend(concrete.iter().cloned());
        args.extend(["--sym-files", "1"].map(String::from));
        args.push(contents.len().to_string());
        let mode = 0o100000 | perms;
        objects.extend(file("A-data", &contents, mode));
        if let Some(bytes) = &stdin {
            args.extend(["--sym-stdin".to_string(), bytes.len().to_string()]);
            objects.extend(file("stdin", bytes, 0));
        }
        let test = KTest { args, objects, ..KTest::default() };
        let env = PosixEnv::from_ktest(&test).unwrap();
        let record = TestRecord {
            id: 1,
            ktest: "test000001.ktest".into(),
            outcome: Outcome::Exit { exit_code: 0 },
        };
        let text = script(&record, &env, "prog.native", "prog.c", None);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("test000001.sh");
        fs::write(&path, &text).unwrap();

        let cut = |a: &[u8]| a[..a.iter().position(|&b| b == 0).unwrap_or(a.len())].to_vec();
        let mut want = String::new();
        for a in sym_args.iter().map(|a| cut(a)).chain(concrete.iter().map(|c| cut(c.as_bytes()))) {
            want += &format!("arg {}\n", hex(&a));
        }
        // 0644 where the bits are all 0; the owner may always read and
        // write it, as in the model.
        let given = if perms == 0 { 0o644 } else { perms } | 0o600;
        want += &format!("A {given:o} {}\n", hex(&contents));
        want += &format!("stdin {}\n", hex(stdin.as_deref().unwrap_or(&[])));
        // Only the test's variables: the replay library takes its own
        // out of the environment before main.
        for (name, value) in &vars {
            want += &format!("env {}\n", hex(format!("{name}={value}").as_bytes()));
        }
        for shell in ["sh", "bash"] {
            let o = Command::new(shell)
                .arg(&path)
                .env("PROG", dumper())
                .output()
                .unwrap();
            prop_assert!(o.status.success(), "{shell}: {}", stderr(&o));
            prop_assert_eq!(
                String::from_utf8_lossy(&o.stdout), want.as_str(),
                "{} with {}:\n{}", shell, path.display(), String::from_utf8_lossy(&text)
            );
        }
    }
}
