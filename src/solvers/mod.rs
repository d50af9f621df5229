//! Exact and threat solvers. They know the games only through the public API of `crate::games`.

pub mod connect4;
