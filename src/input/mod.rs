//! Inputs: the paths given on the command line resolved into sources (files, folders walked
//! in sorted order, `-` for stdin), and decompression of gzip and zstd by magic bytes.
//!
//! Nothing here reads stdin by itself: the caller hands the stdin reader in, so the same
//! code serves tests and the binary.

pub mod child;
pub mod follow;

use crate::error::Error;
use std::fs;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One input to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Stdin,
    File(PathBuf),
}

impl Source {
    /// The name diagnostics use: the path as given, or `-` for stdin.
    pub fn display_name(&self) -> Arc<str> {
        match self {
            Source::Stdin => Arc::from("-"),
            Source::File(p) => Arc::from(p.display().to_string()),
        }
    }
}

/// File name endings collected from folders.
const LOG_SUFFIXES: &[&str] = &[".jsonl", ".ndjson", ".json"];
const COMPRESSED_SUFFIXES: &[&str] = &["", ".gz", ".zst"];

/// Whether a file found in a folder is one ndjq reads.
pub fn is_log_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    COMPRESSED_SUFFIXES.iter().any(|c| {
        name.strip_suffix(c).is_some_and(|stem| {
            LOG_SUFFIXES
                .iter()
                .any(|s| stem.len() > s.len() && stem.ends_with(s))
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
#[derive(Debug)]
pub struct Walk {
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
        let paths = if paths.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            paths.to_vec()
        };
        Walk {
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
            if kind.is_dir() {
                self.stack.push(list(&path).into_iter());
            } else if is_log_file(&path) {
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
            } else if p.is_dir() {
                self.stack.push(list(&p).into_iter());
                self.top = Some((p, false));
            } else {
                return Some(Ok(Source::File(p)));
            }
        }
    }
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
fn kind_name(kind: fs::FileType) -> &'static str {
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

/// Whether `head`, the start of an input, is gzip or zstd (by their magic bytes).
pub fn is_compressed(head: &[u8]) -> bool {
    head.starts_with(GZIP_MAGIC) || head.starts_with(ZSTD_MAGIC)
}

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];

/// Wraps a reader so gzip and zstd input (recognised by magic bytes, so stdin works too)
/// comes out decompressed; anything else passes unchanged.
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
    } else {
        Ok(Box::new(buffered))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A folder is listed when the walk reaches it, not before: a reader starts on the
    /// first files while the rest of the tree is unlisted.
    #[test]
    fn a_walk_lists_each_folder_when_it_gets_there() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        fs::create_dir_all(&a).expect("mkdir");
        fs::create_dir_all(&b).expect("mkdir");
        fs::write(a.join("1.jsonl"), "{}\n").expect("write");
        fs::write(b.join("2.jsonl"), "{}\n").expect("write");
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
