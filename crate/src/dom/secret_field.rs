//! Which form fields are secret fields, by structural signals only (never the value): the
//! classification half of [`super::secret`], apart so that the accessible-name computation
//! ([`super::accname`]) can ask it without depending on the selector engines, which
//! `secret` does (see `secret`'s documentation for the signals and what the model sees).

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, Node};

use super::js;
use super::tree::{as_element, children, composed_parent, element_by_id_near};
use crate::protocol::join::join;

/// What kind of secret a field holds; says what the model reads instead of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SecretKind {
    /// A password or passphrase.
    Password,
    /// A payment card number.
    CardNumber,
    /// A card verification code (CVC, CVV, CSC).
    SecurityCode,
    /// A card's expiry date.
    CardExpiry,
    /// A one-time code (SMS, authenticator app, e-mail link code).
    OneTimeCode,
    /// A PIN.
    Pin,
    /// A recovery or backup code.
    RecoveryCode,
    /// A bank account number (IBAN).
    Iban,
    /// An API key, access token or other secret string.
    Token,
    /// A national identity or social security number.
    NationalId,
    /// A hidden input's value (tokens the page keeps for itself).
    HiddenValue,
}

impl SecretKind {
    /// Every kind, in a fixed order (a remembered field keeps its kind as an index into it).
    pub const ALL: [SecretKind; 11] = [
        Self::Password,
        Self::CardNumber,
        Self::SecurityCode,
        Self::CardExpiry,
        Self::OneTimeCode,
        Self::Pin,
        Self::RecoveryCode,
        Self::Iban,
        Self::Token,
        Self::NationalId,
        Self::HiddenValue,
    ];

    /// The words that stand in for the value: `[redacted card number]`.
    pub fn redacted(self) -> &'static str {
        match self {
            Self::Password => "[redacted password]",
            Self::CardNumber => "[redacted card number]",
            Self::SecurityCode => "[redacted security code]",
            Self::CardExpiry => "[redacted card expiry]",
            Self::OneTimeCode => "[redacted one-time code]",
            Self::Pin => "[redacted pin]",
            Self::RecoveryCode => "[redacted recovery code]",
            Self::Iban => "[redacted iban]",
            Self::Token => "[redacted token]",
            Self::NationalId => "[redacted id number]",
            Self::HiddenValue => "[redacted hidden value]",
        }
    }

    /// `password`, `card number`: how messages name the kind.
    pub fn label(self) -> &'static str {
        match self {
            Self::Password => "password",
            Self::CardNumber => "card number",
            Self::SecurityCode => "card security code",
            Self::CardExpiry => "card expiry",
            Self::OneTimeCode => "one-time code",
            Self::Pin => "PIN",
            Self::RecoveryCode => "recovery code",
            Self::Iban => "IBAN",
            Self::Token => "token or key",
            Self::NationalId => "id number",
            Self::HiddenValue => "hidden value",
        }
    }
}

/// `autocomplete` tokens that mark a secret field.
pub const AUTOCOMPLETE_SIGNALS: &[(&str, SecretKind)] = &[
    ("current-password", SecretKind::Password),
    ("new-password", SecretKind::Password),
    ("cc-number", SecretKind::CardNumber),
    ("cc-csc", SecretKind::SecurityCode),
    ("cc-exp", SecretKind::CardExpiry),
    ("cc-exp-month", SecretKind::CardExpiry),
    ("cc-exp-year", SecretKind::CardExpiry),
    ("one-time-code", SecretKind::OneTimeCode),
];

