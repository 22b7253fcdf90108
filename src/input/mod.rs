//! Inputs: the paths given on the command line resolved into sources (files, folders walked
//! in sorted order, `-` for stdin), and decompression of gzip and zstd by magic bytes.
//!
//! Nothing here reads stdin by itself: the caller hands the stdin reader in, so the same
//! code serves tests and the binary.

pub mod follow;
pub mod head;

use crate::dialect::store;
use crate::dialect::Dialect;
use crate::error::Error;
use std::fs;
use std::io::{self, BufRead, BufReader, Read};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One input to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Stdin,
    File(PathBuf),
    /// OpenCode's SQLite store ([`store`]): named on the command line (found by
    /// SQLite's magic bytes) or found in a folder (by its name, `opencode*.db`).
    Store(PathBuf),
}

impl Source {
    /// The name diagnostics use: the path as given (escaped where it is not UTF-8, see
    /// [`path_name`]), or `-` for stdin.
    pub fn display_name(&self) -> Arc<str> {
        match self {
            Source::Stdin => Arc::from("-"),
            Source::File(p) | Source::Store(p) => Arc::from(path_name(p)),
        }
    }
}

/// A path as people read it. A path that is valid UTF-8 is shown as it is; in one that is
/// not (Unix allows any bytes but `/` and NUL in a name), each byte that is not part of
/// valid UTF-8 is shown as `\xNN` and a backslash as `\\`, so two different names never
/// show the same (`Path::display` would turn both into U+FFFD and merge them).
pub fn path_name(path: &Path) -> String {
    let os = path.as_os_str();
    if let Some(s) = os.to_str() {
        return s.to_string();
    }
    let bytes = os.as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// A file's identity: its device and inode, the same whatever path (a symlink, a hard
/// link, `..`) names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of an open file.
    pub fn of(file: &fs::File) -> Option<FileId> {
        file.metadata()
            .ok()
            .as_ref()
            .and_then(FileId::from_metadata)
    }

    /// The identity of what `path` names (symlinks followed), if it exists.
    pub fn of_path(path: &Path) -> Option<FileId> {
        fs::metadata(path)
            .ok()
            .as_ref()
            .and_then(FileId::from_metadata)
    }

    /// The identity of the file behind a descriptor (stdin, stdout), if it is a regular
    /// file: a pipe or terminal is never an input named by path.
    pub fn of_fd(fd: std::os::fd::BorrowedFd<'_>) -> Option<FileId> {
        FileId::of_fd_where(fd, |t| t == rustix::fs::FileType::RegularFile)
    }

    /// The identity of what a descriptor reads from when it is a regular file, a FIFO or
    /// a socket: `--rejects /dev/stdin` on a pipe would write into what is being read.
    /// A terminal or other device is left out (writing to it is never read back).
    pub fn of_input_fd(fd: std::os::fd::BorrowedFd<'_>) -> Option<FileId> {
        use rustix::fs::FileType;
        FileId::of_fd_where(fd, |t| {
            matches!(t, FileType::RegularFile | FileType::Fifo | FileType::Socket)
        })
    }

    fn of_fd_where(
        fd: std::os::fd::BorrowedFd<'_>,
        keep: impl Fn(rustix::fs::FileType) -> bool,
    ) -> Option<FileId> {
        let st = rustix::fs::fstat(fd).ok()?;
        keep(rustix::fs::FileType::from_raw_mode(st.st_mode)).then_some(FileId {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
        })
    }

    #[cfg(unix)]
    fn from_metadata(m: &fs::Metadata) -> Option<FileId> {
        use std::os::unix::fs::MetadataExt;
        Some(FileId {
            dev: m.dev(),
            ino: m.ino(),
        })
    }

    #[cfg(not(unix))]
    fn from_metadata(_m: &fs::Metadata) -> Option<FileId> {
        None
    }
}

/// The files ndjq writes in this run (`--rejects`, `--tee`, stdout when it is a regular
/// file): never read as an input. Outputs created after the walk began are added as they
/// are made, so the set is shared.
#[derive(Debug, Default, Clone)]
pub struct OwnOutputs {
    ids: Arc<std::sync::Mutex<Vec<FileId>>>,
}

