//! Saving and restoring the engine's whole state (a page reload).

use super::Engine;

impl Engine {
    /// The engine state as JSON, to persist across page reloads.
    pub fn save(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// An engine restored from [`Engine::save`]'s JSON.
    pub fn restore(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }
}
