//! Time controls and per-move time budgets.
//!
//! The controller sets the system with `time_settings`, `kgs-time_settings` or
//! `kata-time_settings` and may report the clocks with `time_left`. Controllers that never send
//! `time_left` (gogui-twogtp) are covered by our own clock: each `genmove` charges its own
//! duration to the mover.

use std::time::Duration;

use crate::games::Color;
pub use crate::protocol::time_control::{TimeControl, TimeSystem};

/// One player's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayerClock {
    /// Main time left, seconds.
    pub main_left: f64,
    /// Time left in the current overtime period (Canadian, byo-yomi).
    pub period_left: f64,
    /// Canadian: stones still to play in the period; byo-yomi: periods left.
    pub count_left: u32,
}

/// Both clocks under one time control.
#[derive(Clone, Debug, PartialEq)]
pub struct Clocks {
    control: TimeControl,
    players: [PlayerClock; 2],
}

/// Seconds kept back from every move for process start-up, pipes and a loaded machine: the
/// time between the controller's clock starting and the search starting, plus the search's
/// overrun past its hard limit (it polls the clock every few playouts, then joins its threads).
/// See the closing figures of `tests/` and the README for the overruns measured.
pub const LAG_SECONDS: f64 = 0.05;

/// A move may take up to this many times its target when the search asks for more (the best
/// move is unstable or its value drops).
pub const EXTENSION_FACTOR: f64 = 3.0;

/// In sudden death, no move takes more than this share of the time left.
pub const MAX_SHARE_OF_MAIN: f64 = 0.25;

/// What the engine's moves take beyond their hard limit, learnt from the moves themselves: the
/// largest recent overrun, fading by a tenth a move so that one slow move (a machine briefly
/// overloaded) does not hold time back for the rest of the game.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveOverhead {
    seconds: f64,
}

impl MoveOverhead {
    /// Records a move that took `used` seconds against a hard limit of `hard`.
    pub fn record(&mut self, used: f64, hard: f64) {
        self.seconds = (used - hard).max(0.0).max(self.seconds * 0.9);
    }

    pub fn seconds(&self) -> f64 {
        self.seconds
    }
}

/// The time a move should take and the most it may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimePlan {
    /// Where the search stops when its choice is stable.
    pub target: Duration,
    /// Where it stops whatever happens; never past the clock less [`LAG_SECONDS`].
    pub hard: Duration,
    /// Whether time saved now is there for later moves (main time, Fischer, a Canadian period
    /// with stones still to come); when not (a byo-yomi period, one stone per period), stopping
    /// early gains nothing.
    pub saved_time_carries_over: bool,
}

impl TimePlan {
    /// A plan aiming at `target` that may run to [`EXTENSION_FACTOR`] times it, never past
    /// `most` (which also caps the target).
    fn new(target: f64, most: f64, saved_time_carries_over: bool) -> TimePlan {
        // A floor so that a search always runs, even on a spent clock.
        let most = most.max(0.001);
        let target = target.clamp(0.001, most);
        let hard = (target * EXTENSION_FACTOR).min(most);
        TimePlan {
            target: Duration::from_secs_f64(target),
            hard: Duration::from_secs_f64(hard),
            saved_time_carries_over,
        }
    }
}

impl Default for Clocks {
    fn default() -> Self {
        Clocks::new(TimeControl::UNLIMITED)
    }
}

impl Clocks {
    /// Fresh clocks for a new time control.
    pub fn new(control: TimeControl) -> Clocks {
        let (period_left, count_left) = match control.system {
            TimeSystem::Canadian { period, stones } => (period, stones),
            TimeSystem::Byoyomi { period, periods } => (period, periods),
            _ => (0.0, 0),
        };
        let clock = PlayerClock { main_left: control.main_time, period_left, count_left };
        Clocks { control, players: [clock; 2] }
    }

    pub fn control(&self) -> TimeControl {
        self.control
    }

    pub fn is_unlimited(&self) -> bool {
        self.control.system == TimeSystem::Unlimited
    }

    pub fn player(&self, color: Color) -> PlayerClock {
        self.players[color.index()]
    }

    /// GTP `time_left COLOR TIME STONES`: in main time STONES is 0 and TIME the main time left;
    /// in Canadian overtime TIME is the period's time and STONES the stones left in it; in
    /// byo-yomi STONES is the number of periods left (the KGS convention).
    pub fn set_time_left(&mut self, color: Color, time: f64, stones: u32) {
        let clock = &mut self.players[color.index()];
        if stones == 0 {
            clock.main_left = time;
        } else {
            clock.main_left = 0.0;
            clock.period_left = time;
            clock.count_left = stones;
        }
    }

