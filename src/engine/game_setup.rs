//! Handlers that choose the game and set up the board: `set_game`, `boardsize`, `clear_board`,
//! `param_game`, `set_position`.

use super::{GtpError, Session, find_game};
use crate::games::{Color, Param, ParamKind};
use crate::protocol::command::ParamRequest;

/// Formats parameters as GoGui's parameter dialog reads them: `[bool] name 0` or
/// `[string] name value`, one a line.
/// The reply to a `param_*` command over `params`: the list, one value, or the result of `set`.
pub(super) fn answer_param_request(
    params: &[Param],
    request: ParamRequest,
    set: impl FnOnce(&str, &str) -> Result<(), GtpError>,
) -> Result<String, GtpError> {
    match request {
        ParamRequest::List => Ok(format_params(params)),
        ParamRequest::Get(name) => {
            let param = params.iter().find(|p| p.name == name).ok_or(GtpError::UnknownParameter)?;
            Ok(param.value.clone())
        }
        ParamRequest::Set(name, value) => set(&name, &value).map(|()| String::new()),
    }
}

pub(super) fn format_params(params: &[Param]) -> String {
    params
        .iter()
        .map(|param| {
            let kind = match param.kind {
                ParamKind::Bool => "bool",
                ParamKind::Int | ParamKind::String => "string",
            };
            format!("[{kind}] {} {}", param.name, param.value)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Session {
    /// `set_game NAME`: switches game with a fresh board and tree; the same game is a no-op
    /// apart from clearing the board.
    pub(super) fn set_game(&mut self, name: &str) -> Result<String, GtpError> {
        let entry = find_game(name).ok_or(GtpError::UnknownGame)?;
        if entry.name == self.game.name() {
            self.game.clear_board();
        } else {
            self.game = (entry.create)(&self.settings.params);
        }
        Ok(String::new())
    }

    /// `boardsize N` / `boardsize W H` / `rectangular_boardsize W H`.
    pub(super) fn set_board_size(&mut self, width: usize, height: usize) -> Result<String, GtpError> {
        if self.gogui_shows_board_as(width, height) {
            self.game.clear_board();
        } else {
            self.game.set_size(width, height)?;
        }
        Ok(String::new())
    }

    pub(super) fn clear_board(&mut self) -> Result<String, GtpError> {
        self.game.clear_board();
        Ok(String::new())
    }

    /// `param_game`: lists, reads or sets a variant parameter. Setting one starts a new game.
    pub(super) fn param_game(&mut self, request: ParamRequest) -> Result<String, GtpError> {
        answer_param_request(&self.game.params(), request, |name, value| self.game.set_param(name, value))
    }

    /// `set_position COLOR VERTEX ...` (KataGo): an empty board with these stones, no history.
    pub(super) fn set_position(&mut self, stones: &[(Color, String)]) -> Result<String, GtpError> {
        self.game.set_position(stones)?;
        Ok(String::new())
    }
}
