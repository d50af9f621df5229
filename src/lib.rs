//! ponder: a game engine for Hex, Reversi, Gomoku, Connect Four, NoGo and tic-tac-toe that
//! speaks GTP on stdin/stdout.
//!
//! Data flows one way: bytes → [`protocol`] (preprocess, parse) → command → [`engine`] session
//! → [`games`] / [`search`] → result → [`protocol`] (format) → bytes.

pub mod games;
pub mod solvers;
