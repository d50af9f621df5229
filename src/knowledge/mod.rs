//! Per-game trained knowledge: features, the weights file format and its loader, evaluations.
//! Used by the searches and solvers, never by `games/`.

pub mod gomoku_eval;
pub mod gomoku_order;
pub mod gomoku_patterns;
pub mod hex_patterns;
pub mod hex_swap;
pub mod prior_mapping;
pub mod reversi_eval;
pub mod reversi_patterns;
pub mod weights_format;
