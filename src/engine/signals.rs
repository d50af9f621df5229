//! Signals from the input reader thread to a running search.
//!
//! The control thread is busy while it searches, so the reader raises these flags directly.
//! Each pair of stores and loads is sequentially consistent, so a signal can never fall between
//! "the reader saw no search that wants it" and "the search checked for it".
//!
//! An interrupt belongs to the command lines read before it: the reader counts the lines it
//! hands over, the control thread counts the lines it takes, and a search that starts for a
//! line read after the interrupt does not see it. So GoGui's `# interrupt`, which may be read
//! before the control thread even starts the `genmove` it was meant for, is never lost, and a
//! late one never stops the next command.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Flags shared by the input reader and the session.
#[derive(Debug, Default)]
pub struct InputSignals {
    /// Ends the running search early; it then answers with its best move so far.
    stop: AtomicBool,
    lines_read: AtomicU64,
    lines_taken: AtomicU64,
    /// `lines_read` when the last interrupt came.
    interrupted_through: AtomicU64,
    input_closed: AtomicBool,
    /// The running search has no limit of its own, so the end of input must end it.
    stop_on_close: AtomicBool,
    /// The running search (analysis, pondering) ends on any input line.
    stop_on_line: AtomicBool,
}

impl InputSignals {
    /// The flag a search polls.
    pub fn stop_flag(&self) -> &AtomicBool {
        &self.stop
    }

    /// Reader: GoGui's `# interrupt` line.
    pub fn interrupt(&self) {
        self.interrupted_through.store(self.lines_read.load(Ordering::SeqCst), Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Control thread: it takes the next line to execute.
    pub fn line_taken(&self) {
        self.lines_taken.fetch_add(1, Ordering::SeqCst);
    }

    /// Reader: a command line arrived (before handing it over).
    pub fn line_arrived(&self) {
        self.lines_read.fetch_add(1, Ordering::SeqCst);
        if self.stop_on_line.load(Ordering::SeqCst) {
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    /// Reader: the end of input.
    pub fn input_closed(&self) {
        self.input_closed.store(true, Ordering::SeqCst);
        if self.stop_on_close.load(Ordering::SeqCst) || self.stop_on_line.load(Ordering::SeqCst) {
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    /// Front end: the output is gone (a write failed), so nobody reads what the running search
    /// finds; it ends at once.
    pub fn output_closed(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Session: a search starts. Keeps an interrupt meant for this command, clears one meant
    /// for an earlier command. `unlimited` searches end at the end of input; `ends_on_line`
    /// searches at the next line too.
    pub fn begin_search(&self, unlimited: bool, ends_on_line: bool) {
        self.stop_on_close.store(unlimited, Ordering::SeqCst);
        self.stop_on_line.store(ends_on_line, Ordering::SeqCst);
        let taken = self.lines_taken.load(Ordering::SeqCst);
        let interrupted_through = self.interrupted_through.load(Ordering::SeqCst);
        let interrupted = interrupted_through > 0 && interrupted_through >= taken;
        let input_gone = unlimited && self.input_closed.load(Ordering::SeqCst);
        let more_input = ends_on_line && self.lines_read.load(Ordering::SeqCst) > taken;
        self.stop.store(interrupted || input_gone || more_input, Ordering::SeqCst);
    }

    /// Session: the search is over.
    pub fn end_search(&self) {
        self.stop_on_close.store(false, Ordering::SeqCst);
        self.stop_on_line.store(false, Ordering::SeqCst);
        self.stop.store(false, Ordering::SeqCst);
    }
}
