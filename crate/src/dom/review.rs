//! What an action really activates, gathered from the live page as facts for the pure safety
//! policy ([`crate::policy::TargetFacts`]): the element under the pointer (a click lands on the
//! deepest element at the middle of its target, which can be an icon-only button inside a
//! nameless wrapper or a button in a web component's shadow root), the button or link around
//! it, its role, where it goes (a link's `href`; for a control that submits a form, its
//! `formaction` or its form's `action`, the form found through the `form` property so a
//! `form=` attribute counts), and the names of the controls inside the element the model named.

use web_sys::Element;

use super::accname::{accessible_name, accessible_name_in_runs};
use super::describe::describe;
use super::error::ActionError;
use super::js;
use super::roles::role_of;
use super::tree::{
    ShadowAccess, as_element, children, event_contains, event_parent, form_controls,
    is_submit_button, labels_of,
};
use crate::policy::TargetFacts;
use crate::policy::runs::glued_runs;
use crate::protocol::Action;

mod keys;

/// Most inner control names gathered (a click can only land on one of them).
const MAX_INNER_NAMES: usize = 12;

/// Most controls judged one by one besides the one pressed ([`around`]); the rest together.
const MAX_AROUND: usize = 12;
/// Most characters of the names, and of the addresses, of the rest read together.
const MAX_REST_CHARS: usize = 4_000;
/// Most elements [`around`] starts a walk up from (what is pressed, labels, their controls).
const MAX_AROUND_STARTS: usize = 8;
/// Most ancestors [`around`] looks at in all (a page nests a few dozen; past this, the review
/// fails rather than miss a link around the rest).
const MAX_AROUND_STEPS: usize = 20_000;
/// Most `ping` addresses read from one link.
const MAX_PINGS: usize = 4;

/// Roles a click lands on as a whole: the click activates the nearest one around the element
/// under the pointer.
const ACTIVATING_ROLES: &[&str] = &[
    "button",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "tab",
    "checkbox",
    "radio",
    "switch",
    "treeitem",
    "combobox",
];

/// The facts about what `action` activates, starting from `element` (what its selector found).
/// For `select_option`, the option that will be chosen is part of them; it fails as the action
/// would when a `<select>` has no such option.
pub fn activation_facts(action: &Action, element: Element) -> Result<TargetFacts, ActionError> {
    let mut facts = element_facts(action, element.clone())?;
    if let Action::SelectOption { option, .. } = action {
        match super::action::option_preview(&element, option)? {
            Some(names) => facts.option_names = names,
            None => facts.option_unknown = true,
        }
    }
    choice_facts(action, &element, &mut facts)?;
    // A choice can send its form at once: `onchange="this.form.submit()"` on a select or a
    // checkbox, or a listener BAI cannot see. The form's address is judged as if it were
    // submitted; not its words (a settings form's other buttons would make every checkbox in
    // it ask), nor the secret it would put into an address (an unlabelled login form's
    // "Remember me" would ask each time; sending it is judged when it is really submitted).
    // A form sent back to the page it is on (no `action`, the usual case) is left out: its
    // address is where the user already is, and judging it would make every choice on a
    // checkout page ask.
    let chooses = facts.chooses
        || matches!(
            action,
            Action::SelectOption { .. } | Action::Check { .. } | Action::Uncheck { .. }
        );
    if chooses {
        let form = form_of(&element).or_else(|| element.closest("form").ok().flatten());
        let here = element
            .owner_document()
            .and_then(|d| js::get_string(&d, "URL"));
        let page = |address: &str| address.split('#').next().unwrap_or_default().to_owned();
        if let Some(form) = form {
            let sent = where_it_goes(&form);
            let same_page = sent
                .destination
                .as_deref()
                .zip(here.as_deref())
                .is_some_and(|(to, here)| page(to) == page(here));
            if same_page {
                // Unless a submit button it owns sends it elsewhere (a change handler that calls
                // `requestSubmit(button)`): each such address is judged.
                let elsewhere = form_controls(&form)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|b| is_submit_button(b) && b.has_attribute("formaction"))
                    .take(20)
                    .map(|button| where_it_goes(&button))
                    .filter(|sent| {
                        sent.destination
                            .as_deref()
                            .zip(here.as_deref())
                            .is_none_or(|(to, here)| page(to) != page(here))
                    });
                facts.also_activates.extend(elsewhere);
                return Ok(facts);
            }
            facts.also_activates.push(sent);
        }
    }
    Ok(facts)
}

