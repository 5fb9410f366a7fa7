//! Secret fields: which form fields hold something the model must never learn, and the one
//! place that decides what of them may be shown.
//!
//! The model is untrusted (a page it read may have instructed it), so it must not learn a
//! secret field's value, not even one bit at a time. Every path that reads the page asks this
//! module: observe lines and diffs ([`shown_value`], [`SecretScan::safe_name`]), `extract`,
//! `assert`, `wait_for`, hints, element descriptions in error messages ([`text_without_secrets`])
//! and the selector engines ([`guard_selector`], refused with `secret_field` before anything is
//! evaluated).
//!
//! # Signals
//!
//! A field is a *secret field* when one **structural** signal says so. Structural signals never
//! read the field's value, so whether a field counts as secret cannot itself depend on the
//! secret. They are, in this order ([`SIGNALS`] is the word table):
//!
//! | signal | examples | kind |
//! |---|---|---|
//! | `type=password` | `<input type=password>` | password |
//! | `type=hidden` | CSRF tokens, session ids | hidden value |
//! | an `autocomplete` token | `current-password`, `new-password`, `cc-number`, `cc-csc`, `cc-exp`, `cc-exp-month`, `cc-exp-year`, `one-time-code` | per token |
//! | a word in the field's `name`, `id`, `placeholder`, `aria-label`, `title`, its labels (`<label for>`, a wrapping label, `aria-labelledby`; their text without any field inside them), `data-testid` or its group's name (a fieldset legend, a `role=group` label) | cvc, cvv, csc, security code, otp, one-time, 2fa, pin, passcode, recovery code, backup code, iban, token, secret, api key, ssn, card number… (English, German, French, Spanish, Portuguese, Italian, Dutch, Russian) | per word |
//!
//! A radio button (native or ARIA) is secret when its *group's* signals say so (the native
//! group's `name`, a fieldset legend, a `radiogroup` label): which one is checked is then the
//! secret (a PIN chosen digit by digit), never its label ([`is_secret_choice`]).
//!
//! Fields are `<input>` (not buttons, checkboxes, radios, files, images), `<textarea>`,
//! `<select>` and contenteditable editing hosts. Anything inside a secret field (a select's
//! options, an editor's paragraphs) belongs to it ([`SecretScan::owner_of`]).
//!
//! **Content patterns** (value-dependent, so used only to redact text that is shown anyway, never
//! to decide a refusal) are in [`crate::dom::redact`]: card-like digit runs (13–19 digits, which
//! includes every Luhn-valid card number), IBANs (mod-97 checksum), and long random tokens in any
//! letter case.
//!
//! # What the model sees instead
//!
//! A secret field's value is always `value=<hidden>` in observe lines (filled or empty: its
//! emptiness is a bit of the secret too), `selected=<hidden>` for a secret select; `extract`
//! reads `[redacted password]`, `[redacted card number]`, `[redacted security code]`…; `assert`
//! on its text or value and any selector that could test its value fail with `secret_field`.

use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

use super::error::ActionError;
use super::js;
use super::selector::describe_selector;
use super::tree::{
    CssFilter, QueryRoot, ShadowAccess, Walked, as_element, composed_parent, element_by_id_near,
};
use crate::protocol::{Selector, SelectorKind};

use super::secret_field::text_skipping;
pub use super::secret_field::{
    AUTOCOMPLETE_SIGNALS, SIGNALS, SecretKind, autocomplete_kind, classify, is_field,
    is_radio_choice, is_secret_choice, words_kind,
};

/// Every element [`is_field`] may accept (it also needs a type that is a field, or to be an
/// editing host).
/// (The custom widgets with a value role are fields too: `secret_field::is_field`.)
/// (ARIA radio buttons too: a secret group's choice, [`is_radio_choice`].)
const FIELD_CANDIDATES: &str = "input, textarea, select, [contenteditable], [role~=textbox], \
    [role~=searchbox], [role~=combobox], [role~=listbox], [role~=spinbutton], [role~=slider], \
    [role~=radio], [role~=menuitemradio]";
/// [`FIELD_CANDIDATES`] but the inputs that are not editing hosts.
const FIELD_CANDIDATES_NOT_INPUTS: &str = "textarea, select, [contenteditable], \
    [role~=textbox], [role~=searchbox], [role~=combobox], [role~=listbox], [role~=spinbutton], \
    [role~=slider]";

