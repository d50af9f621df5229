//! The front ends: each reads its protocol's lines from a byte stream, drives the engine's
//! [`Session`](crate::engine::Session) through typed commands, and writes the replies. Only
//! these modules touch stdin and stdout.

pub mod gomocup;
pub mod gtp;
pub mod nboard;
pub mod referee;

/// Test input that stays open (blocks) until the test drops the sender, like a GUI's pipe.
#[cfg(test)]
pub(crate) struct OpenInput(pub std::sync::mpsc::Receiver<Vec<u8>>, pub Vec<u8>);

#[cfg(test)]
impl std::io::Read for OpenInput {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.1.is_empty() {
            match self.0.recv() {
                Ok(bytes) => self.1 = bytes,
                Err(_) => return Ok(0),
            }
        }
        let count = buffer.len().min(self.1.len());
        buffer[..count].copy_from_slice(&self.1[..count]);
        self.1.drain(..count);
        Ok(count)
    }
}
