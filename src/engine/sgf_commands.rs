//! SGF commands: `loadsgf FILE [MOVE_NUMBER]`, `printsgf`, `savesgf FILE`. A file that cannot be
//! read or played is answered `cannot load file` (the reason goes to the log on stderr) and
//! leaves the session unchanged.

use super::game_record::{load_record, record_of};
use super::{GtpError, Session};
use crate::sgf::Record;

/// The largest SGF file `loadsgf` reads; a game record is a few kilobytes, and a cap keeps a
/// mistaken path (a device, a huge file) from stalling the engine.
const MAX_SGF_BYTES: u64 = 16 << 20;

fn read_capped(path: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|error| error.to_string())?;
    let mut text = Vec::new();
    file.take(MAX_SGF_BYTES + 1).read_to_end(&mut text).map_err(|error| error.to_string())?;
    if text.len() as u64 > MAX_SGF_BYTES {
        return Err(format!("larger than {MAX_SGF_BYTES} bytes"));
    }
    Ok(text)
}

impl Session {
    /// `loadsgf`: the position of the file's main line before move `move_number` (all moves
    /// when absent), in the game the file is for. Replaces the current game and its tree.
    pub(super) fn load_sgf(&mut self, path: &str, move_number: Option<usize>) -> Result<String, GtpError> {
        let fail = |reason: String| {
            log::warn!("loadsgf {path}: {reason}");
            GtpError::CannotLoadFile
        };
        let text = read_capped(path).map_err(fail)?;
        let record = Record::from_sgf(&String::from_utf8_lossy(&text)).map_err(|error| fail(error.to_string()))?;
        self.game = load_record(&record, move_number, &self.settings.params).map_err(fail)?;
        Ok(String::new())
    }

    /// `printsgf`: the current game as an SGF text.
    pub(super) fn print_sgf(&self) -> String {
        record_of(self.game()).to_sgf().trim_end().to_string()
    }

    /// `savesgf`: writes the current game to a file.
    pub(super) fn save_sgf(&self, path: &str) -> Result<String, GtpError> {
        std::fs::write(path, record_of(self.game()).to_sgf()).map_err(|error| {
            log::warn!("savesgf {path}: {error}");
            GtpError::CannotSaveFile
        })?;
        Ok(String::new())
    }
}
