//! The DOM layer: finds elements and performs validated actions on the live page, through
//! web-sys. Built only for wasm32.
