//! What the tests of runs that are stopped share: signals to a child and
//! waiting for a file it writes.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A child process that is killed when dropped unwaited: a test that fails
/// leaves no run behind (an unbounded one would grow until the machine
/// runs out of memory).
pub struct Running(Option<Child>);

impl Running {
    pub fn new(child: Child) -> Running {
        Running(Some(child))
    }

    #[allow(dead_code)] // Not every test file signals its children.
    pub fn id(&self) -> u32 {
        self.0.as_ref().map_or(0, Child::id)
    }

    /// Waits for the end, with what the child wrote.
    pub fn wait_with_output(mut self) -> Output {
        self.0
            .take()
            .expect("not waited for yet")
            .wait_with_output()
            .expect("the child ends")
    }

    /// The child, no longer killed when dropped (for a caller that waits
    /// for it another way).
    #[allow(dead_code)] // Not every test file waits another way.
    pub fn into_inner(mut self) -> Child {
        self.0.take().expect("not waited for yet")
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// `command` in the background, its stdout dropped and its stderr into
/// `log`.
#[allow(dead_code)] // Not every test file keeps a child's log.
pub fn spawn_logged(command: &mut Command, log: &Path) -> Running {
    let file = std::fs::File::create(log).expect("create log");
    Running::new(
        command
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start the child"),
    )
}

#[allow(dead_code)] // Not every test file signals its children.
pub fn signal(child: &Running, signal: i32) {
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    // SAFETY: kill(2) on a child of this process that has not been waited for.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0, "kill");
}

/// Waits until `path` exists (a run's output directory is made after
/// loading, once the signal handlers are in place).
#[allow(dead_code)] // Not every test file waits for a file.
pub fn wait_for(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
