//! A replay in the file system the engine's model gives the program: a
//! directory laid out as the model's `/` (`/dev/null`, `/proc/uptime`, a
//! world-writable `/tmp` holding `/tmp/mnemo-replay/cwd`, the working
//! directory, and the host files the run read with `--file`), each test
//! chrooted into it. Nothing else is there: the program and its test stay
//! outside, open on descriptors, so that a listing of `/` finds what the
//! model has.
//!
//! Without it a test that walks `/` (`du /`, `chown -R '' /`, `cp -a /`)
//! walks the whole machine natively, where the model knows six
//! directories: it ends otherwise than predicted, and what it changes is
//! the machine's. Chrooting needs root, and the program must be statically
//! linked (nothing else is there to load).

use std::fs;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::native::c_path;
use super::posix::{set_file_times, MODEL_TIME};
use super::replay::{io_err, ReplayError, ReplayOptions};
use crate::exec::posix::HOST_FILE_MODE_MASK;

/// Where the model has the working directory's parent and the working
/// directory itself (`runtime/musl/src/mnemo_names.c`'s tree), inside the
/// root.
const PARENT: &str = "tmp/mnemo-replay";
/// The text of the model's `/proc/uptime` (`MNEMO_PROC_UPTIME` in
/// `runtime/musl/src/mnemo_fs.h`).
const PROC_UPTIME: &str = "3600.00 3600.00\n";
const CWD: &str = ModelRoot::WORKING_DIR.split_at(1).1;
const EXIT_DIR: &str = ModelRoot::EXIT_DIR.split_at(1).1;

/// A directory to lay out as the model's file system and chroot each test
/// into.
#[derive(Clone, Debug)]
pub struct ModelRoot {
    /// The directory; made if missing. Tests replayed at once each have a
    /// root of their own: the first this one, the others beside it, named
    /// as it is with `.1`, `.2`, ... appended.
    pub dir: PathBuf,
    /// The host files the run was given with `--file`, copied to the same
    /// paths inside.
    pub host_files: Vec<PathBuf>,
    /// Where what each test leaves in [`ModelRoot::EXIT_DIR`] goes once
    /// it has ended, as `kept/<test id>` (on the file system of `dir`);
    /// without one, it goes with the rest of `/tmp`.
    pub kept: Option<PathBuf>,
}

/// A root laid out.
pub(crate) struct LaidOut {
    pub(crate) dir: PathBuf,
    kept: Option<PathBuf>,
}

impl LaidOut {
    /// The working directory, as seen from inside.
    pub(crate) fn cwd(&self) -> PathBuf {
        Path::new("/").join(CWD)
    }

    /// Readies the root for one test: `/tmp` as the model starts it (only
    /// the empty working directory's parent). Returns the working
    /// directory, as seen from outside.
    pub(crate) fn ready(&self) -> Result<PathBuf, ReplayError> {
        let tmp = self.dir.join("tmp");
        // What an earlier test left in /tmp (its working directory, names
        // made in /tmp itself) goes; nothing there is followed out of the
        // root, as remove_dir_all does not follow symbolic links.
        if tmp.exists() {
            fs::remove_dir_all(&tmp).map_err(io_err(&tmp))?;
        }
        make_dir(&tmp, 0o1777)?;
        make_dir(&self.dir.join(PARENT), 0o755)?;
        let cwd = self.dir.join(CWD);
        make_dir(&cwd, 0o755)?;
        // The working directory's times are set as its files are made.
        for path in [&self.dir, &tmp, &self.dir.join(PARENT)] {
            set_file_times(path, MODEL_TIME).map_err(io_err(path))?;
        }
        Ok(cwd)
    }

    /// After test `id` has ended: what it left in [`ModelRoot::EXIT_DIR`]
    /// goes to [`ModelRoot::kept`], before the next test empties `/tmp`.
    pub(crate) fn keep(&self, id: u32) -> Result<(), ReplayError> {
        let (Some(kept), left) = (&self.kept, self.dir.join(EXIT_DIR)) else {
            return Ok(());
        };
        // A directory, not a link the program made to lead the move out of
        // the root.
        if !fs::symlink_metadata(&left).is_ok_and(|m| m.is_dir()) {
            return Ok(());
        }
        make_dir(kept, 0o755)?;
        let to = kept.join(format!("{id:06}"));
        // An earlier replay's, of a test with the same number.
        if to.exists() {
            fs::remove_dir_all(&to).map_err(io_err(&to))?;
        }
        fs::rename(&left, &to).map_err(io_err(&to))
    }
}

/// A directory with exactly these permission bits (umask aside).
fn make_dir(path: &Path, mode: u32) -> Result<(), ReplayError> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(mode)
        .create(path)
        .and_then(|()| fs::set_permissions(path, fs::Permissions::from_mode(mode)))
        .map_err(io_err(path))
}

impl ModelRoot {
    /// The model's working directory as the program sees it, in the engine
    /// and in a chrooted replay alike (`PWD` for a run that sets one).
    pub const WORKING_DIR: &'static str = "/tmp/mnemo-replay/cwd";

    /// A directory a program may make in the model's world-writable `/tmp`
    /// as it ends, for the replay's own data: a gcov build writes its
    /// coverage there at exit with `GCOV_PREFIX` naming it. It is not
    /// there while the program runs, so no listing sees it; after each
    /// test it goes to [`ModelRoot::kept`].
    pub const EXIT_DIR: &'static str = "/tmp/.mnemo-replay";