/// A form (or a button sending it elsewhere) a choice submits, as the review judges it: by where
/// it goes, not by its words (a settings form holding a "Send test email" button does not make
/// every checkbox in it ask). Every field that carries words is left out, those added later
/// too: its name, text, the words past the text and the text read in runs (red team, session
/// 16: `runs` and `more_text` were left in and asked on every checkbox of such a form), and
/// whether it sends a secret in its address. They are not read at all: reading a whole form's
/// text four ways (as drawn: a style read per text node) only to drop it cost every choice in
/// a form (figure 7).
fn where_it_goes(element: &Element) -> TargetFacts {
    TargetFacts {
        sends_secret_in_address: false,
        checks_secret: false,
        ..address_facts(element)
    }
}

/// What an action that is not `select_option` chooses (`input_text` on a `<select>`, a key on a
/// list or radio group), and whether Enter is left to the page's handlers: computed the way the
/// action will act, so the review judges what it will really do.
fn choice_facts(
    action: &Action,
    element: &Element,
    facts: &mut TargetFacts,
) -> Result<(), ActionError> {
    use super::action::{KeyChoice, enter_left_to_page, field_for, key_choice, option_preview};
    match action {
        Action::InputText { text, .. } => {
            let field = field_for(element);
            if field.local_name() == "select" {
                // The option the text names, found as `input_text` finds it (a missing one
                // fails here as the action would).
                facts.chooses = true;
                match option_preview(&field, text)? {
                    Some(names) => facts.option_names = names,
                    None => facts.option_unknown = true,
                }
            }
        }
        Action::PressKey { key, .. } => {
            match key_choice(*key, element) {
                KeyChoice::Nothing => {}
                KeyChoice::Chooses(names) => {
                    facts.chooses = true;
                    facts.option_names = names;
                }
                KeyChoice::Unknown => {
                    facts.chooses = true;
                    facts.option_unknown = true;
                }
            }
            facts.enter_left_to_page =
                *key == crate::protocol::action::Key::Enter && enter_left_to_page(element);
            keys::widget_key_facts(*key, element, facts);
        }
        _ => {}
    }
    Ok(())
}

fn element_facts(action: &Action, element: Element) -> Result<TargetFacts, ActionError> {
    let shadow = ShadowAccess::detect();
    let acted = acted_on(action, element.clone());
    let pressed = match action {
        // A pointer click goes to the deepest element at the middle of the target.
        Action::Click { .. } => under_pointer(&shadow, &acted).unwrap_or_else(|| acted.clone()),
        // `check` clicks the control, or a visually hidden input's label, only where that
        // element or plain content inside it takes the click (never a link or button inside
        // it: `click::Interior::Plain`), so what it presses is that element.
        Action::Check { .. } | Action::Uncheck { .. } => super::action::check_click_target(&acted),
        _ => acted.clone(),
    };
    // The nearest button, link or other activating control around what is pressed (or a
    // label, which clicks its control).
    let activated = activating_ancestor(&pressed).unwrap_or_else(|| acted.clone());
    let activated = label_control(&activated).unwrap_or(activated);
    let mut facts = facts_of(&activated);
    facts.is_password = is_password_target(&acted);
    // The element the model named, and what it holds, can be pressed too.
    let mut inner = Vec::new();
    if acted != activated {
        push_name(&mut inner, inner_name(&acted));
        if let Some(control) = label_control(&acted) {
            push_name(&mut inner, inner_name(&control));
        }
    }
    if matches!(
        action,
        Action::Click { .. } | Action::Check { .. } | Action::Uncheck { .. }
    ) {
        for control in inner_controls(&shadow, &acted) {
            if control != activated {
                push_name(&mut inner, inner_name(&control));
            }
        }
    }
    facts.inner_names = inner;
    if presses(action) {
        // Fail closed: what a press activates that the review could not reach might be risky.
        facts.also_activates =
            around(&pressed, &activated).ok_or_else(|| ActionError::UnsupportedElement {
                element: describe(&acted),
                hint: "it is nested deeper than BAI follows to check what a press on it activates; act on an element near the top of the page".to_owned(),
            })?;
    }
    Ok(facts)
}

