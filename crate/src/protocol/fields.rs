//! Reading typed fields out of a JSON object read by [`crate::protocol::json`], for the hand-written
//! readers of the engine's saved state and of what the glue passes in. They read as the serde
//! derives they replace did: unknown fields are ignored, a field marked `default` may be
//! missing, an `Option` may be missing or `null`, anything else is required and must have its
//! type. Plain functions, not generic over a deserializer, so the chat module's wasm holds one
//! small copy of each (serde's derives held one per type and format, and their error texts).

use serde_json::{Map, Value};

use super::quote::Quoted;

/// Why a value could not be read: a plain sentence naming the field.
pub type FieldError = String;

/// The fields of one JSON object.
#[derive(Debug, Clone, Copy)]
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    /// What the object is, for messages (`"workflow"`).
    what: &'static str,
}

/// `value` as an object's fields, or why not.
pub fn fields<'a>(value: &'a Value, what: &'static str) -> Result<Fields<'a>, FieldError> {
    match value {
        Value::Object(map) => Ok(Fields { map, what }),
        _ => Err(format!("{what}: expected an object")),
    }
}

fn bad(what: &str, key: &str, expected: &str) -> FieldError {
    format!("{what}: {} must be {expected}", Quoted(key))
}

impl<'a> Fields<'a> {
    /// The field, when present (`null` included).
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// A required field.
    pub fn required(&self, key: &str) -> Result<&'a Value, FieldError> {
        self.map
            .get(key)
            .ok_or_else(|| format!("{}: {} is missing", self.what, Quoted(key)))
    }

    /// An optional field: missing and `null` are `None`.
    pub fn optional(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|value| !value.is_null())
    }

    /// Reads a required field with `read`.
    pub fn with<T>(
        &self,
        key: &str,
        read: impl FnOnce(&'a Value) -> Option<T>,
        expected: &str,
    ) -> Result<T, FieldError> {
        read(self.required(key)?).ok_or_else(|| bad(self.what, key, expected))
    }

    /// Reads a field marked `default` with `read`: missing is `T::default()`.
    pub fn with_default<T: Default>(
        &self,
        key: &str,
        read: impl FnOnce(&'a Value) -> Option<T>,
        expected: &str,
    ) -> Result<T, FieldError> {
        match self.map.get(key) {
            None => Ok(T::default()),
            Some(value) => read(value).ok_or_else(|| bad(self.what, key, expected)),
        }
    }

    /// Reads an `Option` field with `read`: missing and `null` are `None`.
    pub fn with_optional<T>(
        &self,
        key: &str,
        read: impl FnOnce(&'a Value) -> Option<T>,
        expected: &str,
    ) -> Result<Option<T>, FieldError> {
        match self.optional(key) {
            None => Ok(None),
            Some(value) => read(value)
                .map(Some)
                .ok_or_else(|| bad(self.what, key, expected)),
        }
    }

    /// A required string.
    pub fn string(&self, key: &str) -> Result<String, FieldError> {
        self.with(key, string, "a string")
    }

    /// A required unsigned integer.
    pub fn u64(&self, key: &str) -> Result<u64, FieldError> {
        self.with(key, Value::as_u64, "an unsigned integer")
    }

    /// A required unsigned integer that fits a `usize`.
    pub fn usize(&self, key: &str) -> Result<usize, FieldError> {
        self.with(key, usize_of, "an unsigned integer")
    }

    /// A required boolean.
    pub fn bool(&self, key: &str) -> Result<bool, FieldError> {
        self.with(key, Value::as_bool, "true or false")
    }

    /// A list whose every item `read` reads (required unless `default`).
    pub fn list<T>(
        &self,
        key: &str,
        default: bool,
        read: impl Fn(&'a Value) -> Result<T, FieldError>,
    ) -> Result<Vec<T>, FieldError> {
        let value = match self.map.get(key) {
            None if default => return Ok(Vec::new()),
            None => self.required(key)?,
            Some(value) => value,
        };
        list(value, read).map_err(|error| format!("{}: {}: {error}", self.what, Quoted(key)))
    }
}

/// Every item of a JSON array, read by `read`.
pub fn list<'a, T>(
    value: &'a Value,
    read: impl Fn(&'a Value) -> Result<T, FieldError>,
) -> Result<Vec<T>, FieldError> {
    let Value::Array(items) = value else {
        return Err("expected a list".to_owned());
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(read(item)?);
    }
    Ok(out)
}

/// A JSON string's text.
pub fn string(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

/// A JSON unsigned integer that fits a `usize`.
pub fn usize_of(value: &Value) -> Option<usize> {
    value.as_u64().and_then(|n| usize::try_from(n).ok())
}

/// A JSON unsigned integer that fits a `u32`.
pub fn u32_of(value: &Value) -> Option<u32> {
    value.as_u64().and_then(|n| u32::try_from(n).ok())
}

/// A list of strings.
pub fn strings(value: &Value) -> Option<Vec<String>> {
    list(value, |item| string(item).ok_or_default()).ok()
}

/// A list of unsigned integers.
pub fn u64s(value: &Value) -> Option<Vec<u64>> {
    list(value, |item| item.as_u64().ok_or_default()).ok()
}

/// `Option` to a result with an empty error, for [`list`] items read by an `Option` reader.
trait OkOrDefault<T> {
    fn ok_or_default(self) -> Result<T, FieldError>;
}

impl<T> OkOrDefault<T> for Option<T> {
    fn ok_or_default(self) -> Result<T, FieldError> {
        self.ok_or_else(|| "an item has the wrong type".to_owned())
    }
}
