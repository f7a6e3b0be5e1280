//! Reads a plan the two ways the benchmark compares (bench/plan/run.sh) and prints the number of
//! effects: `stream` parses from a buffered file reader (memory bounded by the GPU-stack resources),
//! `slice` reads the whole file into memory first and parses from the bytes.
//!
//! Usage: cargo run --release -p ecs-gpu-plan --example read -- stream|slice PLAN.json

use std::io::{BufReader, Read, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, mode, path] = args.as_slice() else {
        return Err("usage: read stream|slice PLAN.json".into());
    };
    let plan = match mode.as_str() {
        "stream" => ecs_gpu_plan::read(BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(path)?,
        ))?,
        "slice" => {
            let mut bytes = Vec::new();
            std::fs::File::open(path)?.read_to_end(&mut bytes)?;
            ecs_gpu_plan::read_slice(&bytes)?
        }
        _ => return Err("mode: stream or slice".into()),
    };
    writeln!(std::io::stdout(), "{} effects", plan.effects().len())?;
    Ok(())
}