/// Whether `action` presses its target as a click does (a click, `check`, Enter or Space).
fn presses(action: &Action) -> bool {
    use crate::protocol::action::Key;
    matches!(
        action,
        Action::Click { .. }
            | Action::Check { .. }
            | Action::Uncheck { .. }
            | Action::PressKey {
                key: Key::Enter | Key::Space,
                ..
            }
    )
}

/// Everything else one press on `pressed` activates, besides `activated` (the control judged
/// first), each described as if pressed itself:
/// - every link, button, other activating control and `onclick` element around `pressed`: the
///   click bubbles up through them, and Chromium follows a link around a button, or around a
///   link, that does not cancel it;
/// - a label's control, and what is around that control (the label clicks it, and that click
///   bubbles up from the control);
/// - the labels of `activated` and what is around them (a click may land on a label of its
///   target: `click::hit_target`);
/// - each link's `ping` addresses (the browser posts to them when it follows the link).
///
/// `None` when the ancestors are too many to walk ([`MAX_AROUND_STEPS`]).
fn around(pressed: &Element, activated: &Element) -> Option<Vec<TargetFacts>> {
    let mut starts = vec![pressed.clone(), activated.clone()];
    starts.extend(labels_of(activated, 4));
    let mut found: Vec<Element> = Vec::new();
    let mut steps = 0;
    let mut next = 0;
    while let Some(start) = starts.get(next).cloned() {
        next += 1;
        let mut current = Some(start);
        while let Some(element) = current {
            steps += 1;
            if steps > MAX_AROUND_STEPS {
                return None;
            }
            if let Some(control) = label_control(&element) {
                if !starts.contains(&control) && starts.len() < MAX_AROUND_STARTS {
                    starts.push(control);
                }
            }
            if acts_on_click(&element) && !found.contains(&element) {
                found.push(element.clone());
            }
            current = event_parent(&element);
        }
    }
    let mut also = Vec::new();
    for element in std::iter::once(activated).chain(found.iter().filter(|e| *e != activated)) {
        // A label does what its control does; its control is walked above.
        if element.local_name() == "label" {
            continue;
        }
        if element != activated {
            also.push(facts_of(element));
        }
        for url in pings(element) {
            also.push(TargetFacts {
                description: format!("the ping of {}", describe(element)),
                destination: Some(url),
                ..TargetFacts::default()
            });
        }
    }
    if also.len() > MAX_AROUND {
        // A page can nest any number of harmless controls around the risky one: the rest are
        // read together, so none of their words or addresses goes unjudged.
        let rest = also.split_off(MAX_AROUND - 1);
        let joined = |part: fn(&TargetFacts) -> Option<&str>| {
            let all: Vec<&str> = rest.iter().filter_map(part).collect();
            crate::protocol::join::join(&all, " ")
                .chars()
                .take(MAX_REST_CHARS)
                .collect::<String>()
        };
        let destinations = joined(|facts| facts.destination.as_deref());
        also.push(TargetFacts {
            description: format!("{} more controls around it", rest.len()),
            text: joined(|facts| {
                Some(if facts.name.trim().is_empty() {
                    facts.text.as_str()
                } else {
                    facts.name.as_str()
                })
            }),
            destination: (!destinations.is_empty()).then_some(destinations),
            ..TargetFacts::default()
        });
    }
    Some(also)
}

