//! The GTP front end: a named reader thread turns input bytes into lines (and raises the
//! interrupt flag on `# interrupt`), the calling thread runs each command on the session and
//! writes its reply, strictly in order.

use std::io::{self, BufReader, Read, Write};
use std::sync::mpsc;

use crate::engine::{GtpError, InputSignals, Session};
use crate::protocol::command::{Command, parse_command};
use crate::protocol::line::{
    CappedLine as Input, LineError, format_reply, is_interrupt, parse_command_line, preprocess, read_line_capped,
};
use std::sync::Arc;

/// Lines longer than this are answered `? syntax error` without being kept in memory. The
/// longest real command (`set_position` on a full 25x25 board) is a few kilobytes; a line of
/// a million one-letter arguments at this cap still parses in tens of megabytes.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Lines read ahead while a command runs: enough for any pipelining controller; when they
/// are taken up the reader waits, so a flood of input cannot fill memory.
const MAX_PENDING_LINES: usize = 1024;

/// Runs a GTP session until `quit` or the end of `input`. Blocks. Between commands, while no
/// input is waiting, the session may ponder; the next line ends that at once.
///
/// # Errors
/// Only a failed write to `output` (for example a closed pipe) ends the loop with an error.
pub fn run(mut session: Session, input: impl Read + Send + 'static, mut output: impl Write) -> io::Result<()> {
    let signals = session.input_signals();
    let lines = spawn_reader(input, Arc::clone(&signals));
    for line in lines {
        signals.line_taken();
        match line {
            Input::TooLong => write_reply(&mut output, &format_reply(None, &Err(GtpError::Syntax.to_string())))?,
            Input::Line(raw) => respond(&mut session, &raw, &mut output)?,
        }
        if session.quit_requested() {
            break;
        }
        session.ponder_while_idle();
    }
    Ok(())
}

fn write_reply(output: &mut impl Write, reply: &str) -> io::Result<()> {
    output.write_all(reply.as_bytes())?;
    output.flush()
}

/// Executes one raw line and writes its reply; analysis commands stream their info lines.
fn respond(session: &mut Session, raw: &[u8], output: &mut impl Write) -> io::Result<()> {
    let line = preprocess(raw);
    let (id, command) = match parse_command_line(&line) {
        Ok(None) => return Ok(()),
        Err(LineError::IdTooLarge) => (None, Err(GtpError::Syntax)),
        Ok(Some(command_line)) => {
            (command_line.id, parse_command(&command_line.name, &command_line.args).map_err(GtpError::from))
        }
    };
    let id = id.as_deref();
    match command {
        Ok(Command::Analyze(request)) => {
            stream_reply(session, id, output, |session, emit| session.run_analysis(&request, true, emit).map(|()| None))
        }
        Ok(Command::GenMoveAnalyze(request)) => {
            stream_reply(session, id, output, |session, emit| session.run_genmove_analysis(&request, emit).map(Some))
        }
        command => {
            let result = command.and_then(|command| session.execute(command));
            write_reply(output, &format_reply(id, &result.map_err(|error| error.to_string())))
        }
    }
}

/// A reply written as it is produced: `=ID ` and a newline before the first line, each line as
/// it comes, an optional last line, then the blank line. An error before any line is an
/// ordinary `?` reply.
fn stream_reply(
    session: &mut Session,
    id: Option<&str>,
    output: &mut impl Write,
    run: impl FnOnce(&mut Session, &mut dyn FnMut(&str)) -> Result<Option<String>, GtpError>,
) -> io::Result<()> {
    let header = format!("={} \n", id.unwrap_or_default());
    let signals = session.input_signals();
    let mut started = false;
    let mut write_error = None;
    let result = {
        let mut emit = |line: &str| {
            if write_error.is_some() {
                return;
            }
            let mut text = if started { String::new() } else { header.clone() };
            started = true;
            text.push_str(line);
            text.push('\n');
            if let Err(error) = write_reply(output, &text) {
                // Nobody reads the analysis any more: end it now rather than at the next input
                // line, which may never come; the error then ends the session.
                signals.output_closed();
                write_error = Some(error);
            }
        };
        run(session, &mut emit)
    };
    if let Some(error) = write_error {
        return Err(error);
    }
    match result {
        Err(error) if !started => write_reply(output, &format_reply(id, &Err(error.to_string()))),
        result => {
            let mut text = if started { String::new() } else { header };
            if let Ok(Some(last)) = result {
                text.push_str(&last);
                text.push('\n');
            }
            text.push('\n');
            write_reply(output, &text)
        }
    }
}

