//! Any bytes through preprocessing, the command-line grammar, the command registry and the reply
//! writer: no panic, and every reply is framed as GTP requires.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ponder::protocol::command::parse_command;
use ponder::protocol::line::{format_reply, parse_command_line, preprocess};

fuzz_target!(|data: &[u8]| {
    for raw in data.split(|&b| b == b'\n') {
        let line = preprocess(raw);
        assert!(!line.contains(['\n', '\t', '#']));
        let Ok(Some(command_line)) = parse_command_line(&line) else { continue };
        assert!(!command_line.name.is_empty());
        let result = parse_command(&command_line.name, &command_line.args).map(|_| line.clone()).map_err(|e| e.to_string());
        let reply = format_reply(command_line.id.as_deref(), &result);
        assert!(reply.ends_with("\n\n") && !reply[..reply.len() - 2].contains("\n\n"), "{reply:?}");
        assert!(reply.starts_with('=') || reply.starts_with('?'));
    }
});
