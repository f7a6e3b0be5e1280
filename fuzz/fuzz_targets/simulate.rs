//! `cargo fuzz run simulate`: see docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ecs_gpu_fuzz::simulate(data);
});
