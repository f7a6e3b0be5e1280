//! The `value` of a GPU `resourceRequirements` entry (source keys BOTO, ECS-GPU-SPEC).

use std::fmt;

use crate::GpuFraction;

/// A well-formed GPU value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuValue {
    /// N physical GPUs, N ≥ 1.
    Whole(u32),
    /// `ALL`: every GPU of the instance.
    All,
    /// A partition of a g6f/gr6f GPU.
    Fraction(GpuFraction),
}

/// Why a GPU value is not one ECS accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuValueError {
    Empty,
    /// Not a number and not `ALL`.
    NotANumber(String),
    /// Zero or negative.
    NotPositive(String),
    /// A fraction other than 0.125, 0.25 and 0.5, or a number with a fractional part above 1.
    NotAllowed(String),
}

impl fmt::Display for GpuValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuValueError::Empty => f.write_str("the GPU value is empty"),
            GpuValueError::NotANumber(v) => {
                write!(f, "`{v}` is not a number of GPUs, `ALL` or a GPU fraction")
            }
            GpuValueError::NotPositive(v) => write!(f, "`{v}` GPUs: the value must be at least 1"),
            GpuValueError::NotAllowed(v) => write!(
                f,
                "`{v}` is neither a whole number of GPUs nor one of the fractions 0.125, 0.25 and 0.5"
            ),
        }
    }
}

impl std::error::Error for GpuValueError {}

impl GpuValue {
    /// Parses a GPU value string. Numerically equal spellings (`2.0`, `0.50`) are taken as ECS would
    /// read the number; only values that cannot be valid are errors.
    pub fn parse(s: &str) -> Result<GpuValue, GpuValueError> {
        let t = s.trim();
        if t.is_empty() {
            return Err(GpuValueError::Empty);
        }
        if t.eq_ignore_ascii_case("ALL") {
            return Ok(GpuValue::All);
        }
        if let Some(f) = GpuFraction::parse(t) {
            return Ok(GpuValue::Fraction(f));
        }
        let x: f64 = match t.parse() {
            Ok(x) if f64::is_finite(x) => x,
            _ => return Err(GpuValueError::NotANumber(t.to_string())),
        };
        if x <= 0.0 {
            return Err(GpuValueError::NotPositive(t.to_string()));
        }
        if let Some(f) = GpuFraction::from_f64(x) {
            return Ok(GpuValue::Fraction(f));
        }
        if x.fract() == 0.0 && x <= f64::from(u32::MAX) {
            // Checked above: integral, positive and in range.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            return Ok(GpuValue::Whole(x as u32));
        }
        Err(GpuValueError::NotAllowed(t.to_string()))
    }

    /// GPUs as a number (`ALL` has none without an instance type).
    pub fn amount(self) -> Option<f64> {
        match self {
            GpuValue::Whole(n) => Some(f64::from(n)),
            GpuValue::All => None,
            GpuValue::Fraction(f) => Some(f.as_f64()),
        }
    }
}

impl fmt::Display for GpuValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuValue::Whole(n) => write!(f, "{n}"),
            GpuValue::All => f.write_str("ALL"),
            GpuValue::Fraction(x) => f.write_str(x.as_str()),
        }
    }
}