/// Words (whole words after lower-casing, splitting camelCase and treating every non-letter,
/// non-digit as a space) in a field's name, id, placeholder, aria-label, title, labels or test
/// id that mark it secret. Checked in order; the first match gives the kind.
pub const SIGNALS: &[(&str, SecretKind)] = &[
    // Passwords (input_text's explicit-targeting words, plus a few).
    ("password", SecretKind::Password),
    ("passwd", SecretKind::Password),
    ("pwd", SecretKind::Password),
    ("passphrase", SecretKind::Password),
    ("passcode", SecretKind::Password),
    ("passwort", SecretKind::Password),
    ("kennwort", SecretKind::Password),
    ("mot de passe", SecretKind::Password),
    ("contraseña", SecretKind::Password),
    ("senha", SecretKind::Password),
    ("parola", SecretKind::Password),
    ("wachtwoord", SecretKind::Password),
    ("пароль", SecretKind::Password),
    ("hasło", SecretKind::Password),
    ("haslo", SecretKind::Password),
    ("heslo", SecretKind::Password),
    ("lösenord", SecretKind::Password),
    ("losenord", SecretKind::Password),
    ("şifre", SecretKind::Password),
    ("sifre", SecretKind::Password),
    ("salasana", SecretKind::Password),
    ("adgangskode", SecretKind::Password),
    ("passord", SecretKind::Password),
    ("jelszó", SecretKind::Password),
    ("jelszo", SecretKind::Password),
    ("parolă", SecretKind::Password),
    ("лозинка", SecretKind::Password),
    ("パスワード", SecretKind::Password),
    ("密码", SecretKind::Password),
    ("密碼", SecretKind::Password),
    ("비밀번호", SecretKind::Password),
    ("mật khẩu", SecretKind::Password),
    ("kata sandi", SecretKind::Password),
    // Card security codes.
    ("cvc", SecretKind::SecurityCode),
    ("cvv", SecretKind::SecurityCode),
    ("cvv2", SecretKind::SecurityCode),
    ("cvc2", SecretKind::SecurityCode),
    ("csc", SecretKind::SecurityCode),
    ("cvn", SecretKind::SecurityCode),
    ("cc csc", SecretKind::SecurityCode),
    ("security code", SecretKind::SecurityCode),
    ("card code", SecretKind::SecurityCode),
    ("card verification", SecretKind::SecurityCode),
    ("verification value", SecretKind::SecurityCode),
    ("sicherheitscode", SecretKind::SecurityCode),
    ("prüfnummer", SecretKind::SecurityCode),
    ("kartenprüfnummer", SecretKind::SecurityCode),
    ("cryptogramme", SecretKind::SecurityCode),
    ("code de sécurité", SecretKind::SecurityCode),
    ("código de seguridad", SecretKind::SecurityCode),
    ("código de segurança", SecretKind::SecurityCode),
    ("codice di sicurezza", SecretKind::SecurityCode),
    // Card numbers and expiry.
    ("card number", SecretKind::CardNumber),
    ("cardnumber", SecretKind::CardNumber),
    ("cc number", SecretKind::CardNumber),
    ("ccnumber", SecretKind::CardNumber),
    ("cc num", SecretKind::CardNumber),
    ("ccnum", SecretKind::CardNumber),
    ("credit card", SecretKind::CardNumber),
    ("kartennummer", SecretKind::CardNumber),
    ("numéro de carte", SecretKind::CardNumber),
    ("número de tarjeta", SecretKind::CardNumber),
    ("número do cartão", SecretKind::CardNumber),
    ("numero di carta", SecretKind::CardNumber),
    ("cc exp", SecretKind::CardExpiry),
    ("card expiry", SecretKind::CardExpiry),
    ("card expiration", SecretKind::CardExpiry),
    // One-time codes.
    ("otp", SecretKind::OneTimeCode),
    ("totp", SecretKind::OneTimeCode),
    ("one time", SecretKind::OneTimeCode),
    ("onetime", SecretKind::OneTimeCode),
    ("one time code", SecretKind::OneTimeCode),
    ("2fa", SecretKind::OneTimeCode),
    ("mfa", SecretKind::OneTimeCode),
    ("verification code", SecretKind::OneTimeCode),
    ("authentication code", SecretKind::OneTimeCode),
    ("auth code", SecretKind::OneTimeCode),
    ("sms code", SecretKind::OneTimeCode),
    ("tan", SecretKind::OneTimeCode),
    ("bestätigungscode", SecretKind::OneTimeCode),
    ("code de vérification", SecretKind::OneTimeCode),
    ("código de verificación", SecretKind::OneTimeCode),
    ("código de verificação", SecretKind::OneTimeCode),
    ("codice di verifica", SecretKind::OneTimeCode),
    // PINs.
    ("pin", SecretKind::Pin),
    ("pin code", SecretKind::Pin),
    ("pincode", SecretKind::Pin),
    ("geheimzahl", SecretKind::Pin),
    // Recovery codes.
    ("recovery code", SecretKind::RecoveryCode),
    ("recovery key", SecretKind::RecoveryCode),
    ("recovery phrase", SecretKind::RecoveryCode),
    ("backup code", SecretKind::RecoveryCode),
    ("seed phrase", SecretKind::RecoveryCode),
    ("mnemonic", SecretKind::RecoveryCode),
    ("wiederherstellungscode", SecretKind::RecoveryCode),
    ("code de récupération", SecretKind::RecoveryCode),
    ("código de recuperación", SecretKind::RecoveryCode),
    // Bank accounts.
    ("iban", SecretKind::Iban),
    // Keys and tokens.
    ("token", SecretKind::Token),
    ("secret", SecretKind::Token),
    ("api key", SecretKind::Token),
    ("apikey", SecretKind::Token),
    ("access key", SecretKind::Token),
    ("private key", SecretKind::Token),
    ("client secret", SecretKind::Token),
    ("geheimnis", SecretKind::Token),
    // Identity numbers.
    ("ssn", SecretKind::NationalId),
    ("social security", SecretKind::NationalId),
    ("sozialversicherungsnummer", SecretKind::NationalId),
    ("numéro de sécurité sociale", SecretKind::NationalId),
];

