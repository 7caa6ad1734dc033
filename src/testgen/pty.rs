//! A pseudo-terminal for the stdin of a test whose `stdin-stat` says it is
//! a character device: where the model answered `isatty(0)` with yes, the
//! native program must find a terminal too (klee-replay makes one as well).

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// The two ends of a pseudo-terminal.
pub(crate) struct Pty {
    /// What the replay writes the test's stdin bytes into.
    pub master: File,
    /// The program's stdin.
    pub slave: OwnedFd,
}

/// Opens a pseudo-terminal in raw mode, so that the bytes written into it
/// reach the program as they are (no echo, no line editing, no signals),
/// and a read finding none of them left returns at once with nothing (as
/// `VMIN` and `VTIME` 0 make it): the end of input, as the model's
/// terminal has it, where a terminal that hangs up gives EIO.
pub(crate) fn open_raw() -> io::Result<Pty> {
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty writes two descriptors into the integers it is given;
    // the name, termios and window size pointers may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: openpty succeeded, so both are open descriptors owned by no
    // one else.
    let (master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    // openpty does not make the master close on exec: a program that held
    // it would keep its own terminal from hanging up, and wait for ever
    // for the end of its input.
    // SAFETY: fcntl on the open master descriptor, with an int argument.
    if unsafe { libc::fcntl(master.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = slave.as_raw_fd();
    // SAFETY: termios is plain data that tcgetattr fills in before use.
    let mut mode: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: fd is the open slave end; mode is a valid termios.
    let ok = unsafe {
        libc::tcgetattr(fd, &mut mode) == 0 && {
            libc::cfmakeraw(&mut mode);
            mode.c_cc[libc::VMIN] = 0;
            mode.c_cc[libc::VTIME] = 0;
            libc::tcsetattr(fd, libc::TCSANOW, &mode) == 0
        }
    };
    if !ok {
        return Err(io::Error::last_os_error());
    }
    Ok(Pty { master, slave })
}
