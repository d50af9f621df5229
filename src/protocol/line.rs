//! GTP v2 framing: preprocessing of raw input lines, the command-line grammar (nom), and the
//! one response writer.

use std::io::BufRead;

use nom::bytes::complete::take_till1;
use nom::character::complete::{digit1, space0, space1};
use nom::combinator::{all_consuming, opt};
use nom::multi::many0;
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};

/// A command line after preprocessing: optional id, command name, arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    /// The id's digits as written: replies echo them unchanged (`007` stays `007`), so a
    /// controller that matches ids as text finds its reply.
    pub id: Option<String>,
    pub name: String,
    pub args: Vec<String>,
}

/// Why a non-blank line is not a command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineError {
    /// The line starts with an id that does not fit in 64 bits.
    IdTooLarge,
}

/// One input line read by [`read_line_capped`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CappedLine {
    /// The line's bytes, without its newline.
    Line(Vec<u8>),
    /// A line longer than the limit, skipped to its end without being stored.
    TooLong,
}

/// Reads one line without its newline; `None` at the end of input. A line longer than `limit`
/// is skipped to its end and reported as [`CappedLine::TooLong`], so no input can make a front
/// end buffer more than `limit` bytes.
///
/// # Errors
/// The reader's errors.
pub fn read_line_capped(reader: &mut impl BufRead, limit: usize) -> std::io::Result<Option<CappedLine>> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut read_anything = false;
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        read_anything = true;
        let (chunk, found_newline) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], true),
            None => (buffer, false),
        };
        if !too_long && line.len() + chunk.len() <= limit {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let consumed = chunk.len() + usize::from(found_newline);
        reader.consume(consumed);
        if found_newline {
            break;
        }
    }
    Ok(match (read_anything, too_long) {
        (false, _) => None,
        (true, true) => Some(CappedLine::TooLong),
        (true, false) => Some(CappedLine::Line(line)),
    })
}

/// GTP preprocessing of one raw line (without its newline): bytes that are not UTF-8 become
/// U+FFFD, control characters other than HT are dropped, everything from `#` on is a comment,
/// HT becomes a space, and surrounding white space goes.
pub fn preprocess(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let without_comment = text.split('#').next().unwrap_or("");
    without_comment
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Whether a raw line is GoGui's interrupt request, `# interrupt`.
pub fn is_interrupt(raw: &[u8]) -> bool {
    let text = String::from_utf8_lossy(raw);
    let text = text.trim();
    text.strip_prefix('#').is_some_and(|rest| rest.trim() == "interrupt")
}

fn word(input: &str) -> IResult<&str, &str> {
    take_till1(|c: char| c == ' ').parse(input)
}

fn command_parts(input: &str) -> IResult<&str, (Option<&str>, &str, Vec<&str>)> {
    all_consuming((opt(terminated(digit1, space1)), word, terminated(many0(preceded(space1, word)), space0)))
        .parse(input)
}

/// Parses a preprocessed line. `Ok(None)` for a blank line, which gets no reply.
///
/// # Errors
/// [`LineError::IdTooLarge`] when the leading id overflows.
pub fn parse_command_line(line: &str) -> Result<Option<CommandLine>, LineError> {
    if line.is_empty() {
        return Ok(None);
    }
    let (_, (id, name, args)) = command_parts(line).expect("a preprocessed non-blank line always parses");
    if let Some(digits) = id {
        digits.parse::<u64>().map_err(|_| LineError::IdTooLarge)?;
    }
    let id = id.map(str::to_string);
    Ok(Some(CommandLine { id, name: name.to_string(), args: args.into_iter().map(str::to_string).collect() }))
}

/// Formats one reply: `=ID text` or `?ID message`, a space after the prefix even when the text
/// is empty, one blank line after. Blank lines inside the text are dropped, since a blank line
/// ends a reply.
pub fn format_reply(id: Option<&str>, result: &Result<String, String>) -> String {
    let (prefix, text) = match result {
        Ok(text) => ('=', text),
        Err(message) => ('?', message),
    };
    let id = id.unwrap_or_default();
    let body: Vec<&str> = text.lines().filter(|line| !line.trim().is_empty()).collect();
    let body = body.join("\n");
    // A multi-line text that starts with a newline (a diagram) keeps it after "= ".
    let separator = if text.starts_with('\n') { " \n" } else { " " };
    format!("{prefix}{id}{separator}{body}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preprocessing_follows_gtp() {
        assert_eq!(preprocess(b"  play\tb a1  # a comment"), "play b a1");
        assert_eq!(preprocess(b"name\x01\x7f\r"), "name");
        assert_eq!(preprocess(b"# only a comment"), "");
        assert_eq!(preprocess(b"na\xffme"), "na\u{fffd}me");
    }

    #[test]
    fn command_lines_parse() {
        assert_eq!(parse_command_line(""), Ok(None));
        let line = parse_command_line("12 play b a1").unwrap().unwrap();
        assert_eq!(
            line,
            CommandLine { id: Some("12".into()), name: "play".into(), args: vec!["b".into(), "a1".into()] }
        );
        let line = parse_command_line("name").unwrap().unwrap();
        assert_eq!((line.id, line.name.as_str()), (None, "name"));
        assert_eq!(parse_command_line("007 name").unwrap().unwrap().id.as_deref(), Some("007"));
        assert_eq!(parse_command_line("99999999999999999999999 name"), Err(LineError::IdTooLarge));
        // Digits glued to a word are a command name, not an id.
        assert_eq!(parse_command_line("7name").unwrap().unwrap().name, "7name");
        assert_eq!(parse_command_line("play  b   a1").unwrap().unwrap().args, vec!["b", "a1"]);
    }

    #[test]
    fn replies_have_one_blank_line_and_a_space() {
        assert_eq!(format_reply(None, &Ok(String::new())), "= \n\n");
        assert_eq!(format_reply(Some("7"), &Ok("b2".into())), "=7 b2\n\n");
        assert_eq!(format_reply(Some("3"), &Err("illegal move".into())), "?3 illegal move\n\n");
        assert_eq!(format_reply(None, &Ok("\n a\n\n b".into())), "= \n a\n b\n\n");
    }

    #[test]
    fn long_lines_are_skipped_to_their_end() {
        let mut reader = std::io::Cursor::new(b"abcdef\nxy\nz".to_vec());
        assert_eq!(read_line_capped(&mut reader, 3).unwrap(), Some(CappedLine::TooLong));
        assert_eq!(read_line_capped(&mut reader, 3).unwrap(), Some(CappedLine::Line(b"xy".to_vec())));
        assert_eq!(read_line_capped(&mut reader, 3).unwrap(), Some(CappedLine::Line(b"z".to_vec())));
        assert_eq!(read_line_capped(&mut reader, 3).unwrap(), None);
    }

    #[test]
    fn interrupt_lines_are_recognised() {
        assert!(is_interrupt(b"# interrupt"));
        assert!(is_interrupt(b"#interrupt\r"));
        assert!(!is_interrupt(b"# interruptions"));
        assert!(!is_interrupt(b"interrupt"));
    }
}