/// Input types that are not fields (their value is a caption or a file name, never typed).
const NOT_FIELD_TYPES: &[&str] = &[
    "checkbox", "radio", "button", "submit", "reset", "image", "file", "color",
];

/// ARIA roles whose element holds a value as a form field does (its text, `aria-valuenow`, its
/// chosen option): a custom widget with one of them is a field too (a PIN pad's spinbuttons that
/// show `•` but carry the digit, a custom CVV box).
const ARIA_VALUE_ROLES: &[&str] = &[
    "textbox",
    "searchbox",
    "combobox",
    "listbox",
    "spinbutton",
    "slider",
];

fn has_value_role(element: &Element) -> bool {
    js::attribute(element, "role").is_some_and(|role| {
        role.split_whitespace()
            .next()
            .is_some_and(|first| ARIA_VALUE_ROLES.contains(&first.to_ascii_lowercase().as_str()))
    })
}

/// Whether `element` is a form field a secret could be typed into (or a hidden input).
pub fn is_field(element: &Element) -> bool {
    match element.local_name().as_str() {
        "input" => {
            let input_type = js::attribute(element, "type")
                .unwrap_or_default()
                .to_ascii_lowercase();
            !NOT_FIELD_TYPES.contains(&input_type.as_str())
        }
        "textarea" | "select" => true,
        _ => is_editing_host(element) || has_value_role(element),
    }
}

fn is_editing_host(element: &Element) -> bool {
    // An editing host carries the attribute itself; checking it first keeps the property read
    // (a call into the page's realm) off every other element.
    js::has_attribute(element, "contenteditable")
        && js::get_bool(element, "isContentEditable").unwrap_or(false)
        && !composed_parent(element)
            .is_some_and(|p| js::get_bool(&p, "isContentEditable").unwrap_or(false))
}