/// Whether a click on or inside `element` makes it do something of its own: an activating
/// control (a link, an SVG link included, a button, a label…), or an element with an `onclick`
/// handler attribute, other than the page's `<body>` and `<html>` (which name no action).
pub(crate) fn acts_on_click(element: &Element) -> bool {
    is_activating(element)
        || (element.has_attribute("onclick")
            && !matches!(element.local_name().as_str(), "body" | "html"))
}

/// Whether `element` is a link: an HTML `<a>` or `<area>` with an `href`, or an SVG `<a>` with
/// an `href` or `xlink:href`.
fn is_link(element: &Element) -> bool {
    match element.local_name().as_str() {
        "a" => element.has_attribute("href") || element.has_attribute("xlink:href"),
        "area" => element.has_attribute("href"),
        _ => false,
    }
}

/// The absolute address a link goes to. An SVG link's `href` property is not a string, so
/// its attribute is resolved instead.
fn link_address(element: &Element) -> Option<String> {
    if let Some(href) = js::get_string(element, "href") {
        return Some(href);
    }
    let raw = element
        .get_attribute("href")
        .or_else(|| element.get_attribute("xlink:href"))?;
    resolve_address(element, &raw)
}

/// The addresses of a link's `ping` attribute, resolved (at most [`MAX_PINGS`]).
fn pings(element: &Element) -> Vec<String> {
    if !is_link(element) {
        return Vec::new();
    }
    let Some(ping) = element.get_attribute("ping") else {
        return Vec::new();
    };
    ping.split_ascii_whitespace()
        .take(MAX_PINGS)
        .filter_map(|raw| resolve_address(element, raw))
        .collect()
}

/// `raw` resolved against the document of `element`, as a link's `href` is.
fn resolve_address(element: &Element, raw: &str) -> Option<String> {
    let document = element.owner_document()?;
    let resolver = document.create_element("a").ok()?;
    resolver.set_attribute("href", raw).ok()?;
    js::get_string(&resolver, "href")
}

fn push_name(names: &mut Vec<String>, name: String) {
    let name = name.trim().to_owned();
    if !name.is_empty() && !names.contains(&name) && names.len() < MAX_INNER_NAMES {
        names.push(name);
    }
}

/// The element `action` acts on first: what Enter or Space activates (for Enter in a field, the
/// form's default button, found among everything the form owns, `form=` included), and the
/// field `input_text` types into (inside a label or a web component).
fn acted_on(action: &Action, element: Element) -> Element {
    match action {
        Action::PressKey { key, .. } => {
            let Some(target) = super::action::activation_target(*key, &element) else {
                return element;
            };
            // Enter or Space on a button presses that very button, not the form's default one.
            if target == element {
                return target;
            }
            // Enter in a field: the form's default button is the first submit button among the
            // form's elements (which include buttons outside it that name it with `form=`).
            if target.local_name() == "form" || is_submit_button(&target) {
                let form = if target.local_name() == "form" {
                    Some(target.clone())
                } else {
                    form_of(&target)
                };
                if let Some(button) = form.as_ref().and_then(default_button) {
                    return button;
                }
            }
            target
        }
        Action::InputText { .. } => super::action::field_for(&element),
        _ => element,
    }
}

/// The first submit button a form owns, in tree order (`form.elements`).
fn default_button(form: &Element) -> Option<Element> {
    form_controls(form)?.into_iter().find(is_submit_button)
}

/// The form that owns a control (its `form` property, which follows a `form=` attribute).
fn form_of(element: &Element) -> Option<Element> {
    as_element(&js::get(element, "form")).cloned()
}

