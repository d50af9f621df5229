//! Exact and threat solvers. Each knows its game only through the game module's public API; the
//! engine calls them through `ponder-solve`, at the root of a move, and as search hints.

pub mod connect4;
pub mod gomoku_lambda;
pub mod gomoku_tactics;
pub mod gomoku_vcf;
pub mod hex_edge_patterns;
pub mod hex_ice;
pub mod hex_resistance;
pub mod hex_solver;
pub mod hex_tree_knowledge;
pub mod hex_vc;
pub mod reversi_endgame;
