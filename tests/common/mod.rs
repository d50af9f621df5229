//! The engine as a GUI sees it, shared by the subprocess test files: a child process on pipes
//! whose replies are collected whole (GTP) or a line at a time (the line protocols), with a
//! deadline on every wait, so a hang fails a test instead of stalling the suite. No assertion
//! here is about speed.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
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
        let mut child = spawn(args, Stdio::null());
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
        exit_within(&mut self.child, deadline)
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

/// Waits for `child` to end; `None` (and the process killed) after `deadline`.
pub fn exit_within(child: &mut Child, deadline: Duration) -> Option<ExitStatus> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Starts `ponder ARGS` with stdin and stdout piped. Logging is off unless the arguments ask for
/// it (`-v`), so a test can check that it never reaches stdout.
fn spawn(args: &[&str], stderr: Stdio) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ponder"));
    command.args(args);
    if !args.iter().any(|arg| arg.starts_with("-v")) {
        command.env("RUST_LOG", "off");
    }
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(stderr).spawn().unwrap()
}

/// The engine under a line protocol (Gomocup, the course referee's): every answer is one line,
/// read on a thread of its own; stderr is collected on another, for the test to read once the
/// process has ended.
pub struct LineEngine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl LineEngine {
    pub fn start(args: &[&str]) -> LineEngine {
        let mut child = spawn(args, Stdio::piped());
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take();
        let mut stderr_pipe = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr_pipe.read_to_string(&mut text);
            text
        });
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        LineEngine { child, stdin, lines, stderr: Some(stderr) }
    }

    /// Sends `line` and its newline.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line of stdout; panics after [`DEADLINE`] or when stdout is closed.
    pub fn line(&self) -> String {
        match self.lines.recv_timeout(DEADLINE) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no line within {DEADLINE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the engine closed stdout"),
        }
    }

    /// Whether no line comes within `deadline` (the engine may also have closed stdout).
    pub fn stays_silent_for(&self, deadline: Duration) -> bool {
        self.lines.recv_timeout(deadline).is_err()
    }

    /// Closes stdin and waits for the process to end (panics after [`DEADLINE`]): its exit
    /// status and all it wrote on stderr.
    pub fn end(&mut self) -> (ExitStatus, String) {
        self.stdin = None;
        let status = exit_within(&mut self.child, DEADLINE)
            .unwrap_or_else(|| panic!("the engine did not exit within {DEADLINE:?}"));
        let stderr = self.stderr.take().map(|reader| reader.join().unwrap()).unwrap_or_default();
        (status, stderr)
    }
}

impl Drop for LineEngine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