/// The deepest element at the middle of `target`'s visible box, descending into shadow roots,
/// when that point is in the viewport and the element there is inside `target`.
fn under_pointer(shadow: &ShadowAccess, target: &Element) -> Option<Element> {
    let document = target.owner_document()?;
    let window = document.default_view()?;
    let width = window.inner_width().ok()?.as_f64()?;
    let height = window.inner_height().ok()?.as_f64()?;
    let rect = target.get_bounding_client_rect();
    let (left, right) = (rect.left().max(0.0), rect.right().min(width));
    let (top, bottom) = (rect.top().max(0.0), rect.bottom().min(height));
    if right <= left || bottom <= top {
        return None;
    }
    let (x, y) = (((left + right) / 2.0) as f32, ((top + bottom) / 2.0) as f32);
    let mut hit = document.element_from_point(x, y)?;
    for _ in 0..32 {
        let Some(root) = shadow.shadow_root(&hit) else {
            break;
        };
        let inner = js::call(root.as_ref(), "elementFromPoint", &[x.into(), y.into()])
            .ok()
            .flatten();
        match inner.as_ref().and_then(as_element) {
            Some(inner) if *inner != hit => hit = inner.clone(),
            _ => break,
        }
    }
    event_contains(target, &hit).then_some(hit)
}

/// Whether `element` is a control a click activates as a whole.
fn is_activating(element: &Element) -> bool {
    let tag = element.local_name();
    if tag == "button"
        || tag == "summary"
        || tag == "label"
        || is_link(element)
        || (tag == "input"
            && !matches!(
                element
                    .get_attribute("type")
                    .unwrap_or_default()
                    .to_ascii_lowercase()
                    .as_str(),
                "" | "text" | "email" | "password" | "search" | "tel" | "url" | "number"
            ))
    {
        return true;
    }
    role_of(element).is_some_and(|role| crate::words!(ACTIVATING_ROLES).contains(&role))
}

/// The nearest activating control around `element` (itself included), across shadow roots.
fn activating_ancestor(element: &Element) -> Option<Element> {
    let mut current = Some(element.clone());
    for _ in 0..256 {
        let el = current?;
        if is_activating(&el) {
            return Some(el);
        }
        current = event_parent(&el);
    }
    None
}

/// A `<label>`'s control (a click on the label toggles or focuses it). Read as a property, so
/// a label in a frame (another realm) counts too.
pub(crate) fn label_control(element: &Element) -> Option<Element> {
    if element.local_name() != "label" {
        return None;
    }
    as_element(&js::get(element, "control")).cloned()
}

/// The activating controls inside `element`, its shadow root included, in tree order.
fn inner_controls(shadow: &ShadowAccess, element: &Element) -> Vec<Element> {
    let mut found = Vec::new();
    let mut stack: Vec<web_sys::Node> = Vec::new();
    let push_from = |stack: &mut Vec<web_sys::Node>, el: &Element| {
        if let Some(root) = shadow.shadow_root(el) {
            stack.extend(children(root.as_ref()).into_iter().rev());
        }
        stack.extend(children(el.as_ref()).into_iter().rev());
    };
    push_from(&mut stack, element);
    let mut visited = 0;
    while let Some(node) = stack.pop() {
        visited += 1;
        if visited > 2_000 || found.len() >= MAX_INNER_NAMES {
            break;
        }
        let Some(el) = as_element(&node) else {
            continue;
        };
        if is_activating(el) {
            found.push(el.clone());
        }
        push_from(&mut stack, el);
    }
    found
}

/// Whether typing at `element` goes into a password field or any other secret field (a card
/// code, a one-time code…: `dom::secret`), itself, its label's control, or a password field
/// inside it, as in a web component. Typing into any of them is reviewed like a password.
fn is_password_target(element: &Element) -> bool {
    let is_password_input = |element: &Element| {
        element.local_name() == "input"
            && js::get_string(element, "type").is_some_and(|kind| kind == "password")
            || super::secret::classify(element).is_some()
    };
    is_password_input(element)
        || label_control(element)
            .as_ref()
            .is_some_and(is_password_input)
        || element
            .query_selector("input[type=password]")
            .ok()
            .flatten()
            .is_some()
}

/// Most elements inside a control whose `alt` and `title` are read ([`push_shown_attributes`]).
const MAX_SHOWN_ATTRIBUTES: u32 = 64;

