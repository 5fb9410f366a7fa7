//! Typed records: handshakes, ACKs and action records for each protocol version, read from the
//! JSON the scanner delimited. Field checks that depend on a workflow (nonce, sequence) live in
//! the engine; payload schemas live in [`super::validate`].

use serde_json::{Map, Value};

use super::fingerprint::Fingerprint;
pub(crate) use super::refusal::Refusal;

pub use super::negotiation::{
    CAPABILITY_ACTION_LINES, Capability, ProtocolVersion, STATE_ACKNOWLEDGED, STATE_AWAITING_ACK,
};

/// Longest accepted workflow_id, in characters.
pub const WORKFLOW_ID_MAX_CHARS: usize = 128;

/// Parse a record's JSON into an object, with the engine's one JSON reader ([`super::json`]):
/// duplicate keys and anything JSON readers disagree on are refused.
pub(crate) fn parse_object(json: &str) -> Result<Map<String, Value>, Refusal> {
    super::json::read_object(json)
}

/// A record's identity "as parsed fields, not bytes": key order and spacing do not matter.
pub(crate) fn object_fingerprint(map: &Map<String, Value>) -> Fingerprint {
    Fingerprint::of(canonical_json(map).as_bytes())
}

/// `map` as compact JSON, as serde_json writes it (the fingerprints saved states hold were taken
/// of serde_json's text): its default map is ordered by key, so this text is canonical.
fn canonical_json(map: &Map<String, Value>) -> String {
    let mut out = String::new();
    super::json_write::object(&mut out, map);
    out
}

/// The string field `key`, if present and a string.
pub(crate) fn str_field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Value::as_str)
}

/// Read and check the `protocol` field.
pub(crate) fn protocol_field(map: &Map<String, Value>) -> Result<ProtocolVersion, Refusal> {
    match map.get("protocol") {
        None => Err(Refusal::ProtocolMissing),
        Some(Value::String(text)) => {
            ProtocolVersion::parse(text).ok_or_else(|| Refusal::UnsupportedProtocol {
                protocol: text.clone(),
            })
        }
        Some(_) => Err(Refusal::ProtocolNotString),
    }
}

/// Workflow ids of the protocol text's worked examples: a model echoing the documentation must
/// not start a workflow.
pub const EXAMPLE_WORKFLOW_IDS: &[&str] = &["wf_123"];

/// Check a workflow_id: 1-128 characters, no control characters, not the template placeholder
/// nor the documentation's example id.
pub fn check_workflow_id(id: &str) -> Result<(), Refusal> {
    if EXAMPLE_WORKFLOW_IDS.contains(&id) {
        return Err(Refusal::ExampleWorkflowId {
            workflow_id: id.to_owned(),
        });
    }
    if id.contains("{{") {
        return Err(Refusal::PlaceholderWorkflowId);
    }
    let chars = id.chars().count();
    if chars == 0 || chars > WORKFLOW_ID_MAX_CHARS {
        return Err(Refusal::WorkflowIdLength {
            chars,
            max: WORKFLOW_ID_MAX_CHARS,
        });
    }
    if id.chars().any(char::is_control) {
        return Err(Refusal::WorkflowIdControl);
    }
    if id.chars().any(is_format_char) {
        return Err(Refusal::WorkflowIdInvisible);
    }
    Ok(())
}

