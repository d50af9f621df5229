//! When an iteratively deepening search (the Reversi and Gomoku alpha-beta searches) starts
//! another iteration: each iteration costs several times the one before it, so the next one's
//! time is predicted from the last ones and started only when at least half of it falls within
//! the move's target. Also the [`Heartbeat`] by which those searches let an analysis speak
//! between iterations, and the [`LimitWatch`] by which they look at their limits.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Called by the alpha-beta searches whenever they look at their limits (every thousand nodes
/// or so): an analysis passes its latest lines on again at its interval between depths, so a
/// viewer hears from a long depth and a closed output ends it within an interval.
pub type Heartbeat<'a> = &'a dyn Fn();

/// The hard limits of an alpha-beta search as it looks at them now and then during the search
/// (the target time, which only decides whether another iteration starts, is the search's own
/// business): the clock from the search's start, the node count, the stop flag.
pub struct LimitWatch<'a> {
    started: Instant,
    deadline: Option<Instant>,
    max_nodes: Option<u64>,
    stop: &'a AtomicBool,
    heartbeat: Option<Heartbeat<'a>>,
}

impl<'a> LimitWatch<'a> {
    /// Starts the clock of a search that may run for `max_time`.
    pub fn start(
        max_time: Option<Duration>,
        max_nodes: Option<u64>,
        stop: &'a AtomicBool,
        heartbeat: Option<Heartbeat<'a>>,
    ) -> LimitWatch<'a> {
        let started = Instant::now();
        LimitWatch { started, deadline: max_time.map(|time| started + time), max_nodes, stop, heartbeat }
    }

    /// When the search began.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The flag that stops the search from outside, for the searches it runs in turn.
    pub fn stop_flag(&self) -> &'a AtomicBool {
        self.stop
    }

    /// Lets an analysis speak (the heartbeat), then whether the search, `nodes` nodes in, must
    /// end: stopped, out of nodes or past its time.
    pub fn reached(&self, nodes: u64) -> bool {
        if let Some(heartbeat) = self.heartbeat {
            heartbeat();
        }
        self.stop.load(Ordering::Relaxed)
            || self.max_nodes.is_some_and(|most| nodes >= most)
            || self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
    }
}

/// Before two iterations have been timed, a new one starts only while this share of the target
/// time is left unused: each iteration takes several times the one before it.
const NEXT_ITERATION_SHARE: f64 = 0.3;

/// Bounds on the predicted growth from one iteration's time to the next (odd and even depths
/// alternate, and tiny iterations are timed coarsely).
const MIN_GROWTH: f64 = 1.5;
const MAX_GROWTH: f64 = 8.0;

/// Iterations shorter than this are too coarse to time: their growth is not trusted.
const MIN_TIMED_ITERATION: Duration = Duration::from_millis(2);

/// Whether to start another iteration `elapsed` into the search, from the durations of the
/// iterations completed so far (the last one last). The next one is expected to take the last
/// one times the recent growth from one iteration to the next (the larger of the last two
/// ratios, as odd and even depths alternate), within [`MIN_GROWTH`] and [`MAX_GROWTH`]. It
/// starts when at least half of it falls before `target`: so a move takes about its target on
/// average, not the target less a whole iteration. The hard limit does not enter: both searches
/// keep what an iteration it cuts short found (its first move's full score, and any move that
/// beat it). Before two iterations were timed, it starts while less than
/// [`NEXT_ITERATION_SHARE`] of the target is spent.
pub fn next_iteration_fits(iterations: &[Duration], elapsed: Duration, target: Duration) -> bool {
    let timed: Vec<f64> =
        iterations.iter().filter(|time| **time >= MIN_TIMED_ITERATION).map(Duration::as_secs_f64).collect();
    let growth = match timed.windows(2).map(|pair| pair[1] / pair[0]).collect::<Vec<f64>>().as_slice() {
        [] => return elapsed.as_secs_f64() < target.as_secs_f64() * NEXT_ITERATION_SHARE,
        [only] => *only,
        [.., before, latest] => before.max(*latest),
    };
    let predicted = timed.last().copied().unwrap_or_default() * growth.clamp(MIN_GROWTH, MAX_GROWTH);
    elapsed.as_secs_f64() + predicted / 2.0 <= target.as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watch_reports_each_limit_it_was_given() {
        let (never, raised) = (AtomicBool::new(false), AtomicBool::new(true));
        let unlimited = LimitWatch::start(None, None, &never, None);
        assert!(!unlimited.reached(u64::MAX));
        let nodes = LimitWatch::start(None, Some(100), &never, None);
        assert!(!nodes.reached(99));
        assert!(nodes.reached(100));
        assert!(LimitWatch::start(None, None, &raised, None).reached(0));
        assert!(LimitWatch::start(Some(Duration::ZERO), None, &never, None).reached(0));
        assert!(!LimitWatch::start(Some(Duration::from_secs(3600)), None, &never, None).reached(0));
        let beats = std::cell::Cell::new(0);
        let heartbeat = || beats.set(beats.get() + 1);
        let watched = LimitWatch::start(None, None, &never, Some(&heartbeat));
        watched.reached(1);
        watched.reached(2);
        assert_eq!(beats.get(), 2, "every look lets the analysis speak");
    }

    #[test]
    fn the_next_iteration_starts_when_it_is_predicted_to_fit() {
        let ms = Duration::from_millis;
        // Iterations of 10, 30 and 90 ms: the next is expected to take 270 ms.
        let times = [ms(10), ms(30), ms(90)];
        assert!(next_iteration_fits(&times, ms(130), ms(300)), "ends at 400, half by 265");
        assert!(!next_iteration_fits(&times, ms(130), ms(200)), "half of it after the target");
        // Alternating growth (x2, x6): the larger ratio is expected.
        assert!(!next_iteration_fits(&[ms(10), ms(60), ms(120)], ms(190), ms(500)));
        // Too short to time: the share of the target decides.
        assert!(next_iteration_fits(&[ms(1)], ms(1), ms(10)));
        assert!(!next_iteration_fits(&[ms(1), ms(1)], ms(4), ms(10)));
    }
}
