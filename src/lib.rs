//! ponder: a game engine for Hex, Reversi, Gomoku, Connect Four, NoGo and tic-tac-toe that
//! speaks GTP on stdin/stdout.
//!
//! Data flows one way: bytes → [`frontends`] → [`protocol`] (preprocess, parse) → command →
//! [`engine`] session → [`games`] / [`search`] / [`solvers`] / [`knowledge`] → result →
//! [`protocol`] (format) → [`frontends`] → bytes.

pub mod bench;
pub mod engine;
pub mod frontends;
pub mod games;
pub mod knowledge;
pub mod protocol;
pub mod referee;
pub mod search;
pub mod sgf;
pub mod solvers;
pub mod train;
