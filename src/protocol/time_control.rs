//! Time controls as the controller states them (`time_settings`, `kgs-time_settings`,
//! `kata-time_settings`, Gomocup's `INFO` limits): plain values the engine's clocks run on.

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
