//! Time controls and per-move time budgets.
//!
//! The controller sets the system with `time_settings`, `kgs-time_settings` or
//! `kata-time_settings` and may report the clocks with `time_left`. Controllers that never send
//! `time_left` (gogui-twogtp) are covered by our own clock: each `genmove` charges its own
//! duration to the mover.

use std::time::Duration;

use crate::games::Color;

/// How the time is measured out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeSystem {
    /// No time limit.
    Unlimited,
    /// Main time only (sudden death).
    Absolute,
    /// After main time, `stones` moves must be played in every `period` seconds.
    Canadian { period: f64, stones: u32 },
    /// After main time, `periods` periods of `period` seconds; a move within a period keeps it.
    Byoyomi { period: f64, periods: u32 },
    /// `increment` seconds added after every move.
    Fischer { increment: f64 },
}

/// The settings of a game: the system and the main time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeControl {
    pub system: TimeSystem,
    pub main_time: f64,
}

impl TimeControl {
    pub const UNLIMITED: TimeControl = TimeControl { system: TimeSystem::Unlimited, main_time: 0.0 };

    /// GTP `time_settings MAIN BYO_TIME BYO_STONES`: byo-yomi time 0 means absolute; byo-yomi
    /// time with 0 stones means no limit (GTP 2 spec); otherwise Canadian overtime.
    pub fn from_gtp(main_time: f64, byo_time: f64, byo_stones: u32) -> TimeControl {
        let system = match (byo_time > 0.0, byo_stones) {
            (false, _) => TimeSystem::Absolute,
            (true, 0) => TimeSystem::Unlimited,
            (true, stones) => TimeSystem::Canadian { period: byo_time, stones },
        };
        TimeControl { system, main_time }
    }
}

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

/// Seconds kept back from every budget for process and pipe delays.
const LAG_SECONDS: f64 = 0.1;

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

    /// The seconds `color` may spend on its next move, `moves_left` being an estimate of the
    /// moves it still has to make; `None` without a time limit. Main time is spread over the
    /// remaining moves (but never below what overtime gives per move anyway); the lag buffer
    /// always stays in reserve.
    pub fn budget(&self, color: Color, moves_left: usize) -> Option<Duration> {
        let clock = self.player(color);
        let moves_left = moves_left.max(1) as f64;
        let seconds = match self.control.system {
            TimeSystem::Unlimited => return None,
            TimeSystem::Absolute => clock.main_left / moves_left.max(3.0),
            TimeSystem::Fischer { increment } => {
                (clock.main_left / moves_left.max(3.0) + 0.8 * increment).min(clock.main_left * 0.5)
            }
            TimeSystem::Canadian { .. } if clock.main_left > 0.0 => {
                let overtime = clock.period_left / clock.count_left.max(1) as f64;
                (clock.main_left / moves_left.max(3.0)).max(overtime.min(clock.main_left))
            }
            TimeSystem::Canadian { .. } => clock.period_left / clock.count_left.max(1) as f64,
            TimeSystem::Byoyomi { period, .. } if clock.main_left > 0.0 => {
                (clock.main_left / moves_left.max(3.0)).max(period.min(clock.main_left))
            }
            TimeSystem::Byoyomi { .. } => clock.period_left,
        };
        let seconds = (seconds - LAG_SECONDS).max(0.01);
        Some(Duration::from_secs_f64(seconds))
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
    fn sudden_death_budgets_never_spend_the_clock() {
        let mut clocks = Clocks::new(TimeControl { system: TimeSystem::Absolute, main_time: 5.0 });
        let mut spent = 0.0;
        for moves_left in (1..=60).rev() {
            let budget = clocks.budget(Color::Black, moves_left).unwrap().as_secs_f64();
            assert!(budget > 0.0);
            clocks.charge(Color::Black, budget);
            spent += budget;
        }
        assert!(spent < 5.0, "spent {spent}");
    }

    #[test]
    fn canadian_overtime_restarts_after_its_stones() {
        let mut clocks =
            Clocks::new(TimeControl { system: TimeSystem::Canadian { period: 10.0, stones: 2 }, main_time: 1.0 });
        clocks.charge(Color::White, 1.5);
        let clock = clocks.player(Color::White);
        assert_eq!((clock.main_left, clock.count_left), (0.0, 1));
        assert!((clock.period_left - 9.5).abs() < 1e-9);
        assert!((clocks.budget(Color::White, 30).unwrap().as_secs_f64() - 9.4).abs() < 1e-9);
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
        assert!((clocks.budget(Color::Black, 10).unwrap().as_secs_f64() - 3.9).abs() < 1e-9);
        clocks.set_time_left(Color::Black, 30.0, 0);
        assert_eq!(clocks.player(Color::Black).main_left, 30.0);
    }

    #[test]
    fn fischer_adds_the_increment() {
        let mut clocks = Clocks::new(TimeControl { system: TimeSystem::Fischer { increment: 2.0 }, main_time: 10.0 });
        clocks.charge(Color::Black, 1.0);
        assert_eq!(clocks.player(Color::Black).main_left, 11.0);
        assert!(clocks.budget(Color::Black, 20).unwrap().as_secs_f64() > 2.0 * 0.8);
    }
}
