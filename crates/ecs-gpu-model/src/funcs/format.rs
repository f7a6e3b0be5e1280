//! The verbs of Terraform's `format` and `formatlist` (Go's `fmt`, as cty implements it).

use super::*;
use crate::eval::{to_bool, MAX_STRING};
use crate::json::node_to_json_text;

/// Terraform's `format`: `%%`, `%v`, `%#v`, `%s`, `%q`, `%d`, `%f`, `%e`, `%g`, `%t`, `%b`, `%o`,
/// `%x`, `%X`, with flags, width, precision and `%[n]` argument indexes.
pub(super) fn sprintf(spec: &str, args: &[Node]) -> Result<String, Fail> {
    let chars: Vec<char> = spec.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut next_arg = 0usize;
    let mut used_any = vec![false; args.len()];
    while i < chars.len() {
        if out.len() > MAX_STRING {
            return Err(unsupported());
        }
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let Some(&after_percent) = chars.get(i) else {
            return Err(Fail::Error);
        };
        if after_percent == '%' {
            out.push('%');
            i += 1;
            continue;
        }
        let (mut minus, mut plus, mut zero, mut space, mut sharp) =
            (false, false, false, false, false);
        while let Some(&flag) = chars.get(i) {
            match flag {
                '-' => minus = true,
                '+' => plus = true,
                '0' => zero = true,
                ' ' => space = true,
                '#' => sharp = true,
                _ => break,
            }
            i += 1;
        }
        if chars.get(i) == Some(&'[') {
            let close = chars[i..]
                .iter()
                .position(|c| *c == ']')
                .ok_or(Fail::Error)?
                + i;
            let index: usize = chars[i + 1..close]
                .iter()
                .collect::<String>()
                .parse()
                .map_err(|_| Fail::Error)?;
            if index == 0 {
                return Err(Fail::Error);
            }
            next_arg = index - 1;
            i = close + 1;
        }
        let width = read_count(&chars, &mut i);
        let mut prec: Option<usize> = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            prec = Some(read_count(&chars, &mut i).unwrap_or(0));
        }
        let Some(&verb) = chars.get(i) else {
            return Err(Fail::Error);
        };
        i += 1;
        let arg = args.get(next_arg).ok_or(Fail::Error)?;
        used_any[next_arg] = true;
        next_arg += 1;
        let mut numeric = false;
        let body = match verb {
            'v' => {
                if sharp {
                    node_to_json_text(arg).ok_or(Fail::Error)?
                } else {
                    match &arg.value {
                        Value::Null => "null".into(),
                        Value::List(_) | Value::Object(_) => {
                            node_to_json_text(arg).ok_or(Fail::Error)?
                        }
                        Value::Number(_) => {
                            numeric = true;
                            to_str(arg)?
                        }
                        _ => to_str(arg)?,
                    }
                }
            }
            's' => {
                let text = text_operand(arg)?;
                match prec {
                    Some(precision) => text.chars().take(precision).collect(),
                    None => text,
                }
            }
            'q' => {
                let mut quoted = String::new();
                crate::json::write_json_string(&text_operand(arg)?, &mut quoted);
                quoted
            }
            't' => to_bool(arg)?.to_string(),
            'd' | 'b' | 'o' | 'x' | 'X' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                numeric = true;
                let number = to_num(arg)?;
                match verb {
                    'd' | 'b' | 'o' | 'x' | 'X' => {
                        if number.fract() != 0.0 || number.abs() > 9e15 {
                            return Err(Fail::Error);
                        }
                        let magnitude = number.abs() as u64;
                        let digits = match verb {
                            'd' => magnitude.to_string(),
                            'b' => format!("{magnitude:b}"),
                            'o' => format!("{magnitude:o}"),
                            'x' => format!("{magnitude:x}"),
                            _ => format!("{magnitude:X}"),
                        };
                        let digits = match prec {
                            Some(precision) if digits.len() < precision => {
                                format!("{}{digits}", "0".repeat(precision - digits.len()))
                            }
                            _ => digits,
                        };
                        sign(number < 0.0, plus, space) + &digits
                    }
                    'f' | 'F' => {
                        let precision = prec.unwrap_or(6);
                        let text = format!("{:.*}", precision, number.abs());
                        sign(
                            number < 0.0 || (number == 0.0 && number.is_sign_negative()),
                            plus,
                            space,
                        ) + &text
                    }
                    'e' | 'E' => {
                        let precision = prec.unwrap_or(6);
                        let text = go_scientific(number.abs(), precision);
                        let text = if verb == 'E' {
                            text.to_uppercase()
                        } else {
                            text
                        };
                        sign(number < 0.0, plus, space) + &text
                    }
                    _ => {
                        // %g: the shortest representation.
                        let text = match prec {
                            None => {
                                let magnitude = number.abs();
                                if magnitude != 0.0 && !(1e-4..1e21).contains(&magnitude) {
                                    let text = format!("{magnitude:e}");
                                    go_exponent(&text)
                                } else {
                                    format!("{magnitude}")
                                }
                            }
                            Some(_) => return Err(unsupported()),
                        };
                        sign(number < 0.0, plus, space) + &text
                    }
                }
            }
            _ => return Err(Fail::Error),
        };
        let body = if plus && numeric && verb == 'v' && !body.starts_with('-') {
            format!("+{body}")
        } else {
            body
        };
        let len = body.chars().count();
        match width {
            Some(w) if w > len => {
                let padding = w - len;
                if minus {
                    out.push_str(&body);
                    out.push_str(&" ".repeat(padding));
                } else if zero && numeric {
                    let (sign_part, rest) = if body.starts_with(['-', '+', ' ']) {
                        body.split_at(1)
                    } else {
                        ("", body.as_str())
                    };
                    out.push_str(sign_part);
                    out.push_str(&"0".repeat(padding));
                    out.push_str(rest);
                } else {
                    out.push_str(&" ".repeat(padding));
                    out.push_str(&body);
                }
            }
            _ => out.push_str(&body),
        }
    }
    if used_any.iter().any(|u| !u) {
        return Err(Fail::Error);
    }
    Ok(out)
}

