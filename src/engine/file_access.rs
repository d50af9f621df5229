//! Safe file reading and writing for the commands and tools that take a path from their user:
//! `loadsgf`/`savesgf` (a GUI, or whoever is on the other end of a bridge, names the path) and
//! the file arguments of `ponder solve` and `ponder match`.
//!
//! Reading opens regular files only (a FIFO would block forever, a device never end) and stops
//! at a size cap while reading. Writing goes to a new temporary file in the target's directory,
//! renamed into place, and only ever replaces a regular file that already holds an SGF game
//! tree, so a mistaken or hostile path cannot destroy anything else.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// Where `loadsgf` and `savesgf` may read and write (`--files-dir`, `--no-file-commands`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum FileAccess {
    /// Any path the process may open (the file checks still apply).
    #[default]
    Anywhere,
    /// Only files inside this directory (canonical); relative paths are relative to it.
    Confined(PathBuf),
    /// The file commands are turned off.
    Off,
}

impl FileAccess {
    /// Confinement to `dir`, which must be an existing directory.
    ///
    /// # Errors
    /// A message when `dir` does not exist or is not a directory.
    pub fn confined_to(dir: &Path) -> Result<FileAccess, String> {
        let canonical = dir.canonicalize().map_err(|error| format!("{}: {error}", dir.display()))?;
        if !canonical.is_dir() {
            return Err(format!("{}: not a directory", dir.display()));
        }
        Ok(FileAccess::Confined(canonical))
    }

    /// The path to open for reading `path`: inside the directory when confined, with symbolic
    /// links resolved, so a link cannot lead out.
    ///
    /// # Errors
    /// A message when the path leaves the directory or the commands are off.
    pub fn path_to_read(&self, path: &str) -> Result<PathBuf, String> {
        match self {
            FileAccess::Anywhere => Ok(PathBuf::from(path)),
            FileAccess::Off => Err("file commands are turned off".to_string()),
            FileAccess::Confined(root) => {
                let canonical = root.join(path).canonicalize().map_err(|error| error.to_string())?;
                inside(root, canonical)
            }
        }
    }

    /// The path to write for `path`. The file itself may not exist yet, so its directory is
    /// resolved and checked, and its name must be a plain name.
    ///
    /// # Errors
    /// A message when the path leaves the directory or the commands are off.
    pub fn path_to_write(&self, path: &str) -> Result<PathBuf, String> {
        let root = match self {
            FileAccess::Anywhere => return Ok(PathBuf::from(path)),
            FileAccess::Off => return Err("file commands are turned off".to_string()),
            FileAccess::Confined(root) => root,
        };
        let joined = root.join(path);
        let Some(Component::Normal(name)) = joined.components().next_back() else {
            return Err("not a file name".to_string());
        };
        let parent = joined.parent().unwrap_or(root).canonicalize().map_err(|error| error.to_string())?;
        inside(root, parent.join(name))
    }
}

fn inside(root: &Path, path: PathBuf) -> Result<PathBuf, String> {
    if path.starts_with(root) { Ok(path) } else { Err(format!("outside the files directory {}", root.display())) }
}

/// Opens `path` for reading only when it is a regular file, without blocking on a FIFO that
/// appears between the check and the open.
fn open_regular(path: &Path) -> Result<File, String> {
    let metadata = std::fs::metadata(path).map_err(|error| error.to_string())?;
    if !metadata.is_file() {
        return Err("not a regular file".to_string());
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: opening a FIFO swapped in after the check returns at once instead of
        // waiting for a writer; regular files ignore the flag.
        const O_NONBLOCK: i32 = 0o4000;
        options.custom_flags(O_NONBLOCK);
    }
    let file = options.open(path).map_err(|error| error.to_string())?;
    if !file.metadata().map_err(|error| error.to_string())?.is_file() {
        return Err("not a regular file".to_string());
    }
    Ok(file)
}

/// Reads a regular file of at most `cap` bytes; the cap holds while reading, so a file that
/// grows meanwhile cannot exceed it.
///
/// # Errors
/// A message for a missing or unreadable file, one that is not a regular file (directory,
/// FIFO, device) or one larger than `cap`.
pub fn read_regular_file(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|error| error.to_string())?;
    if bytes.len() as u64 > cap {
        return Err(format!("larger than {cap} bytes"));
    }
    Ok(bytes)
}

/// Whether the text starts (after white space and a byte-order mark) with an SGF game tree.
fn looks_like_sgf(start: &[u8]) -> bool {
    let start = start.strip_prefix(b"\xef\xbb\xbf").unwrap_or(start);
    let mut rest = start.iter().skip_while(|b| b.is_ascii_whitespace());
    rest.next() == Some(&b'(') && rest.find(|b| !b.is_ascii_whitespace()) == Some(&b';')
}

/// Writes `text` to `path` through a new temporary file in the same directory, renamed into
/// place. An existing `path` is replaced only when it is a regular file (not a link) whose
/// first non-blank characters are `(;`, an SGF game tree.
///
/// # Errors
/// A message when the target exists and is not an SGF file, or writing fails; nothing at
/// `path` has changed then.
pub fn write_sgf_file(path: &Path, text: &str) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if !metadata.file_type().is_file() => return Err("exists and is not a regular file".to_string()),
        Ok(_) => {
            let mut start = Vec::new();
            open_regular(path)?.take(4096).read_to_end(&mut start).map_err(|error| error.to_string())?;
            if !looks_like_sgf(&start) {
                return Err("exists and is not an SGF file".to_string());
            }
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(error.to_string()),
    }
    let name = path.file_name().ok_or("not a file name")?;
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (temporary, mut file) = create_temporary(&directory, &name.to_string_lossy())?;
    let written = file.write_all(text.as_bytes()).and_then(|()| file.sync_all());
    drop(file);
    let renamed = written.and_then(|()| std::fs::rename(&temporary, path));
    if let Err(error) = renamed {
        let _ = std::fs::remove_file(&temporary);
        return Err(error.to_string());
    }
    Ok(())
}

/// A new file next to the target, created exclusively (never through an existing file or link).
fn create_temporary(directory: &Path, name: &str) -> Result<(PathBuf, File), String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut last_error = String::new();
    for _ in 0..16 {
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temporary = directory.join(format!(".{name}.{}-{unique}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&temporary) {
            Ok(file) => return Ok((temporary, file)),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => last_error = error.to_string(),
            Err(error) => return Err(error.to_string()),
        }
    }
    Err(last_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgf_texts_are_recognised() {
        assert!(looks_like_sgf(b"(;FF[4])"));
        assert!(looks_like_sgf(b"\xef\xbb\xbf\n ( \n;GM[1]"));
        assert!(!looks_like_sgf(b""));
        assert!(!looks_like_sgf(b"root:x:0:0"));
        assert!(!looks_like_sgf(b"junk (;GM[1])"));
        assert!(!looks_like_sgf(b"("));
    }

    #[test]
    fn confinement_keeps_paths_inside() {
        let root = std::env::temp_dir().canonicalize().unwrap();
        let access = FileAccess::Confined(root.clone());
        assert_eq!(access.path_to_write("game.sgf").unwrap(), root.join("game.sgf"));
        assert!(access.path_to_write("../game.sgf").is_err());
        assert!(access.path_to_write("/etc/passwd").is_err());
        assert!(access.path_to_write("a/..").is_err());
        assert!(access.path_to_read("/etc/passwd").is_err());
        assert!(FileAccess::Off.path_to_read("x").is_err());
    }
}
