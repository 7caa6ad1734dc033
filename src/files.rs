//! Files mnemo writes: always atomically, so a reader (or a crash) sees the
//! old contents or the new ones, never a mix.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temporary files of threads writing at the same time.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` so that readers see either the old file or the
/// complete new one: a temporary file in the same directory, renamed over
/// the target.
///
/// The file is not synced: a run writes thousands of tests, and a sync per
/// file made the kernel a sixth of a run's time. What a run wrote is made
/// durable once, by [`sync_written`] at its end (and at checkpoints).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    create_atomic(path, bytes).map(drop)
}

/// Like [`write_atomic`], and returns the new file, open for writing at
/// its end: what is written to it goes to the file renamed into place, not
/// to one another process may have renamed over it since.
pub fn create_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<fs::File> {
    through_temporary(path, |tmp| {
        let mut f = fs::File::create(tmp)?;
        f.write_all(bytes)?;
        Ok(f)
    })
}

/// What `write` returns after writing a fresh temporary file, which is
/// then renamed to `path`; the temporary is removed if either fails.
fn through_temporary<T>(
    path: &Path,
    write: impl FnOnce(&Path) -> std::io::Result<T>,
) -> std::io::Result<T> {
    let tmp = temporary_for(path);
    let result = write(&tmp).and_then(|t| fs::rename(&tmp, path).map(|()| t));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// [`write_atomic`] for contents written by `body` as they are made, through
/// a buffer: a large index need not be held whole first.
pub fn write_atomic_with(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    through_temporary(path, |tmp| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, fs::File::create(tmp)?);
        body(&mut w)?;
        w.flush()
    })
}

/// Writes a framed file (see [`frame`]) atomically, its body written by
/// `body` straight to the file, and returns the file's length and the
/// body's checksum. A deep run's trie is hundreds of megabytes: made in
/// memory first, it doubled what the run held at its end.
pub fn write_framed_atomic(
    path: &Path,
    magic: &[u8],
    version: u32,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<(u64, [u8; 32])> {
    through_temporary(path, |tmp| {
        let f = fs::File::create(tmp)?;
        let header = header_len(magic);
        (&f).write_all(&vec![0; header])?;
        let mut w = Hashing::new(&f).buffered();
        body(&mut w)?;
        let (written, sum) = w
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?
            .finish();
        std::os::unix::fs::FileExt::write_all_at(&f, &header_of(magic, version, &sum), 0)?;
        Ok((header as u64 + written, sum))
    })
}

/// A file being written or read, and the length and checksum of what went
/// through this writer or reader: a large body is hashed as it is written
/// or read rather than held whole to be hashed.
pub(crate) struct Hashing<'f> {
    file: &'f fs::File,
    hasher: blake3::Hasher,
    bytes: u64,
}

impl<'f> Hashing<'f> {
    /// A writer at `file`'s current position.
    pub(crate) fn new(file: &'f fs::File) -> Self {
        Hashing {
            file,
            hasher: blake3::Hasher::new(),
            bytes: 0,
        }
    }

    /// This writer behind a buffer of a megabyte: serializers write a few
    /// bytes at a time.
    pub(crate) fn buffered(self) -> std::io::BufWriter<Self> {
        std::io::BufWriter::with_capacity(1 << 20, self)
    }

    /// The length and checksum of what was written or read.
    pub(crate) fn finish(self) -> (u64, [u8; 32]) {
        (self.bytes, *self.hasher.finalize().as_bytes())
    }
}

