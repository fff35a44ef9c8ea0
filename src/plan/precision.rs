//! The precision a scenario asks for: how many rounds at least and at most, and the
//! interval half-width after which rounds stop being added (`summary::rounds::decide`).

/// What the profile and flags ask for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Precision {
    pub min_rounds: u32,
    pub max_rounds: u32,
    /// Half-width of the intervals wanted, relative to the center (0.05 = ±5%); None
    /// runs exactly `min_rounds`.
    pub target: Option<f64>,
}