impl OwnOutputs {
    pub fn add(&self, id: FileId) {
        if let Ok(mut ids) = self.ids.lock() {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ids.lock().map_or(true, |ids| ids.is_empty())
    }

    /// Whether `id` is one of them.
    pub fn contains(&self, id: FileId) -> bool {
        self.ids.lock().is_ok_and(|ids| ids.contains(&id))
    }

    /// Whether the file `path` names is one of them (one `stat`, only when there are any).
    pub fn holds_path(&self, path: &Path) -> bool {
        !self.is_empty() && FileId::of_path(path).is_some_and(|id| self.contains(id))
    }
}

/// File name endings collected from folders.
const LOG_SUFFIXES: &[&str] = &[".jsonl", ".ndjson", ".json"];
const COMPRESSED_SUFFIXES: &[&str] = &["", ".gz", ".zst"];

/// Whether a file found in a folder is one ndjq reads.
/// The name is compared as bytes: a name that is not valid UTF-8 is a log file all the
/// same when it ends so.
pub fn is_log_file(path: &Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    let name = name.as_encoded_bytes();
    COMPRESSED_SUFFIXES.iter().any(|c| {
        name.strip_suffix(c.as_bytes()).is_some_and(|stem| {
            LOG_SUFFIXES
                .iter()
                .any(|s| stem.len() > s.len() && stem.ends_with(s.as_bytes()))
        })
    })
}

/// The command line's paths as sources, one at a time: no path means stdin, `-` is stdin,
/// a folder is walked recursively for log files, anything else is a file (opened later, so
/// a missing file is reported where it stands in the order). A folder is listed when the
/// walk reaches it, so a reader can start on the first files of a large tree while the
/// rest is unlisted.
///
/// A folder is walked in sorted order. Only regular files are taken (a log file's name on
/// a FIFO, socket or device is a note: opening a FIFO blocks for ever); symlinks to files
/// are followed, symlinked folders are not (they can loop); a link that cannot be followed
/// (a loop, a dangling target) and a folder that cannot be listed are errors in their place.
/// A folder named on the command line with no log file under it is an error.
///
/// A file the run writes ([`OwnOutputs`]) is never a source: found in a folder it is
/// skipped with a note; named on the command line it is an error in its place. The binary
/// refuses both cases before it opens anything for writing, except an output the run
/// made (a `--rejects` file it created, stdout that a shell's `>` has just emptied)
/// (docs/REFERENCE.md, "Nothing ndjq writes is read as its input").
#[derive(Debug)]
pub struct Walk {
    own: OwnOutputs,
    paths: std::vec::IntoIter<PathBuf>,
    /// The folders being walked, innermost last: each one's entries not yet taken.
    stack: Vec<std::vec::IntoIter<Entry>>,
    /// The folder named on the command line being walked, and whether a source came of it.
    top: Option<(PathBuf, bool)>,
}

/// An entry of a folder listing: an error to report in its place, or a named entry.
#[derive(Debug)]
enum Entry {
    Failed(Error),
    Found(PathBuf, io::Result<fs::FileType>),
}

impl Walk {
    pub fn new(paths: &[PathBuf]) -> Walk {
        Walk::excluding(paths, OwnOutputs::default())
    }

    /// A walk that never yields the files in `own`.
    pub fn excluding(paths: &[PathBuf], own: OwnOutputs) -> Walk {
        let paths = if paths.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            paths.to_vec()
        };
        Walk {
            own,
            paths: paths.into_iter(),
            stack: Vec::new(),
            top: None,
        }
    }

    /// The next source under the folders being walked, if any is left there.
    fn next_in_folders(&mut self) -> Option<Result<Source, Error>> {
        while let Some(entries) = self.stack.last_mut() {
            let Some(entry) = entries.next() else {
                self.stack.pop();
                continue;
            };
            let (path, kind) = match entry {
                Entry::Failed(e) => return Some(Err(e)),
                Entry::Found(path, kind) => (path, kind),
            };
            let kind = match kind {
                Ok(k) if k.is_symlink() => match fs::metadata(&path) {
                    // A symlinked folder is not followed.
                    Ok(m) if m.is_dir() => continue,
                    Ok(m) => m.file_type(),
                    Err(source) => {
                        if is_log_file(&path) {
                            return Some(Err(Error::Open { path, source }));
                        }
                        continue;
                    }
                },
                Ok(k) => k,
                Err(source) => return Some(Err(Error::Open { path, source })),
            };
            if kind.is_dir() && store::is_legacy_storage(&path) {
                return Some(Ok(Source::Store(path)));
            } else if kind.is_dir() {
                self.stack.push(list(&path).into_iter());
            } else if kind.is_file() && store::is_store_name(&path) {
                return Some(Ok(Source::Store(path)));
            } else if is_log_file(&path) {
                if kind.is_file() && self.own.holds_path(&path) {
                    return Some(Err(Error::OwnOutput { path, named: false }));
                }
                return Some(if kind.is_file() {
                    Ok(Source::File(path))
                } else {
                    Err(Error::NotRegular {
                        kind: kind_name(kind),
                        path,
                    })
                });
            }
        }
        None
    }
}

