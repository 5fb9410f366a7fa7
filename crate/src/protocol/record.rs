//! Typed records: handshakes, ACKs and action records for each protocol version, read from the
//! JSON the scanner delimited. Field checks that depend on a workflow (nonce, sequence) live in
//! the engine; payload schemas live in [`super::validate`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::RejectCode;
use super::fingerprint::Fingerprint;

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
}

impl Capability {
    /// Every extension, in the fixed order the ACK lists them (after `action_lines`).
    pub const ALL: &'static [Capability] =
        &[Self::ResultLines, Self::Observe, Self::ExtendedActions];

    /// The wire name (`"result_lines"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ResultLines => "result_lines",
            Self::Observe => "observe",
            Self::ExtendedActions => "extended_actions",
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

/// Longest accepted workflow_id, in characters.
pub const WORKFLOW_ID_MAX_CHARS: usize = 128;

/// A record was refused: the code and a specific reason.
pub(crate) type Refusal = (RejectCode, String);

/// Parse a record's JSON into an object, with the engine's one JSON reader ([`super::json`]):
/// duplicate keys and anything JSON readers disagree on are refused.
pub(crate) fn parse_object(json: &str) -> Result<Map<String, Value>, Refusal> {
    super::json::read_object(json)
}

/// A record's identity "as parsed fields, not bytes": key order and spacing do not matter.
pub(crate) fn object_fingerprint(map: &Map<String, Value>) -> Fingerprint {
    // serde_json's default map is ordered by key, so this serialization is canonical.
    let canonical = serde_json::to_string(map).unwrap_or_default();
    Fingerprint::of(canonical.as_bytes())
}

/// The string field `key`, if present and a string.
pub(crate) fn str_field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Value::as_str)
}

/// Read and check the `protocol` field.
pub(crate) fn protocol_field(map: &Map<String, Value>) -> Result<ProtocolVersion, Refusal> {
    match map.get("protocol") {
        None => Err((
            RejectCode::InvalidRecord,
            "the \"protocol\" field is missing".into(),
        )),
        Some(Value::String(text)) => ProtocolVersion::parse(text).ok_or_else(|| {
            (
                RejectCode::UnsupportedProtocol,
                format!(
                    "protocol {:?} is not supported; use \"BAI/0.3\" (or \"BAI/0.2\")",
                    super::error::excerpt(text)
                ),
            )
        }),
        Some(_) => Err((
            RejectCode::InvalidRecord,
            "the \"protocol\" field must be a string".into(),
        )),
    }
}

/// Workflow ids of the protocol text's worked examples: a model echoing the documentation must
/// not start a workflow.
pub const EXAMPLE_WORKFLOW_IDS: &[&str] = &["wf_123"];

/// Check a workflow_id: 1-128 characters, no control characters, not the template placeholder
/// nor the documentation's example id.
pub fn check_workflow_id(id: &str) -> Result<(), (RejectCode, String)> {
    if EXAMPLE_WORKFLOW_IDS.contains(&id) {
        return Err((
            RejectCode::PlaceholderWorkflowId,
            format!(
                "the workflow_id {id:?} is the protocol's worked example; use a fresh random id"
            ),
        ));
    }
    if id.contains("{{") {
        return Err((
            RejectCode::PlaceholderWorkflowId,
            "the workflow_id is still the template placeholder; replace {{RANDOM_UUID}} with a random id".into(),
        ));
    }
    let chars = id.chars().count();
    if chars == 0 || chars > WORKFLOW_ID_MAX_CHARS {
        return Err((
            RejectCode::InvalidWorkflowId,
            format!("the workflow_id has {chars} characters; use 1 to {WORKFLOW_ID_MAX_CHARS}"),
        ));
    }
    if id.chars().any(char::is_control) {
        return Err((
            RejectCode::InvalidWorkflowId,
            "the workflow_id contains control characters; use letters, digits and dashes".into(),
        ));
    }
    Ok(())
}

/// Read the workflow_id of a record (not validated: a record names a workflow or not).
pub(crate) fn workflow_field(map: &Map<String, Value>) -> Option<&str> {
    str_field(map, "workflow_id")
}