/// Every element of `scope` (a document, shadow root or element; not the scopes nested in it)
/// that [`is_field`] may accept, by one selector.
fn field_candidates_in(scope: &Node) -> Vec<Element> {
    elements_in(scope, FIELD_CANDIDATES)
}

/// `scope.querySelectorAll(css)` as elements.
fn elements_in(scope: &Node, css: &str) -> Vec<Element> {
    let Ok(Some(list)) = js::call(scope, "querySelectorAll", &[css.into()]) else {
        return Vec::new();
    };
    let Some(list) = list.dyn_ref::<web_sys::NodeList>() else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|node| as_element(&node).cloned())
        .collect()
}

/// Adds to `out` every field candidate inside `element` in the composed tree: its light
/// descendants, and every scope of `walked` (shadow root, frame document) entered from it or
/// from a host inside it. Not `element` itself.
fn fields_inside(walked: &Walked, element: &Element, out: &mut Vec<Element>) {
    out.extend(field_candidates_in(element.as_ref()));
    for scope in walked.scopes_inside(element) {
        out.extend(field_candidates_in(&scope));
    }
}

/// One secret field found on the page, with its composed ancestors (to tell quickly whether
/// another element contains it).
#[derive(Debug, Clone)]
struct Found {
    element: Element,
    kind: SecretKind,
    ancestors: Vec<Element>,
    /// A radio button of a secret group: its checked state is the secret, not its text (its
    /// label, "3", names an option), so it neither hides the text or names around it nor
    /// makes a text selector risky.
    choice: bool,
}

/// The secret fields of a page (the document, its open shadow roots and same-origin frames),
/// found once and asked many times.
#[derive(Debug, Clone, Default)]
pub struct SecretScan {
    found: Vec<Found>,
}

impl SecretScan {
    /// Finds every secret field under `root`.
    pub fn of(root: &QueryRoot) -> Self {
        Self::of_walked(&root.walk())
    }

    /// Finds every secret field of a query's walk. Only the elements [`is_field`] may accept
    /// are classified, found with one selector.
    pub fn of_walked(walked: &Walked) -> Self {
        Self::of_fields(walked.matching(&CssFilter::new(FIELD_CANDIDATES)))
    }

    /// Adds the secret fields of one scope (a document, shadow root or frame document, not
    /// the scopes nested in it): for a query that meets the scopes as it walks, and asks
    /// about an element only after adding the scope it is in.
    pub fn add_scope(&mut self, scope: &Node) {
        self.found
            .extend(Self::of_fields(field_candidates_in(scope)).found);
    }

    /// [`Self::add_scope`] without the `<input>`s (unless `contenteditable`): for the text
    /// engine, whose text of an input is empty but for button types (never a field), and which
    /// classifies an input itself ([`classify`]) only when its text would count. A page's
    /// inputs are most of its fields, each with about ten attribute reads.
    pub fn add_scope_without_inputs(&mut self, scope: &Node) {
        let fields = elements_in(scope, FIELD_CANDIDATES_NOT_INPUTS);
        self.found.extend(Self::of_fields(fields).found);
    }

    /// The secret fields that bear on `element`'s accessible name, and only those: the fields
    /// inside it (through the shadow roots and frames of `walked` entered below it) and, for
    /// each `aria-labelledby` / `aria-describedby` target, the fields inside the target, the
    /// target itself and its composed ancestors. [`Self::name_may_include_secret`] on this scan
    /// answers for `element` exactly as on [`Self::of_walked`]: its answer depends only on the
    /// fields whose composed ancestors include `element` or a target, or that are a target or
    /// one of its ancestors, and all of those are here (a field classified needlessly changes
    /// nothing). For a query that checks only the elements whose name matched: a few fields
    /// classified instead of every field of the page.
    pub fn for_name_of(walked: &Walked, element: &Element) -> Self {
        let mut fields = Vec::new();
        fields_inside(walked, element, &mut fields);
        for attr in ["aria-labelledby", "aria-describedby"] {
            let Some(ids) = element.get_attribute(attr) else {
                continue;
            };
            for id in ids.split_whitespace() {
                let Some(target) = element_by_id_near(element, id) else {
                    continue;
                };
                fields_inside(walked, &target, &mut fields);
                // `owner_of`: the target is a field, or inside one (an editor's paragraph).
                // `classify` answers `None` at once for what is no field.
                let mut current = Some(target);
                while let Some(node) = current {
                    current = composed_parent(&node);
                    fields.push(node);
                }
            }
        }
        Self::of_fields(fields)
    }

