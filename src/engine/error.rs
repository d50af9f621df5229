//! The one error type of every engine command, shown to the controller as GTP's exact texts.

use std::fmt;

use crate::protocol::command::CommandError;

/// A failed command, displayed as the exact GTP error text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GtpError {
    UnknownCommand,
    Syntax,
    UnacceptableSize,
    IllegalMove,
    CannotUndo,
    CannotScore,
    UnknownGame,
    UnknownParameter,
    InvalidValue(String),
    /// A solve or search stopped by an interrupt before it had an answer.
    Interrupted,
    CannotLoadFile,
    CannotSaveFile,
    /// `loadsgf`/`savesgf` under `--no-file-commands`.
    FileCommandsOff,
}

impl fmt::Display for GtpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GtpError::UnknownCommand => f.write_str("unknown command"),
            GtpError::Syntax => f.write_str("syntax error"),
            GtpError::UnacceptableSize => f.write_str("unacceptable size"),
            GtpError::IllegalMove => f.write_str("illegal move"),
            GtpError::CannotUndo => f.write_str("cannot undo"),
            GtpError::CannotScore => f.write_str("cannot score"),
            GtpError::UnknownGame => f.write_str("unknown game"),
            GtpError::UnknownParameter => f.write_str("unknown parameter"),
            GtpError::InvalidValue(why) => write!(f, "invalid value: {why}"),
            GtpError::Interrupted => f.write_str("interrupted"),
            GtpError::CannotLoadFile => f.write_str("cannot load file"),
            GtpError::CannotSaveFile => f.write_str("cannot save file"),
            GtpError::FileCommandsOff => f.write_str("file commands are turned off"),
        }
    }
}

impl std::error::Error for GtpError {}

impl From<CommandError> for GtpError {
    fn from(error: CommandError) -> GtpError {
        match error {
            CommandError::Unknown => GtpError::UnknownCommand,
            CommandError::Syntax => GtpError::Syntax,
            CommandError::UnacceptableSize => GtpError::UnacceptableSize,
            CommandError::InvalidValue(why) => GtpError::InvalidValue(why.to_string()),
        }
    }
}
