//! A GTP engine as a child process: commands go to its stdin, a named reader thread turns its
//! stdout into lines, and every answer is awaited with a deadline, so a hung or crashed engine
//! costs a game, never the match.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Why an engine gave no usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFailure {
    /// No complete answer before the deadline.
    Timeout,
    /// The process ended or closed its pipes; the text says what was seen.
    Crashed(String),
    /// The engine's output is not GTP (an answer line without `=` or `?`).
    Protocol(String),
}

impl std::fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineFailure::Timeout => f.write_str("no answer in time"),
            EngineFailure::Crashed(what) => write!(f, "crashed ({what})"),
            EngineFailure::Protocol(line) => write!(f, "answered outside GTP: {line:?}"),
        }
    }
}

/// Splits a command line into words on white space, keeping quoted parts (`"…"` or `'…'`)
/// together; a backslash outside single quotes takes the next character literally.
///
/// # Errors
/// A message for an unclosed quote or an empty command line.
pub fn split_command_line(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => word.push(c),
            (_, '\\') => {
                word.push(chars.next().ok_or("a command line ends in a backslash")?);
                in_word = true;
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(format!("unclosed quote in command line {line:?}"));
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("empty command line".to_string());
    }
    Ok(words)
}

/// A running GTP engine.
pub struct GtpEngine {
    command_line: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// The commands from `list_commands`.
    commands: Vec<String>,
    /// The engine's `name` (and `version` when it has one).
    name: String,
    /// Set once a command failed for want of an answer: the engine is out of step.
    broken: bool,
}

impl GtpEngine {
    /// Starts the engine and asks for its name, version and commands, each within `deadline`.
    /// Its stderr goes to ours when `show_stderr`, else nowhere.
    ///
    /// # Errors
    /// A message when the command line is malformed, the program does not start, or it does not
    /// answer `name`.
    pub fn start(command_line: &str, show_stderr: bool, deadline: Duration) -> Result<GtpEngine, String> {
        let words = split_command_line(command_line)?;
        let mut child = Command::new(&words[0])
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if show_stderr { Stdio::inherit() } else { Stdio::null() })
            .spawn()
            .map_err(|error| format!("cannot start {command_line:?}: {error}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or("no stdout pipe")?;
        let (sender, lines) = channel();
        std::thread::Builder::new()
            .name("engine-reader".to_string())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(|error| format!("cannot start a reader thread: {error}"))?;
        let mut engine = GtpEngine {
            command_line: command_line.to_string(),
            child,
            stdin,
            lines,
            commands: Vec::new(),
            name: String::new(),
            broken: false,
        };
        let describe = |what: &str, failure: String| format!("{command_line:?}: {what}: {failure}");
        let name = match engine.send("name", deadline) {
            Ok(Ok(name)) => name,
            Ok(Err(message)) => return Err(describe("name", message)),
            Err(failure) => return Err(describe("name", failure.to_string())),
        };
        let version = engine.send("version", deadline).ok().and_then(Result::ok).unwrap_or_default();
        engine.name = if version.is_empty() { name } else { format!("{name} {version}") };
        engine.commands = match engine.send("list_commands", deadline) {
            Ok(Ok(list)) => list.lines().map(|line| line.trim().to_string()).collect(),
            _ => Vec::new(),
        };
        Ok(engine)
    }

    /// The command line the engine was started with.
    pub fn command_line(&self) -> &str {
        &self.command_line
    }

    /// The engine's name and version.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether `list_commands` named `command`.
    pub fn knows(&self, command: &str) -> bool {
        self.commands.iter().any(|known| known == command)
    }

    /// Whether the engine missed an answer or died: it must be restarted before the next game.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// Sends one command and waits up to `deadline` for its answer. `Ok(Ok(text))` is a `=`
    /// answer, `Ok(Err(text))` a `?` answer (both without the prefix, lines joined by `\n`).
    ///
    /// # Errors
    /// [`EngineFailure`] when no proper answer came; the engine is then marked broken.
    pub fn send(&mut self, command: &str, deadline: Duration) -> Result<Result<String, String>, EngineFailure> {
        let result = self.exchange(command, deadline);
        if result.is_err() {
            self.broken = true;
        }
        result
    }

    fn exchange(&mut self, command: &str, deadline: Duration) -> Result<Result<String, String>, EngineFailure> {
        if self.broken {
            return Err(EngineFailure::Crashed("out of step after an earlier failure".to_string()));
        }
        let stdin = self.stdin.as_mut().ok_or_else(|| EngineFailure::Crashed("stdin closed".to_string()))?;
        writeln!(stdin, "{command}")
            .and_then(|()| stdin.flush())
            .map_err(|error| EngineFailure::Crashed(format!("writing {command:?}: {error}")))?;
        let end = Instant::now() + deadline;
        let mut answer: Option<(bool, Vec<String>)> = None;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(EngineFailure::Timeout),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.try_wait().ok().flatten();
                    let what = status.map_or("output closed".to_string(), |status| status.to_string());
                    return Err(EngineFailure::Crashed(what));
                }
            };
            let line = line.trim_end_matches('\r');
            match &mut answer {
                None if line.trim().is_empty() => {}
                None => {
                    let success = match line.chars().next() {
                        Some('=') => true,
                        Some('?') => false,
                        _ => return Err(EngineFailure::Protocol(line.to_string())),
                    };
                    // Drop the status character and an optional numeric id.
                    let rest = line[1..].trim_start_matches(|c: char| c.is_ascii_digit());
                    answer = Some((success, vec![rest.trim().to_string()]));
                }
                Some((success, lines)) => {
                    if line.trim().is_empty() {
                        let text = lines.join("\n").trim().to_string();
                        return Ok(if *success { Ok(text) } else { Err(text) });
                    }
                    lines.push(line.to_string());
                }
            }
        }
    }
}