    fn of_fields(fields: impl IntoIterator<Item = Element>) -> Self {
        let mut found = Vec::new();
        for element in fields {
            if let Some(kind) = classify(&element) {
                let mut ancestors = Vec::new();
                let mut current = composed_parent(&element);
                while let Some(parent) = current {
                    current = composed_parent(&parent);
                    ancestors.push(parent);
                }
                let choice = is_radio_choice(&element);
                found.push(Found {
                    element,
                    kind,
                    ancestors,
                    choice,
                });
            }
        }
        Self { found }
    }

    /// Whether the page has no secret field.
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// Whether any secret field's value lives in the DOM as text: a textarea's default text
    /// (React keeps it equal to the value) or a contenteditable editor's text. (A select's
    /// options are static; which one is chosen is not text.)
    pub fn has_text_bearing(&self) -> bool {
        self.first_text_bearing().is_some()
    }

    /// The kind of the first text-bearing secret field, if any (see [`Self::has_text_bearing`]).
    pub fn first_text_bearing(&self) -> Option<SecretKind> {
        self.found
            .iter()
            .find(|f| !f.choice && !matches!(f.element.local_name().as_str(), "input" | "select"))
            .map(|f| f.kind)
    }

    /// The secret field `element` is or belongs to (an option of a secret select, a paragraph
    /// of a secret editor), with its kind.
    pub fn owner_of(&self, element: &Element) -> Option<(Element, SecretKind)> {
        self.found
            .iter()
            .find(|f| &f.element == element || f.ancestors_contain_descendant(element))
            .map(|f| (f.element.clone(), f.kind))
    }

    /// Whether `element` is itself one of the secret fields: for a walk from the top, which
    /// skips a field's subtree when it meets the field and so never needs [`Self::owner_of`]'s
    /// ancestor walk.
    pub fn is_secret_field(&self, element: &Element) -> bool {
        self.found.iter().any(|f| &f.element == element)
    }

    /// What a picture must hide besides the secret fields: for each radio button of a secret
    /// group, its labels and its group's box (a fieldset, a `radiogroup` or `group`), where
    /// custom-styled buttons draw the dot that tells which one is checked.
    pub fn choice_covers(&self) -> Vec<Element> {
        let mut out: Vec<Element> = Vec::new();
        for found in self.found.iter().filter(|f| f.choice) {
            let labels = super::js::get(&found.element, "labels");
            let length = super::js::get(&labels, "length").as_f64().unwrap_or(0.0) as u32;
            for i in 0..length {
                if let Some(label) = as_element(&super::js::get(&labels, &i.to_string())) {
                    out.push(label.clone());
                }
            }
            let group = found.ancestors.iter().take(8).find(|a| {
                a.local_name() == "fieldset"
                    || super::js::attribute(a, "role").is_some_and(|role| {
                        role.split_whitespace().any(|r| {
                            r.eq_ignore_ascii_case("radiogroup") || r.eq_ignore_ascii_case("group")
                        })
                    })
            });
            if let Some(group) = group {
                out.push(group.clone());
            }
        }
        out.dedup();
        out
    }

    /// Whether `element` contains a secret field whose text is its value (other than itself;
    /// not a secret group's radio button, whose text only names an option).
    pub fn contains_secret(&self, element: &Element) -> bool {
        self.found
            .iter()
            .any(|f| !f.choice && f.ancestors.contains(element))
    }

