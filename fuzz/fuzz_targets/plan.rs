//! `cargo fuzz run plan`: see docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ecs_gpu_fuzz::plan(data);
});