/// The reply to one raw line, or `None` for a blank or comment line. Analysis commands are
/// answered in one piece (their lines collected), which suits tests and tools without a stream.
pub fn answer(session: &mut Session, raw: &[u8]) -> Option<String> {
    let line = preprocess(raw);
    let (id, result) = match parse_command_line(&line) {
        Ok(None) => return None,
        Err(LineError::IdTooLarge) => (None, Err(GtpError::Syntax)),
        Ok(Some(command_line)) => {
            let result = parse_command(&command_line.name, &command_line.args)
                .map_err(GtpError::from)
                .and_then(|command| session.execute(command));
            (command_line.id, result)
        }
    };
    Some(format_reply(id.as_deref(), &result.map_err(|error| error.to_string())))
}

/// Starts the reader thread. It signals a running search at once (the control thread may be
/// busy searching): `# interrupt` lines stop it (and are otherwise comments), other lines stop
/// searches that end on input, the end of input stops searches without limits. Blank and
/// comment lines are dropped here, so they neither count nor stop anything.
fn spawn_reader(input: impl Read + Send + 'static, signals: Arc<InputSignals>) -> mpsc::Receiver<Input> {
    let (sender, receiver) = mpsc::sync_channel(MAX_PENDING_LINES);
    std::thread::Builder::new()
        .name("stdin-reader".to_string())
        .spawn(move || {
            let mut reader = BufReader::new(input);
            // The end of input and a read error both end the reading.
            while let Ok(Some(line)) = read_line_capped(&mut reader, MAX_LINE_BYTES) {
                match &line {
                    Input::Line(raw) if is_interrupt(raw) => {
                        signals.interrupt();
                        continue;
                    }
                    Input::Line(raw) if preprocess(raw).is_empty() => continue,
                    _ => signals.line_arrived(),
                }
                if sender.send(line).is_err() {
                    break;
                }
            }
            signals.input_closed();
        })
        .expect("cannot start the input reader thread");
    receiver
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transcript(input: &str) -> String {
        let mut session = Session::new("tictactoe").unwrap();
        session
            .execute(crate::protocol::command::Command::ParamSearch(crate::protocol::command::ParamRequest::Set(
                "seed".into(),
                "1".into(),
            )))
            .unwrap();
        let mut output = Vec::new();
        run(session, io::Cursor::new(input.as_bytes().to_vec()), &mut output).unwrap();
        String::from_utf8(output).unwrap()
    }

    #[test]
    fn replies_come_in_order_with_ids() {
        assert_eq!(
            transcript("1 name\n\n# comment\n2 protocol_version\nfoo\n"),
            "=1 ponder\n\n=2 2\n\n? unknown command\n\n"
        );
    }

    #[test]
    fn quit_ends_the_session_and_later_lines_are_ignored() {
        assert_eq!(transcript("quit\nname\n"), "= \n\n");
    }

    use crate::frontends::OpenInput;

    /// Output whose reader has gone away.
    struct ClosedOutput;

    impl Write for ClosedOutput {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_output_ends_the_analysis_and_the_session_while_input_stays_open() {
        let (lines, input) = mpsc::channel();
        lines.send(b"lz-analyze 10\n".to_vec()).unwrap();
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            let session = Session::new("gomoku").unwrap();
            let _ = done.send(run(session, OpenInput(input, Vec::new()), ClosedOutput).map_err(|error| error.kind()));
        });
        // Generous: the analysis sees the closed output at its first info line (10 ms).
        let result = finished.recv_timeout(std::time::Duration::from_secs(30));
        drop(lines);
        assert_eq!(result, Ok(Err(io::ErrorKind::BrokenPipe)));
    }
}
