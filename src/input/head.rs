//! A file's head fingerprint: what tells a file that grew from a file that was replaced
//! by another at the same place (docs/REFERENCE.md, "Following").
//!
//! A file system hands a new file the inode of one deleted a moment before (ext4 does at
//! once), so a device and inode alone do not tell the new file from the old one grown. A
//! file's first bytes do: a log is appended to, never rewritten, so the bytes read from it
//! stay what they were. [`Head`] keeps a hash of the first bytes read (up to [`HEAD_MAX`]);
//! a file whose first bytes hash otherwise is another file, whatever its inode.
//!
//! The hash is SHA-256 cut to 128 bits: stable across builds and versions, so a
//! fingerprint may be stored and compared by a later run.

use sha2::{Digest, Sha256};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// The most bytes of a file's start a [`Head`] covers.
pub const HEAD_MAX: u64 = 4096;

/// The fingerprint of a file's first `len` bytes (`len` at most [`HEAD_MAX`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Head {
    /// The bytes covered.
    pub len: u64,
    /// The first 128 bits of their SHA-256.
    pub hash: [u8; 16],
}

impl Head {
    /// The fingerprint of the first `upto` bytes of `file` (at most [`HEAD_MAX`]; fewer
    /// when the file is shorter: `len` says how many were read). Reads at offset 0
    /// without moving the file's position.
    pub fn of(file: &File, upto: u64) -> io::Result<Head> {
        let want = upto.min(HEAD_MAX) as usize;
        let mut buf = [0u8; HEAD_MAX as usize];
        let mut got = 0;
        while got < want {
            match file.read_at(&mut buf[got..want], got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Head::of_bytes(&buf[..got]))
    }

    /// The fingerprint of `bytes` (the caller's first bytes of a file; only the first
    /// [`HEAD_MAX`] count).
    pub fn of_bytes(bytes: &[u8]) -> Head {
        let bytes = &bytes[..bytes.len().min(HEAD_MAX as usize)];
        let digest = Sha256::digest(bytes);
        let mut hash = [0u8; 16];
        hash.copy_from_slice(&digest[..16]);
        Head {
            len: bytes.len() as u64,
            hash,
        }
    }

    /// Whether `file` still starts with the bytes this fingerprint was taken of: false
    /// when it is shorter or its first `len` bytes differ (another file, or one rewritten).
    pub fn matches(&self, file: &File) -> io::Result<bool> {
        if self.len == 0 {
            return Ok(true);
        }
        Ok(Head::of(file, self.len)? == *self)
    }

    /// Whether reading on to `offset` would cover more than this fingerprint does.
    pub fn grows_to(&self, offset: u64) -> bool {
        self.len < HEAD_MAX && offset > self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_head_tells_a_grown_file_from_a_rewritten_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.jsonl");
        std::fs::write(&path, b"{\"a\":1}\n").expect("write");
        let file = File::open(&path).expect("open");
        let head = Head::of(&file, 8).expect("head");
        assert_eq!(head.len, 8);
        let mut w = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        w.write_all(b"{\"b\":2}\n").expect("append");
        assert!(head.matches(&file).expect("grown"));
        std::fs::write(&path, b"{\"c\":3}\n{\"d\":4}\n").expect("rewrite");
        let file = File::open(&path).expect("open");
        assert!(!head.matches(&file).expect("rewritten"));
        std::fs::write(&path, b"{\"a\"").expect("shorter");
        let file = File::open(&path).expect("open");
        assert!(!head.matches(&file).expect("shorter"));
        // Only the first HEAD_MAX bytes count.
        let long = vec![b'x'; 10_000];
        assert_eq!(Head::of_bytes(&long), Head::of_bytes(&long[..4096]));
        assert!(!Head::of_bytes(&long).grows_to(9_000));
        assert!(Head::of_bytes(&long[..10]).grows_to(11));
    }
}
