//! Where stores are: the names OpenCode gives them, and the folders it keeps them in.

use super::legacy::is_legacy_storage;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Whether a file found in a folder walk is named as OpenCode names its stores:
/// `opencode.db`, `opencode-<channel>.db`.
pub fn is_store_name(path: &Path) -> bool {
    path.file_name()
        .map(|n| n.as_encoded_bytes())
        .is_some_and(|n| n.starts_with(b"opencode") && n.ends_with(b".db"))
}

/// Where OpenCode keeps its stores, those that exist: `$OPENCODE_DB` when set, else every
/// `opencode*.db` in `$XDG_DATA_HOME/opencode` (or `~/.local/share/opencode`), sorted, or
/// when there is none, the `storage` folder of OpenCode before 1.2.
/// Also the place looked in, as people read it (`~` for the home folder).
pub fn default_stores(
    var: impl Fn(&str) -> Option<OsString>,
    home: Option<&Path>,
) -> (Vec<PathBuf>, Option<PathBuf>) {
    let set = |k: &str| var(k).filter(|v| !v.is_empty());
    if let Some(db) = set("OPENCODE_DB") {
        let db = PathBuf::from(db);
        let found = if db.is_file() {
            vec![db.clone()]
        } else {
            Vec::new()
        };
        return (found, Some(db));
    }
    let data = set("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".local/share")));
    let Some(dir) = data.map(|d| d.join("opencode")) else {
        return (Vec::new(), None);
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| is_store_name(p) && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    // OpenCode before 1.2: its JSON files, where there is no database.
    let storage = dir.join("storage");
    if found.is_empty() && is_legacy_storage(&storage) {
        found.push(storage);
    }
    (found, Some(dir.join("opencode*.db")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_are_found_by_name() {
        for yes in ["opencode.db", "opencode-next.db", "/a/b/opencode-beta.db"] {
            assert!(is_store_name(Path::new(yes)), "{yes}");
        }
        for no in [
            "opencode.db-wal",
            "opencode.db-shm",
            "other.db",
            "opencode.json",
        ] {
            assert!(!is_store_name(Path::new(no)), "{no}");
        }
    }
}