thread_local! {
    /// Every field this document's content script found secret, with its kind (an index into
    /// [`SecretKind::ALL`]): a field stays secret when the page later takes its signal away (a
    /// "show password" button turning `type=password` into `text`).
    static REMEMBERED: js_sys::WeakMap = js_sys::WeakMap::new();
    /// The `id` and `name` of every field found secret (`id:…`, `name:…`), with its kind: a
    /// page that replaces the field with a new element on "show password" (a keyed re-render)
    /// gives the new one the same id or name, and it is secret too.
    static REMEMBERED_KEYS: std::cell::RefCell<Vec<(String, SecretKind)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The `id:` and `name:` keys of a field in the document itself (structural: never its value):
/// its id, and its name within its form (by the form's id). A field inside a shadow tree has
/// none: ids repeat from one component to the next (every Shoelace input's inner field is
/// `id="input"`), and the element itself is remembered instead.
fn field_keys(element: &Element) -> Vec<String> {
    if element.get_root_node().node_type() != Node::DOCUMENT_NODE {
        return Vec::new();
    }
    let mut keys = Vec::new();
    if let Some(id) = js::attribute(element, "id").filter(|v| !v.trim().is_empty()) {
        keys.push(format!("id:{id}"));
    }
    if let Some(name) = js::attribute(element, "name").filter(|v| !v.trim().is_empty()) {
        let form = element
            .closest("form")
            .ok()
            .flatten()
            .and_then(|form| js::attribute(&form, "id"))
            .unwrap_or_default();
        keys.push(format!("name:{form}:{name}"));
    }
    keys
}

/// The secret kind of `element` by its structural signals, or `None` (not a secret field, or
/// not a field at all). Never reads the value. A field once found secret in this document stays
/// secret, with the same kind, and so does a field that later takes its `id` or `name`.
pub fn classify(element: &Element) -> Option<SecretKind> {
    let key: &js_sys::Object = element.unchecked_ref();
    let remembered = REMEMBERED.with(|seen| seen.get(key).as_f64());
    if let Some(index) = remembered {
        // Indexes are written below from `ALL`'s positions only.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a small non-negative index this module wrote"
        )]
        return SecretKind::ALL.get(index as usize).copied();
    }
    let field = is_field(element);
    let keys = if field {
        field_keys(element)
    } else {
        Vec::new()
    };
    let by_key = REMEMBERED_KEYS.with(|known| {
        let known = known.borrow();
        keys.iter().find_map(|k| {
            known
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, kind)| *kind)
        })
    });
    let kind = by_key
        .or_else(|| classify_now(element))
        .or_else(|| short_box_sibling_kind(element));
    if let Some(kind) = kind {
        let index = SecretKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
        REMEMBERED.with(|seen| {
            seen.set(key, &JsValue::from_f64(index as f64));
        });
        REMEMBERED_KEYS.with(|known| {
            let mut known = known.borrow_mut();
            for k in keys {
                if known.len() < 512 && !known.iter().any(|(key, _)| *key == k) {
                    known.push((k, kind));
                }
            }
        });
    }
    kind
}

/// One box of a code split into boxes (`maxlength` 1 to 4): secret when another box of the same
/// group is, by its own signals (often only the first box carries `autocomplete=one-time-code`
/// and the page spreads the pasted code over the others). The group is the box's parent or
/// grandparent (a wrapper per box), across a shadow root (a component per box).
fn short_box_sibling_kind(element: &Element) -> Option<SecretKind> {
    if !is_short_box(element) {
        return None;
    }
    let mut container = composed_parent(element);
    for _ in 0..2 {
        let group = container?;
        let mut boxes = short_boxes_in(group.as_ref());
        // Boxes inside the open shadow roots of the group's children (one component per box).
        for child in children(group.as_ref()) {
            if let Some(root) = as_element(&child).and_then(Element::shadow_root) {
                boxes.extend(short_boxes_in(root.as_ref()));
            }
        }
        boxes.retain(|e| e != element);
        if !boxes.is_empty() {
            return boxes.iter().take(16).find_map(classify_now);
        }
        container = composed_parent(&group);
    }
    None
}

/// The short boxes in `scope` (light DOM), at most 16.
fn short_boxes_in(scope: &Node) -> Vec<Element> {
    // By `nodeType`, not `instanceof`: the scope may be in a frame (another realm).
    let list = if let Some(element) = as_element(scope) {
        element.query_selector_all("input[maxlength]").ok()
    } else if scope.node_type() == Node::DOCUMENT_FRAGMENT_NODE {
        scope
            .unchecked_ref::<web_sys::DocumentFragment>()
            .query_selector_all("input[maxlength]")
            .ok()
    } else {
        None
    };
    list.map(|list| {
        (0..list.length().min(16))
            .filter_map(|i| list.item(i).and_then(|n| as_element(&n).cloned()))
            .filter(is_short_box)
            .collect()
    })
    .unwrap_or_default()
}