    /// Whether `element`'s accessible name may carry a secret field's value: it contains one
    /// (names from content include embedded fields' values), or `aria-labelledby` /
    /// `aria-describedby` points at one or at something containing one.
    pub fn name_may_include_secret(&self, element: &Element) -> bool {
        if self.found.is_empty() {
            return false;
        }
        if self.contains_secret(element) {
            return true;
        }
        ["aria-labelledby", "aria-describedby"].iter().any(|attr| {
            element.get_attribute(attr).is_some_and(|ids| {
                ids.split_whitespace().any(|id| {
                    element_by_id_near(element, id).is_some_and(|target| {
                        self.owner_of(&target).is_some() || self.contains_secret(&target)
                    })
                })
            })
        })
    }

    /// The accessible name the model may see: `None` when it may carry a secret.
    pub fn safe_name(&self, shadow: &ShadowAccess, element: &Element) -> Option<String> {
        if self.name_may_include_secret(element) {
            return None;
        }
        Some(super::accname::accessible_name_with(shadow, element))
    }
}

impl Found {
    /// Whether `element` is inside this secret field.
    fn ancestors_contain_descendant(&self, element: &Element) -> bool {
        let mut current = composed_parent(element);
        let mut depth = 0;
        while let Some(parent) = current {
            if parent == self.element {
                return true;
            }
            depth += 1;
            if depth > 512 {
                return false;
            }
            current = composed_parent(&parent);
        }
        false
    }
}

/// What a field shows of its value in an observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShownValue {
    /// A secret field: `value=<hidden>` whatever it holds (even when empty).
    Hidden(SecretKind),
    /// Anything else: the text, with content-pattern secrets redacted.
    Text(String),
}

/// The one decision on what of `element`'s value may be shown: hidden for a secret field (or
/// anything inside one), else `read()` with content-pattern secrets redacted. `read` is not
/// called for a secret field.
pub fn shown_value(
    scan: &SecretScan,
    element: &Element,
    read: impl FnOnce() -> String,
) -> ShownValue {
    match scan.owner_of(element) {
        Some((_, kind)) => ShownValue::Hidden(kind),
        None => ShownValue::Text(super::redact::redact_secrets(&read())),
    }
}

/// The text content of `element` without the text of any secret field in it.
pub fn text_without_secrets(scan: &SecretScan, element: &Element) -> String {
    if !scan.contains_secret(element) {
        return element.text_content().unwrap_or_default();
    }
    text_skipping(element, &|e| {
        scan.owner_of(e).is_some_and(|(owner, _)| &owner == e)
    })
}

/// Whether `element` holds (in its light DOM) a field whose value lives in the DOM as text: a
/// textarea (React keeps its text equal to its value), a select, an editor.
fn holds_text_field(element: &Element) -> bool {
    element
        .query_selector(
            "textarea, select, [contenteditable], [role~=textbox], [role~=searchbox], \
             [role~=combobox], [role~=listbox], [role~=spinbutton], [role~=slider]",
        )
        .ok()
        .flatten()
        .is_some()
}