impl Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        hash_part(&mut self.hasher, &buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Reads the hashed bytes from the file, for [`read_framed`].
impl Read for Hashing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        hash_part(&mut self.hasher, &buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

/// What [`read_framed`] could not read.
#[derive(Debug)]
pub enum ReadFramedError<E> {
    Io(std::io::Error),
    Frame(FrameError),
    /// `decode` failed on a body that matches its checksum.
    Body(E),
}

/// Reads a framed file (see [`frame`]) as `decode` takes its body from the
/// file, rather than reading it whole first: a deep run's trie file is
/// hundreds of megabytes, which were held beside the trie made of them
/// (loading echo's 477 MB trie file took 1.5 GB). `decode` is given the
/// body's length, which it must not read past; the checksum is checked
/// over the whole body once `decode` is done, and a body that fails it is
/// [`FrameError::Checksum`] whatever `decode` made of it. Returns what
/// `decode` made, the header's checksum, and how many bytes of the body
/// `decode` left unread.
pub fn read_framed<T, E>(
    path: &Path,
    magic: &[u8],
    versions: std::ops::RangeInclusive<u32>,
    decode: impl FnOnce(&mut dyn Read, u64) -> Result<T, E>,
) -> Result<(T, [u8; 32], u64), ReadFramedError<E>> {
    let f = fs::File::open(path).map_err(ReadFramedError::Io)?;
    let len = f.metadata().map_err(ReadFramedError::Io)?.len();
    let header = header_len(magic);
    let mut head = vec![0; header];
    let read = len >= header as u64 && (&f).read_exact(&mut head).is_ok();
    let sum = checked_header(read.then_some(&head[..]), magic, versions)
        .map_err(ReadFramedError::Frame)?;
    let mut r = std::io::BufReader::with_capacity(1 << 20, Hashing::new(&f));
    let body = len - header as u64;
    let decoded = decode(&mut r, body);
    let consumed = r.get_ref().bytes - r.buffer().len() as u64;
    // What `decode` left is hashed too: the checksum is of the whole body.
    let mut rest = r.into_inner();
    std::io::copy(&mut rest, &mut std::io::sink()).map_err(ReadFramedError::Io)?;
    if rest.finish().1 != sum {
        return Err(ReadFramedError::Frame(FrameError::Checksum));
    }
    let decoded = decoded.map_err(ReadFramedError::Body)?;
    Ok((decoded, sum, body.saturating_sub(consumed)))
}

/// Gives the file `from` a second name, a new temporary of `path` (named
/// as [`write_atomic`] names its temporaries), and returns it: renamed over
/// `path` later, it replaces `path` whole while `from` keeps its name. A
/// file system without hard links gets a copy.
pub fn link_temporary(from: &Path, path: &Path) -> std::io::Result<PathBuf> {
    let tmp = temporary_for(path);
    match fs::hard_link(from, &tmp) {
        Ok(()) => Ok(tmp),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(e),
        Err(_) => match fs::copy(from, &tmp) {
            Ok(_) => Ok(tmp),
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                Err(e)
            }
        },
    }
}

/// Swaps the names of the files `a` and `b` in one step, so that neither
/// name is ever free: Linux's `renameat2` with `RENAME_EXCHANGE`. Fails
/// with [`std::io::ErrorKind::Unsupported`], changing nothing, where the
/// system or the file system cannot.
pub fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::unix::ffi::OsStrExt;
        let a = std::ffi::CString::new(a.as_os_str().as_bytes())?;
        let b = std::ffi::CString::new(b.as_os_str().as_bytes())?;
        // SAFETY: both names are NUL-terminated strings that outlive the call.
        let r = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP) => {
                Err(std::io::Error::new(std::io::ErrorKind::Unsupported, e))
            }
            _ => Err(e),
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = (a, b);
        Err(std::io::ErrorKind::Unsupported.into())
    }
}