fn is_short_box(element: &Element) -> bool {
    element.local_name() == "input"
        && js::attribute(element, "maxlength")
            .and_then(|m| m.trim().parse::<u32>().ok())
            .is_some_and(|m| (1..=4).contains(&m))
}

/// A text field the page masks like a password with CSS (`-webkit-text-security` in its own
/// `style` attribute), which some sites use instead of `type=password` to keep password
/// managers away. Only the element's inline declaration counts: a computed style can follow
/// pseudo-classes such as `:valid` or `:placeholder-shown`, which depend on a value.
fn masked_by_css(element: &Element) -> bool {
    let style = js::get(element, "style");
    js::call(
        &style,
        "getPropertyValue",
        &["-webkit-text-security".into()],
    )
    .ok()
    .flatten()
    .and_then(|value| value.as_string())
    .is_some_and(|value| !value.trim().is_empty() && value.trim() != "none")
}

/// The names of the groups a field sits in (every `<fieldset>`'s legend, every `role=group` or
/// `radiogroup`'s `aria-label` or `aria-labelledby` text, across shadow roots): "Security code"
/// around digit boxes.
fn group_texts(element: &Element) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = composed_parent(element);
    let mut depth = 0;
    while let Some(group) = current {
        depth += 1;
        if depth > 32 {
            break;
        }
        let tag = group.local_name();
        let role = js::attribute(&group, "role").unwrap_or_default();
        let is_group = tag == "fieldset"
            || role
                .split_whitespace()
                .any(|r| r.eq_ignore_ascii_case("group") || r.eq_ignore_ascii_case("radiogroup"));
        if is_group {
            if tag == "fieldset" {
                let legend = children(group.as_ref())
                    .into_iter()
                    .filter_map(|n| as_element(&n).cloned())
                    .find(|child| child.local_name() == "legend");
                if let Some(legend) = legend {
                    out.push(text_skipping(legend.as_ref(), &|e| is_field(e)));
                }
            }
            if let Some(label) = js::attribute(&group, "aria-label") {
                out.push(label);
            }
            if let Some(ids) = js::attribute(&group, "aria-labelledby") {
                for id in ids.split_whitespace() {
                    if let Some(target) = element_by_id_near(&group, id) {
                        out.push(text_skipping(target.as_ref(), &|e| is_field(e)));
                    }
                }
            }
        }
        current = composed_parent(&group);
    }
    out
}

/// Whether `element` is a radio button (`<input type=radio>`, role `radio` or `menuitemradio`):
/// which one of its group is checked is the group's value, so a group the signals call secret
/// (a PIN entered one digit group at a time) is a secret choice ([`is_secret_choice`]).
pub fn is_radio_choice(element: &Element) -> bool {
    if element.local_name() == "input" {
        return js::attribute(element, "type").is_some_and(|t| t.eq_ignore_ascii_case("radio"));
    }
    js::attribute(element, "role").is_some_and(|role| {
        role.split_whitespace().next().is_some_and(|first| {
            first.eq_ignore_ascii_case("radio") || first.eq_ignore_ascii_case("menuitemradio")
        })
    })
}

/// Whether `element` is a radio button of a secret group: its checked state is then a secret
/// (observe says `checked=<hidden>`, `assert` refuses, an action's report never says whether it
/// was checked before).
pub fn is_secret_choice(element: &Element) -> bool {
    is_radio_choice(element) && classify(element).is_some()
}

/// Whether a radio button's option is one or two characters ("3", "A", "10"): the button is
/// then a digit or letter of a code picked one at a time. "SMS", "Voice call" under "Send my
/// verification code by" are ways, not the code, and stay plain. The option is the button's
/// `aria-label`, else its labels' text, else (a custom radio) its own text, else its `value`.
fn option_is_one_character(element: &Element) -> bool {
    let own_label = js::attribute(element, "aria-label").filter(|t| !t.trim().is_empty());
    let option = own_label
        .or_else(|| {
            let labels = join(&label_texts_of_field(element), " ");
            (!labels.trim().is_empty()).then_some(labels)
        })
        .or_else(|| {
            (element.local_name() != "input")
                .then(|| element.text_content().unwrap_or_default())
                .filter(|t| !t.trim().is_empty())
        })
        .or_else(|| js::attribute(element, "value"))
        .unwrap_or_default();
    (1..=2).contains(&option.trim().chars().count())
}

