//! The table of a workflow's tabs ([`crate::protocol::tabs`]) for the background: one command
//! in, the table after it and the answer out, as JSON. The background stores the table.

use wasm_bindgen::prelude::*;

use crate::protocol::tabs::{OwnedTabs, TabCommand, run_command};

/// Runs `command_json` (a [`TabCommand`]) on the stored `table_json` (absent for `new`).
/// Answers `{"table", ...answer}` or `{"error": {code, message}}`; an unreadable table or
/// command is an error too, never a table to act on.
#[wasm_bindgen]
pub fn owned_tabs(table_json: Option<String>, command_json: String) -> String {
    let error = |code: &str, message: String| {
        serde_json::json!({ "error": { "code": code, "message": message } }).to_string()
    };
    let table = match table_json.map(|json| serde_json::from_str::<OwnedTabs>(&json)) {
        None => None,
        Some(Ok(table)) => Some(table),
        Some(Err(problem)) => return error("invalid_tab_table", problem.to_string()),
    };
    match serde_json::from_str::<TabCommand>(&command_json) {
        Ok(command) => run_command(table, command).to_string(),
        Err(problem) => error("invalid_tab_command", problem.to_string()),
    }
}