impl Drop for GtpEngine {
    /// Asks the engine to quit, gives it a moment, then kills it.
    fn drop(&mut self) {
        if !self.broken
            && let Some(stdin) = self.stdin.as_mut()
        {
            let _ = writeln!(stdin, "quit").and_then(|()| stdin.flush());
        }
        self.stdin = None;
        let end = Instant::now() + Duration::from_millis(500);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_on_spaces_and_keep_quotes() {
        assert_eq!(split_command_line("ponder --game gomoku").unwrap(), ["ponder", "--game", "gomoku"]);
        assert_eq!(
            split_command_line(r#"python3 "my bot.py" --name 'a "b"' x\ y"#).unwrap(),
            ["python3", "my bot.py", "--name", "a \"b\"", "x y"]
        );
        assert_eq!(split_command_line("a '' b").unwrap(), ["a", "", "b"]);
        assert!(split_command_line("a 'b").is_err());
        assert!(split_command_line("   ").is_err());
    }

    #[test]
    fn answers_are_read_and_failures_reported() {
        // Shell scripts stand in for engines: an answer with an id, two errors, then death.
        let script = r#"sh -c 'read a; printf "=1 fake\n\n"; read b; printf "? nope\n\n"; read c; printf "= a\nb\n\n"; read d; exit 3'"#;
        let mut engine = GtpEngine::start(script, false, Duration::from_secs(5)).unwrap();
        assert_eq!(engine.name(), "fake");
        assert!(engine.knows("b") && !engine.knows("c"));
        assert!(matches!(engine.send("genmove b", Duration::from_secs(5)), Err(EngineFailure::Crashed(_))));
        assert!(engine.is_broken());
        let silent = GtpEngine::start("sh -c 'read a; sleep 3'", false, Duration::from_millis(200));
        assert!(silent.is_err_and(|message| message.contains("no answer in time")));
        let chatty = GtpEngine::start("sh -c 'read a; echo hello; echo'", false, Duration::from_secs(5));
        assert!(chatty.is_err_and(|message| message.contains("outside GTP")));
    }
}