impl Iterator for Walk {
    type Item = Result<Source, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(found) = self.next_in_folders() {
                if let Some((_, any)) = &mut self.top {
                    *any = true;
                }
                return Some(found);
            }
            if let Some((path, any)) = self.top.take() {
                if !any {
                    return Some(Err(Error::NoLogs { path }));
                }
            }
            let p = self.paths.next()?;
            if p.as_os_str() == "-" {
                return Some(Ok(Source::Stdin));
            } else if store::is_legacy_storage(&p) {
                return Some(Ok(Source::Store(p)));
            } else if p.is_dir() {
                self.stack.push(list(&p).into_iter());
                self.top = Some((p, false));
            } else if self.own.holds_path(&p) {
                return Some(Err(Error::OwnOutput {
                    path: p,
                    named: true,
                }));
            } else if let Some(why) = store::companion_of(&p) {
                return Some(Err(Error::NotAStore { path: p, why }));
            } else if !is_log_file(&p) && store::is_sqlite(&p) {
                // A log file's name is not looked into (one open less per file named).
                return Some(Ok(Source::Store(p)));
            } else {
                return Some(Ok(Source::File(p)));
            }
        }
    }
}

/// A place an agent keeps its NDJSON logs: `root` itself, or with `per_project`, the
/// `root/*/<per_project>` folders (Gemini's and Qwen's chats sit one folder per project).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFolder {
    pub agent: &'static str,
    pub root: PathBuf,
    pub per_project: Option<&'static str>,
}

impl LogFolder {
    /// Logs anywhere under `root`.
    pub(crate) fn whole(agent: &'static str, root: PathBuf) -> LogFolder {
        LogFolder {
            agent,
            root,
            per_project: None,
        }
    }

    /// Logs in the folder `sub` of each project folder in `root`.
    pub(crate) fn per_project(agent: &'static str, root: PathBuf, sub: &'static str) -> LogFolder {
        LogFolder {
            agent,
            root,
            per_project: Some(sub),
        }
    }

    /// The folders that exist and hold at least one log file, in sorted order.
    pub fn existing(&self) -> Vec<PathBuf> {
        let candidates = match self.per_project {
            None => vec![self.root.clone()],
            Some(sub) => {
                let Ok(entries) = fs::read_dir(&self.root) else {
                    return Vec::new();
                };
                let mut dirs: Vec<PathBuf> = entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.path().join(sub))
                    .collect();
                dirs.sort();
                dirs
            }
        };
        candidates
            .into_iter()
            .filter(|p| p.is_dir() && has_logs(p))
            .collect()
    }

    /// The place as people read it: `~` for the home folder, `*` for each project.
    pub fn shown(&self, home: Option<&Path>) -> String {
        let root = match home.and_then(|h| self.root.strip_prefix(h).ok()) {
            Some(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
            _ => self.root.display().to_string(),
        };
        match self.per_project {
            Some(sub) => format!("{root}/*/{sub}"),
            None => root,
        }
    }
}

/// Whether a walk of `dir` finds a log file (it stops at the first).
fn has_logs(dir: &Path) -> bool {
    !matches!(
        Walk::new(&[dir.to_path_buf()]).next(),
        None | Some(Err(Error::NoLogs { .. }))
    )
}

/// Where the agents ndjq reads keep their NDJSON logs, whether the folders exist or not
/// (docs/REFERENCE.md, "Inputs"): what a command reads when it is given no path and
/// stdin is a terminal. `var` reads an environment variable (an empty one counts as not
/// set); `home` is the home folder. Each agent's module says where its logs are
/// (its descriptor's `log_folders`), in the order `--dialect` lists the agents; a folder
/// named twice is kept once. The SQLite stores are found by [`store::default_stores`].
pub fn agent_log_folders(
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
    home: Option<&Path>,
) -> Vec<LogFolder> {
    let set = |k: &str| var(k).filter(|v| !v.is_empty());
    let mut out = Vec::new();
    for dialect in Dialect::LISTED {
        dialect.log_folders(&set, home, &mut out);
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert((f.root.clone(), f.per_project)));
    out
}

