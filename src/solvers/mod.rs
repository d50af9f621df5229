//! Exact and threat solvers. Each knows its game only through the game module's public API;
//! the engine calls them at the root and as search hints.

pub mod gomoku_vcf;
