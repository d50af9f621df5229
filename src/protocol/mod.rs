//! Bytes in, bytes out: line framing and parsing, typed commands, the reply writer, and the
//! front ends that connect a session to a byte stream. Only this module writes protocol output.

pub mod command;
pub mod gtp;
pub mod line;
