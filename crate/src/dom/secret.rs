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

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, Node};

use super::error::ActionError;
use super::js;
use super::selector::describe_selector;
use super::tree::{
    CssFilter, QueryRoot, ShadowAccess, Walked, as_element, composed_parent, element_by_id_near,
};
use crate::protocol::{Selector, SelectorKind};

use crate::policy::selector_reads::{
    ContentReads, css_content_reads, css_reads, xpath_content_reads, xpath_reads,
};
pub use crate::policy::selector_reads::{
    ValueTest, css_value_test, is_structural_attribute, xpath_value_test,
};

pub use super::secret_field::{
    AUTOCOMPLETE_SIGNALS, SIGNALS, SecretKind, autocomplete_kind, classify, is_field,
    is_radio_choice, is_secret_choice, packed_signals, words_kind,
};
use super::secret_field::{text_runs_skipping, text_skipping};

/// Every element [`is_field`] may accept (it also needs a type that is a field, or to be an
/// editing host).
/// (The custom widgets with a value role are fields too: `secret_field::is_field`.)
/// (ARIA radio buttons too: a secret group's choice, [`is_radio_choice`].)
const FIELD_CANDIDATES: &str = "input, textarea, select, [contenteditable], [role~=textbox], \
    [role~=searchbox], [role~=combobox], [role~=listbox], [role~=spinbutton], [role~=slider], \
    [role~=radio], [role~=menuitemradio]";