/// A valid handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handshake {
    /// Its protocol.
    pub protocol: ProtocolVersion,
    /// The workflow it starts.
    pub workflow_id: String,
    /// The extensions it asked for that this engine offers, in [`Capability::ALL`] order
    /// (BAI/0.3 only; always empty for BAI/0.2).
    pub capabilities: Vec<Capability>,
}

/// Where a handshake was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandshakeForm {
    /// A ```` ```bai ```` fenced block (both versions).
    BaiBlock,
    /// A `BAI_HANDSHAKE {…}` line (BAI/0.2 only).
    Line,
}

/// Read a handshake from a bai block's content or a `BAI_HANDSHAKE` line's JSON.
pub fn parse_handshake(json: &str, form: HandshakeForm) -> Result<Handshake, Refusal> {
    // JSON whitespace only around the object: `str::trim` would also drop a no-break space that
    // `JSON.parse` refuses.
    let map = match super::json::read_value(json) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            return Err((
                RejectCode::InvalidHandshake,
                "the handshake is not a JSON object; send the handshake JSON exactly as the protocol shows".into(),
            ));
        }
        Err((RejectCode::DuplicateKey, reason)) => {
            return Err((RejectCode::DuplicateKey, format!("the handshake: {reason}")));
        }
        Err((_, reason)) => {
            return Err((
                RejectCode::InvalidHandshake,
                format!("the handshake: {reason} in the ```bai block"),
            ));
        }
    };
    let protocol = match protocol_field(&map) {
        Ok(p) => p,
        Err((RejectCode::InvalidRecord, reason)) => {
            return Err((RejectCode::InvalidHandshake, reason));
        }
        Err(other) => return Err(other),
    };
    let workflow_id = match map.get("workflow_id") {
        Some(Value::String(id)) => id.clone(),
        _ => {
            return Err((
                RejectCode::InvalidHandshake,
                "the handshake has no \"workflow_id\" string".into(),
            ));
        }
    };
    check_workflow_id(&workflow_id)?;
    if protocol == ProtocolVersion::V0_3 && form == HandshakeForm::Line {
        return Err((
            RejectCode::InvalidHandshake,
            "a BAI/0.3 handshake must be the only ```bai block of the message, not a BAI_HANDSHAKE line".into(),
        ));
    }
    if protocol == ProtocolVersion::V0_3 && str_field(&map, "kind") != Some("handshake") {
        return Err((
            RejectCode::InvalidHandshake,
            "a BAI/0.3 handshake must have \"kind\":\"handshake\"".into(),
        ));
    }
    if str_field(&map, "state") != Some(STATE_AWAITING_ACK) {
        return Err((
            RejectCode::InvalidHandshake,
            format!("the handshake must have \"state\":\"{STATE_AWAITING_ACK}\""),
        ));
    }
    let mut capabilities = Vec::new();
    if protocol == ProtocolVersion::V0_3 {
        let listed: Vec<&str> = map
            .get("capabilities")
            .and_then(Value::as_array)
            .map(|caps| caps.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        capabilities = Capability::ALL
            .iter()
            .copied()
            .filter(|c| listed.contains(&c.as_str()))
            .collect();
        if !listed.contains(&CAPABILITY_ACTION_LINES) {
            return Err((
                RejectCode::InvalidHandshake,
                format!(
                    "a BAI/0.3 handshake must list \"{CAPABILITY_ACTION_LINES}\" in \"capabilities\""
                ),
            ));
        }
    }
    Ok(Handshake {
        protocol,
        workflow_id,
        capabilities,
    })
}

/// The fields of an ACK record that identify it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AckRecord {
    /// Its protocol.
    pub protocol: ProtocolVersion,
    /// The workflow it acknowledges.
    pub workflow_id: String,
    /// The nonce it carries.
    pub ack_nonce: String,
}

