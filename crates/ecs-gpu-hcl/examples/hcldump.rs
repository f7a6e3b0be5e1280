//! Prints the syntax tree of a file (a debugging aid): `cargo run -p ecs-gpu-hcl --example hcldump -- FILE`.
#![allow(clippy::print_stdout, clippy::print_stderr)]

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: hcldump FILE");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let result = if path.ends_with(".json") {
        ecs_gpu_hcl::json::parse(&text).map(|j| format!("{j:#?}"))
    } else {
        ecs_gpu_hcl::parse(&text).map(|f| format!("{f:#?}"))
    };
    match result {
        Ok(tree) => println!("{tree}"),
        Err(e) => {
            let (line, col) = ecs_gpu_hcl::line_col(&text, e.span.start);
            eprintln!("{path}:{line}:{col}: {e}");
            std::process::exit(1);
        }
    }
}