    /// Charges `used` seconds to `color` for one move, moving through its overtime as the
    /// system says.
    pub fn charge(&mut self, color: Color, used: f64) {
        let clock = &mut self.players[color.index()];
        match self.control.system {
            TimeSystem::Unlimited => {}
            TimeSystem::Absolute => clock.main_left -= used,
            TimeSystem::Fischer { increment } => clock.main_left += increment - used,
            TimeSystem::Canadian { .. } | TimeSystem::Byoyomi { .. } if clock.main_left >= used => {
                clock.main_left -= used;
            }
            TimeSystem::Canadian { period, stones } => {
                clock.period_left -= used - clock.main_left.max(0.0);
                clock.main_left = 0.0;
                clock.count_left = clock.count_left.saturating_sub(1);
                if clock.count_left == 0 {
                    clock.period_left = period;
                    clock.count_left = stones;
                }
            }
            TimeSystem::Byoyomi { period, .. } => {
                if used - clock.main_left.max(0.0) > clock.period_left {
                    clock.count_left = clock.count_left.saturating_sub(1);
                }
                clock.main_left = 0.0;
                clock.period_left = period;
            }
        }
    }

    /// The time plan of `color`'s next move, `moves_left` being an estimate of the moves it
    /// still has to make (at least one); `None` without a time limit. Main time is spread over
    /// the moves to come, plus most of an increment; overtime gives each move its share of the
    /// period. The hard limit lets a move run to [`EXTENSION_FACTOR`] times its target, within
    /// what the clock can spare; [`LAG_SECONDS`] always stays in reserve.
    ///
    /// `overhead` is what this engine's recent moves took beyond their hard limit (tree reuse,
    /// the stop of pondering, threads joining; see [`MoveOverhead`]): it is held back too.
    pub fn plan(&self, color: Color, moves_left: usize, overhead: f64) -> Option<TimePlan> {
        let clock = self.player(color);
        let moves_left = moves_left.max(1) as f64;
        let reserve = LAG_SECONDS + overhead.max(0.0);
        let main = (clock.main_left - reserve).max(0.0);
        let plan = match self.control.system {
            TimeSystem::Unlimited => return None,
            TimeSystem::Absolute => TimePlan::new(main / moves_left, main * MAX_SHARE_OF_MAIN, true),
            TimeSystem::Fischer { increment } => {
                // The increment comes after the move: this move can only spend what is left.
                TimePlan::new(main / moves_left + 0.9 * increment, main * 0.5, true)
            }
            TimeSystem::Canadian { period, stones } if clock.main_left > 0.0 => {
                // Overtime gives every stone its share anyway; a move that runs out of main time
                // starts the first period.
                let per_stone = (period / stones.max(1) as f64 - reserve).max(0.0);
                let target = (main / moves_left).max(per_stone.min(main));
                TimePlan::new(target, main * MAX_SHARE_OF_MAIN + per_stone, true)
            }
            TimeSystem::Canadian { .. } => {
                let stones = clock.count_left.max(1) as f64;
                let usable = (clock.period_left - reserve * stones).max(0.0);
                // The stones still to come share the period, so a stable move saves time for
                // them and an unstable one may take up to half of it; the last stone of a period
                // has nothing to save for.
                let most = if stones > 1.0 { usable * 0.5 } else { usable };
                TimePlan::new(usable / stones, most, stones > 1.0)
            }
            TimeSystem::Byoyomi { period, .. } if clock.main_left > 0.0 => {
                // A move within main time plus one period keeps the period.
                let per_period = (period - reserve).max(0.0);
                let target = (main / moves_left).max(per_period);
                TimePlan::new(target, main * MAX_SHARE_OF_MAIN + per_period, true)
            }
            TimeSystem::Byoyomi { .. } => {
                let per_period = (clock.period_left - reserve).max(0.0);
                TimePlan::new(per_period, per_period, false)
            }
        };
        Some(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_time_settings_read_as_the_spec_says() {
        assert_eq!(TimeControl::from_gtp(300.0, 0.0, 0).system, TimeSystem::Absolute);
        assert_eq!(TimeControl::from_gtp(0.0, 1.0, 0).system, TimeSystem::Unlimited);
        assert_eq!(TimeControl::from_gtp(60.0, 30.0, 5).system, TimeSystem::Canadian { period: 30.0, stones: 5 });
    }

    #[test]
    fn sudden_death_plans_never_spend_the_clock() {
        // A game far longer than the estimate: the estimate's floor keeps a reserve, every
        // move's hard limit stays inside the clock less the lag, and moves spending their
        // target never run out.
        let mut clocks = Clocks::new(TimeControl { system: TimeSystem::Absolute, main_time: 10.0 });
        let mut spent = 0.0;
        for move_number in 0..120 {
            let moves_left = 30usize.saturating_sub(move_number).max(10);
            let left = clocks.player(Color::Black).main_left;
            let plan = clocks.plan(Color::Black, moves_left, 0.0).unwrap();
            assert!(plan.target <= plan.hard && plan.saved_time_carries_over);
            if left > 0.1 {
                assert!(plan.hard.as_secs_f64() <= left - LAG_SECONDS, "{plan:?} with {left} left");
            }
            clocks.charge(Color::Black, plan.target.as_secs_f64());
            spent += plan.target.as_secs_f64();
        }
        assert!(spent < 10.0, "spent {spent}");
        // The first moves get a fair share: the clock over the moves expected, not a crumb.
        let fresh = Clocks::new(TimeControl { system: TimeSystem::Absolute, main_time: 10.0 });
        let first = fresh.plan(Color::Black, 30, 0.0).unwrap();
        assert!((first.target.as_secs_f64() - (10.0 - LAG_SECONDS) / 30.0).abs() < 1e-6, "{first:?}");
        assert!((first.hard.as_secs_f64() - EXTENSION_FACTOR * first.target.as_secs_f64()).abs() < 1e-6);
    }

    #[test]
    fn a_measured_overhead_is_held_back_and_fades() {
        let clocks = Clocks::new(TimeControl { system: TimeSystem::Absolute, main_time: 2.0 });
        let mut overhead = MoveOverhead::default();
        overhead.record(0.5, 0.2);
        assert!((overhead.seconds() - 0.3).abs() < 1e-9);
        let plan = clocks.plan(Color::Black, 1, overhead.seconds()).unwrap();
        // A quarter of what is left after the lag and the overhead.
        assert!((plan.hard.as_secs_f64() - (2.0 - LAG_SECONDS - 0.3) * MAX_SHARE_OF_MAIN).abs() < 1e-6, "{plan:?}");
        overhead.record(0.1, 0.2);
        assert!((overhead.seconds() - 0.27).abs() < 1e-9);
    }

    #[test]
    fn canadian_overtime_restarts_after_its_stones() {
        let mut clocks =
            Clocks::new(TimeControl { system: TimeSystem::Canadian { period: 10.0, stones: 2 }, main_time: 1.0 });
        clocks.charge(Color::White, 1.5);
        let clock = clocks.player(Color::White);
        assert_eq!((clock.main_left, clock.count_left), (0.0, 1));
        assert!((clock.period_left - 9.5).abs() < 1e-9);
        // The last stone of the period: the whole period less the lag, no early stop.
        let plan = clocks.plan(Color::White, 30, 0.0).unwrap();
        assert!((plan.target.as_secs_f64() - 9.45).abs() < 1e-9, "{plan:?}");
        assert!(!plan.saved_time_carries_over);
        clocks.charge(Color::White, 3.0);
        assert_eq!(clocks.player(Color::White).count_left, 2);
        assert_eq!(clocks.player(Color::White).period_left, 10.0);
    }

    #[test]
    fn time_left_overrides_our_clock() {
        let mut clocks =
            Clocks::new(TimeControl { system: TimeSystem::Byoyomi { period: 5.0, periods: 3 }, main_time: 60.0 });
        clocks.set_time_left(Color::Black, 4.0, 2);
        assert_eq!(clocks.player(Color::Black), PlayerClock { main_left: 0.0, period_left: 4.0, count_left: 2 });
        assert!((clocks.plan(Color::Black, 10, 0.0).unwrap().hard.as_secs_f64() - 3.95).abs() < 1e-9);
        clocks.set_time_left(Color::Black, 30.0, 0);
        assert_eq!(clocks.player(Color::Black).main_left, 30.0);
    }

    #[test]
    fn fischer_adds_the_increment() {
        let mut clocks = Clocks::new(TimeControl { system: TimeSystem::Fischer { increment: 2.0 }, main_time: 10.0 });
        clocks.charge(Color::Black, 1.0);
        assert_eq!(clocks.player(Color::Black).main_left, 11.0);
        assert!(clocks.plan(Color::Black, 20, 0.0).unwrap().target.as_secs_f64() > 2.0 * 0.8);
    }
}
