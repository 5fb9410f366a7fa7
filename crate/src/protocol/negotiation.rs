//! The vocabulary a handshake negotiates: protocol versions, capabilities and the handshake's
//! state words. Shared by records, workflows, actions and refusals, so it depends on nothing.

use serde::{Deserialize, Serialize};

/// The protocol versions this engine speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// BAI/0.2: handshake without `kind`; actions without `kind`/`ack_nonce`, allowed before the ACK.
    #[serde(rename = "BAI/0.2")]
    V0_2,
    /// BAI/0.3: handshake only as the single ```` ```bai ```` block; actions carry `kind` and the
    /// ACK's nonce.
    #[serde(rename = "BAI/0.3")]
    V0_3,
}

impl ProtocolVersion {
    /// Every supported version.
    pub const SUPPORTED: &'static [ProtocolVersion] = &[Self::V0_2, Self::V0_3];

    /// The wire name (`"BAI/0.3"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V0_2 => "BAI/0.2",
            Self::V0_3 => "BAI/0.3",
        }
    }

    /// Parse a wire name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::SUPPORTED.iter().copied().find(|v| v.as_str() == text)
    }
}

impl std::fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The handshake state both versions require.
pub const STATE_AWAITING_ACK: &str = "awaiting_extension_ack";
/// The ACK state both versions write.
pub const STATE_ACKNOWLEDGED: &str = "extension_acknowledged";
/// The capability a handshake must announce.
pub const CAPABILITY_ACTION_LINES: &str = "action_lines";
/// The optional capabilities a BAI/0.3 handshake may list beside [`CAPABILITY_ACTION_LINES`].
///
/// Each one widens what the workflow may do; a workflow that negotiated none behaves exactly as
/// plain BAI/0.3. Unknown names in a handshake are ignored (a newer model may ask for more than
/// this extension offers), so a handshake never fails over an extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Capability {
    /// The extension posts a `BAI_RESULT` line after each assistant message with actions.
    ResultLines,
    /// The `observe` action and `ref` selectors (`@e12`).
    Observe,
    /// The richer action types, selector kinds and per-action options.
    ExtendedActions,
    /// A result too large for one line continues over several, each fetched with the `more`
    /// action and a continuation token (and `extract` may ask for up to
    /// [`crate::protocol::action::EXTRACT_LARGE_MAX_CHARS`] characters). Only with
    /// [`Capability::ResultLines`]: without results there is nothing to continue.
    ChunkedResults,
    /// The `screenshot` action: a picture of the target's visible area, secrets masked and the
    /// elements numbered by their refs, attached to the result message. Only with
    /// [`Capability::ResultLines`]: the picture rides on a result message.
    Vision,
    /// Several tabs per workflow: `open_tab` opens a tab on the bound site, `tabs` lists the
    /// workflow's tabs, and a `tab` field beside `type` picks which of them an action acts on.
    Tabs,
}

impl Capability {
    /// Every extension, in the fixed order the ACK lists them (after `action_lines`).
    pub const ALL: &'static [Capability] = &[
        Self::ResultLines,
        Self::Observe,
        Self::ExtendedActions,
        Self::ChunkedResults,
        Self::Vision,
        Self::Tabs,
    ];

    /// The wire name (`"result_lines"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ResultLines => "result_lines",
            Self::Observe => "observe",
            Self::ExtendedActions => "extended_actions",
            Self::ChunkedResults => "chunked_results",
            Self::Vision => "vision",
            Self::Tabs => "tabs",
        }
    }

    /// Parse a wire name (exact).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.as_str() == name)
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