thread_local! {
    /// Whether the running action pressed a radio button of a secret group (or its label, or a
    /// key on it): its report is then made the same whichever button was checked before.
    static PRESSED_SECRET_CHOICE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Notes that the running action presses `element` (or a key on it, or moves focus to it); true
/// when it is a radio button of a secret group or a label of one.
pub fn note_pressed(element: &Element) -> bool {
    let control = if element.local_name() == "label" {
        as_element(&super::js::get(element, "control")).cloned()
    } else {
        None
    };
    let secret = control.as_ref().unwrap_or(element);
    let pressed = is_secret_choice(secret);
    if pressed {
        PRESSED_SECRET_CHOICE.with(|p| p.set(true));
    }
    pressed
}

/// Whether the action that just ran pressed a secret group's radio button ([`note_pressed`]);
/// clears the note for the next action.
pub fn take_pressed_secret_choice() -> bool {
    PRESSED_SECRET_CHOICE.with(|p| p.replace(false))
}

/// Classifies every field of the page now, so that each secret one is remembered
/// ([`classify`]) before an action could make the page take its signal away.
pub fn remember_page_secrets() {
    if let Some(root) = QueryRoot::current() {
        let _ = SecretScan::of(&root);
    }
}

/// Whether `element` is a secret field or inside one (without a page-wide scan: only it and
/// its ancestors are classified).
pub fn is_secret_or_inside(element: &Element) -> bool {
    let mut current = Some(element.clone());
    let mut depth = 0;
    while let Some(el) = current {
        if classify(&el).is_some() {
            return true;
        }
        depth += 1;
        if depth > 512 {
            return true;
        }
        current = composed_parent(&el);
    }
    false
}

/// The text content of `element` without the text of any secret field inside it (without a
/// page-wide scan: only the fields concerned are classified); empty for a secret field itself
/// or anything inside one. For descriptions and hints.
pub fn text_content_without_secrets(element: &Element) -> String {
    if is_secret_or_inside(element) {
        return String::new();
    }
    if !holds_text_field(element) {
        return element.text_content().unwrap_or_default();
    }
    text_skipping(element, &|e| classify(e).is_some())
}

/// The visible text of `element` (`innerText`) unless it holds a secret field, then its text
/// content without the secret fields' text.
pub fn visible_text_without_secrets(element: &Element) -> String {
    if is_secret_or_inside(element) {
        return String::new();
    }
    if holds_text_field(element) {
        let inner = element.query_selector_all("textarea, select, [contenteditable]");
        let secret_inside = inner.is_ok_and(|list| {
            (0..list.length()).any(|i| {
                list.item(i)
                    .and_then(|n| as_element(&n).cloned())
                    .is_some_and(|e| classify(&e).is_some())
            })
        });
        if secret_inside {
            return text_skipping(element, &|e| classify(e).is_some());
        }
    }
    js::get_string(element, "innerText")
        .or_else(|| element.text_content())
        .unwrap_or_default()
}

// ---- Selector guard ------------------------------------------------------------------------

/// Attributes that say what a field is, never what it holds: tests on them are allowed.
const STRUCTURAL_ATTRIBUTES: &[&str] = &[
    "id",
    "name",
    "type",
    "class",
    "role",
    "autocomplete",
    "placeholder",
    "aria-label",
    "aria-labelledby",
    "aria-describedby",
    "aria-required",
    "aria-disabled",
    "aria-hidden",
    "title",
    "for",
    "form",
    "href",
    "src",
    "alt",
    "lang",
    "dir",
    "tabindex",
    "inputmode",
    "maxlength",
    "minlength",
    "size",
    "pattern",
    "required",
    "disabled",
    "readonly",
    "autofocus",
    "spellcheck",
    "autocapitalize",
    "enterkeyhint",
    "data-testid",
    "data-test-id",
    "data-test",
    "data-qa",
    "data-cy",
    "style",
    "hidden",
    "contenteditable",
    "method",
    "action",
];

/// Whether reading attribute `name` tells what a field is, never what it holds.
pub fn is_structural_attribute(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name != "value" && STRUCTURAL_ATTRIBUTES.contains(&name.as_str())
}

/// Pseudo-classes whose match depends on what a field holds (empty, valid, in range, checked,
/// autofilled).
const VALUE_PSEUDO_CLASSES: &[&str] = &[
    "placeholder-shown",
    "-moz-placeholder",
    "-moz-placeholder-shown",
    "-webkit-placeholder-shown",
    "valid",
    "invalid",
    "user-valid",
    "user-invalid",
    "-moz-ui-valid",
    "-moz-ui-invalid",
    "in-range",
    "out-of-range",
    "blank",
    "empty",
    "checked",
    "default",
    "indeterminate",
    "autofill",
    "-webkit-autofill",
    "-moz-autofill",
];

/// Refuses `selector` with `secret_field` when its answer could depend on a secret field's
/// value; called before the selector is evaluated. Text, aria, label and role-name selectors
/// need no refusal: their engines never read a secret field's value (see
/// [`SecretScan::safe_name`]). Whether a refusal happens depends only on the selector and on
/// which secret fields the page has, never on what they hold.
pub fn guard_selector(root: &QueryRoot, selector: &Selector) -> Result<(), ActionError> {
    let (why, tab_stop) = match selector.kind {
        SelectorKind::Css => (
            css_value_test(&selector.value),
            tests_tab_stop(&decode_css_escapes(&selector.value)),
        ),
        SelectorKind::Xpath => (
            xpath_value_test(&selector.value),
            tests_tab_stop(&selector.value),
        ),
        _ => return Ok(()),
    };
    if why.is_none() && !tab_stop {
        return Ok(());
    }
    let scan = SecretScan::of(root);
    if scan.is_empty() {
        return Ok(());
    }
    // A radio group's tab stop is its checked button (roving tabindex): on a page with a
    // secret group, a test of `tabindex` is a test of the choice.
    let test = match why {
        Some(test) => test,
        None if scan.found.iter().any(|f| f.choice) => ValueTest::Attribute("tabindex".to_owned()),
        None => return Ok(()),
    };
    let refuse = match &test {
        ValueTest::Attribute(_) | ValueTest::PseudoClass(_) => true,
        ValueTest::Text(_) => scan.has_text_bearing(),
    };
    if !refuse {
        return Ok(());
    }
    let kind = scan.found.first().map_or("secret", |f| f.kind.label());
    Err(ActionError::SecretField {
        what: describe_selector(selector),
        reason: match test {
            ValueTest::Attribute(name) => format!("it tests the attribute '{name}'"),
            ValueTest::PseudoClass(name) => format!("it uses :{name}"),
            ValueTest::Text(what) => format!("it reads text with {what}"),
        },
        kind: kind.to_owned(),
    })
}

/// Whether a selector mentions `tabindex` (CSS `[tabindex…]`, XPath `@tabindex`), in any case.
fn tests_tab_stop(selector: &str) -> bool {
    selector.to_ascii_lowercase().contains("tabindex")
}

/// Why a selector may test a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueTest {
    /// An attribute compared with a value (`[value^="a"]`, `@data-v`), lower-cased.
    Attribute(String),
    /// A pseudo-class that depends on the value (`:placeholder-shown`).
    PseudoClass(String),
    /// XPath reading text (`text()`, `string(`…).
    Text(String),
}

