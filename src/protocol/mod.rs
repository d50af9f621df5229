//! Bytes in, bytes out: line framing and parsing, typed commands, the reply writer, and the
//! front ends (GTP, Gomocup, the Hex course-referee protocol) that connect a session to a byte
//! stream. Only this module writes protocol output.

pub mod command;
pub mod gomocup;
pub mod gtp;
pub mod line;
pub mod referee;