/// The kind of a radio button's group by the group's signals only: the native group's `name`,
/// every fieldset legend and `group` / `radiogroup` label around it. Never the button's own label
/// ("3" in "PIN, first digit" says nothing) nor its own id ("enable-2fa-yes" is an option, not
/// the question). Only for a one-character option ([`option_is_one_character`]).
fn radio_group_kind(element: &Element) -> Option<SecretKind> {
    if !option_is_one_character(element) {
        return None;
    }
    let native_name = if element.local_name() == "input" {
        js::attribute(element, "name")
    } else {
        None
    };
    native_name
        .into_iter()
        .chain(group_texts(element))
        .find_map(|text| words_kind(&text))
}

/// [`classify`] by the field's own signals and its group's, now, without the memory or the
/// other boxes.
fn classify_now(element: &Element) -> Option<SecretKind> {
    if is_radio_choice(element) {
        return radio_group_kind(element);
    }
    if !is_field(element) {
        return None;
    }
    let input_type = js::attribute(element, "type")
        .unwrap_or_default()
        .to_ascii_lowercase();
    if element.local_name() == "input" {
        if input_type == "password" {
            return Some(SecretKind::Password);
        }
        if input_type == "hidden" {
            return Some(SecretKind::HiddenValue);
        }
    }
    if let Some(autocomplete) = js::attribute(element, "autocomplete") {
        if let Some(kind) = autocomplete_kind(&autocomplete) {
            return Some(kind);
        }
    }
    let mut texts: Vec<String> = Vec::new();
    for attr in [
        "name",
        "id",
        "placeholder",
        "aria-label",
        "title",
        "data-testid",
    ] {
        if let Some(value) = js::attribute(element, attr) {
            texts.push(value);
        }
    }
    let labels = label_texts_of_field(element);
    // The group's name speaks for a field without a name of its own (a box of a code) and for
    // short boxes; a labelled field ("Name on card" in "Pay by credit card") has its own.
    let unlabelled = texts.iter().chain(&labels).all(|t| t.trim().is_empty())
        || (["placeholder", "aria-label", "title"]
            .iter()
            .all(|a| js::attribute(element, a).is_none_or(|v| v.trim().is_empty()))
            && labels.iter().all(|t| t.trim().is_empty()));
    texts.extend(labels);
    if let Some(kind) = texts.iter().find_map(|text| words_kind(text)) {
        return Some(kind);
    }
    if unlabelled || is_short_box(element) {
        if let Some(kind) = group_texts(element)
            .iter()
            .find_map(|text| words_kind(text))
        {
            return Some(kind);
        }
    }
    if matches!(element.local_name().as_str(), "input" | "textarea") && masked_by_css(element) {
        return Some(SecretKind::Password);
    }
    None
}

/// The kind an `autocomplete` attribute's tokens name, if secret.
pub fn autocomplete_kind(autocomplete: &str) -> Option<SecretKind> {
    autocomplete.split_whitespace().find_map(|token| {
        let token = token.to_ascii_lowercase();
        AUTOCOMPLETE_SIGNALS
            .iter()
            .find(|(t, _)| *t == token)
            .map(|(_, kind)| *kind)
    })
}

/// The kind the first [`SIGNALS`] word found in `text` names.
pub fn words_kind(text: &str) -> Option<SecretKind> {
    let words = word_list(text);
    if words.is_empty() {
        return None;
    }
    SIGNAL_WORDS.with(|signals| {
        signals
            .iter()
            .find(|(signal, _)| contains_words(&words, signal))
            .map(|(_, kind)| *kind)
    })
}

