//! A task definition's `cpu` and `memory` as `RegisterTaskDefinition` takes them (source key BOTO:
//! `RegisterTaskDefinitionRequest.cpu` and `.memory` in the ECS API model). `cpu`: an integer of
//! CPU units (`1024`), or vCPUs as a string (`1 vCPU`, `1 vcpu`). `memory`: an integer of MiB
//! (`1024`), or GB as a string (`1GB`, `1 GB`). ECS converts the strings to integers (× 1024) when
//! the task definition is registered. Any other form is not read (`None`): a rule does not guess
//! what ECS would make of it.

/// CPU units of a task-level `cpu` string.
pub fn task_cpu_units(s: &str) -> Option<f64> {
    parse(s, &["vCPU", "vcpu"])
}

/// MiB of a task-level `memory` string.
pub fn task_memory_mib(s: &str) -> Option<f64> {
    parse(s, &["GB"])
}

fn parse(s: &str, units: &[&str]) -> Option<f64> {
    let t = s.trim();
    if let Ok(n) = t.parse::<u64>() {
        // Sizes are far below 2^53: exact as f64.
        #[allow(clippy::cast_precision_loss)]
        return Some(n as f64);
    }
    let number = units.iter().find_map(|u| t.strip_suffix(u))?.trim_end();
    // A decimal number of units (`0.25 vCPU`); no sign, exponent or `inf`.
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let x: f64 = number.parse().ok()?;
    Some(x * 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_forms_are_read_and_no_other() {
        assert_eq!(task_cpu_units("1024"), Some(1024.0));
        assert_eq!(task_cpu_units(" 4 vCPU "), Some(4096.0));
        assert_eq!(task_cpu_units("1 vcpu"), Some(1024.0));
        assert_eq!(task_cpu_units("0.25 vCPU"), Some(256.0));
        assert_eq!(task_memory_mib("16384"), Some(16384.0));
        assert_eq!(task_memory_mib("16 GB"), Some(16384.0));
        assert_eq!(task_memory_mib("1GB"), Some(1024.0));
        for bad in [
            "", "inf", "1e9", "-1", "4 cores", "vCPU", "16 GiB", "16 gb", "2 VCPU",
        ] {
            assert_eq!(task_cpu_units(bad), None, "{bad}");
            assert_eq!(task_memory_mib(bad), None, "{bad}");
        }
    }
}
