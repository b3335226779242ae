//! The HTTP `Content-Range` parser.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Some((a, b, total)) = rete_http::parse_content_range(s) {
            assert!(a <= b);
            assert!(total.is_none_or(|t| b < t));
        }
    }
});