/// A folder's entries: an error for a folder that cannot be listed or an entry that cannot
/// be read (first, where they are met), then the entries sorted by name. The kind comes
/// with the entry (no stat per file).
fn list(dir: &Path) -> Vec<Entry> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(source) => {
            return vec![Entry::Failed(Error::Open {
                path: dir.to_path_buf(),
                source,
            })]
        }
    };
    let mut out = Vec::new();
    let mut found: Vec<(std::ffi::OsString, PathBuf, io::Result<fs::FileType>)> = Vec::new();
    for entry in entries {
        match entry {
            Ok(e) => {
                let kind = e.file_type();
                found.push((e.file_name(), e.path(), kind));
            }
            Err(source) => out.push(Entry::Failed(Error::Open {
                path: dir.to_path_buf(),
                source,
            })),
        }
    }
    // Siblings: their names order them as their whole paths would, without comparing
    // the folder's components again for each pair.
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    out.extend(
        found
            .into_iter()
            .map(|(_, path, kind)| Entry::Found(path, kind)),
    );
    out
}

/// What a file that is not a regular file is, for the note that skips it.
pub(crate) fn kind_name(kind: fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "FIFO"
    } else if kind.is_socket() {
        "socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "device"
    } else {
        "special file"
    }
}

/// Opens a file source.
pub fn open_file(path: &Path) -> Result<fs::File, Error> {
    fs::File::open(path).map_err(|source| Error::Open {
        path: path.to_path_buf(),
        source,
    })
}

/// The folder of the file looked at last, held open, so the files of a tree (which come
/// folder by folder) are looked at and opened by their names in it: the kernel then
/// walks one name, not every folder of the path, each time (docs/PERFORMANCE.md, "Two
/// system calls fewer per small file, and names looked up in their folder").
#[derive(Debug, Default)]
pub struct Folder {
    /// The folder's path, and its handle unless it could not be opened (then files are
    /// looked at by their whole paths).
    last: Option<(PathBuf, Option<Arc<OwnedFd>>)>,
}

impl Folder {
    /// The size of `path` if it names a regular file (symlinks followed, as
    /// `std::fs::metadata` does), with the handle of its folder to open it by name in
    /// ([`open_in`]). `None` when it is something else or cannot be looked at.
    pub fn regular_file(&mut self, path: &Path) -> Option<(u64, Option<Arc<OwnedFd>>)> {
        use rustix::fs::{AtFlags, FileType, Mode, OFlags};
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        let (Some(parent), Some(name)) = (parent, path.file_name()) else {
            return whole_path_size(path).map(|n| (n, None));
        };
        if self.last.as_ref().is_none_or(|(p, _)| p != parent) {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let handle = rustix::fs::open(parent, flags, Mode::empty())
                .ok()
                .map(Arc::new);
            self.last = Some((parent.to_path_buf(), handle));
        }
        let Some(dir) = self.last.as_ref().and_then(|(_, h)| h.clone()) else {
            return whole_path_size(path).map(|n| (n, None));
        };
        let st = rustix::fs::statat(&*dir, name, AtFlags::empty()).ok()?;
        (FileType::from_raw_mode(st.st_mode) == FileType::RegularFile)
            .then(|| (st.st_size as u64, Some(dir)))
    }
}