    /// Lays out `count` roots for `binary`, which runs from outside them:
    /// one for each test replayed at once (see [`ModelRoot::dir`]).
    pub(crate) fn lay_out(&self, binary: &Path, count: usize) -> Result<Vec<LaidOut>, ReplayError> {
        if !ReplayOptions::caller_is_root() {
            return Err(ReplayError::Io {
                path: self.dir.clone(),
                error: std::io::Error::other("a replay in the model's file system needs root"),
            });
        }
        if asks_for_a_loader(binary).map_err(io_err(binary))? {
            return Err(io_err(binary)(std::io::Error::other(
                "linked dynamically: a replay in the model's file system runs a statically linked program",
            )));
        }
        (0..count.max(1))
            .map(|k| {
                let mut dir = self.dir.clone().into_os_string();
                if k > 0 {
                    dir.push(format!(".{k}"));
                }
                self.lay_out_at(PathBuf::from(dir))
            })
            .collect()
    }

    /// Lays out one root at `dir`.
    fn lay_out_at(&self, dir: PathBuf) -> Result<LaidOut, ReplayError> {
        make_dir(&dir, 0o755)?;
        make_dir(&dir.join("dev"), 0o755)?;
        let null = dir.join("dev/null");
        if !null.exists() {
            let c = c_path(&null).map_err(io_err(&null))?;
            // SAFETY: `c` is a NUL-terminated path; mknod reads nothing else.
            let made =
                unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
            if made != 0 {
                return Err(io_err(&null)(std::io::Error::last_os_error()));
            }
        }
        fs::set_permissions(&null, fs::Permissions::from_mode(0o666)).map_err(io_err(&null))?;
        // A program that reads /proc/uptime (uptime) finds the model's
        // uptime there, which its sysinfo agrees with, not this machine's.
        let proc = dir.join("proc");
        make_dir(&proc, 0o555)?;
        let uptime = proc.join("uptime");
        fs::write(&uptime, PROC_UPTIME).map_err(io_err(&uptime))?;
        fs::set_permissions(&uptime, fs::Permissions::from_mode(0o444)).map_err(io_err(&uptime))?;
        // The directories the model makes for the host files (`/etc`), and
        // its `/dev` and `/proc`, get the model's times once the files are
        // in them.
        let mut model_made = vec![dir.join("dev"), null, proc, uptime];
        for host in &self.host_files {
            let Ok(relative) = host.strip_prefix("/") else {
                return Err(io_err(host)(std::io::Error::other(
                    "a host file is named by its absolute path",
                )));
            };
            let inside = dir.join(relative);
            if let Some(parent) = inside.parent() {
                make_dir(parent, 0o755)?;
                let made = parent.ancestors().take_while(|d| *d != dir);
                model_made.extend(made.map(Path::to_path_buf));
            }
            fs::copy(host, &inside).map_err(io_err(host))?;
            // The model gives a host file the host's modification time and
            // its permissions less the write bits.
            let meta = fs::metadata(host).map_err(io_err(host))?;
            let mode = meta.mode() & HOST_FILE_MODE_MASK;
            fs::set_permissions(&inside, fs::Permissions::from_mode(mode))
                .map_err(io_err(&inside))?;
            set_file_times(&inside, meta.mtime()).map_err(io_err(&inside))?;
        }
        // Host files in one directory (/etc/passwd, /etc/group) name it
        // once each: its time is set once.
        model_made.sort();
        model_made.dedup();
        for path in &model_made {
            set_file_times(path, MODEL_TIME).map_err(io_err(path))?;
        }
        Ok(LaidOut {
            dir,
            kept: self.kept.clone(),
        })
    }
}

/// Whether the ELF program at `path` names a dynamic loader (a `PT_INTERP`
/// program header), which a chroot would not hold.
fn asks_for_a_loader(path: &Path) -> std::io::Result<bool> {
    const PT_INTERP: u32 = 3;
    let elf = fs::read(path)?;
    let field = |at: usize, len: usize| -> std::io::Result<u64> {
        let bytes = elf
            .get(at..at + len)
            .ok_or_else(|| std::io::Error::other("not a 64-bit ELF program"))?;
        Ok(bytes
            .iter()
            .rev()
            .fold(0u64, |v, &b| (v << 8) | u64::from(b)))
    };
    if elf.get(..5) != Some(b"\x7fELF\x02") {
        return Err(std::io::Error::other("not a 64-bit ELF program"));
    }
    let (start, size, count) = (field(0x20, 8)?, field(0x36, 2)?, field(0x38, 2)?);
    for k in 0..count {
        let at = usize::try_from(start + k * size)
            .map_err(|_| std::io::Error::other("not a 64-bit ELF program"))?;
        if field(at, 4)? == u64::from(PT_INTERP) {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dynamically_linked_program_is_told_from_a_static_one() {
        // This test's own program is linked dynamically.
        let me = std::env::current_exe().unwrap();
        assert!(asks_for_a_loader(&me).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("text");
        fs::write(&text, "#!/bin/sh\n").unwrap();
        assert!(asks_for_a_loader(&text).is_err());
        // An ELF header with no program headers asks for nothing.
        let mut bare = b"\x7fELF\x02\x01\x01".to_vec();
        bare.resize(64, 0);
        let bare_path = dir.path().join("bare");
        fs::write(&bare_path, &bare).unwrap();
        assert!(!asks_for_a_loader(&bare_path).unwrap());
    }
}
