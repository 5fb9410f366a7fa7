//! Saving and restoring the engine's whole state (a page reload).

use super::Engine;

impl Engine {
    /// The engine state as JSON, to persist across page reloads.
    pub fn save(&self) -> Result<String, serde_json::Error> {
        // A finished workflow's continuation can never be fetched: it is not written to disk.
        if self
            .workflows
            .iter()
            .any(|w| w.state.is_finished() && w.continuation.is_some())
        {
            let mut copy = self.clone();
            for workflow in &mut copy.workflows {
                if workflow.state.is_finished() {
                    workflow.continuation = None;
                }
            }
            return serde_json::to_string(&copy);
        }
        serde_json::to_string(self)
    }

    /// An engine restored from [`Engine::save`]'s JSON.
    pub fn restore(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }
}
