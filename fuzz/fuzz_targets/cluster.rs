#![no_main]

#[allow(dead_code)]
mod targets {
    include!("../targets.rs");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::cluster(data));