/// A fresh temporary name for `path`, in the same directory.
fn temporary_for(path: &Path) -> PathBuf {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    dir.join(format!(
        ".{name}.tmp.{}.{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Why the framed bytes of a file (see [`frame`]) cannot be read.
#[derive(Debug, PartialEq, Eq)]
pub enum FrameError {
    /// Too short, or another magic: not a file of this kind.
    Foreign,
    /// A file of this kind in another format version.
    Version(u32),
    /// The body does not match its checksum.
    Checksum,
}

/// The bytes of a versioned, checksummed file: `magic`, the format
/// version, the body's blake3 hash, the body. Tries and shard files are
/// framed this way, so a damaged or foreign file is refused before its body
/// is read.
pub fn frame(magic: &[u8], version: u32, body: &[u8]) -> Vec<u8> {
    [header_of(magic, version, &checksum(body)).as_slice(), body].concat()
}

/// The length of [`frame`]'s header for `magic`: the magic, the version,
/// the checksum.
pub const fn header_len(magic: &[u8]) -> usize {
    magic.len() + 4 + 32
}

fn header_of(magic: &[u8], version: u32, sum: &[u8; 32]) -> Vec<u8> {
    [magic, &version.to_le_bytes(), sum].concat()
}

/// The checksum [`frame`] puts before a body: BLAKE3.
fn checksum(body: &[u8]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    hash_part(&mut h, body);
    *h.finalize().as_bytes()
}

/// Hashes the next part of a body, on every core for a large part (a deep
/// run's trie is hundreds of megabytes, hashed while no worker runs).
fn hash_part(h: &mut blake3::Hasher, part: &[u8]) {
    if part.len() >= 1 << 20 {
        h.update_rayon(part);
    } else {
        h.update(part);
    }
}

/// The body of bytes [`frame`] made with `magic` and one of `versions`,
/// checked.
pub fn unframe<'a>(
    bytes: &'a [u8],
    magic: &[u8],
    versions: std::ops::RangeInclusive<u32>,
) -> Result<&'a [u8], FrameError> {
    let header = header_len(magic);
    let sum = checked_header(bytes.get(..header), magic, versions)?;
    let body = &bytes[header..];
    if checksum(body) != sum {
        return Err(FrameError::Checksum);
    }
    Ok(body)
}

/// The checksum a framed file's header holds, once its magic and version
/// are checked (`None`: the file is shorter than a header).
fn checked_header(
    head: Option<&[u8]>,
    magic: &[u8],
    versions: std::ops::RangeInclusive<u32>,
) -> Result<[u8; 32], FrameError> {
    let Some(head) = head.filter(|h| h.starts_with(magic)) else {
        return Err(FrameError::Foreign);
    };
    let mut v = [0u8; 4];
    v.copy_from_slice(&head[magic.len()..magic.len() + 4]);
    let found = u32::from_le_bytes(v);
    if !versions.contains(&found) {
        return Err(FrameError::Version(found));
    }
    let mut sum = [0u8; 32];
    sum.copy_from_slice(&head[magic.len() + 4..]);
    Ok(sum)
}

/// A framed body made of `head` and, after it, `tail`: a field added to a
/// format after its release goes in the tail, so that the bodies of the
/// earlier versions, which end with the head, still read (see
/// [`head_and_tail`]).
pub fn with_tail<H: serde::Serialize, T: serde::Serialize>(head: &H, tail: &T) -> Vec<u8> {
    let mut body = bincode::serialize(head).expect("a framed body serializes");
    body.extend(bincode::serialize(tail).expect("a framed body serializes"));
    body
}

/// The head and tail of a body [`with_tail`] made; the tail's default
/// where the body ends with the head.
pub fn head_and_tail<H, T>(body: &[u8]) -> Result<(H, T), bincode::Error>
where
    H: serde::de::DeserializeOwned,
    T: serde::de::DeserializeOwned + Default,
{
    let mut rest = body;
    let head = bincode::deserialize_from(&mut rest)?;
    let tail = match rest.is_empty() {
        true => T::default(),
        false => bincode::deserialize(rest)?,
    };
    Ok((head, tail))
}

/// The file a temporary of [`write_atomic`] was for, and the process that
/// made it: `.NAME.tmp.PID.N` gives `(NAME, PID)`.
pub fn temporary_of(name: &str) -> Option<(&str, u32)> {
    let rest = name.strip_prefix('.')?;
    let mut parts = rest.rsplitn(3, '.');
    let counter = parts.next()?;
    let pid = parts.next()?;
    let of = parts.next()?.strip_suffix(".tmp")?;
    if of.is_empty() || counter.parse::<u64>().is_err() {
        return None;
    }
    Some((of, pid.parse().ok()?))
}

/// Removes from `dir` the temporaries of [`write_atomic`] that processes no
/// longer running left (killed while writing), for the files whose names
/// `ours` accepts; returns how many. A big trie's temporary is as large as
/// the trie.
pub fn remove_dead_temporaries(dir: &Path, ours: impl Fn(&str) -> bool) -> std::io::Result<usize> {
    let mut removed = 0;
    let entries = match fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        entries => entries?,
    };
    for e in entries {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((of, pid)) = temporary_of(&name) else {
            continue;
        };
        if ours(of) && !process_lives(pid) {
            match fs::remove_file(e.path()) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => removed += 1,
            }
        }
    }
    Ok(removed)
}

/// Whether process `pid` is running (or cannot be told: then it is taken
/// to be).
fn process_lives(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if pid == 0 {
        return true;
    }
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return true;
    }
    std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// `path` with `suffix` added to its name (`s.db` and `-wal`: `s.db-wal`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Moves a file mnemo cannot use out of the way as `PATH.SUFFIX`, or