/// Appends to `out` the `alt` and `title` of `element` and of the elements inside it (the first
/// [`MAX_SHOWN_ATTRIBUTES`]): words the page shows on it outside its text.
fn push_shown_attributes(element: &Element, out: &mut String) {
    let mut push = |el: &Element| {
        for attribute in ["alt", "title"] {
            if let Some(value) = el.get_attribute(attribute) {
                out.push(' ');
                out.push_str(&value);
            }
        }
    };
    push(element);
    let Ok(inside) = element.query_selector_all("[alt], [title]") else {
        return;
    };
    for i in 0..inside.length().min(MAX_SHOWN_ATTRIBUTES) {
        if let Some(el) = inside.item(i).as_ref().and_then(|node| as_element(node)) {
            push(el);
        }
    }
}

/// How much of a control's words past its first 200 characters (with the `alt`s and `title`s
/// on and inside it) a review reads, in bytes: a control holding megabytes of text would make
/// every review (and the check right before the press) scan all of it. Past it the review
/// asks (`text_too_long`) instead of letting unread words through.
pub const MAX_MORE_TEXT_BYTES: usize = 16 * 1024;

/// `text`'s first `max` bytes or fewer (at a character boundary), and whether any was left out.
fn bounded(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (text.get(..end).unwrap_or_default(), true)
}

/// Name, role, text and destination of the control that is activated.
fn facts_of(element: &Element) -> TargetFacts {
    // Whether it is or holds a secret field, found once for the four readings of its text
    // below (each walked its ancestors and queried its subtree again: figure 7).
    let scope = super::secret::SecretScope::of(element);
    // A secret field's text (an editor's, a textarea's) never goes into the question or the log.
    let content = scope.text_content(element);
    // Its words one space apart, only as far as they are read: 200 characters (4 bytes at
    // most each) and the bound, and one byte more to tell whether anything was left out.
    let limit = 200 * 4 + MAX_MORE_TEXT_BYTES + 1;
    let mut joined = String::new();
    for word in content.split_whitespace() {
        if joined.len() >= limit {
            break;
        }
        if !joined.is_empty() {
            joined.push(' ');
        }
        joined.push_str(word);
    }
    let cut = joined
        .char_indices()
        .nth(200)
        .map_or(joined.len(), |(at, _)| at);
    let (text, rest) = joined.split_at_checked(cut).unwrap_or((&joined, ""));
    let text = text.to_owned();
    let mut more_text = rest.to_owned();
    push_shown_attributes(element, &mut more_text);
    // What shadow trees on and under the control show (a custom element drawing its own
    // label), which the text above never reaches: judged too, whatever the name says (red
    // team, session 16: a host named "Close" by `aria-label` showing "Delete account").
    more_text.push_str(&scope.shadow_text(element, MAX_MORE_TEXT_BYTES));
    let (kept, more_text_cut) = bounded(&more_text, MAX_MORE_TEXT_BYTES);
    let more_text = kept.to_owned();
    let address = address_facts(element);
    let name = accessible_name(element);
    let mut runs = runs_of(element, scope, &name, &joined, limit);
    // The text as drawn: letters drawn right to left, pieces placed in another order, letters
    // taking room unseen, lines the text does not break (red team red3, session 17). Judged
    // whole wherever it does not read as the text does: only its pieces aligned with the text
    // would let a hidden, negated copy of a word drawn elsewhere cover it, and would put a
    // word the page draws after a badge first, where it reads as a verb (red team red4,
    // session 18). Text the reading could not reach asks (`text_too_long`).
    let drawn = scope.drawn_text(element);
    let drawn_matches = drawn.text.split_whitespace().eq(joined.split_whitespace());
    if !drawn.text.trim().is_empty() && !drawn_matches {
        runs.push(drawn.text);
    }
    let more_text_cut = more_text_cut || drawn.cut;
    TargetFacts {
        name,
        runs,
        text,
        more_text,
        more_text_cut,
        ..address
    }
}

