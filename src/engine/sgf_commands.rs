//! SGF commands: `loadsgf FILE [MOVE_NUMBER]`, `printsgf`, `savesgf FILE`. A file that cannot be
//! read or played is answered `cannot load file`, one that cannot be written `cannot save file`
//! (the reason goes to the log on stderr); either leaves the session and the file system as
//! they were. The file rules (regular files only, a size cap, SGF files only replaced) are in
//! [`super::file_access`].

use super::file_access::{FileAccess, read_regular_file, write_sgf_file};
use super::game_record::{load_record, record_of};
use super::{GtpError, Session};
use crate::sgf::Record;

/// The largest SGF file `loadsgf` reads; a game record is a few kilobytes, and a cap keeps a
/// mistaken path (a device, a huge file) from stalling the engine.
pub const MAX_SGF_BYTES: u64 = 16 << 20;

impl Session {
    /// Where the file commands may read and write; [`FileAccess::Off`] turns them off (they
    /// then leave `list_commands`).
    pub fn set_file_access(&mut self, access: FileAccess) {
        self.file_access = access;
    }

    /// `loadsgf`: the position of the file's main line before move `move_number` (all moves
    /// when absent), in the game the file is for (the current game when it names none).
    /// Replaces the current game and its tree.
    pub(super) fn load_sgf(&mut self, path: &str, move_number: Option<usize>) -> Result<String, GtpError> {
        if self.file_access == FileAccess::Off {
            return Err(GtpError::FileCommandsOff);
        }
        let fail = |reason: String| {
            log::warn!("loadsgf {path}: {reason}");
            GtpError::CannotLoadFile
        };
        let resolved = self.file_access.path_to_read(path).map_err(fail)?;
        let text = read_regular_file(&resolved, MAX_SGF_BYTES).map_err(fail)?;
        let record = Record::from_sgf(&String::from_utf8_lossy(&text)).map_err(|error| fail(error.to_string()))?;
        self.game = load_record(&record, move_number, self.game.name(), &self.settings.params).map_err(fail)?;
        Ok(String::new())
    }

    /// `printsgf`: the current game as an SGF text.
    pub(super) fn print_sgf(&self) -> String {
        record_of(self.game()).to_sgf().trim_end().to_string()
    }

    /// `savesgf`: writes the current game to a file, replacing only an SGF file.
    pub(super) fn save_sgf(&self, path: &str) -> Result<String, GtpError> {
        if self.file_access == FileAccess::Off {
            return Err(GtpError::FileCommandsOff);
        }
        let fail = |reason: String| {
            log::warn!("savesgf {path}: {reason}");
            GtpError::CannotSaveFile
        };
        let resolved = self.file_access.path_to_write(path).map_err(fail)?;
        write_sgf_file(&resolved, &record_of(self.game()).to_sgf()).map_err(fail)?;
        Ok(String::new())
    }
}