/// The decimal count (a width or a precision) at `chars[*i..]`, if any, at most 10,000; `*i`
/// moves past it.
fn read_count(chars: &[char], i: &mut usize) -> Option<usize> {
    let mut count: Option<usize> = None;
    while let Some(digit) = chars.get(*i).and_then(|c| c.to_digit(10)) {
        let more = count
            .unwrap_or(0)
            .saturating_mul(10)
            .saturating_add(digit as usize);
        count = Some(more.min(10_000));
        *i += 1;
    }
    count
}

/// The text of a `%s` or `%q` operand, which must be a primitive value.
fn text_operand(arg: &Node) -> Result<String, Fail> {
    match &arg.value {
        Value::Null | Value::List(_) | Value::Object(_) => Err(Fail::Error),
        _ => to_str(arg),
    }
}

/// The sign of a formatted number: `-`, or what the `+` and space flags ask for.
fn sign(negative: bool, plus: bool, space: bool) -> String {
    if negative {
        "-".into()
    } else if plus {
        "+".into()
    } else if space {
        " ".into()
    } else {
        String::new()
    }
}

/// `%e` as Go writes it: at least two exponent digits, with a sign.
fn go_scientific(number: f64, precision: usize) -> String {
    go_exponent(&format!("{:.*e}", precision, number))
}

/// Rust's exponent form (`1.5e3`, `2e-7`) as Go writes it (`1.5e+03`, `2e-07`).
fn go_exponent(text: &str) -> String {
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let (exponent_sign, digits) = match exponent.strip_prefix('-') {
                Some(digits) => ('-', digits),
                None => ('+', exponent),
            };
            let digits = if digits.len() < 2 {
                format!("0{digits}")
            } else {
                digits.to_string()
            };
            format!("{mantissa}e{exponent_sign}{digits}")
        }
        None => text.to_string(),
    }
}