/// What of [`facts_of`] reads no words of the control: its description, role, where it goes
/// and how; its words empty.
fn address_facts(element: &Element) -> TargetFacts {
    let tag = element.local_name();
    let mut destination = None;
    let mut submits_form = false;
    let mut sends_secret_in_address = false;
    let mut checks_secret = false;
    if is_link(element) {
        destination = link_address(element);
    } else if is_submit_button(element) {
        if let Some(form) = form_of(element) {
            submits_form = true;
            sends_secret_in_address = sends_by_get(&form, Some(element)) && holds_secret(&form);
            checks_secret = validates(&form, Some(element)) && secret_has_rules(&form);
            destination = if element.has_attribute("formaction") {
                js::get_string(element, "formAction")
            } else {
                form_action(&form)
            };
        }
    } else if tag == "form" {
        submits_form = true;
        sends_secret_in_address = sends_by_get(element, None) && holds_secret(element);
        checks_secret = validates(element, None) && secret_has_rules(element);
        destination = form_action(element);
    }
    TargetFacts {
        description: describe(element),
        name: String::new(),
        runs: Vec::new(),
        text: String::new(),
        more_text: String::new(),
        more_text_cut: false,
        is_password: false,
        role: role_of(element).unwrap_or_default(),
        destination,
        submits_form,
        sends_secret_in_address,
        checks_secret,
        inner_names: Vec::new(),
        option_names: Vec::new(),
        option_unknown: false,
        chooses: false,
        enter_left_to_page: false,
        // `<a download>` saves a file; an `<area download>` too.
        downloads: is_link(element) && element.has_attribute("download"),
        may_choose: Vec::new(),
        also_activates: Vec::new(),
    }
}

/// `element`'s name and text read in runs ([`accessible_name_in_runs`],
/// [`super::secret::text_runs_without_secrets`], up to `limit` bytes of its words), each only
/// where it splits a word of `name` or of the text (whose words are `joined` one space apart):
/// [`glued_runs`]. The text of an element without child elements is one piece (its text nodes
/// are shown joined); its name may still have generated content.
fn runs_of(
    element: &Element,
    scope: super::secret::SecretScope,
    name: &str,
    joined: &str,
    limit: usize,
) -> Vec<String> {
    let mut runs = Vec::new();
    runs.extend(glued_runs(&accessible_name_in_runs(element), name));
    if element.child_element_count() > 0 {
        // Read as far as `joined` is (its words past the bound ask as `text_too_long`): the
        // bound counts the words one space apart, not the page's whitespace nor the breaks.
        let text_runs = scope.text_runs(element, limit);
        runs.extend(glued_runs(&text_runs, joined));
    }
    runs
}

/// `element`'s name as an inner control is judged by it: when read in runs or as its text is
/// drawn it has other words ([`accessible_name_in_runs`], `dom::drawn_text`), those follow in
/// parentheses ("keepdelete (keep delete)"), one entry, so that no other control's name is
/// pushed out of the bounded list.
fn inner_name(element: &Element) -> String {
    let name = accessible_name(element);
    let mut out = name.trim().to_owned();
    let mut others: Vec<String> = Vec::new();
    // Read in runs, and its text as drawn (`dom::drawn_text`).
    for reading in [
        accessible_name_in_runs(element),
        super::secret::drawn_text_without_secrets(element).text,
    ] {
        let differs = !reading.split_whitespace().eq(name.split_whitespace());
        if differs && !reading.trim().is_empty() && !others.contains(&reading) {
            others.push(reading);
        }
    }
    for other in others {
        out.push_str(" (");
        out.push_str(other.trim());
        out.push(')');
    }
    out
}

/// The absolute address a form is sent to. Read from the attribute and resolved like a link,
/// not from `form.action`, which a control named `action` inside the form hides.
fn form_action(form: &Element) -> Option<String> {
    let document = form.owner_document()?;
    let Some(action) = form
        .get_attribute("action")
        .filter(|a| !a.trim().is_empty())
    else {
        return js::get_string(&document, "URL");
    };
    resolve_address(form, &action)
}

/// Whether submitting `form` (by `button`, whose `formmethod` overrides the form's `method`)
/// sends it by GET, which writes every field into the address. Read from the attributes, not
/// from `form.method`, which a control named `method` inside the form hides; a missing or
/// unknown method is GET, as in the browser, and `dialog` sends nothing anywhere.
fn sends_by_get(form: &Element, button: Option<&Element>) -> bool {
    let method = button
        .and_then(|b| b.get_attribute("formmethod"))
        .or_else(|| form.get_attribute("method"))
        .unwrap_or_default();
    !matches!(
        method.trim().to_ascii_lowercase().as_str(),
        "post" | "dialog"
    )
}

