//! ponder: a game engine for Hex, Reversi, Gomoku, Connect Four, NoGo and tic-tac-toe that
//! speaks GTP on stdin/stdout.
//!
//! Data flows one way: bytes → [`protocol`] (preprocess, parse) → command → [`engine`] session
//! → [`games`] / [`search`] / [`solvers`] → result → [`protocol`] (format) → bytes.

pub mod bench;
pub mod engine;
pub mod games;
pub mod protocol;
pub mod search;
pub mod solvers;
