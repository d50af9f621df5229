//! Lines in, lines out: GTP framing and parsing, typed commands, the reply writer. Nothing here
//! reads or writes a stream or knows the engine; the front ends in [`crate::frontends`] do that.

pub mod command;
pub mod ggf;
pub mod line;
pub mod time_control;
