//! Reading the program once in a child process, so that bitcode LLVM's
//! reader cannot survive (it aborts the process on some corrupt input)
//! gives an error message instead of ending mnemo.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;

use anyhow::Context;
use mnemo::stop::StopRequest;

/// Reads `program` in a forked copy of this process. A load error the
/// reader reports normally is left to the real load, and so is a child
/// that Ctrl-C (sent to the whole process group) ended: the run then stops
/// at once, as asked.
///
/// A fork rather than a new process: starting mnemo again would load and
/// link LLVM and Z3 once more, about 30 ms before the child reads a byte,
/// where the program itself takes a millisecond or two to read.
pub fn check_loadable(program: &Path, stop: &StopRequest) -> anyhow::Result<()> {
    let (read_end, write_end) = pipe().context("cannot make a pipe for the loading check")?;
    // SAFETY: the child only reads the bitcode with LLVM (whose allocator
    // is the C library's, which makes malloc safe after fork) and ends by
    // _exit; it takes no lock another thread of this process could hold.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error())
            .context("cannot start a child process to check the program");
    }
    if pid == 0 {
        drop(read_end);
        // SAFETY: plain system calls on descriptors and dispositions this
        // process owns; the child ends by _exit without unwinding.
        unsafe {
            libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&write_end), 2);
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(signal, libc::SIG_DFL);
            }
            let _ = mnemo::ir::load_module(program, &[], false);
            libc::_exit(0);
        }
    }
    drop(write_end);
    let mut detail = Vec::new();
    let _ = std::fs::File::from(read_end).read_to_end(&mut detail);
    let mut status = 0;
    // SAFETY: waits for the child just forked.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err).context("cannot wait for the loading check");
        }
    }
    if !libc::WIFSIGNALED(status) || stop.reason().is_some() {
        return Ok(());
    }
    let detail = String::from_utf8_lossy(&detail);
    let what = match detail.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(line) => line.trim().to_string(),
        None => format!("signal {}", libc::WTERMSIG(status)),
    };
    anyhow::bail!(
        "{} is malformed: LLVM's bitcode reader crashed on it ({what})",
        program.display()
    )
}

/// A pipe whose ends a later exec would close.
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just opened and are owned here alone.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
