//! Exact and threat solvers. They know the games only through the game modules' public API.

pub mod hex_solver;
pub mod hex_vc;