/// Read an ACK record (shape only; whether it is this engine's ACK is the engine's business).
pub(crate) fn parse_ack(map: &Map<String, Value>) -> Result<AckRecord, Refusal> {
    let protocol = protocol_field(map)?;
    let workflow_id = workflow_field(map).ok_or((
        RejectCode::InvalidRecord,
        "the ACK has no \"workflow_id\" string".into(),
    ))?;
    let ack_nonce = str_field(map, "ack_nonce").ok_or((
        RejectCode::InvalidRecord,
        "the ACK has no \"ack_nonce\" string".into(),
    ))?;
    Ok(AckRecord {
        protocol,
        workflow_id: workflow_id.to_owned(),
        ack_nonce: ack_nonce.to_owned(),
    })
}

/// The ACK line this engine posts for a workflow, with fields in the seed's order.
pub fn ack_line(protocol: ProtocolVersion, workflow_id: &str, ack_nonce: &str) -> String {
    ack_line_with_capabilities(protocol, workflow_id, ack_nonce, &[])
}

/// The ACK line for a workflow that negotiated `extensions`: the seed's line, plus
/// `,"capabilities":["action_lines",...]` after `ack_nonce` when `extensions` is not empty (BAI/0.3
/// only), so the model learns which of its requests were accepted. Without extensions the line is
/// byte for byte [`ack_line`]'s.
pub fn ack_line_with_capabilities(
    protocol: ProtocolVersion,
    workflow_id: &str,
    ack_nonce: &str,
    extensions: &[Capability],
) -> String {
    // Serializing a &str cannot fail; the fallback only keeps the signature infallible.
    let id = serde_json::to_string(workflow_id).unwrap_or_else(|_| "\"\"".into());
    let nonce = serde_json::to_string(ack_nonce).unwrap_or_else(|_| "\"\"".into());
    match protocol {
        ProtocolVersion::V0_2 => format!(
            "BAI_ACK {{\"protocol\":\"BAI/0.2\",\"workflow_id\":{id},\"state\":\"{STATE_ACKNOWLEDGED}\",\"ack_nonce\":{nonce}}}"
        ),
        ProtocolVersion::V0_3 if extensions.is_empty() => format!(
            "BAI_ACK {{\"protocol\":\"BAI/0.3\",\"workflow_id\":{id},\"kind\":\"ack\",\"state\":\"{STATE_ACKNOWLEDGED}\",\"ack_nonce\":{nonce}}}"
        ),
        ProtocolVersion::V0_3 => {
            let mut names = format!("\"{CAPABILITY_ACTION_LINES}\"");
            for capability in Capability::ALL.iter().filter(|c| extensions.contains(c)) {
                names.push_str(",\"");
                names.push_str(capability.as_str());
                names.push('"');
            }
            format!(
                "BAI_ACK {{\"protocol\":\"BAI/0.3\",\"workflow_id\":{id},\"kind\":\"ack\",\"state\":\"{STATE_ACKNOWLEDGED}\",\"ack_nonce\":{nonce},\"capabilities\":[{names}]}}"
            )
        }
    }
}

/// Shortest and longest accepted nonce hex part.
const NONCE_HEX_MIN: usize = 16;
const NONCE_HEX_MAX: usize = 64;