/// Whether the browser checks `form`'s fields before sending it (`button`: the submit button
/// used): neither the form's `novalidate` nor the button's `formnovalidate` turns it off.
fn validates(form: &Element, button: Option<&Element>) -> bool {
    !form.has_attribute("novalidate") && !button.is_some_and(|b| b.has_attribute("formnovalidate"))
}

/// Input types whose value the browser checks against a format or a range of its own.
const CHECKED_TYPES: &[&str] = &[
    "email",
    "url",
    "number",
    "date",
    "datetime-local",
    "month",
    "week",
    "time",
];

/// Whether a secret field `form` owns has a rule the browser checks before sending that what
/// it holds can fail (see [`crate::policy::TargetFacts::checks_secret`]). Only attributes are
/// read, never a value or a validity state: the answer is the same whatever the field holds.
/// Disabled and read-only fields are not checked by the browser and do not count.
fn secret_has_rules(form: &Element) -> bool {
    // Controls that cannot be read count as having rules: the question is the safe side.
    let Some(controls) = form_controls(form) else {
        return true;
    };
    // The type as the browser reads it (`"password "`, unknown types: the property).
    let kind_of = |field: &Element| js::get_string(field, "type").unwrap_or_default();
    controls.iter().any(|field| {
        let tag = field.local_name();
        let kind = kind_of(field);
        let secret =
            (tag == "input" && kind == "password") || super::secret::classify(field).is_some();
        // `readonly` bars a text field from the checks, not a `<select>` or a checkbox, where
        // it means nothing (red team red9).
        let text_like =
            tag == "textarea" || (tag == "input" && !matches!(kind.as_str(), "checkbox" | "radio"));
        if !secret
            || field.has_attribute("disabled")
            || (text_like && field.has_attribute("readonly"))
        {
            return false;
        }
        // A radio group is required when any of its buttons is (red team red9).
        let required = match kind.as_str() {
            "radio" => {
                let name = field.get_attribute("name").unwrap_or_default();
                field.has_attribute("required")
                    || (!name.is_empty()
                        && controls.iter().any(|other| {
                            other.has_attribute("required")
                                && kind_of(other) == "radio"
                                && other.get_attribute("name").as_deref() == Some(name.as_str())
                        }))
            }
            _ => field.has_attribute("required"),
        };
        let is_choice = tag == "select" || matches!(kind.as_str(), "radio" | "checkbox");
        ["pattern", "minlength", "min", "max", "step"]
            .iter()
            .any(|rule| field.has_attribute(rule))
            || (tag == "input" && CHECKED_TYPES.contains(&kind.as_str()))
            || (is_choice && required)
    })
}

/// Whether `form` sends a secret field: one it owns (`form.elements`, so `form=` counts), with a
/// `name` (a field without one is not sent) and not disabled, that is a password or any other
/// secret field (`dom::secret`). Hidden inputs are left out: the page wrote their values, the
/// user did not type them, and a GET search form often has one; a token among them is still
/// redacted from the address by its name. The fields' values are never read: an empty password
/// asks too, since whether it is empty is a bit of it.
fn holds_secret(form: &Element) -> bool {
    // Controls that cannot be read count as holding one: the question is the safe side.
    let Some(controls) = form_controls(form) else {
        return true;
    };
    controls.into_iter().any(|field| {
        // The browser sends any non-empty name, `" "` too (as `+=value`).
        let named = field.get_attribute("name").is_some_and(|n| !n.is_empty());
        let is_hidden = field.local_name() == "input"
            && field
                .get_attribute("type")
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("hidden"));
        named
            && !is_hidden
            && !field.has_attribute("disabled")
            && (field
                .get_attribute("type")
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("password"))
                || super::secret::classify(&field).is_some())
    })
}