/// Decodes CSS escapes (`\61` → `a`, `\:` → `:`): an attacker may spell `value` as `v\61lue`.
fn decode_css_escapes(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c != '\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let mut hex = String::new();
        let mut j = i + 1;
        while hex.len() < 6 {
            match chars.get(j) {
                Some(h) if h.is_ascii_hexdigit() => {
                    hex.push(*h);
                    j += 1;
                }
                _ => break,
            }
        }
        if hex.is_empty() {
            if let Some(next) = chars.get(i + 1) {
                out.push(*next);
            }
            i += 2;
        } else {
            let code = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
            out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
            if chars.get(j).is_some_and(|c| c.is_whitespace()) {
                j += 1;
            }
            i = j;
        }
    }
    out
}

/// The first test of a non-structural attribute (`value`, `data-*`...; compared, or `value`
/// at all) or value pseudo-class in a CSS selector (anywhere: inside `:has()`, `:not()`,
/// `:is()`, `:where()` too), after decoding escapes and lower-casing.
pub fn css_value_test(css: &str) -> Option<ValueTest> {
    let decoded = decode_css_escapes(css).to_lowercase();
    let chars: Vec<char> = decoded.chars().collect();
    let mut i = 0;
    let mut quote: Option<char> = None;
    while let Some(&c) = chars.get(i) {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '[' => {
                // `[ns|name op value]`: the attribute's name, and whether it is compared.
                let mut j = i + 1;
                let mut name = String::new();
                while let Some(&n) = chars.get(j) {
                    if n == ']' || n == '=' || "~|^$*".contains(n) && chars.get(j + 1) == Some(&'=')
                    {
                        break;
                    }
                    name.push(n);
                    j += 1;
                }
                let compared = chars.get(j).is_some_and(|n| *n != ']');
                let name = name.trim();
                let name = name.rsplit('|').next().unwrap_or(name).trim().to_owned();
                // `[checked]` / `[selected]` test the state a server or a re-mount wrote.
                let state = matches!(name.as_str(), "value" | "checked" | "selected");
                if (compared || state) && !is_structural_attribute(&name) {
                    return Some(ValueTest::Attribute(name));
                }
            }
            ':' => {
                let mut j = i + 1;
                while chars.get(j) == Some(&':') {
                    j += 1;
                }
                let name: String = chars
                    .get(j..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|n| n.is_alphanumeric() || **n == '-' || **n == '_')
                    .collect();
                // `:state(checked)` and the older `:--checked` test a custom element's state.
                if VALUE_PSEUDO_CLASSES.contains(&name.as_str())
                    || name == "state"
                    || name.starts_with("--")
                {
                    return Some(ValueTest::PseudoClass(name));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// XPath functions that read a node's string value unless given an attribute (`@x`): a
/// textarea's or editor's text is its value.
const XPATH_TEXT_FUNCTIONS: &[&str] = &[
    "string(",
    "string-length(",
    "normalize-space(",
    "contains(",
    "starts-with(",
    "ends-with(",
    "substring(",
    "substring-before(",
    "substring-after(",
    "translate(",
    "concat(",
    "matches(",
    "number(",
    "sum(",
    "boolean(",
];

/// Whether a compacted, lower-cased XPath reads some element's text: `text()`, `node()`, a
/// string function on something other than an attribute, or a comparison whose left side is
/// not an attribute, a literal or a function result.
fn xpath_reads_text(compact: &str) -> Option<String> {
    for step in ["text()", "node()", "comment()"] {
        if compact.contains(step) {
            return Some(step.to_owned());
        }
    }
    for function in XPATH_TEXT_FUNCTIONS {
        for (at, _) in compact.match_indices(function) {
            // `starts-with(` also matches inside `xstarts-with(`: only whole names count.
            let whole = at == 0
                || !compact[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '-');
            let argument = &compact[at + function.len()..];
            if whole
                && !argument.starts_with('@')
                && !argument.starts_with('\'')
                && !argument.starts_with('"')
            {
                return Some((*function).to_owned());
            }
        }
    }
    let chars: Vec<char> = compact.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if !matches!(c, '=' | '<' | '>') {
            continue;
        }
        if *c == '=' && i > 0 && matches!(chars.get(i - 1), Some('!' | '<' | '>')) {
            continue;
        }
        let mut j = i;
        if j > 0 && chars.get(j - 1) == Some(&'!') {
            j -= 1;
        }
        let left_end = chars.get(..j).and_then(|s| s.last()).copied();
        let left_ok = match left_end {
            None | Some(')' | '\'' | '"') => true,
            Some(_) => {
                let token: Vec<char> = chars
                    .get(..j)
                    .unwrap_or_default()
                    .iter()
                    .rev()
                    .take_while(|c| c.is_alphanumeric() || "-_.:*".contains(**c))
                    .copied()
                    .collect();
                let numeric = !token.is_empty()
                    && token.iter().all(|c| c.is_ascii_digit() || *c == '.')
                    && token.iter().any(char::is_ascii_digit);
                let attribute = !token.is_empty()
                    && j > token.len()
                    && chars.get(j - token.len() - 1) == Some(&'@');
                numeric || attribute
            }
        };
        if !left_ok {
            return Some(format!("a comparison ('{c}') on an element's text"));
        }
    }
    None
}

/// The first attribute read or text read in an XPath expression (whitespace outside strings
/// removed first, so `@ value` is `@value`).
pub fn xpath_value_test(xpath: &str) -> Option<ValueTest> {
    let mut compact = String::with_capacity(xpath.len());
    let mut quote: Option<char> = None;
    for c in xpath.chars() {
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
                // String contents are not syntax: keep a neutral placeholder.
                if c == q {
                    compact.push(c);
                } else {
                    compact.push('x');
                }
            }
            None => {
                if c == '"' || c == '\'' {
                    quote = Some(c);
                    compact.push(c);
                } else if !c.is_whitespace() {
                    compact.extend(c.to_lowercase());
                }
            }
        }
    }
    let attribute_reads = compact.match_indices('@').map(|(at, _)| at + 1).chain(
        compact
            .match_indices("attribute::")
            .map(|(at, m)| at + m.len()),
    );
    for start in attribute_reads {
        let name: String = compact
            .get(start..)
            .unwrap_or_default()
            .chars()
            .take_while(|c| c.is_alphanumeric() || "-_:.*".contains(*c))
            .collect();
        let name = name.rsplit(':').next().unwrap_or(&name).to_owned();
        if name.is_empty() || !is_structural_attribute(&name) {
            return Some(ValueTest::Attribute(if name.is_empty() {
                "*".to_owned()
            } else {
                name
            }));
        }
    }
    xpath_reads_text(&compact).map(ValueTest::Text)
}
