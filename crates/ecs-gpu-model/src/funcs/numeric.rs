//! Numeric functions.

use super::*;

pub(super) fn min(args: &[Node]) -> Outcome {
    let numbers = numbers(args)?;
    new_value(Value::Number(
        numbers.into_iter().fold(f64::INFINITY, f64::min),
    ))
}

pub(super) fn max(args: &[Node]) -> Outcome {
    let numbers = numbers(args)?;
    new_value(Value::Number(
        numbers.into_iter().fold(f64::NEG_INFINITY, f64::max),
    ))
}

/// The arguments of `min` or `max`: at least one, all numbers.
fn numbers(args: &[Node]) -> Result<Vec<f64>, Fail> {
    if args.is_empty() {
        return Err(Fail::Error);
    }
    args.iter().map(to_num).collect()
}

pub(super) fn abs(args: &[Node]) -> Outcome {
    let [number] = exactly(args)?;
    new_value(Value::Number(to_num(number)?.abs()))
}

pub(super) fn ceil(args: &[Node]) -> Outcome {
    let [number] = exactly(args)?;
    new_value(Value::Number(to_num(number)?.ceil() + 0.0))
}

pub(super) fn floor(args: &[Node]) -> Outcome {
    let [number] = exactly(args)?;
    new_value(Value::Number(to_num(number)?.floor() + 0.0))
}

/// `signum(n)`: Terraform's takes whole numbers only.
pub(super) fn signum(args: &[Node]) -> Outcome {
    let [number] = exactly(args)?;
    let number = to_int(number)?;
    new_value(Value::Number(number.signum() as f64))
}

pub(super) fn pow(args: &[Node]) -> Outcome {
    let [base, exponent] = exactly(args)?;
    let power = to_num(base)?.powf(to_num(exponent)?);
    if !power.is_finite() {
        return Err(Fail::Error);
    }
    new_value(Value::Number(power))
}

/// `parseint(text, base)`, for bases up to 36 (beyond, Terraform's digits are not modelled).
pub(super) fn parseint(args: &[Node]) -> Outcome {
    let [text, base] = exactly(args)?;
    // The first argument must be a string, not a number converted to one.
    if !matches!(text.value, Value::String(_) | Value::Json(_)) {
        return Err(Fail::Error);
    }
    let text = to_str(text)?;
    let base = to_int(base)?;
    if !(2..=62).contains(&base) || base > 36 {
        return Err(unsupported());
    }
    let number = i64::from_str_radix(&text, base as u32).map_err(|_| Fail::Error)?;
    new_value(Value::Number(number as f64))
}
