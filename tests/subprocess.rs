//! The engine as a GUI sees it: a child process on pipes. Every wait has a generous deadline, so
//! a hang fails the test instead of stalling the suite; no assertion is about speed.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(30);

struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<String>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ponder"));
        command.args(args);
        // Logging stays on where a test asks for it (-v), to check it never reaches stdout.
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

    fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn reply(&self) -> String {
        match self.replies.recv_timeout(DEADLINE) {
            Ok(reply) => reply,
            Err(RecvTimeoutError::Timeout) => panic!("no reply within {DEADLINE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the engine closed stdout"),
        }
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the process to end; panics after the deadline.
    fn wait_for_exit(&mut self) -> std::process::ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if started.elapsed() > DEADLINE {
                let _ = self.child.kill();
                panic!("the engine did not exit within {DEADLINE:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn end_of_input_ends_the_engine_cleanly() {
    let mut engine = Engine::start(&["--game", "tictactoe"]);
    engine.send("name\nplay b b2\n");
    engine.close_stdin();
    assert_eq!(engine.reply(), "= ponder");
    assert_eq!(engine.reply(), "= ");
    assert!(engine.wait_for_exit().success());
}

#[test]
fn quit_answers_and_exits() {
    let mut engine = Engine::start(&[]);
    engine.send("7 quit\nname\n");
    assert_eq!(engine.reply(), "=7 ");
    assert!(engine.wait_for_exit().success());
    assert!(engine.replies.recv_timeout(Duration::from_secs(1)).is_err(), "nothing after quit");
}

#[test]
fn a_thousand_pipelined_commands_are_answered_in_order() {
    let mut engine = Engine::start(&["--game", "tictactoe", "--seed", "5", "--max-visits", "50"]);
    let mut script = String::new();
    for id in 0..1000 {
        match id % 4 {
            0 => script.push_str(&format!("{id} clear_board\n")),
            1 => script.push_str(&format!("{id} play b b2\n")),
            2 => script.push_str(&format!("{id} genmove w\n")),
            _ => script.push_str(&format!("{id} known_command undo\n")),
        }
    }
    engine.send(&script);
    for id in 0..1000 {
        let reply = engine.reply();
        let expected_prefix = format!("={id} ");
        assert!(reply.starts_with(&expected_prefix), "reply {id}: {reply:?}");
        if id % 4 == 3 {
            assert_eq!(reply, format!("={id} true"));
        }
    }
}

#[test]
fn interrupt_ends_an_unlimited_genmove_with_a_move() {
    let mut engine = Engine::start(&["--game", "gomoku", "--max-visits", "0", "--max-time", "0"]);
    engine.send("genmove b\n");
    std::thread::sleep(Duration::from_millis(300));
    engine.send("# interrupt\n");
    let reply = engine.reply();
    assert!(reply.starts_with("= ") && reply.len() > 3, "{reply:?}");
    // The interrupt was for that genmove only: the next search runs to its own limit.
    engine.send("param_search max_visits 200\ngenmove w\nponder-stats\n");
    assert_eq!(engine.reply(), "= ");
    assert!(engine.reply().starts_with("= "));
    let stats = engine.reply();
    let root_visits: u64 = stats.lines().find_map(|l| l.strip_prefix("root_visits ")).unwrap().parse().unwrap();
    assert!(root_visits >= 200, "{stats}");
}

#[test]
fn an_interrupt_read_before_its_genmove_starts_is_kept() {
    let mut engine = Engine::start(&["--game", "gomoku", "--max-visits", "0", "--max-time", "0"]);
    // Both lines arrive at once: the reader sees the interrupt before the search begins.
    engine.send("genmove b\n# interrupt\n");
    assert!(engine.reply().starts_with("= "));
}

#[test]
fn end_of_input_during_an_unlimited_search_exits() {
    let mut engine = Engine::start(&["--game", "gomoku", "--max-visits", "0", "--max-time", "0"]);
    engine.send("genmove b\n");
    std::thread::sleep(Duration::from_millis(200));
    engine.close_stdin();
    assert!(engine.wait_for_exit().success());
}

#[test]
fn stdout_carries_only_protocol_text() {
    let mut engine = Engine::start(&["--game", "tictactoe", "--max-visits", "2000", "-vv"]);
    engine.send("genmove b\nshowboard\n");
    engine.close_stdin();
    let first = engine.reply();
    assert!(first.starts_with("= ") && first.len() == 4, "{first:?}");
    assert!(engine.reply().starts_with("= \n   A B C"));
    assert!(engine.wait_for_exit().success());
}
