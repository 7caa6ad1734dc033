//! Native replays that hold the program to the engine's model of the
//! machine: as another user, with the permission bits, lookups, exec and
//! fork the model gives, in a root laid out as the model's file system,
//! and with stdout's reader closing after its first MiB.

use std::process::Command;

#[path = "support/cli.rs"]
mod support;
use support::{json, mnemo, stderr};
#[path = "support/native.rs"]
mod native;
use native::{built_elsewhere, built_static_with_replay_library, explored, replayed, root, NOBODY};

#[test]
fn replays_can_run_as_another_user() {
    if !root("only root can run a replay as another user") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = explored(
        dir.path(),
        "who",
        "#include <fcntl.h>\n#include <stdio.h>\n#include <sys/stat.h>\n#include <unistd.h>\n\
         int main(void) { int f = access(\"A\", R_OK | W_OK) == 0;\n\
           int made = open(\"B\", O_WRONLY | O_CREAT, 0644) >= 0;\n\
           int changed = chmod(\".\", 0700) == 0;\n\
           int above = open(\"../C\", O_WRONLY | O_CREAT, 0644) >= 0;\n\
           return f && made && changed && !above && getuid() == 65534 && getgid() == 65534\n\
             ? 7 : 1; }\n",
        &[],
        &["--sym-files", "1", "1"],
    );
    let run = |run_as| replayed(&src, &out, run_as).1;
    // As root the program is not nobody; as nobody it owns its file and
    // its directory, but not the directory's parent: as in the engine's
    // model, names are made in the one and not in the other.
    assert!(run(None).iter().all(|n| n == "exit 1"), "{:?}", run(None));
    let as_nobody = run(NOBODY);
    assert!(
        !as_nobody.is_empty() && as_nobody.iter().all(|n| n == "exit 7"),
        "{as_nobody:?}"
    );
}