/// The size of `path` if it names a regular file.
fn whole_path_size(path: &Path) -> Option<u64> {
    fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// Opens a file source by its name in `folder` ([`Folder::regular_file`]), or by its
/// path when there is no folder handle. Errors name the whole path either way.
pub fn open_in(folder: Option<&OwnedFd>, path: &Path) -> Result<fs::File, Error> {
    use rustix::fs::{Mode, OFlags};
    match (folder, path.file_name()) {
        (Some(dir), Some(name)) => {
            rustix::fs::openat(dir, name, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())
                .map(fs::File::from)
                .map_err(|e| Error::Open {
                    path: path.to_path_buf(),
                    source: io::Error::from(e),
                })
        }
        _ => open_file(path),
    }
}

/// A regular file read in order, which tells when it shrank under the reader: at its end,
/// a file now shorter than what was read of it was cut while it was read (logrotate's
/// `copytruncate`). That end is then a read error, after the bytes before it (the line
/// the cut fell in is the input's unterminated last line): every `-j` reports a cut file
/// so (the workers' ranges check the same, see docs/REFERENCE.md).
#[derive(Debug)]
pub struct CutCheck {
    file: fs::File,
    read: u64,
}

impl CutCheck {
    pub fn new(file: fs::File) -> CutCheck {
        CutCheck { file, read: 0 }
    }
}

impl Read for CutCheck {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        if n == 0 && !buf.is_empty() {
            if let Ok(m) = self.file.metadata() {
                if m.is_file() && m.len() < self.read {
                    return Err(shrank(m.len()));
                }
            }
        }
        self.read += n as u64;
        Ok(n)
    }
}

/// The error of a file found shorter than what was read of it.
pub fn shrank(now: u64) -> io::Error {
    io::Error::other(format!(
        "the file shrank to {now} bytes while it was read (cut by another program, as \
         logrotate's copytruncate does); the rest is not read"
    ))
}

/// Whether `head`, the start of an input, is gzip or zstd (by their magic bytes).
pub fn is_compressed(head: &[u8]) -> bool {
    head.starts_with(GZIP_MAGIC) || head.starts_with(ZSTD_MAGIC)
}

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];