/// `PATH.SUFFIX.1`, `PATH.SUFFIX.2`, ...: the first name that is free, so an
/// earlier copy kept the same way is never replaced (not even by another
/// process setting a file aside at the same moment). Returns the new name.
pub fn keep_aside(path: &Path, suffix: &str) -> std::io::Result<PathBuf> {
    let mut n = 0u32;
    loop {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{suffix}"));
        if n > 0 {
            name.push(format!(".{n}"));
        }
        let to = PathBuf::from(name);
        // A hard link fails where the name is taken, where a rename would
        // replace what is there.
        match fs::hard_link(path, &to) {
            Ok(()) => {
                fs::remove_file(path)?;
                return Ok(to);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            // File systems without hard links: the same free name, checked
            // first (a race with another process is then possible).
            Err(_) if !to.exists() && path.exists() => {
                fs::rename(path, &to)?;
                return Ok(to);
            }
            Err(e) => return Err(e),
        }
    }
}

/// Makes durable everything written (atomically) under the directories
/// `dirs`, renames included. One call at the end of a run replaces a sync
/// per file: on Linux one `syncfs` per file system the directories are on,
/// elsewhere a sync of each file directly inside and of the directory.
/// Directories that do not exist are passed over.
pub fn sync_written(dirs: &[&Path]) -> std::io::Result<()> {
    let mut first_error = None;
    for dir in dirs {
        let Ok(d) = fs::File::open(dir) else {
            continue;
        };
        if let Err(e) = sync_directory(dir, &d) {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

#[cfg(target_os = "linux")]
fn sync_directory(_: &Path, d: &fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: `d` is an open descriptor for the duration of the call.
    if unsafe { libc::syncfs(d.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn sync_directory(dir: &Path, d: &fs::File) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)?.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            fs::File::open(entry.path())?.sync_all()?;
        }
    }
    // Not every platform can sync a directory; the renames are then as
    // durable as the platform makes them.
    let _ = d.sync_all();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_of_dead_processes_are_removed_and_others_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let me = std::process::id();
        // No process has the largest pid Linux allows, plus one.
        let dead = 4_194_305;
        let names = [
            format!(".p.trie.tmp.{dead}.3"),
            format!(".p.trie.tmp.{me}.4"),
            format!(".other.tmp.{dead}.0"),
            "p.trie".to_string(),
        ];
        for n in &names {
            fs::write(dir.path().join(n), b"x").expect("write");
        }
        assert_eq!(temporary_of(&names[0]), Some(("p.trie", dead)));
        assert_eq!(temporary_of("p.trie"), None);
        assert_eq!(temporary_of(".x.tmp.12"), None);
        let removed = remove_dead_temporaries(dir.path(), |n| n == "p.trie").expect("clean");
        assert_eq!(removed, 1);
        for n in &names[1..] {
            assert!(dir.path().join(n).exists(), "{n}");
        }
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("x.json");
        write_atomic(&p, b"one").expect("write");
        write_atomic(&p, b"two").expect("write");
        assert_eq!(fs::read(&p).expect("read"), b"two");
        assert_eq!(fs::read_dir(dir.path()).expect("dir").count(), 1);
    }

    #[test]
    fn a_framed_file_written_as_it_is_made_is_the_frame_of_its_body() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("x.trie");
        // Parts below, at and past the writer's buffer and the size
        // hashed on every core.
        let parts: Vec<Vec<u8>> = [3, 1 << 20, 5, (1 << 20) + 7]
            .iter()
            .enumerate()
            .map(|(i, &n)| (0..n).map(|b| (b * 7 + i) as u8).collect())
            .collect();
        let (len, sum) = write_framed_atomic(&p, b"MAGIC", 3, |w| {
            parts.iter().try_for_each(|part| w.write_all(part))
        })
        .expect("written");
        let body = parts.concat();
        let bytes = fs::read(&p).expect("read");
        assert_eq!(bytes, frame(b"MAGIC", 3, &body));
        assert_eq!(len, bytes.len() as u64);
        assert_eq!(sum, *blake3::hash(&body).as_bytes());
        assert_eq!(unframe(&bytes, b"MAGIC", 3..=3), Ok(body.as_slice()));

        // A body that fails leaves the file as it was, and no temporary.
        let failed = write_framed_atomic(&p, b"MAGIC", 3, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("the disk is full"))
        });
        assert_eq!(failed.expect_err("fails").to_string(), "the disk is full");
        assert_eq!(fs::read(&p).expect("read"), bytes);
        assert_eq!(fs::read_dir(dir.path()).expect("dir").count(), 1);
    }

    #[test]
    fn syncing_what_was_written_passes_over_missing_directories() {
        let dir = tempfile::tempdir().expect("tempdir");
        write_atomic(&dir.path().join("a"), b"one").expect("write");
        let missing = dir.path().join("missing");
        sync_written(&[dir.path(), &missing]).expect("sync");
        assert_eq!(fs::read(dir.path().join("a")).expect("read"), b"one");
    }

    #[test]
    fn files_kept_aside_never_replace_an_earlier_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("prog.trie");
        for (i, expect) in ["prog.trie.bad", "prog.trie.bad.1", "prog.trie.bad.2"]
            .iter()
            .enumerate()
        {
            fs::write(&p, format!("copy {i}")).expect("write");
            let kept = keep_aside(&p, "bad").expect("kept");
            assert_eq!(kept, dir.path().join(expect));
            assert!(!p.exists());
        }
        for (i, name) in ["prog.trie.bad", "prog.trie.bad.1", "prog.trie.bad.2"]
            .iter()
            .enumerate()
        {
            let text = fs::read_to_string(dir.path().join(name)).expect("read");
            assert_eq!(text, format!("copy {i}"));
        }
        assert!(keep_aside(&dir.path().join("missing"), "bad").is_err());
    }

    #[test]
    fn a_missing_directory_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(write_atomic(&dir.path().join("no/such/dir/f"), b"x").is_err());
    }
}