#[test]
fn access_answers_for_the_replay_user_from_the_permission_bits_it_gives_the_files() {
    if !root("only root can run a replay as another user") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Bits 1, 2, 4: A may be read, written, run (its symbolic status says
    // which); 8: A has a set-id or sticky bit, which no replay gives it;
    // 16: the working directory may be written and searched; 32:
    // /etc/passwd, root's, may be written; 64: the program is not root.
    let (src, out) = explored(
        dir.path(),
        "perm",
        "#include <sys/stat.h>\n#include <unistd.h>\n\
         int main(void) { struct stat st; int r = 0;\n\
           if (access(\"A\", R_OK) == 0) r |= 1;\n\
           if (access(\"A\", W_OK) == 0) r |= 2;\n\
           if (access(\"A\", X_OK) == 0) r |= 4;\n\
           if (stat(\"A\", &st) == 0 && (st.st_mode & 07000)) r |= 8;\n\
           if (stat(\"A\", &st) == 0 && S_ISDIR(st.st_mode)) r |= 128;\n\
           if (access(\".\", W_OK | X_OK) == 0) r |= 16;\n\
           if (access(\"/etc/passwd\", W_OK) == 0) r |= 32;\n\
           if (geteuid() != 0 && getuid() != 0) r |= 64;\n\
           return r; }\n",
        &[],
        &["--sym-files", "1", "1"],
    );
    let (report, mut natives) = replayed(&src, &out, NOBODY);
    natives.sort();
    // A may always be read and written by its owner (a replay as root
    // could not take a path where it may not); a regular file may be run
    // or not, a directory (128) may always be searched.
    let expected: Vec<String> = [215, 83, 87].iter().map(|e| format!("exit {e}")).collect();
    assert_eq!(natives, expected);
    assert!(report.all_match(), "{:?}", report.counts());
}

#[test]
fn opening_looking_up_and_making_directories_treat_the_permission_bits_as_the_kernel_does() {
    if !root("only root can run a replay as another user") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Each failed check is its own exit code; 0 when the model and the
    // kernel agree on all of them.
    let (src, out) = explored(
        dir.path(),
        "perm",
        "#define _GNU_SOURCE\n#include <errno.h>\n#include <fcntl.h>\n#include <sys/stat.h>\n\
         #include <unistd.h>\n\
         static int denied(int r) { return r < 0 && errno == EACCES; }\n\
         int main(void) { struct stat st;\n\
           if (mkdir(\"d\", 0700) || close(open(\"d/f\", O_CREAT | O_WRONLY, 0600))) return 1;\n\
           if (chmod(\"d\", 0600)) return 2;\n\
           if (!denied(stat(\"d/f\", &st)) || !denied(chdir(\"d\"))) return 3;\n\
           if (chmod(\"d\", 0300) || stat(\"d/f\", &st)) return 4;\n\
           if (!denied(open(\"d\", O_RDONLY | O_DIRECTORY))) return 5;\n\
           int path = open(\"d\", O_PATH);\n\
           if (path < 0 || chmod(\"d\", 0600) || !denied(fchdir(path))) return 6;\n\
           if (close(open(\"g\", O_CREAT | O_WRONLY, 0200))) return 7;\n\
           if (!denied(open(\"g\", O_RDONLY)) || !denied(open(\"g\", O_RDWR))) return 8;\n\
           if (close(open(\"g\", O_WRONLY | O_TRUNC))) return 9;\n\
           int a_dir = stat(\"A\", &st) == 0 && S_ISDIR(st.st_mode);\n\
           errno = 0;\n\
           if (chmod(\"A\", 0400) || open(\"A\", O_WRONLY) >= 0\n\
               || errno != (a_dir ? EISDIR : EACCES)) return 10;\n\
           if (mkdir(\"s\", 02700) || stat(\"s\", &st) || (st.st_mode & 07777) != 0700) return 12;\n\
           if (chmod(\"s\", 02700) || mkdir(\"s/t\", 0700) || stat(\"s/t\", &st)\n\
               || (st.st_mode & 07777) != 02700) return 13;\n\
           if (chmod(\".\", 0600) || !denied(stat(\"A\", &st)) || !denied(stat(\".\", &st))) return 11;\n\
           return 0; }\n",
        &[],
        &["--sym-files", "1", "1"],
    );
    let tests = json(&out.join("tests.json"));
    let codes: Vec<_> = tests["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["exit_code"].as_i64())
        .collect();
    // A is a regular file or an empty directory.
    assert_eq!(codes, [Some(0), Some(0)]);
    let (report, natives) = replayed(&src, &out, NOBODY);
    assert_eq!(natives, ["exit 0", "exit 0"]);
    assert!(report.all_match(), "{:?}", report.counts());
}

#[test]
fn an_exec_fails_natively_as_it_does_in_the_engine() {
    if !root("only root can run a replay as another user") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Nothing in the model is a program that runs: each exec fails with
    // the kernel's error, scripts' interpreters looked for in turn. The
    // checks of files the program makes are an exit code each; the exec
    // of the symbolic file, whatever its bytes and mode, exits its errno.
    let (src, out) = explored(
        dir.path(),
        "exec",
        "#include <errno.h>\n#include <fcntl.h>\n#include <string.h>\n#include <sys/stat.h>\n\
         #include <unistd.h>\n\
         static int run(const char *p) { char *argv[] = {(char *)p, 0};\n\
           errno = 0; execv(p, argv); return errno; }\n\
         static void put(const char *p, const char *s, int mode) {\n\
           int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, mode);\n\
           write(fd, s, strlen(s)); close(fd); chmod(p, mode); }\n\
         int main(void) {\n\
           if (run(\"/\") != EACCES || run(\"none\") != ENOENT) return 101;\n\
           put(\"plain\", \"hello\", 0644);\n\
           if (run(\"plain\") != EACCES || run(\"plain/\") != ENOTDIR) return 102;\n\
           chmod(\"plain\", 0755);\n\
           if (run(\"plain\") != ENOEXEC || run(\"./plain\") != ENOEXEC) return 103;\n\
           put(\"s\", \"#!none\\n\", 0755); put(\"t\", \"#!  \\t\\n\", 0755);\n\
           put(\"u\", \"#! plain arg\\n\", 0755); put(\"v\", \"#!v\", 0755);\n\
           put(\"w\", \"#!/\", 0755); put(\"x\", \"#!s\\n\", 0755);\n\
           if (run(\"s\") != ENOENT || run(\"t\") != ENOEXEC || run(\"u\") != ENOEXEC) return 104;\n\
           if (run(\"v\") != ELOOP || run(\"w\") != EACCES || run(\"x\") != ENOENT) return 105;\n\
           if (mkdir(\"d\", 0755) || run(\"d\") != EACCES) return 106;\n\
           return run(\"A\"); }\n",
        &[],
        &["--sym-files", "1", "3"],
    );
    let tests = json(&out.join("tests.json"));
    let mut codes: Vec<_> = tests["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["exit_code"].as_i64().unwrap())
        .collect();
    codes.sort_unstable();
    codes.dedup();
    // ENOENT ("#!B"), ENOEXEC, EACCES (no execute bit, a directory, "#!/"),
    // ELOOP ("#!A").
    assert_eq!(codes, [2, 8, 13, 40]);
    let (report, _) = replayed(&src, &out, NOBODY);
    assert!(report.all_match(), "{report}");
}

#[test]
fn a_fork_fails_natively_as_it_does_in_the_engine() {
    if !root("only root can run a replay as another user") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // timeout's way: a child runs the command, and a fork that fails is
    // the tool's own failure (125).
    let (src, out) = explored(
        dir.path(),
        "spawn",
        "#include <errno.h>\n#include <sys/wait.h>\n#include <unistd.h>\n\
         int main(void) { int status;\n\
           pid_t child = fork();\n\
           if (child < 0) return errno == EAGAIN ? 125 : 124;\n\
           if (child == 0) _exit(127);\n\
           waitpid(child, &status, 0);\n\
           return WEXITSTATUS(status); }\n",
        &[],
        &[],
    );
    let predicted = std::fs::read_to_string(out.join("tests.json")).unwrap();
    assert!(predicted.contains("\"exit_code\": 125"), "{predicted}");
    let (report, _) = replayed(&src, &out, NOBODY);
    assert_eq!(report.results.len(), 1);
    assert!(report.all_match(), "{report}");
    // Root is held to one process too.
    let (report, _) = replayed(&src, &out, None);
    assert!(report.all_match(), "{report}");
    // Its scripts hold the program to one process too, whoever runs them:
    // the replay library itself, a build from elsewhere by a limit (dash's
    // `ulimit -p`, bash's `ulimit -u`), set as nobody where root runs the
    // script, after setpriv makes it nobody.
    let toolchain = mnemo::testgen::Toolchain::find().unwrap();
    for d in [dir.path(), out.as_path()] {
        std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let plain = built_elsewhere(&src, &[]);
    for program in [&src, &plain] {
        let written = mnemo::testgen::write_commands(&toolchain, program, &out, &[]).unwrap();
        assert_eq!(written.scripts.len(), 1, "{:?}", written.skipped);
        for (shell, nobody) in [("dash", true), ("bash", true), ("dash", false)] {
            let o = Command::new("setpriv")
                .args(if nobody {
                    &["--reuid=65534", "--regid=65534", "--clear-groups"][..]
                } else {
                    &[]
                })
                .arg(shell)
                .arg(&written.scripts[0])
                .current_dir("/tmp")
                .output()
                .unwrap();
            assert_eq!(
                o.status.code(),
                Some(125),
                "{program:?} {shell} {nobody}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

#[test]
fn threads_are_made_natively_where_processes_are_not() {
    if !root("only root can run a replay as another user") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A thread is made and joined, and a fork then fails: natively, held
    // to one process, the same whoever replays and however the program
    // was built (a limit of one process would refuse the thread too).
    let (src, out) = explored(
        dir.path(),
        "both",
        "#include <errno.h>\n#include <pthread.h>\n#include <stdio.h>\n#include <unistd.h>\n\
         static void *bump(void *n) { ++*(int *)n; return n; }\n\
         int main(int argc, char **argv) { int n = 1; pthread_t t;\n\
           if (argc > 1 && argv[1][0] == 'q') return 2;\n\
           if (pthread_create(&t, 0, bump, &n) || pthread_join(t, 0)) return 3;\n\
           pid_t child = fork();\n\
           if (child == 0) _exit(9);\n\
           printf(\"%d %d\\n\", n, child < 0 && errno == EAGAIN);\n\
           return child < 0 ? 4 : 5; }\n",
        &[],
        &["--sym-args", "0", "1", "1"],
    );
    let predicted = std::fs::read_to_string(out.join("tests.json")).unwrap();
    assert!(predicted.contains("\"exit_code\": 4"), "{predicted}");
    let plain = built_elsewhere(&src, &["-pthread"]);
    for program in [&src, &plain] {
        for run_as in [None, NOBODY] {
            let (report, natives) = replayed(program, &out, run_as);
            assert!(report.all_match(), "{program:?} {run_as:?}: {report}");
            assert!(natives.iter().any(|n| n == "exit 4"), "{natives:?}");
        }
    }
}

/// A process of `run_as` (`None`: the caller's) in the test's own group,
/// which marks `dir/hit` when sent SIGWINCH: what a replayed program must
/// not reach.
struct Bystander {
    child: std::process::Child,
    hit: std::path::PathBuf,
}

impl Bystander {
    fn start(dir: &std::path::Path, run_as: Option<(u32, u32)>) -> Bystander {
        use std::os::unix::{fs::PermissionsExt, process::CommandExt};
        let uid = run_as.map_or(-1, |(uid, _)| i64::from(uid));
        let dir = dir.join(format!("bystander-{uid}"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let (hit, ready) = (dir.join("hit"), dir.join("ready"));
        let mut command = Command::new("sh");
        command.arg("-c").arg(format!(
            "trap 'echo > {}' WINCH; echo > {}; while :; do sleep 0.05; done",
            hit.display(),
            ready.display()
        ));
        if let Some((uid, gid)) = run_as {
            command.uid(uid).gid(gid);
        }
        let mut child = command.spawn().unwrap();
        while !ready.exists() {
            assert!(child.try_wait().unwrap().is_none(), "the bystander ended");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Bystander { child, hit }
    }

    /// Whether it was sent SIGWINCH, once its trap has had time to run.
    fn hit(&self) -> bool {
        std::thread::sleep(std::time::Duration::from_millis(300));
        self.hit.exists()
    }
}

impl Drop for Bystander {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_replayed_program_signals_no_process_but_its_own() {
    let dir = tempfile::tempdir().unwrap();
    // In the model the program is its user's one process: kill(-1) reaches
    // no one, kill(0) the program alone. Natively, without the replay's
    // filter and group, the first reaches every process of the user
    // (root's: the machine's) and the second the replay's group.
    let (src, out) = explored(
        dir.path(),
        "reach",
        "#include <signal.h>\n#include <stdio.h>\n\
         static volatile int handled;\n\
         static void on(int s) { (void)s; handled++; }\n\
         int main(int argc, char **argv) { signal(SIGWINCH, on);\n\
           int r = argc > 1 && argv[1][0] == 'g' ? kill(0, SIGWINCH) : kill(-1, SIGWINCH);\n\
           printf(\"%d %d\\n\", r, handled); return 0; }\n",
        &[],
        &["--sym-args", "0", "1", "1"],
    );
    let plain = built_elsewhere(&src, &[]);
    // SAFETY: getuid has no preconditions.
    let users = match unsafe { libc::getuid() } {
        0 => vec![None, NOBODY],
        _ => vec![None],
    };
    for run_as in users {
        for program in [&src, &plain] {
            let bystander = Bystander::start(dir.path(), run_as);
            let (report, natives) = replayed(program, &out, run_as);
            assert!(report.all_match(), "{program:?} {run_as:?}: {report}");
            assert!(natives.len() >= 2, "{natives:?}");
            assert!(
                !bystander.hit(),
                "{program:?} {run_as:?} reached a bystander"
            );
            // It would have seen the signal.
            // SAFETY: kill with plain integers, to a child of this test.
            unsafe { libc::kill(bystander.child.id() as i32, libc::SIGWINCH) };
            assert!(bystander.hit());
            std::fs::remove_dir_all(bystander.hit.parent().unwrap()).unwrap();
        }
    }
}

#[test]
fn replayed_by_root_the_program_runs_as_the_models_user() {
    if !root("only root can run a replay as another user") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A file of mode 0 may not be read by the model's user (nobody), while
    // root may read it.
    let (src, out) = explored(
        dir.path(),
        "closed",
        "#include <fcntl.h>\n#include <stdio.h>\n#include <unistd.h>\n\
         int main(int argc, char **argv) {\n\
           int fd = open(\"f\", O_CREAT | O_WRONLY, 0); if (fd < 0) return 9; close(fd);\n\
           int read = open(\"f\", O_RDONLY) >= 0;\n\
           printf(\"%d %d\\n\", argc > 1 ? (int)getuid() : 0, read); return read; }\n",
        &[],
        &["--sym-args", "0", "1", "1"],
    );
    // Where neither the program nor its tests may be read by nobody: given
    // to it by descriptor.
    let private = dir.path().join("private");
    std::fs::create_dir(&private).unwrap();
    let plain = built_elsewhere(&src, &[]);
    for file in [&src, &plain] {
        std::fs::copy(file, private.join(file.file_name().unwrap())).unwrap();
    }
    let copied = private.join("out");
    std::fs::create_dir(&copied).unwrap();
    for entry in std::fs::read_dir(&out).unwrap() {
        let entry = entry.unwrap().path();
        std::fs::copy(&entry, copied.join(entry.file_name().unwrap())).unwrap();
    }
    std::fs::set_permissions(
        &private,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    for program in [&src, &plain] {
        let program = private.join(program.file_name().unwrap());
        let replay = |extra: &[&str]| {
            let o = mnemo()
                .arg("replay")
                .args(extra)
                .arg(&program)
                .arg(&copied)
                .output()
                .unwrap();
            (
                o.status.code(),
                String::from_utf8_lossy(&o.stdout).into_owned(),
            )
        };
        let (code, report) = replay(&[]);
        assert_eq!(code, Some(0), "{program:?}: {report}");
        assert!(report.contains("2 tests: 2 match"), "{report}");
        // As the caller, root, it reads the file: not what the engine said.
        let (code, report) = replay(&["--as-caller"]);
        assert_eq!(code, Some(1), "{program:?}: {report}");
        assert!(report.contains("0 match, 2 mismatch"), "{report}");
    }
    // Its scripts, run by root, run it as nobody too: the replay library
    // becomes nobody itself, wherever the program lies; a program built
    // elsewhere is run by setpriv where nobody may run it, else as root.
    let toolchain = mnemo::testgen::Toolchain::find().unwrap();
    let searchable = |mode| {
        let mode = std::os::unix::fs::PermissionsExt::from_mode(mode);
        std::fs::set_permissions(dir.path(), mode).unwrap()
    };
    for (program, out_of_reach) in [(&src, 0), (&plain, 1)] {
        searchable(0o755);
        let written = mnemo::testgen::write_commands(&toolchain, program, &out, &[]).unwrap();
        assert_eq!(written.scripts.len(), 2, "{:?}", written.skipped);
        for (mode, status) in [(0o755, 0), (0o700, out_of_reach)] {
            searchable(mode);
            for script in &written.scripts {
                let o = Command::new("sh").arg(script).output().unwrap();
                assert_eq!(
                    o.status.code(),
                    Some(status),
                    "{script:?} {mode:o}: {}",
                    stderr(&o)
                );
            }
        }
    }
}

#[test]
fn where_the_model_user_does_not_exist_root_replays_as_itself_and_says_so() {
    // Root of a user namespace that maps root alone, as a rootless
    // container's may: there is no nobody to become.
    let unshare = |command: &mut Command| {
        let mut u = Command::new("unshare");
        u.args(["--user", "--map-root-user"])
            .arg(command.get_program())
            .args(command.get_args());
        u.output()
    };
    if !unshare(&mut Command::new("true")).is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no user namespace can be made here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = explored(
        dir.path(),
        "plain",
        "int main(int argc, char **argv) { return argc > 1 && argv[1][0] == 'x' ? 3 : 0; }\n",
        &[],
        &["--sym-args", "0", "1", "1"],
    );
    let o = unshare(mnemo().arg("replay").arg(&src).arg(&out)).unwrap();
    let report = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{report}{}", stderr(&o));
    assert!(
        report.contains(" match, 0 mismatch, 0 not predicted, 0 replay failed"),
        "{report}"
    );
    assert!(stderr(&o).contains("has no user 65534"), "{}", stderr(&o));
}

#[test]
fn a_replay_in_the_model_root_finds_the_file_system_the_engine_modelled() {
    if !root("only root can chroot a replay") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // What / and /etc hold (every name, hidden ones too, sorted), where
    // the program is, what it may change there, and the machine's names
    // and processors; an input read from the test, and a directory made
    // at exit in the model's EXIT_DIR, as a gcov build writes its
    // coverage there. The replay's own files are not in the root: the
    // program is executed from outside and reads its test from a
    // descriptor.
    let (src, out) = explored(
        dir.path(),
        "walk",
        r#"#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "klee/klee.h"
static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}
static void list(const char *path) {
  char *names[64];
  int n = 0;
  DIR *d = opendir(path);
  if (!d) { printf("%s: none\n", path); return; }
  for (struct dirent *e; (e = readdir(d)) && n < 64;)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      names[n++] = strdup(e->d_name);
  qsort(names, n, sizeof *names, by_name);
  printf("%s:", path);
  for (int i = 0; i < n; i++) printf(" %s", names[i]);
  printf("\n");
}
static int input;
static void leave(void) {
  mkdir("/tmp/.mnemo-replay", 0755);
  FILE *f = fopen("/tmp/.mnemo-replay/left", "w");
  if (f) { fprintf(f, "%s\n", input > 100 ? "large" : "small"); fclose(f); }
}
int main(void) {
  char cwd[256];
  klee_make_symbolic(&input, sizeof input, "input");
  atexit(leave);
  list("/");
  list("/etc");
  list("/proc");
  list("/tmp");
  char up[64] = "none\n";
  FILE *f = fopen("/proc/uptime", "r");
  if (f) { fgets(up, sizeof up, f); fclose(f); }
  printf("uptime %s", up);
  printf("cwd %s\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
  printf("/ %d /tmp %d /etc %d\n", access("/", W_OK), access("/tmp", W_OK),
         access("/etc", W_OK));
  struct stat st;
  printf("/etc/passwd %o\n", stat("/etc/passwd", &st) ? 0 : st.st_mode & 07777);
  struct utsname u;
  uname(&u);
  printf("host %s %s\n", u.nodename, u.domainname);
  cpu_set_t cpus;
  printf("processors %d\n",
         sched_getaffinity(0, sizeof cpus, &cpus) ? -1 : CPU_COUNT(&cpus));
  /* Past the largest object the engine models: refused there, and so in
     the model's root, whatever this machine would give. */
  printf("8 GiB %s\n", malloc((size_t)8 << 30) ? "given" : "refused");
  return input > 100 ? 2 : 3;
}
"#,
        &["--file", "/etc/passwd"],
        &[],
    );
    let toolchain = mnemo::testgen::Toolchain::find().unwrap();
    let native = built_static_with_replay_library(&src);
    for id in 1..=2 {
        let predicted = std::fs::read_to_string(out.join(format!("test{id:06}.stdout"))).unwrap();
        assert_eq!(
            predicted,
            "/: dev etc proc tmp\n/etc: passwd\n/proc: uptime\n/tmp: mnemo-replay\n\
             uptime 3600.00 3600.00\ncwd /tmp/mnemo-replay/cwd\n\
             / -1 /tmp 0 /etc -1\n/etc/passwd 444\nhost mnemo (none)\nprocessors 1\n8 GiB refused\n"
        );
    }
    let replay = |model_root| {
        // The two tests at once: each in a root of its own.
        let options = mnemo::testgen::ReplayOptions {
            run_as: NOBODY,
            model_root,
            jobs: 2,
            ..Default::default()
        };
        mnemo::testgen::replay_dir_with(&toolchain, &native, &out, &options)
    };
    // In a scratch directory of the machine, / is the machine's.
    let plain = replay(None).unwrap();
    assert!(plain.results[0].stdout_diff.is_some(), "{plain}");
    let kept = dir.path().join("kept");
    let model_root = mnemo::testgen::ModelRoot {
        dir: dir.path().join("root"),
        host_files: vec!["/etc/passwd".into()],
        kept: Some(kept.clone()),
    };
    let Some(chrooted) = unless_denied(replay(Some(model_root))) else {
        return;
    };
    assert_eq!(chrooted.results.len(), 2);
    // What each test left at exit, taken out of the root before the next.
    let mut left: Vec<String> = (1..=2)
        .map(|id| std::fs::read_to_string(kept.join(format!("{id:06}/left"))).unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["large\n", "small\n"]);
    for root in ["root", "root.1"] {
        assert!(dir.path().join(root).join("dev/null").exists(), "{root}");
        assert!(!dir.path().join(root).join("tmp/.mnemo-replay").exists());
    }
    // The replay has the model's host names where the machine allows a
    // namespace of them; elsewhere only that line differs.
    let names_of_its_own = Command::new("unshare")
        .args(["--uts", "true"])
        .status()
        .is_ok_and(|s| s.success());
    for result in &chrooted.results {
        match &result.stdout_diff {
            None => {}
            Some(diff) if !names_of_its_own && diff.contains("host ") => {
                eprintln!("this machine allows no UTS namespace: {diff}");
                return;
            }
            Some(diff) => panic!("{diff}\n{chrooted}"),
        }
    }
    assert!(chrooted.all_match(), "{chrooted}");
    // The same from the command line, which lays the root out in a
    // directory of its own; without `--model-root`, / is the machine's.
    let cli = |model_root: &[&str]| {
        mnemo()
            .arg("replay")
            .args(model_root)
            .arg(&native)
            .arg(&out)
            .output()
            .unwrap()
    };
    let o = cli(&["--model-root", "--file", "/etc/passwd"]);
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{report}{}", stderr(&o));
    assert!(report.contains("2 tests: 2 match"), "{report}");
    let o = cli(&[]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn an_endless_writer_ends_alike_in_the_engine_the_replays_and_the_scripts() {
    let dir = tempfile::tempdir().unwrap();
    // `yes`'s loop: stdout's reader takes a MiB and closes it, so a write
    // fails with EPIPE (SIGPIPE is never delivered) and the program ends.
    let (src, out) = explored(
        dir.path(),
        "endless",
        "#include <errno.h>\n#include <string.h>\n#include <unistd.h>\n\
         int main(int argc, char **argv) { char line[3000];\n\
           if (argc > 1 && argv[1][0] == 'q') return 0;\n\
           memset(line, 'y', sizeof line);\n\
           for (;;) if (write(1, line, sizeof line) < 0) return errno == EPIPE ? 3 : 4; }\n",
        &[],
        &["--sym-args", "0", "1", "1"],
    );
    let tests = json(&out.join("tests.json"));
    let tests = tests["tests"].as_array().unwrap();
    let writer = tests
        .iter()
        .find(|t| t["exit_code"] == 3)
        .expect("a path ends with EPIPE");
    let stdout = out
        .join(writer["ktest"].as_str().unwrap())
        .with_extension("stdout");
    let predicted = std::fs::read(&stdout).unwrap();
    assert_eq!(predicted, vec![b'y'; 1 << 20]);
    // Compiled with the replay library, which ignores SIGPIPE itself, and
    // built as a plain native program, which the replay has ignore it.
    let (report, natives) = replayed(&src, &out, None);
    assert!(report.all_match(), "{report}");
    assert!(natives.iter().any(|n| n == "exit 3"), "{natives:?}");
    let plain = built_elsewhere(&src, &[]);
    let toolchain = mnemo::testgen::Toolchain::find().unwrap();
    let (report, _) = replayed(&plain, &out, None);
    assert!(report.all_match(), "{report}");
    // The scripts read the same MiB and exit as the program does.
    let written = mnemo::testgen::write_commands(&toolchain, &src, &out, &[]).unwrap();
    assert_eq!(written.scripts.len(), tests.len(), "{:?}", written.skipped);
    let o = Command::new("sh")
        .arg(stdout.with_extension("sh"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(o.stdout == predicted, "{} bytes", o.stdout.len());
}

#[test]
fn a_replay_in_the_model_root_gives_each_file_the_models_numbers_and_times() {
    if !root("only root can chroot a replay") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Every file of the model's tree, the host files (one read, which
    // stamps its access time natively), a file the program makes, and the
    // listing of / with its inode numbers.
    let (src, out) = explored(
        dir.path(),
        "numbers",
        r#"#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "klee/klee.h"
static void show(const char *path) {
  struct stat st;
  if (lstat(path, &st)) { printf("%s: none\n", path); return; }
  printf("%s: %lu %lu %lld %lld %lld\n", path, (unsigned long)st.st_dev,
         (unsigned long)st.st_ino, (long long)st.st_atime,
         (long long)st.st_mtime, (long long)st.st_ctime);
}
int main(void) {
  int input;
  klee_make_symbolic(&input, sizeof input, "input");
  char line[64];
  FILE *f = fopen("/etc/passwd", "r");
  if (f) { fgets(line, sizeof line, f); fclose(f); }
  int fd = open("/tmp/made", O_WRONLY | O_CREAT, 0600);
  if (fd >= 0) close(fd);
  const char *paths[] = {"/", "/dev", "/dev/null", "/etc", "/etc/group",
                         "/etc/passwd", "/proc", "/proc/uptime", "/tmp",
                         "/tmp/mnemo-replay", ".", "/tmp/made"};
  for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) show(paths[i]);
  DIR *d = opendir("/");
  for (struct dirent *e; d && (e = readdir(d));)
    printf("%lu %s\n", (unsigned long)e->d_ino, e->d_name);
  return 0;
}
"#,
        &["--file", "/etc/passwd", "--file", "/etc/group"],
        &[],
    );
    let predicted = std::fs::read_to_string(out.join("test000001.stdout")).unwrap();
    let clock = "1704067200 1704067200 1704067200";
    for line in [
        format!("/: 0 2 {clock}\n"),
        format!("/dev/null: 6 5 {clock}\n"),
        format!("/tmp: 0 4 {clock}\n"),
        format!(".: 0 1 {clock}\n"),
        // The host files' directory, then the files in the order of their
        // names, then what the program made.
        format!("/etc: 0 200 {clock}\n"),
        "/etc/group: 0 201 ".to_string(),
        "/etc/passwd: 0 202 ".to_string(),
        format!("/tmp/made: 0 203 {clock}\n"),
        "2 .\n2 ..\n7 dev\n200 etc\n8 proc\n4 tmp\n".to_string(),
    ] {
        assert!(predicted.contains(&line), "{line:?} in\n{predicted}");
    }
    let toolchain = mnemo::testgen::Toolchain::find().unwrap();
    let native = built_static_with_replay_library(&src);
    let options = mnemo::testgen::ReplayOptions {
        run_as: NOBODY,
        model_root: Some(mnemo::testgen::ModelRoot {
            dir: dir.path().join("root"),
            host_files: vec!["/etc/passwd".into(), "/etc/group".into()],
            kept: None,
        }),
        ..Default::default()
    };
    let replayed = mnemo::testgen::replay_dir_with(&toolchain, &native, &out, &options);
    if let Some(report) = unless_denied(replayed) {
        assert!(report.all_match(), "{report}");
    }
}

/// The report of a replay in the model's root, or `None`, said, where the
/// machine denies it: a container may deny even root making devices or
/// chrooting.
fn unless_denied(
    result: Result<mnemo::testgen::ReplayReport, mnemo::testgen::ReplayError>,
) -> Option<mnemo::testgen::ReplayReport> {
    match result {
        Err(mnemo::testgen::ReplayError::Io { error, .. })
            if error.kind() == std::io::ErrorKind::PermissionDenied =>
        {
            eprintln!("skipped: this machine's root may not chroot or make devices: {error}");
            None
        }
        result => Some(result.unwrap()),
    }
}