/// Wraps a reader so gzip and zstd input (recognised by magic bytes, so stdin works too)
/// comes out decompressed; anything else passes unchanged, but an SQLite database, which
/// is an error that says to name its file.
pub fn decompress<'a, R: Read + 'a>(reader: R) -> io::Result<Box<dyn Read + 'a>> {
    let mut buffered = BufReader::with_capacity(64 << 10, reader);
    let head = loop {
        match buffered.fill_buf() {
            Ok(b) => break b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    if head.starts_with(GZIP_MAGIC) {
        Ok(Box::new(flate2::read::MultiGzDecoder::new(buffered)))
    } else if head.starts_with(ZSTD_MAGIC) {
        Ok(Box::new(zstd::stream::read::Decoder::with_buffer(
            buffered,
        )?))
    } else if head.starts_with(store::SQLITE_MAGIC) {
        // A database is read by its path, with its -wal beside it (dialect::store).
        Err(io::Error::other(store::NOT_A_STREAM))
    } else {
        Ok(Box::new(buffered))
    }
}

/// The offset of the last newline of `file` in `start..len`, if any, reading backwards
/// (`--follow` and the stats cache read through it). A log almost always ends with one:
/// the first look reads a page, later ones more.
pub(crate) fn last_newline(file: &std::fs::File, start: u64, len: u64) -> io::Result<Option<u64>> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; 4 << 10];
    let mut end = len;
    while end > start {
        if end < len && buf.len() < 64 << 10 {
            buf.resize(buf.len() * 4, 0);
        }
        let from = end.saturating_sub(buf.len() as u64).max(start);
        let chunk = &mut buf[..(end - from) as usize];
        file.read_exact_at(chunk, from)?;
        if let Some(i) = memchr::memrchr(b'\n', chunk) {
            return Ok(Some(from + i as u64));
        }
        end = from;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A temporary folder holding `a/1.jsonl` (`{}`) and `b/2.jsonl` (`second`).
    fn two_folders(second: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        fs::create_dir_all(&a).expect("mkdir");
        fs::create_dir_all(&b).expect("mkdir");
        fs::write(a.join("1.jsonl"), "{}\n").expect("write");
        fs::write(b.join("2.jsonl"), second).expect("write");
        (tmp, a, b)
    }

    /// Files looked at and opened by name in their folder give what their whole paths
    /// give: the size of a regular file (through a symlink too), nothing for a folder, a
    /// FIFO or a missing name, the same error naming the whole path; and a path with no
    /// folder, or a change of folder, is looked at right.
    #[test]
    fn a_file_by_name_in_its_folder_is_the_file_its_path_names() {
        let (tmp, a, b) = two_folders("{\"x\":1}\n");
        std::os::unix::fs::symlink(b.join("2.jsonl"), a.join("link.jsonl")).expect("symlink");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            a.join("fifo.jsonl"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
            0,
        )
        .expect("mkfifo");
        let mut folder = Folder::default();
        let mut read = |path: &Path| -> Option<(u64, String)> {
            let (size, dir) = folder.regular_file(path)?;
            let mut text = String::new();
            open_in(dir.as_deref(), path)
                .expect("open")
                .read_to_string(&mut text)
                .expect("read");
            assert_eq!(size, fs::metadata(path).expect("metadata").len());
            Some((size, text))
        };
        assert_eq!(read(&a.join("1.jsonl")), Some((3, "{}\n".into())));
        assert_eq!(read(&a.join("link.jsonl")), Some((8, "{\"x\":1}\n".into())));
        assert_eq!(read(&b.join("2.jsonl")), Some((8, "{\"x\":1}\n".into())));
        // Back in the first folder, after the handle moved on.
        assert_eq!(read(&a.join("1.jsonl")), Some((3, "{}\n".into())));
        assert_eq!(read(&a.join("fifo.jsonl")), None);
        assert_eq!(read(&a.join("missing.jsonl")), None);
        assert_eq!(read(&b), None);
        assert_eq!(read(tmp.path()), None);
        // A name with no folder before it is looked at from where ndjq runs.
        let cwd = std::env::current_dir().expect("cwd");
        let here = Path::new("Cargo.toml");
        assert_eq!(
            folder.regular_file(here).map(|(n, _)| n),
            Some(fs::metadata(cwd.join(here)).expect("metadata").len())
        );
        // Opening a name that is gone names the whole path, as opening the path does.
        let gone = a.join("gone.jsonl");
        let handle = folder.regular_file(&a.join("1.jsonl")).and_then(|(_, d)| d);
        assert!(handle.is_some(), "a folder handle");
        let by_name = open_in(handle.as_deref(), &gone)
            .expect_err("gone")
            .to_string();
        let by_path = open_file(&gone).expect_err("gone").to_string();
        assert_eq!(by_name, by_path);
        assert!(by_name.contains(&gone.display().to_string()), "{by_name}");
    }

    /// A folder is listed when the walk reaches it, not before: a reader starts on the
    /// first files while the rest of the tree is unlisted.
    #[test]
    fn a_walk_lists_each_folder_when_it_gets_there() {
        let (tmp, a, b) = two_folders("{}\n");
        let mut walk = Walk::new(&[tmp.path().to_path_buf()]);
        let first = walk.next().expect("a source").expect("a file");
        assert_eq!(first, Source::File(a.join("1.jsonl")));
        // Made after the walk started: seen, because `b` is listed only now.
        fs::write(b.join("3.jsonl"), "{}\n").expect("write");
        let rest: Vec<Source> = walk.map(|s| s.expect("a file")).collect();
        assert_eq!(
            rest,
            vec![
                Source::File(b.join("2.jsonl")),
                Source::File(b.join("3.jsonl"))
            ]
        );
        // A folder with no log file under it is an error in its place.
        let empty = tmp.path().join("empty");
        fs::create_dir_all(&empty).expect("mkdir");
        let sources: Vec<_> = Walk::new(std::slice::from_ref(&empty)).collect();
        assert!(matches!(
            sources.as_slice(),
            [Err(Error::NoLogs { path })] if *path == empty
        ));
    }

    #[test]
    fn log_files_are_recognised_by_suffix() {
        for yes in [
            "a.jsonl",
            "b.ndjson",
            "c.json",
            "d.jsonl.gz",
            "e.ndjson.zst",
            "f.json.gz",
        ] {
            assert!(is_log_file(Path::new(yes)), "{yes}");
        }
        for no in [
            "a.txt",
            "jsonl",
            ".jsonl",
            "a.jsonl.bak",
            "a.gz",
            ".jsonl.gz",
            "a.gz.jsonl.txt",
        ] {
            assert!(!is_log_file(Path::new(no)), "{no}");
        }
    }

    #[test]
    fn compressed_input_is_recognised_by_magic_bytes() {
        let text = b"{\"a\":1}\n{\"b\":2}\n";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text).expect("gzip");
        let gz = gz.finish().expect("gzip");
        let zst = zstd::encode_all(&text[..], 1).expect("zstd");
        for input in [text.to_vec(), gz, zst] {
            let mut out = Vec::new();
            decompress(&input[..])
                .expect("open")
                .read_to_end(&mut out)
                .expect("read");
            assert_eq!(out, text);
        }
    }
}
