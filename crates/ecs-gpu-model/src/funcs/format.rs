//! The verbs of Terraform's `format` and `formatlist` (Go's `fmt`, as cty implements it).

use super::unsupported;
use crate::eval::{to_bool, to_num, to_str, Fail, MAX_STRING};
use crate::json::node_to_json_text;
use crate::value::{Node, Value};

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
        let Some(&c2) = chars.get(i) else {
            return Err(Fail::Error);
        };
        if c2 == '%' {
            out.push('%');
            i += 1;
            continue;
        }
        let (mut minus, mut plus, mut zero, mut space, mut sharp) =
            (false, false, false, false, false);
        while let Some(&fl) = chars.get(i) {
            match fl {
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
            let n: usize = chars[i + 1..close]
                .iter()
                .collect::<String>()
                .parse()
                .map_err(|_| Fail::Error)?;
            if n == 0 {
                return Err(Fail::Error);
            }
            next_arg = n - 1;
            i = close + 1;
        }
        let mut width: Option<usize> = None;
        while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
            width = Some(
                width
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(d as usize)
                    .min(10_000),
            );
            i += 1;
        }
        let mut prec: Option<usize> = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            prec = Some(0);
            while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
                prec = Some(
                    prec.unwrap_or(0)
                        .saturating_mul(10)
                        .saturating_add(d as usize)
                        .min(10_000),
                );
                i += 1;
            }
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
                let t = match &arg.value {
                    Value::Null | Value::List(_) | Value::Object(_) => return Err(Fail::Error),
                    _ => to_str(arg)?,
                };
                match prec {
                    Some(p) => t.chars().take(p).collect(),
                    None => t,
                }
            }
            'q' => {
                let t = match &arg.value {
                    Value::Null | Value::List(_) | Value::Object(_) => return Err(Fail::Error),
                    _ => to_str(arg)?,
                };
                let mut q = String::new();
                crate::json::write_json_string(&t, &mut q);
                q
            }
            't' => to_bool(arg)?.to_string(),
            'd' | 'b' | 'o' | 'x' | 'X' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                numeric = true;
                let n = to_num(arg)?;
                match verb {
                    'd' | 'b' | 'o' | 'x' | 'X' => {
                        if n.fract() != 0.0 || n.abs() > 9e15 {
                            return Err(Fail::Error);
                        }
                        let m = n.abs() as u64;
                        let digits = match verb {
                            'd' => m.to_string(),
                            'b' => format!("{m:b}"),
                            'o' => format!("{m:o}"),
                            'x' => format!("{m:x}"),
                            _ => format!("{m:X}"),
                        };
                        let digits = match prec {
                            Some(p) if digits.len() < p => {
                                format!("{}{digits}", "0".repeat(p - digits.len()))
                            }
                            _ => digits,
                        };
                        sign(n < 0.0, plus, space) + &digits
                    }
                    'f' | 'F' => {
                        let p = prec.unwrap_or(6);
                        let t = format!("{:.*}", p, n.abs());
                        sign(n < 0.0 || (n == 0.0 && n.is_sign_negative()), plus, space) + &t
                    }
                    'e' | 'E' => {
                        let p = prec.unwrap_or(6);
                        let t = go_exp(n.abs(), p);
                        let t = if verb == 'E' { t.to_uppercase() } else { t };
                        sign(n < 0.0, plus, space) + &t
                    }
                    _ => {
                        // %g: the shortest representation.
                        let t = match prec {
                            None => {
                                let a = n.abs();
                                if a != 0.0 && !(1e-4..1e21).contains(&a) {
                                    let t = format!("{a:e}");
                                    go_exponent(&t)
                                } else {
                                    format!("{a}")
                                }
                            }
                            Some(_) => return Err(unsupported()),
                        };
                        sign(n < 0.0, plus, space) + &t
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

fn sign(neg: bool, plus: bool, space: bool) -> String {
    if neg {
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
fn go_exp(n: f64, prec: usize) -> String {
    go_exponent(&format!("{:.*e}", prec, n))
}

fn go_exponent(t: &str) -> String {
    match t.split_once('e') {
        Some((m, e)) => {
            let (exponent_sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            let digits = if digits.len() < 2 {
                format!("0{digits}")
            } else {
                digits.to_string()
            };
            format!("{m}e{exponent_sign}{digits}")
        }
        None => t.to_string(),
    }
}