/// [`FIELD_CANDIDATES`] but the inputs that are not editing hosts. The role tests sit behind
/// one `[role]` (the same elements): the text engine runs this on every scope of a page, and
/// a browser then tests most elements against four selectors instead of nine (1.1 → 0.6 ms on
/// 10,000 elements).
const FIELD_CANDIDATES_NOT_INPUTS: &str = "textarea, select, [contenteditable], \
    [role]:is([role~=textbox], [role~=searchbox], [role~=combobox], [role~=listbox], \
    [role~=spinbutton], [role~=slider])";

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
    // Not `dyn_ref`: a frame's list belongs to another realm, where `instanceof` is false.
    if !list.is_object() {
        return Vec::new();
    }
    let list = list.unchecked_ref::<web_sys::NodeList>();
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

    /// The names the page's secret fields are sent under (not hidden inputs), each once: a
    /// field's own `name`, and for a field inside a shadow root its host's `name` too (a
    /// form-associated custom element sends its value under the host's name, also through
    /// nested components). Fields in every
    /// scope of the scan count: a form in a shadow root sent by GET puts them in the address.
    pub fn field_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for found in self
            .found
            .iter()
            .filter(|f| f.kind != SecretKind::HiddenValue)
        {
            // The field and every shadow host around it, up to its document: a custom element
            // may hold another that holds the field.
            let mut hosts = vec![found.element.clone()];
            while hosts.len() < 32 {
                let Some(last) = hosts.last() else { break };
                let root = super::js::call(last, "getRootNode", &[]).ok().flatten();
                match root
                    .as_ref()
                    .and_then(super::tree::as_node)
                    .and_then(super::tree::as_shadow_root)
                {
                    Some(shadow) => hosts.push(shadow.host()),
                    None => break,
                }
            }
            for element in &hosts {
                let name = super::js::attribute(element, "name");
                if let Some(name) = name.filter(|n| !n.is_empty() && !names.contains(n)) {
                    let legacy = crate::protocol::secret_query::LEGACY_ENCODED_NAME;
                    if !name.is_ascii()
                        && !names.iter().any(|n| n == legacy)
                        && sends_legacy_encoding(element)
                    {
                        names.push(legacy.to_owned());
                    }
                    names.push(name);
                }
            }
        }
        names
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
            .find(|f| match f.element.local_name().as_str() {
                _ if f.choice => false,
                "input" => false,
                "select" => shows_choice_as_text(&f.element),
                _ => true,
            })
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
        // Inside a secret field (a customizable select's button, whose text is the chosen
        // option), or such a select itself, whose name may come from that text.
        if self.found.iter().any(|f| {
            !f.choice
                && f.element.local_name() == "select"
                && shows_choice_as_text(&f.element)
                && f.element.contains(Some(element))
        }) {
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

/// Whether a select puts its chosen option into the page as text: a customizable select
/// (`appearance: base-select`) copies it into its `<selectedcontent>`, inside its `<button>`.
fn shows_choice_as_text(select: &Element) -> bool {
    select
        .query_selector("button, selectedcontent")
        .ok()
        .flatten()
        .is_some()
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

/// Whether `element` holds (in its light DOM) a field whose value lives in the DOM as text (a
/// textarea, whose text React keeps equal to its value, a select, an editor) or is drawn (an
/// input: the drawn reading reads a field's value, so a secret one must be skipped there).
fn holds_text_field(element: &Element) -> bool {
    element
        .query_selector(
            "input, textarea, select, [contenteditable], [role~=textbox], [role~=searchbox], \
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
/// Whether the form `field` belongs to sends its names in an encoding other than UTF-8: an
/// `accept-charset` naming another (any label but UTF-8's: the browser takes the first it
/// knows, and a wrong guess only redacts more), or the document's own encoding (a
/// `windows-1251` page). See [`crate::protocol::secret_query::LEGACY_ENCODED_NAME`].
fn sends_legacy_encoding(field: &Element) -> bool {
    let utf8 = |label: &str| {
        matches!(
            label.trim().to_ascii_lowercase().as_str(),
            "utf-8"
                | "utf8"
                | "unicode-1-1-utf-8"
                | "unicode11utf8"
                | "unicode20utf8"
                | "x-unicode20utf8"
        )
    };
    // The forms that may own the field: its `form` property (it follows `form=`), and, for a
    // form-associated custom element (its form is on its `ElementInternals`, out of reach; the
    // class need not define `form`), the form its `form=` names in its tree and the form
    // around it, as the browser picks one. A form that does not own it only redacts more.
    let mut forms: Vec<Element> = Vec::new();
    if let Some(form) = super::tree::as_element(&js::get(field, "form")) {
        forms.push(form.clone());
    }
    if let Some(id) = js::attribute(field, "form").filter(|id| !id.is_empty()) {
        let root = js::call(field, "getRootNode", &[]).ok().flatten();
        let named = root.as_ref().and_then(|root| {
            js::call(root, "getElementById", &[id.into()])
                .ok()
                .flatten()
        });
        if let Some(form) = named.as_ref().and_then(super::tree::as_element) {
            forms.push(form.clone());
        }
    }
    if let Ok(Some(form)) = field.closest("form") {
        forms.push(form);
    }
    if forms.iter().any(|form| {
        js::attribute(form, "accept-charset")
            .is_some_and(|labels| labels.split_ascii_whitespace().any(|l| !utf8(l)))
    }) {
        return true;
    }
    field
        .owner_document()
        .and_then(|document| js::get_string(&document, "characterSet"))
        .is_some_and(|charset| !utf8(&charset))
}

/// Returns the scan, whose [`SecretScan::field_names`] the action reports.
pub fn remember_page_secrets() -> SecretScan {
    QueryRoot::current()
        .map(|root| SecretScan::of(&root))
        .unwrap_or_default()
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

/// What the readings of one control's text need to know about secret fields, found once: whether
/// the control is a secret field or inside one (an ancestor walk classifying each element) and
/// whether a field that may be secret is inside it (a subtree query). A review reads a control's
/// text four ways (its content, in runs, as drawn, its shadow trees), each of which asked both
/// again (figure 7). Only for readings done together, with nothing awaited between them.
#[derive(Debug, Clone, Copy)]
pub struct SecretScope {
    /// The element is a secret field or inside one: none of its text is read.
    secret: bool,
    /// A field that may be secret is inside it: its text is read skipping the secret ones.
    holds_field: bool,
}

impl SecretScope {
    /// The scope of `element`'s text now.
    pub fn of(element: &Element) -> Self {
        let secret = is_secret_or_inside(element);
        Self {
            secret,
            holds_field: !secret && holds_text_field(element),
        }
    }

    /// [`text_content_without_secrets`] of the element this scope was found for.
    pub fn text_content(self, element: &Element) -> String {
        if self.secret {
            return String::new();
        }
        if !self.holds_field {
            return element.text_content().unwrap_or_default();
        }
        text_skipping(element, &|e| classify(e).is_some())
    }

    /// [`text_runs_without_secrets`] of the element this scope was found for.
    pub fn text_runs(self, element: &Element, max_bytes: usize) -> String {
        if self.secret {
            return String::new();
        }
        if !self.holds_field {
            return text_runs_skipping(element, &|_| false, max_bytes);
        }
        text_runs_skipping(element, &|e| classify(e).is_some(), max_bytes)
    }

    /// [`drawn_text_without_secrets`] of the element this scope was found for.
    pub fn drawn_text(self, element: &Element) -> super::drawn_text::Drawn {
        if self.secret {
            return super::drawn_text::Drawn::default();
        }
        // Form fields are always classified, wherever they are (the light DOM query does not
        // see into shadow trees, whose fields the drawn reading reads: red team red6).
        let light = self.holds_field;
        super::drawn_text::drawn_text_skipping(element, &|e| {
            (light || matches!(e.local_name().as_str(), "input" | "textarea" | "select"))
                && classify(e).is_some()
        })
    }

    /// [`shadow_text_without_secrets`] of the element this scope was found for.
    pub fn shadow_text(self, element: &Element, max_bytes: usize) -> String {
        let mut out = String::new();
        if self.secret {
            return out;
        }
        let access = ShadowAccess::detect();
        let mut hosts = vec![element.clone()];
        hosts.extend(elements_under(element.as_ref()));
        collect_shadow_text(&access, hosts, max_bytes, 0, &mut out);
        out
    }
}

/// The text content of `element` without the text of any secret field inside it (without a
/// page-wide scan: only the fields concerned are classified); empty for a secret field itself
/// or anything inside one. For descriptions and hints.
pub fn text_content_without_secrets(element: &Element) -> String {
    SecretScope::of(element).text_content(element)
}

/// The text the page shows from shadow trees on and under `element` (a custom element drawing
/// its own label), which `textContent` never reaches, without secret fields' text, about
/// `max_bytes` at most. Closed roots too where the browser lets an extension open them. Looks
/// at the element and at most 512 elements under it (custom elements and the others that may
/// host a shadow root), and into shadow trees up to 4 deep.
pub fn shadow_text_without_secrets(element: &Element, max_bytes: usize) -> String {
    // Whether a field is inside does not matter here (shadow trees are read skipping the
    // secret fields in them), so only the ancestor walk is made.
    SecretScope {
        secret: is_secret_or_inside(element),
        holds_field: true,
    }
    .shadow_text(element, max_bytes)
}

/// At most 512 elements under `scope` (an element or a shadow root), in document order.
fn elements_under(scope: &Node) -> Vec<Element> {
    let found = js::call(scope, "querySelectorAll", &[JsValue::from_str("*")]);
    let Ok(Some(list)) = found else {
        return Vec::new();
    };
    let list = list.unchecked_into::<web_sys::NodeList>();
    (0..list.length().min(512))
        .filter_map(|i| list.item(i).and_then(|node| as_element(&node).cloned()))
        .collect()
}

/// Appends the text of the shadow trees of `hosts` (and of the hosts inside those trees, up to
/// 4 deep) to `out`, words one space apart.
fn collect_shadow_text(
    access: &ShadowAccess,
    hosts: Vec<Element>,
    max_bytes: usize,
    depth: u32,
    out: &mut String,
) {
    if depth > 4 {
        return;
    }
    for host in hosts {
        let Some(root) = access.shadow_root(&host) else {
            continue;
        };
        let text = text_skipping(root.as_ref(), &|e| classify(e).is_some());
        for word in text.split_whitespace() {
            if out.len() > max_bytes {
                return;
            }
            out.push(' ');
            out.push_str(word);
        }
        collect_shadow_text(
            access,
            elements_under(root.as_ref()),
            max_bytes,
            depth + 1,
            out,
        );
    }
}

/// [`text_content_without_secrets`] with a space before every text node (each rendered as a
/// piece of its own, which the text joins: "keep<span>delete</span>"), read up to about
/// `max_bytes`: what a judgement of its words reads besides the text.
pub fn text_runs_without_secrets(element: &Element, max_bytes: usize) -> String {
    SecretScope::of(element).text_runs(element, max_bytes)
}

/// `element`'s text as it is drawn (`dom::drawn_text`), without the text of any secret field
/// drawn inside it, for many elements read in a row (a list's options): only the fields met are
/// classified, with no ancestor walk per element. An option is no field: a page may still draw
/// one inside it (a custom listbox's option, a customizable `<select>`), and its value would
/// otherwise reach the decision.
pub fn drawn_text_skipping_secret_fields(element: &Element) -> super::drawn_text::Drawn {
    super::drawn_text::drawn_text_skipping(element, &|e| {
        matches!(e.local_name().as_str(), "input" | "textarea" | "select") && classify(e).is_some()
    })
}

/// `element`'s text as it is drawn (`dom::drawn_text`), without secret fields' text.
pub fn drawn_text_without_secrets(element: &Element) -> super::drawn_text::Drawn {
    SecretScope::of(element).drawn_text(element)
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

/// `css` as the browser serializes it after parsing it (`selectorText` of a style rule made of
/// it), if it parses as one style rule.
fn browser_serialization(css: &str) -> Option<String> {
    let constructor = js::get(&js_sys::global(), "CSSStyleSheet");
    let constructor = constructor.dyn_ref::<js_sys::Function>()?;
    let sheet = js_sys::Reflect::construct(constructor, &js_sys::Array::new()).ok()?;
    let mut rule_text = String::with_capacity(css.len() + 2);
    rule_text.push_str(css);
    rule_text.push_str("{}");
    js::call(&sheet, "replaceSync", &[JsValue::from_str(&rule_text)]).ok()??;
    let rules = js::get(&sheet, "cssRules");
    let first = js::call(&rules, "item", &[JsValue::from_f64(0.0)]).ok()??;
    js::get_string(&first, "selectorText")
}

/// What a CSS selector may test, read as written and as the browser reads it back: its own
/// parser settles whatever the tokenizer might still read differently (a forgiving `:is()`
/// drops what it cannot parse). Either reading that tests a value counts, the one as written
/// first. One tokenization per reading, and the browser is asked only when the selector as
/// written tests no value (else the answer is that test whatever the browser reads), and read
/// again only when it serializes the selector differently. The third part is what it reads of
/// the page's content ([`css_content_reads`]), from both readings too: the browser is asked
/// for it only when the first two did not ask already and the selector as written compares
/// no attribute.
fn css_guard_reads(css: &str) -> (Option<ValueTest>, bool, ContentReads) {
    let (why, tab_stop) = css_reads(css);
    let mut content = css_content_reads(css);
    if why.is_some() && !content.is_empty() {
        return (why, tab_stop, content);
    }
    match browser_serialization(css) {
        Some(serialized) if serialized != css => {
            let (serialized_why, serialized_tab_stop) = css_reads(&serialized);
            for name in css_content_reads(&serialized).attributes {
                if !content.attributes.contains(&name) {
                    content.attributes.push(name);
                }
            }
            (
                why.or(serialized_why),
                tab_stop || serialized_tab_stop,
                content,
            )
        }
        _ => (why, tab_stop, content),
    }
}

/// Refuses `selector` with `secret_field` when its answer could depend on a secret field's
/// value, and with `redacted_value` when it reads something the model is shown redacted
/// ([`guard_redacted`]); called before the selector is evaluated. Text, aria, label and
/// role-name selectors need no refusal: their engines never read a secret field's value (see
/// [`SecretScan::safe_name`]) and match only what the model is shown
/// ([`super::address::Shown::still_matches`]). Whether a refusal happens depends only on the
/// selector, on which secret fields the page has and on where the page has something
/// redacted, never on what any of them holds.
pub fn guard_selector(root: &QueryRoot, selector: &Selector) -> Result<(), ActionError> {
    let (why, tab_stop, content) = match selector.kind {
        SelectorKind::Css => css_guard_reads(&selector.value),
        SelectorKind::Xpath => {
            let (why, tab_stop) = xpath_reads(&selector.value);
            (why, tab_stop, xpath_content_reads(&selector.value))
        }
        _ => return Ok(()),
    };
    guard_secret_fields(root, selector, why, tab_stop)?;
    guard_redacted(root, selector, &content)
}

/// The `secret_field` half of [`guard_selector`].
fn guard_secret_fields(
    root: &QueryRoot,
    selector: &Selector,
    why: Option<ValueTest>,
    tab_stop: bool,
) -> Result<(), ActionError> {
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
        ValueTest::Attribute(_) | ValueTest::PseudoClass(_) | ValueTest::StateClass(_) => true,
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
            ValueTest::StateClass(class) => {
                format!("it tests the class '{class}', which pages set from a field's value")
            }
        },
        kind: kind.to_owned(),
    })
}

/// Refuses a CSS or XPath selector that reads a value the model is shown with a part redacted
/// (a `?token=` in an `href`, a card number in a paragraph), with `redacted_value`. Matched
/// against the unredacted page, such a selector would answer one guess at the hidden part per
/// try (`a[href*="xq7=hunter2"]` found, `a[href*="xq7=zzz"]` not), whatever observe hides.
///
/// For each attribute the selector compares ([`ContentReads`]), every element of the scopes
/// it searches (CSS: the document, shadow roots and same-origin frames; XPath: the document)
/// that has the attribute is asked whether redaction ([`super::address::Shown`]: the page's
/// secret field names and the names known from earlier pages count) changes its value; for a
/// selector that reads text, whether redaction changes the text of a scope. One changed value
/// refuses the selector, whatever it compares it with: the refusal says only that something
/// of that attribute (or of the text) is redacted, as observe's `[redacted …]` marks show, and
/// the same for every guess. Cost: only for selectors that compare attribute values or read
/// text, one `querySelectorAll` per attribute and scope and a redaction per value found
/// (`#id`, `.class`, `button`, `[href]` cost nothing).
fn guard_redacted(
    root: &QueryRoot,
    selector: &Selector,
    content: &ContentReads,
) -> Result<(), ActionError> {
    if content.is_empty() {
        return Ok(());
    }
    let scopes: Vec<Node> = match selector.kind {
        SelectorKind::Xpath => vec![root.document.clone().into()],
        _ => root.scopes(),
    };
    let shown = super::address::Shown::new(&root.document);
    let changed = |value: &str| shown.text(value) != value;
    let refuse = |reads: String| ActionError::RedactedValue {
        what: describe_selector(selector),
        reads,
    };
    for name in &content.attributes {
        // A plain name is found by the browser; anything else (`*`, an escaped name) by
        // asking every element.
        let plain = name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        let css = if plain && name != "*" {
            format!("[{name}]")
        } else {
            "*".to_owned()
        };
        for scope in &scopes {
            for element in elements_in(scope, &css) {
                let redacted = if name == "*" {
                    element
                        .get_attribute_names()
                        .iter()
                        .filter_map(|n| n.as_string())
                        .any(|n| element.get_attribute(&n).is_some_and(|v| changed(&v)))
                } else {
                    element.get_attribute(name).is_some_and(|v| changed(&v))
                };
                if redacted {
                    return Err(refuse(format!("the attribute '{name}'")));
                }
            }
        }
    }
    if content.text {
        for scope in &scopes {
            let text = match super::tree::as_document(scope) {
                Some(document) => document
                    .document_element()
                    .and_then(|e| e.text_content())
                    .unwrap_or_default(),
                None => scope.text_content().unwrap_or_default(),
            };
            // Read both as it is and with its whitespace normalized, as the text engines
            // compare (see `Shown::still_matches`).
            if changed(&text) || changed(&super::matching::normalize_whitespace(&text)) {
                return Err(refuse("the page's text".to_owned()));
            }
        }
    }
    Ok(())
}
