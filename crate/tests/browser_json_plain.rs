//! The plain JSON reader in wasm reads what its fast path cannot (17 significant digits, long
//! integers, tiny exponents) through JavaScript's `parseFloat`: the same double as a correctly
//! rounding reader, and beyond a double's range refused as serde_json refuses it.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, reason = "tests: a panic is a failing test")]

use bai::protocol::json::read_plain;
use serde_json::json;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn plain_numbers_read_to_the_nearest_double() {
    assert_eq!(read_plain("0.30000000000000004").unwrap(), json!(0.1 + 0.2));
    assert_eq!(
        read_plain("[123456789012345678901234567890,18446744073709551616,-0]").unwrap(),
        json!([1.234_567_890_123_456_8e29, 1.844_674_407_370_955_2e19, -0.0])
    );
    assert_eq!(
        read_plain("2.2250738585072011e-308").unwrap(),
        json!(2.225_073_858_507_201e-308)
    );
    assert_eq!(read_plain("1e-400").unwrap(), json!(0.0));
    assert_eq!(read_plain("12.5").unwrap(), json!(12.5));
    assert!(read_plain("1e400").is_err());
    assert!(read_plain("-1e400").is_err());
}
