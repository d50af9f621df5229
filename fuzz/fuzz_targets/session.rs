//! Any bytes as a whole GTP session: no panic, exactly one well-framed reply per non-blank line.
//!
//! Before each line the harness re-applies small search limits (so a fuzzed `param_search` cannot
//! make the next `genmove` search forever, and the exact solvers that play endgames get a small
//! budget). It skips lines whose cost is the input's to choose or that touch files: `ponder-perft`
//! (exponential in its depth), `ponder-solve` (an exact solve of an arbitrary position),
//! `loadsgf` and `savesgf` (paths on this machine).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ponder::engine::Session;
use ponder::frontends::gtp::answer;
use ponder::protocol::line::preprocess;

fuzz_target!(|data: &[u8]| {
    let mut session = Session::new("tictactoe").expect("tictactoe exists");
    for raw in data.split(|&b| b == b'\n').take(64) {
        let line = preprocess(raw);
        if ["perft", "solve", "sgf"].iter().any(|skipped| line.contains(skipped)) {
            continue;
        }
        for limit in ["param_search max_visits 30", "param_search max_time 0.05", "param_search threads 1"] {
            answer(&mut session, limit.as_bytes());
        }
        let reply = answer(&mut session, raw);
        assert_eq!(reply.is_some(), !preprocess(raw).is_empty());
        if let Some(reply) = reply {
            assert!(reply.ends_with("\n\n") && !reply[..reply.len() - 2].contains("\n\n"), "{reply:?}");
            assert!(reply.starts_with('=') || reply.starts_with('?'));
        }
        if session.quit_requested() {
            break;
        }
    }
});