thread_local! {
    /// [`SIGNALS`] split into words once: every field of a page is checked against every
    /// signal on each query.
    /// Read from the packed words and kinds, not from `SIGNALS` itself, which would cost the
    /// wasm a 12-byte entry per signal.
    static SIGNAL_WORDS: Vec<(Vec<&'static str>, SecretKind)> = packed_signals()
        .map(|(signal, kind)| (signal.split(' ').collect(), kind))
        .collect();
}

/// [`SIGNALS`], in order, as the classifier reads them: from their packed texts and kinds.
pub fn packed_signals() -> impl Iterator<Item = (&'static str, SecretKind)> {
    crate::words!(&SIGNAL_TEXTS).iter().zip(SIGNAL_KINDS)
}

/// The texts of [`SIGNALS`], in order (packed by `words!`; only the constant evaluator reads
/// this array).
#[allow(
    clippy::indexing_slicing,
    reason = "evaluated by the compiler; an index out of range stops the build"
)]
const SIGNAL_TEXTS: [&str; SIGNALS.len()] = {
    let mut texts = [""; SIGNALS.len()];
    let mut i = 0;
    while i < SIGNALS.len() {
        texts[i] = SIGNALS[i].0;
        i += 1;
    }
    texts
};

/// The kinds of [`SIGNALS`], in order: one byte each.
#[allow(
    clippy::indexing_slicing,
    reason = "evaluated by the compiler; an index out of range stops the build"
)]
const SIGNAL_KINDS: [SecretKind; SIGNALS.len()] = {
    let mut kinds = [SecretKind::Password; SIGNALS.len()];
    let mut i = 0;
    while i < SIGNALS.len() {
        kinds[i] = SIGNALS[i].1;
        i += 1;
    }
    kinds
};

/// Whether `signal`'s words appear in `words`, consecutive: the same as `" {signal} "` in
/// `" {words joined by spaces} "`, without building either string.
fn contains_words(words: &[String], signal: &[&str]) -> bool {
    signal.len() <= words.len()
        && words
            .windows(signal.len())
            .any(|run| run.iter().map(String::as_str).eq(signal.iter().copied()))
}

/// Lower-case words: camelCase and trailing numbers split, anything but letters and digits a
/// separator.
fn word_list(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len() + 8);
    let mut previous: Option<char> = None;
    for c in text.chars() {
        // `cardCvc` → `card cvc`, `otp1` → `otp 1` (but `2fa` stays one word).
        let camel = c.is_uppercase() && previous.is_some_and(char::is_lowercase);
        let numbered = c.is_ascii_digit() && previous.is_some_and(char::is_alphabetic);
        if camel || numbered {
            spaced.push(' ');
        }
        if c.is_alphanumeric() {
            spaced.extend(c.to_lowercase());
        } else {
            spaced.push(' ');
        }
        previous = Some(c);
    }
    spaced.split_whitespace().map(str::to_owned).collect()
}

/// The texts that label `element`: `aria-labelledby` targets, `<label>`s, without the text of
/// any field inside them (a wrapping label's text must not carry the field's own value).
fn label_texts_of_field(element: &Element) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(ids) = js::attribute(element, "aria-labelledby") {
        for id in ids.split_whitespace() {
            if let Some(target) = element_by_id_near(element, id) {
                if &target != element {
                    out.push(text_skipping(&target, &|e| is_field(e)));
                }
            }
        }
    }
    let labels = js::get(element, "labels");
    let length = js::get(&labels, "length").as_f64().unwrap_or(0.0) as u32;
    for i in 0..length {
        if let Some(label) = as_element(&js::get(&labels, &i.to_string())) {
            out.push(text_skipping(label, &|e| is_field(e)));
        }
    }
    out
}

/// The text content of `node`, leaving out every element `skip` says (and what is inside it).
pub(super) fn text_skipping(node: &Node, skip: &dyn Fn(&Element) -> bool) -> String {
    let mut out = String::new();
    collect_text(node, skip, &mut out, 0);
    out
}