/// Whether `c` is an invisible formatting character (Unicode general category Cf): direction
/// marks, embeddings, overrides and isolates, zero-width spaces and joiners, the BOM, tag
/// characters. [`char::is_control`] covers only Cc, yet these reorder or hide what a person
/// reads: `wf-\u{202e}gnp.knab` shows as `wf-bank.png`. The Cf set is these few ranges
/// (Unicode 15.1), written out rather than taken from a table crate.
pub(crate) fn is_format_char(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
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
        Ok(_) => return Err(Refusal::HandshakeNotObject),
        Err(refusal) => return Err(Refusal::HandshakeJson(Box::new(refusal))),
    };
    let protocol = match protocol_field(&map) {
        Ok(p) => p,
        Err(refusal @ (Refusal::ProtocolMissing | Refusal::ProtocolNotString)) => {
            return Err(Refusal::InHandshake(Box::new(refusal)));
        }
        Err(other) => return Err(other),
    };
    let workflow_id = match map.get("workflow_id") {
        Some(Value::String(id)) => id.clone(),
        _ => return Err(Refusal::HandshakeNoWorkflowId),
    };
    check_workflow_id(&workflow_id)?;
    if protocol == ProtocolVersion::V0_3 && form == HandshakeForm::Line {
        return Err(Refusal::HandshakeLineV03);
    }
    if protocol == ProtocolVersion::V0_3 && str_field(&map, "kind") != Some("handshake") {
        return Err(Refusal::HandshakeKind);
    }
    if str_field(&map, "state") != Some(STATE_AWAITING_ACK) {
        return Err(Refusal::HandshakeState);
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
        // `chunked_results` continues result lines and `vision` attaches its picture to one:
        // without `result_lines` they mean nothing, and are dropped like an unknown name (the
        // ACK does not echo them).
        if !capabilities.contains(&Capability::ResultLines) {
            capabilities.retain(|c| !matches!(c, Capability::ChunkedResults | Capability::Vision));
        }
        if !listed.contains(&CAPABILITY_ACTION_LINES) {
            return Err(Refusal::HandshakeNoActionLines);
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
    let workflow_id = workflow_field(map).ok_or(Refusal::AckNoWorkflowId)?;
    let ack_nonce = str_field(map, "ack_nonce").ok_or(Refusal::AckNoNonce)?;
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
    let (mut id, mut nonce) = (String::new(), String::new());
    super::json_write::string(&mut id, workflow_id);
    super::json_write::string(&mut nonce, ack_nonce);
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
        None => Err(Refusal::ActionIdMissing),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(id) if (1..=MAX_SAFE).contains(&id) => Ok(id),
            _ => Err(Refusal::ActionIdNotWhole {
                written: n.to_string(),
            }),
        },
        Some(other) => Err(Refusal::ActionIdNotNumber {
            written: super::json_write::value_json(other),
            json_type: json_type(other),
        }),
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
    use crate::protocol::error::RejectCode;

    /// Records whose identity (`object_fingerprint`) the saved states of earlier builds hold:
    /// keys out of order and nested, escapes, non-ASCII and U+2028, the largest safe integers and
    /// negative, floats (whole and tiny), `null`, booleans, empty containers.
    const FINGERPRINTED: &[&str] = &[
        r##"{}"##,
        r##"{"protocol":"BAI/0.3","workflow_id":"wf-1","kind":"action","ack_nonce":"n_0123456789abcdef","action_id":1,"type":"click","payload":{"selector":"#buy"}}"##,
        r##"{"z":1,"a":{"y":[1,2,{"b":null,"a":true}],"x":false},"m":[]}"##,
        r##"{"s":"q\"b\\s/ \u0001\t\n\r\b\f \u001f \u007f é \u2028 \u2029 😀 \ud83d\ude00"}"##,
        r##"{"n":[0,-1,9007199254740991,-9007199254740991,-0.5]}"##,
        r##"{"f":[1.0,0.5,-2.25,1e-7,123456.789,0.1,1E2,1e15,1.5e-5]}"##,
        r##"{"e":2,"E":3,"_":{"":""},"v":"é\u00e9"}"##,
    ];

    /// Each record's canonical text and fingerprint, as serde_json wrote them before the
    /// canonical JSON was written by hand.
    #[test]
    fn record_fingerprints_are_as_before() {
        let got: Vec<String> = FINGERPRINTED
            .iter()
            .map(|json| {
                let map = parse_object(json).unwrap();
                format!("{:016x}", object_fingerprint(&map).0)
            })
            .collect();
        assert_eq!(got, FINGERPRINTS);
        let map = parse_object(FINGERPRINTED[2]).unwrap();
        assert_eq!(
            canonical_json(&map),
            r#"{"a":{"x":false,"y":[1,2,{"a":true,"b":null}]},"m":[],"z":1}"#
        );
        let map = parse_object(FINGERPRINTED[5]).unwrap();
        assert_eq!(
            canonical_json(&map),
            r#"{"f":[1.0,0.5,-2.25,1e-7,123456.789,0.1,100.0,1000000000000000.0,0.000015]}"#
        );
        let map = parse_object(FINGERPRINTED[3]).unwrap();
        assert_eq!(
            canonical_json(&map),
            "{\"s\":\"q\\\"b\\\\s/ \\u0001\\t\\n\\r\\b\\f \\u001f \u{7f} é \u{2028} \u{2029} 😀 😀\"}"
        );
    }

    const FINGERPRINTS: &[&str] = &[
        "6b532b01bbc0c2d4",
        "063b1cad95812c50",
        "017fb03362d7ae74",
        "11cf734ee8dd2bdd",
        "8019cd9a8747f41b",
        "f1ab64f9c281e2bf",
        "51dff9651482aa08",
    ];

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
            parse_handshake(ok, HandshakeForm::Line).unwrap_err().code(),
            RejectCode::InvalidHandshake
        );
        let placeholder = ok.replace("w1", "{{RANDOM_UUID}}");
        assert_eq!(
            parse_handshake(&placeholder, HandshakeForm::BaiBlock)
                .unwrap_err()
                .code(),
            RejectCode::PlaceholderWorkflowId
        );
        let v4 = ok.replace("0.3", "0.4");
        assert_eq!(
            parse_handshake(&v4, HandshakeForm::BaiBlock)
                .unwrap_err()
                .code(),
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

    #[test]
    fn format_characters_are_the_cf_set_and_nothing_visible() {
        for c in [
            '\u{00AD}',
            '\u{0600}',
            '\u{061C}',
            '\u{200B}',
            '\u{200D}',
            '\u{200F}',
            '\u{202A}',
            '\u{202E}',
            '\u{2060}',
            '\u{2066}',
            '\u{2069}',
            '\u{FEFF}',
            '\u{FFFB}',
            '\u{110BD}',
            '\u{1D173}',
            '\u{E0001}',
            '\u{E0041}',
            '\u{E007F}',
        ] {
            assert!(is_format_char(c), "U+{:04X}", c as u32);
            assert_eq!(
                check_workflow_id(&format!("wf-{c}1")).map_err(|r| r.code()),
                Err(RejectCode::InvalidWorkflowId),
                "U+{:04X}",
                c as u32
            );
        }
        // Visible neighbours: letters, spaces and dashes of other scripts, an emoji.
        for c in [
            'a',
            '-',
            '\u{00E9}',
            '\u{200A}',
            '\u{2010}',
            '\u{2070}',
            '\u{FFFC}',
            '\u{1F44D}',
            '\u{0606}',
            '\u{E0080}',
        ] {
            assert!(!is_format_char(c), "U+{:04X}", c as u32);
        }
        assert_eq!(check_workflow_id("wf-caf\u{00E9}-1"), Ok(()));
    }
}