/// Whether `nonce` is `n_` followed by 16 to 64 lowercase hex digits.
pub fn is_valid_nonce(nonce: &str) -> bool {
    nonce.strip_prefix("n_").is_some_and(|hex| {
        (NONCE_HEX_MIN..=NONCE_HEX_MAX).contains(&hex.len())
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The action_id of a record, if it is a whole number from 1 up to 2^53.
pub(crate) fn action_id_field(map: &Map<String, Value>) -> Result<u64, Refusal> {
    const MAX_SAFE: u64 = (1 << 53) - 1;
    match map.get("action_id") {
        None => Err((
            RejectCode::InvalidActionId,
            "the action has no \"action_id\"; number actions 1, 2, 3, ...".into(),
        )),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(id) if (1..=MAX_SAFE).contains(&id) => Ok(id),
            _ => Err((
                RejectCode::InvalidActionId,
                format!("action_id {n} is not a whole number from 1 upwards"),
            )),
        },
        Some(other) => Err((
            RejectCode::InvalidActionId,
            format!(
                "action_id {} must be a number, not {}",
                super::error::excerpt(&other.to_string()),
                json_type(other)
            ),
        )),
    }
}

/// A JSON value's type, for messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_lines_match_the_seed() {
        assert_eq!(
            ack_line(ProtocolVersion::V0_3, "wf_123", "n_7d8f1c"),
            r#"BAI_ACK {"protocol":"BAI/0.3","workflow_id":"wf_123","kind":"ack","state":"extension_acknowledged","ack_nonce":"n_7d8f1c"}"#
        );
        assert_eq!(
            ack_line(ProtocolVersion::V0_2, "w\"x", "n_1"),
            r#"BAI_ACK {"protocol":"BAI/0.2","workflow_id":"w\"x","state":"extension_acknowledged","ack_nonce":"n_1"}"#
        );
    }

    #[test]
    fn nonces() {
        assert!(is_valid_nonce("n_0123456789abcdef"));
        assert!(!is_valid_nonce("n_0123456789ABCDEF"));
        assert!(!is_valid_nonce("n_7d8f1c"));
        assert!(!is_valid_nonce("0123456789abcdef01"));
        assert!(!is_valid_nonce(&format!("n_{}", "a".repeat(65))));
    }

    #[test]
    fn handshakes() {
        let ok = r#"{"protocol":"BAI/0.3","workflow_id":"w1","kind":"handshake","state":"awaiting_extension_ack","capabilities":["action_lines"]}"#;
        assert!(parse_handshake(ok, HandshakeForm::BaiBlock).is_ok());
        assert_eq!(
            parse_handshake(ok, HandshakeForm::Line).unwrap_err().0,
            RejectCode::InvalidHandshake
        );
        let placeholder = ok.replace("w1", "{{RANDOM_UUID}}");
        assert_eq!(
            parse_handshake(&placeholder, HandshakeForm::BaiBlock)
                .unwrap_err()
                .0,
            RejectCode::PlaceholderWorkflowId
        );
        let v4 = ok.replace("0.3", "0.4");
        assert_eq!(
            parse_handshake(&v4, HandshakeForm::BaiBlock).unwrap_err().0,
            RejectCode::UnsupportedProtocol
        );
        let v2 = r#"{"protocol":"BAI/0.2","workflow_id":"w2","state":"awaiting_extension_ack"}"#;
        assert!(parse_handshake(v2, HandshakeForm::Line).is_ok());
    }

    #[test]
    fn handshake_capabilities_known_ones_in_fixed_order() {
        let h = r#"{"protocol":"BAI/0.3","workflow_id":"w1","kind":"handshake","state":"awaiting_extension_ack","capabilities":["extended_actions","teleport",7,"action_lines","result_lines"]}"#;
        let parsed = parse_handshake(h, HandshakeForm::BaiBlock).unwrap();
        assert_eq!(
            parsed.capabilities,
            vec![Capability::ResultLines, Capability::ExtendedActions]
        );
        let v2 = r#"{"protocol":"BAI/0.2","workflow_id":"w2","state":"awaiting_extension_ack","capabilities":["observe"]}"#;
        assert!(
            parse_handshake(v2, HandshakeForm::BaiBlock)
                .unwrap()
                .capabilities
                .is_empty()
        );
    }

    #[test]
    fn ack_line_echoes_capabilities_only_when_extended() {
        assert_eq!(
            ack_line_with_capabilities(ProtocolVersion::V0_3, "w", "n_1", &[]),
            ack_line(ProtocolVersion::V0_3, "w", "n_1")
        );
        assert_eq!(
            ack_line_with_capabilities(
                ProtocolVersion::V0_3,
                "w",
                "n_1",
                &[Capability::ExtendedActions, Capability::Observe]
            ),
            r#"BAI_ACK {"protocol":"BAI/0.3","workflow_id":"w","kind":"ack","state":"extension_acknowledged","ack_nonce":"n_1","capabilities":["action_lines","observe","extended_actions"]}"#
        );
    }
}
