//! The engine as a GUI sees it, shared by the subprocess test files: a child process on pipes
//! whose replies are collected whole, with a deadline on every wait, so a hang fails a test
//! instead of stalling the suite. No assertion here is about speed.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long any wait for the engine may take before the test fails.
pub const DEADLINE: Duration = Duration::from_secs(30);

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<String>,
}

impl Engine {
    /// Starts `ponder ARGS`. Logging is off unless the arguments ask for it (`-v`), so a test
    /// can check that it never reaches stdout.
    pub fn start(args: &[&str]) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ponder"));
        command.args(args);
        if !args.iter().any(|arg| arg.starts_with("-v")) {
            command.env("RUST_LOG", "off");
        }
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take();
        let (sender, replies) = channel();
        // Collects whole replies: lines up to the blank line that ends each one.
        std::thread::spawn(move || {
            let mut reply = String::new();
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if line.is_empty() {
                    if sender.send(std::mem::take(&mut reply)).is_err() {
                        break;
                    }
                } else {
                    if !reply.is_empty() {
                        reply.push('\n');
                    }
                    reply.push_str(&line);
                }
            }
        });
        Engine { child, stdin, replies }
    }

    pub fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// The next whole reply, or `None` when none comes within `deadline`.
    pub fn reply_within(&self, deadline: Duration) -> Option<String> {
        match self.replies.recv_timeout(deadline) {
            Ok(reply) => Some(reply),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("the engine closed stdout"),
        }
    }

    /// Whether no reply comes within `deadline` (the engine may also have closed stdout).
    pub fn stays_silent_for(&self, deadline: Duration) -> bool {
        self.replies.recv_timeout(deadline).is_err()
    }

    pub fn reply(&self) -> String {
        self.reply_within(DEADLINE).unwrap_or_else(|| panic!("no reply within {DEADLINE:?}"))
    }

    pub fn reply_to(&mut self, text: &str) -> String {
        self.send(text);
        self.reply()
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the process to end; `None` (and the process killed) after `deadline`.
    pub fn exit_within(&mut self, deadline: Duration) -> Option<ExitStatus> {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            if started.elapsed() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits for the process to end; panics after the deadline.
    pub fn wait_for_exit(&mut self) -> ExitStatus {
        self.exit_within(DEADLINE).unwrap_or_else(|| panic!("the engine did not exit within {DEADLINE:?}"))
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
