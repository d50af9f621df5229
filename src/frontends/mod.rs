//! The front ends: each reads its protocol's lines from a byte stream, drives the engine's
//! [`Session`](crate::engine::Session) through typed commands, and writes the replies. Only
//! these modules touch stdin and stdout.

pub mod gomocup;
pub mod gtp;
pub mod nboard;
pub mod referee;