/// [`text_skipping`] read in runs: a space wherever its text is drawn apart but joined in the
/// text (at an element's edge that draws a gap: `accname::draws_gap_at_edge`), never between
/// adjacent text nodes or at an edge drawn flush (what the user sees as one word is one word).
/// Whitespace is collapsed, and the text is read only up to about `max_bytes` counted as its
/// words one space apart (the breaks added here not counted): as far as the same text's words
/// joined, so neither runs of whitespace nor added breaks push a word out of the read part
/// that the joined text holds (red team, session 16: 17,300 spaces before a glued word).
pub(super) fn text_runs_skipping(
    node: &Node,
    skip: &dyn Fn(&Element) -> bool,
    max_bytes: usize,
) -> String {
    let mut runs = TextRuns {
        skip,
        out: String::new(),
        counted: 0,
        max_bytes,
        edges: Vec::new(),
    };
    runs.collect(node, 0);
    runs.out
}

/// The walk of [`text_runs_skipping`].
struct TextRuns<'a> {
    skip: &'a dyn Fn(&Element) -> bool,
    out: String,
    /// Bytes read so far, as the text's words one space apart.
    counted: usize,
    max_bytes: usize,
    /// The element edges passed since the last character read, when that was not a space
    /// (`true`: a start edge): looked at (a style read each) only if text follows at once.
    edges: Vec<(Element, bool)>,
}

impl TextRuns<'_> {
    fn collect(&mut self, node: &Node, depth: u32) {
        if depth > 256 || self.counted > self.max_bytes {
            return;
        }
        if node.node_type() == Node::TEXT_NODE {
            let text = node.text_content().unwrap_or_default();
            self.push_text(&text);
            return;
        }
        let element = as_element(node);
        if let Some(element) = element {
            if (self.skip)(element) {
                self.break_here();
                return;
            }
            if matches!(element.local_name().as_str(), "script" | "style") {
                return;
            }
            self.edge(element, true);
        }
        for child in children(node) {
            self.collect(&child, depth + 1);
        }
        if let Some(element) = element {
            self.edge(element, false);
        }
    }

    /// Notes an element edge passed right after a character (a gap there matters only if
    /// another character follows before any space).
    fn edge(&mut self, element: &Element, start: bool) {
        if self.out.chars().last().is_some_and(|c| !c.is_whitespace()) {
            self.edges.push((element.clone(), start));
        }
    }

    fn break_here(&mut self) {
        self.edges.clear();
        if self.out.chars().last().is_some_and(|c| !c.is_whitespace()) {
            self.out.push(' ');
        }
    }

    /// Appends `text` with its whitespace collapsed, breaking first where an edge passed since
    /// the last character draws a gap; only what fits (a little more: the cut falls at a
    /// character boundary).
    fn push_text(&mut self, text: &str) {
        let Some(first) = text.chars().next() else {
            return;
        };
        if !first.is_whitespace() && !self.edges.is_empty() {
            let edges = std::mem::take(&mut self.edges);
            if edges
                .iter()
                .any(|(element, start)| super::accname::draws_gap_at_edge(element, *start))
            {
                self.out.push(' ');
            }
        }
        self.edges.clear();
        for c in text.chars() {
            if self.counted > self.max_bytes {
                return;
            }
            if c.is_whitespace() {
                if self
                    .out
                    .chars()
                    .last()
                    .is_some_and(|last| !last.is_whitespace())
                {
                    self.out.push(' ');
                    self.counted += 1;
                }
            } else {
                self.out.push(c);
                self.counted += c.len_utf8();
            }
        }
    }
}

/// Appends the text under `node` to `out` (the whole text, as `textContent` joins it).
fn collect_text(node: &Node, skip: &dyn Fn(&Element) -> bool, out: &mut String, depth: u32) {
    if depth > 256 {
        return;
    }
    if node.node_type() == Node::TEXT_NODE {
        out.push_str(&node.text_content().unwrap_or_default());
        return;
    }
    if let Some(element) = as_element(node) {
        if skip(element) {
            out.push(' ');
            return;
        }
        if matches!(element.local_name().as_str(), "script" | "style") {
            return;
        }
    }
    for child in children(node) {
        collect_text(&child, skip, out, depth + 1);
    }
}
