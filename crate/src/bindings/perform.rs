//! One call per action on the target page: resolve the selector once, review what that element
//! really activates with the policy, and act on exactly that element, or hold it while the user
//! is asked and act on it after their Allow (if it is still the element they were shown).
//!
//! Before this, the review and the action each resolved the selector on their own, and an
//! approved action ran with no review at all: between the two, the page could put another
//! element under the same selector (a swapped button, a list that grew under an `index`, an
//! element that appeared late), and the action pressed something nobody reviewed.

use wasm_bindgen::prelude::*;
use web_sys::Element;

use crate::dom::ActionError;
use crate::dom::action::{Pinned, Reviewed, execute_on, focused_element};
use crate::dom::describe::describe;
use crate::dom::hold::{self, Hold, Pin};
use crate::dom::report::{ActionReport, ExecOptions};
use crate::dom::review::activation_facts;
use crate::dom::selector::{QueryRoot, resolve};
use crate::policy::{AskReason, PolicySettings, TargetFacts, Verdict, review};
use crate::protocol::Action;
use crate::protocol::join::join;
use crate::protocol::json_write::SortedObject;

/// Reviews and performs one validated action (JSON of [`crate::protocol::Action`]) on this
/// page, under the user's policy settings (JSON of [`crate::policy::PolicySettings`]; missing
/// fields take their defaults, unreadable settings mean "ask before every action").
///
/// Without `approval_hold`: resolves the target once (waiting for it up to `timeout_ms`, ending
/// at Stop), reviews it, and either acts on exactly that element, or holds it and answers
/// `{"needs_approval": {"reasons", "target", "hold"}}`. With `approval_hold` (the id the user
/// allowed): acts on the held element if the action is the same and the element is still on
/// the page and unchanged, else fails with `target_changed`.
///
/// `ref_floor`: the tab's next element ref number (the background keeps it per tab, so refs stay
/// unique across the pages a tab shows); the answer carries the new one as `next_ref`, so one
/// action is one call.
///
/// `known_secret_names`: a JSON list of the secret field names of pages met before (the chat tab
/// keeps them, [`crate::dom::address::set_known_names`]). The answer carries this page's own as
/// `secret_names`.
///
/// Resolves to `{"result": report, "next_ref"}` ([`crate::dom::ActionReport`]), for `navigate`
/// to `{"navigate": "allowed", "next_ref"}` (the glue performs it), or to
/// `{"error": {code, message, hints?}, "next_ref"}`; rejects only when `action_json` is not an
/// action.
#[wasm_bindgen]
pub async fn perform_action(
    action_json: String,
    settings_json: String,
    timeout_ms: Option<u32>,
    approval_hold: Option<String>,
    ref_floor: Option<u32>,
    known_secret_names: Option<String>,
) -> Result<String, JsValue> {
    let action = crate::protocol::validate::action_from_json(&action_json)
        .map_err(|message| super::error_object("invalid_action", &message))?;
    if let Some(floor) = ref_floor.filter(|floor| *floor > 0) {
        crate::dom::set_ref_floor(floor);
    }
    let settings =
        crate::policy::settings_from_json(&settings_json).unwrap_or_else(PolicySettings::strictest);
    // Every secret field of the page as it is before this action, remembered for the rest of
    // the document's life: an action that makes the page take a field's signal away (a "show
    // password" button) leaves it secret.
    // Their names are read before the action too (a form sent by GET takes the page away):
    // the chat tab redacts the values under these names from the next page's address.
    let secret_names = crate::dom::secret::remember_page_secrets().field_names();
    crate::dom::address::set_known_names(known_secret_names.as_deref().unwrap_or_default());
    let mut options = ExecOptions::default();
    if let Some(timeout_ms) = timeout_ms {
        options.timeout_ms = timeout_ms;
    }
    // Boxed, so each step's future keeps its own poll function instead of all of them being
    // inlined into this export's one state machine (smaller wasm).
    let outcome = match approval_hold {
        Some(id) => Box::pin(resume(&action, &settings, &id, &options))
            .await
            .map(Ran::from),
        None => Box::pin(first(&action, &settings, &options)).await,
    };
    Ok(answer(&action, outcome, &secret_names))
}

/// The answer of [`perform_action`] for what the call did, with the names of the page's secret
/// fields (`secret_names`, left out when there are none).
fn answer(action: &Action, outcome: Result<Ran, ActionError>, secret_names: &[String]) -> String {
    // Written field by field as the `serde_json::json!` value it once was (its keys sorted when
    // written), with no serde serializer and no `Value` for the report, the error or the
    // reasons (`browser_json_out` checks the bytes).
    let mut answer = SortedObject::new();
    let next_ref = u64::from(crate::dom::next_ref_number());
    match outcome {
        Ok(Ran {
            outcome: Outcome::Done(report),
            by_rule,
        }) => {
            let mut result = report.json_fields();
            if let Some(by_rule) = by_rule {
                result.json("allowed_by_rule", by_rule);
            }
            answer.json("result", result.into_json());
            answer.number("next_ref", next_ref);
        }
        Ok(Ran {
            outcome: Outcome::Navigate,
            by_rule,
        }) => {
            answer.string("navigate", "allowed");
            answer.json(
                "allowed_by_rule",
                by_rule.unwrap_or_else(|| "null".to_owned()),
            );
            answer.number("next_ref", next_ref);
        }
        Ok(Ran {
            outcome:
                Outcome::Ask {
                    reasons,
                    target,
                    target_name,
                    hold,
                },
            ..
        }) => {
            let mut question = SortedObject::new();
            let mut list = String::new();
            crate::protocol::json_write::list(&mut list, &reasons, |out, reason| {
                out.push_str(&reason_json(reason));
            });
            question.json("reasons", list);
            question.string_or_null("target", target.as_deref());
            // What the target is called, for "Always allow this on this site".
            question.string_or_null("targetName", target_name.as_deref());
            question.string("hold", &hold);
            answer.json("needs_approval", question.into_json());
        }
        Ok(Ran {
            outcome: Outcome::Denied { rule },
            ..
        }) => {
            let mut error = SortedObject::new();
            error.string("code", Verdict::DENIED_BY_RULE);
            error.string("message", &Verdict::denied_message(&rule));
            error.string("rule", &rule);
            answer.json("error", error.into_json());
            answer.number("next_ref", next_ref);
        }
        Err(error) => {
            answer.json("error", failure_with_hints(action, &error));
            answer.number("next_ref", next_ref);
        }
    }
    if !secret_names.is_empty() {
        let mut list = String::new();
        crate::protocol::json_write::list(&mut list, secret_names, |out, name| {
            crate::protocol::json_write::string(out, name);
        });
        answer.json("secret_names", list);
    }
    answer.into_json()
}

/// What one call did, and the user's rule that let it run without a question (for the audit
/// log), if one did.
struct Ran {
    outcome: Outcome,
    /// `{"rule", "waived"}` as JSON text.
    by_rule: Option<String>,
}

impl From<Outcome> for Ran {
    fn from(outcome: Outcome) -> Self {
        Self {
            outcome,
            by_rule: None,
        }
    }
}

/// What one call did.
enum Outcome {
    /// The action ran.
    Done(ActionReport),
    /// `navigate` may go ahead (the glue loads the address).
    Navigate,
    /// The user must be asked; the element is held under `hold`.
    Ask {
        reasons: Vec<AskReason>,
        target: Option<String>,
        target_name: Option<String>,
        hold: String,
    },
    /// One of the user's rules denies it; nothing ran.
    Denied { rule: String },
}

/// What the review found: the element it looked at and what it saw there, and the verdict.
#[derive(Debug)]
pub struct Review {
    /// What the action acts on.
    pub pin: Pin,
    /// What the element activates; `None` when there is no element to look at.
    pub facts: Option<TargetFacts>,
    /// The policy's answer.
    pub verdict: Verdict,
}

/// Resolves `action`'s target once (waiting for it up to `timeout_ms`, ending at Stop) and
/// reviews what it activates. Public for the browser tests, which check verdicts without acting.
pub async fn review_here(
    action: &Action,
    settings: &PolicySettings,
    timeout_ms: u32,
) -> Result<Review, ActionError> {
    let pin = resolve_once(action, timeout_ms).await?;
    let facts = match pin.element() {
        Some(element) => Some(facts_of(action, element)?),
        None => None,
    };
    let verdict = review(settings, action, facts.as_ref());
    Ok(Review {
        pin,
        facts,
        verdict,
    })
}

/// Actions that only read: the policy lets them run whatever they target, and they keep
/// resolving their selector as they always did (`assert … absent` must not fail `not_found`
/// here, and `wait_for` must not wait twice).
fn reads_only(action: &Action) -> bool {
    matches!(
        action,
        Action::Observe { .. }
            | Action::WaitFor { .. }
            | Action::Extract { .. }
            | Action::Assert { .. }
            | Action::Wait { .. }
            | Action::Done { .. }
            | Action::More { .. }
            | Action::Screenshot { .. }
            | Action::Tabs {}
    )
}

/// The element `action` acts on, resolved once. A selector that matches nothing (or too few
/// elements for its `index`) is looked up again until the timeout: the element found then is
/// the one reviewed and acted on; not found in time, the action fails before anything runs.
async fn resolve_once(action: &Action, timeout_ms: u32) -> Result<Pin, ActionError> {
    if reads_only(action) {
        return Ok(Pin::Nothing);
    }
    if let Action::PressKey { selector: None, .. } = action {
        return Ok(focused_element().map_or(Pin::Nothing, Pin::Focused));
    }
    let Some(selector) = action.selector() else {
        return Ok(Pin::Nothing);
    };
    let root = QueryRoot::current().ok_or_else(|| ActionError::Script {
        detail: "no document".to_owned(),
    })?;
    let deadline = js_sys::Date::now() + f64::from(timeout_ms);
    let started = crate::dom::cancel::Started::now();
    loop {
        // Stop pressed while the element was awaited: nothing runs.
        if started.is_cancelled() {
            return Err(ActionError::Stopped);
        }
        match resolve(&root, selector) {
            Ok(element) => return Ok(Pin::Element(element)),
            Err(ActionError::NotFound { .. } | ActionError::IndexOutOfRange { .. })
                if js_sys::Date::now() <= deadline =>
            {
                gloo_timers::future::TimeoutFuture::new(100).await;
            }
            Err(error) => return Err(error),
        }
    }
}

/// A first call: review, then act or hold.
async fn first(
    action: &Action,
    settings: &PolicySettings,
    options: &ExecOptions,
) -> Result<Ran, ActionError> {
    let reviewed = review_here(action, settings, options.timeout_ms).await?;
    // Both verdicts that act share one `act(...).await` (one await point in this future's
    // state machine instead of two: smaller executor wasm).
    let by_rule = match reviewed.verdict {
        Verdict::Allow => None,
        // The rule is named in the audit log, with the questions it waived.
        Verdict::AllowedByRule { rule, waived } => {
            let mut by_rule = SortedObject::new();
            by_rule.string("rule", &rule);
            let waived: Vec<String> = waived.iter().map(AskReason::message).collect();
            by_rule.strings("waived", &waived, &str::to_owned);
            Some(by_rule.into_json())
        }
        Verdict::Deny { rule } => return Ok(Outcome::Denied { rule }.into()),
        Verdict::Ask { reasons } => {
            let target = reviewed
                .facts
                .as_ref()
                .map(|facts| facts.description.clone());
            let target_name = match action {
                Action::Navigate { url } | Action::OpenTab { url } => Some(url.clone()),
                _ => reviewed.facts.as_ref().map(|facts| {
                    if facts.name.trim().is_empty() {
                        facts.text.clone()
                    } else {
                        facts.name.clone()
                    }
                }),
            };
            let hold = hold::keep(
                Hold {
                    action: action.clone(),
                    pin: reviewed.pin,
                    facts: reviewed.facts,
                },
                js_sys::Date::now(),
            )?;
            return Ok(Outcome::Ask {
                reasons,
                target,
                target_name,
                hold,
            }
            .into());
        }
    };
    let outcome = act(action, settings, reviewed.pin, reviewed.facts, options).await?;
    Ok(Ran { outcome, by_rule })
}

/// The call after the user's Allow: the held element, if nothing about it changed.
async fn resume(
    action: &Action,
    settings: &PolicySettings,
    id: &str,
    options: &ExecOptions,
) -> Result<Outcome, ActionError> {
    let Some(held) = hold::take(id, js_sys::Date::now()) else {
        return Err(ActionError::TargetChanged {
            element: "the element you allowed".to_owned(),
            reason: "the approval no longer holds: it was used already, is older than 10 minutes, or Stop was pressed".to_owned(),
        });
    };
    let described = held
        .pin
        .element()
        .map_or_else(|| "the target".to_owned(), describe);
    if held.action != *action {
        return Err(ActionError::TargetChanged {
            element: described,
            reason: "the approval was given for another action".to_owned(),
        });
    }
    if let Some(element) = held.pin.element() {
        if !element.is_connected() {
            return Err(ActionError::TargetChanged {
                element: described,
                reason: "it left the page (removed or re-rendered) after you were asked".to_owned(),
            });
        }
        let now = facts_of(action, element)?;
        if held.facts.as_ref() != Some(&now) {
            return Err(ActionError::TargetChanged {
                element: described,
                reason: format!(
                    "it changed after you were asked (it is now {})",
                    now.description
                ),
            });
        }
    }
    act(action, settings, held.pin, held.facts, options).await
}

/// Acts on exactly the reviewed element.
async fn act(
    action: &Action,
    settings: &PolicySettings,
    pin: Pin,
    facts: Option<TargetFacts>,
    options: &ExecOptions,
) -> Result<Outcome, ActionError> {
    // `open_tab` is a navigation in a new tab: the background opens it, in the same scope.
    if let Action::Navigate { .. } | Action::OpenTab { .. } = action {
        return Ok(Outcome::Navigate);
    }
    let check = Recheck {
        action,
        settings,
        facts: facts.unwrap_or_default(),
    };
    // One `execute_on(...).await` for every pin (one await point in this future's state
    // machine instead of three: smaller executor wasm).
    let pinned = match &pin {
        Pin::Element(element) => Some(Pinned {
            element,
            reviewed: &check,
        }),
        Pin::Focused(element) => {
            // The key goes to the focused element, read again by the action with no wait in
            // between: it must be the one reviewed.
            if focused_element().as_ref() != Some(element) {
                return Err(ActionError::TargetChanged {
                    element: describe(element),
                    reason: "the focus moved to another element".to_owned(),
                });
            }
            check.recheck(element)?;
            None
        }
        Pin::Nothing => {
            if let Action::PressKey { selector: None, .. } = action {
                if let Some(now) = focused_element() {
                    return Err(ActionError::TargetChanged {
                        element: describe(&now),
                        reason: "nothing had the focus when the key was reviewed".to_owned(),
                    });
                }
            }
            None
        }
    };
    let report = execute_on(action, pinned, options).await?;
    Ok(Outcome::Done(report))
}

/// The review, checked again before each attempt of the action: the element is what was
/// reviewed, or what it became needs no question of its own.
struct Recheck<'a> {
    action: &'a Action,
    settings: &'a PolicySettings,
    facts: TargetFacts,
}

impl Recheck<'_> {
    fn accept(&self, now: &TargetFacts, element: &str, change: &str) -> Result<(), ActionError> {
        if *now == self.facts {
            return Ok(());
        }
        // The user already answered for this action, so "ask before every action" is settled;
        // any other reason means what is there now was never shown to them.
        let reasons: Vec<AskReason> = match review(self.settings, self.action, Some(now)) {
            Verdict::Allow | Verdict::AllowedByRule { .. } => Vec::new(),
            Verdict::Deny { rule } => vec![AskReason::Rule { rule }],
            Verdict::Ask { reasons } => reasons
                .into_iter()
                .filter(|reason| *reason != AskReason::EachActionMode)
                .collect(),
        };
        if reasons.is_empty() {
            return Ok(());
        }
        let why: Vec<String> = reasons.iter().map(AskReason::message).collect();
        Err(ActionError::TargetChanged {
            element: element.to_owned(),
            reason: format!("{change}, and now {}", join(&why, "; ")),
        })
    }
}

impl Reviewed for Recheck<'_> {
    fn recheck(&self, element: &Element) -> Result<(), ActionError> {
        // A click's first look at its element follows the review in the same task, with
        // nothing awaited and no event dispatched between them: the review's own reading is
        // what this one would find (figure 7: a third full reading per click). Its look after
        // the stability frame, right before the press, always reads again.
        if matches!(self.action, Action::Click { .. })
            && found_this_turn(self.action, element).is_some_and(|found| found == self.facts)
        {
            return Ok(());
        }
        let now = facts_of(self.action, element)?;
        self.accept(&now, &describe(element), "it changed since it was reviewed")
    }

    fn recheck_option(&self, name: &str) -> Result<(), ActionError> {
        if self.facts.option_names.iter().any(|seen| seen == name) {
            return Ok(());
        }
        let now = TargetFacts {
            option_names: vec![name.to_owned()],
            option_unknown: false,
            ..self.facts.clone()
        };
        self.accept(
            &now,
            &format!("the option “{name}”"),
            "it was not visible when the action was reviewed (open the list first, then choose)",
        )
    }
}

/// What `action` activates on `element`. A pointer lands at the middle of the element once the
/// action scrolled it into view, so the review looks at it there too: an element off-screen is
/// scrolled into view first (as the action does), and the element under the pointer is what is
/// judged, the same at review, after Allow, and right before the press.
fn facts_of(action: &Action, element: &Element) -> Result<TargetFacts, ActionError> {
    if matches!(
        action,
        Action::Click { .. } | Action::Check { .. } | Action::Uncheck { .. }
    ) {
        crate::dom::action::scroll_into_view(element, 1);
    }
    let facts = activation_facts(action, element.clone())?;
    remember_found(action, element, &facts);
    Ok(facts)
}

/// The facts [`facts_of`] found last, with the action and element it found them for, and
/// whether the task that found them is still running.
struct Found {
    action: Action,
    element: Element,
    facts: TargetFacts,
    /// True until the first microtask checkpoint after they were found. A checkpoint comes
    /// whenever the executor's code returns to the event loop (any `await` that waits: a
    /// frame, a timer, a message), and page script (a listener, a timer, an observer) runs
    /// only at or after one, unless the executor dispatches an event or calls into the page
    /// itself, which a click does not do before its first look.
    live: std::rc::Rc<std::cell::Cell<bool>>,
}

thread_local! {
    static LAST_FOUND: std::cell::RefCell<Option<Found>> = const { std::cell::RefCell::new(None) };
}

/// Keeps `facts` as the last found for `action` on `element`, live until the next microtask
/// checkpoint.
fn remember_found(action: &Action, element: &Element, facts: &TargetFacts) {
    let live = std::rc::Rc::new(std::cell::Cell::new(true));
    let ends = std::rc::Rc::clone(&live);
    let end = Closure::once_into_js(move || ends.set(false));
    let promise = js_sys::Promise::resolve(&JsValue::UNDEFINED);
    let then = js_sys::Reflect::get(&promise, &JsValue::from_str("then"));
    let queued = then
        .ok()
        .and_then(|then| then.dyn_into::<js_sys::Function>().ok())
        .is_some_and(|then| then.call1(&promise, &end).is_ok());
    if !queued {
        // Without a microtask to end it, nothing is kept.
        LAST_FOUND.with(|last| last.replace(None));
        return;
    }
    LAST_FOUND.with(|last| {
        last.replace(Some(Found {
            action: action.clone(),
            element: element.clone(),
            facts: facts.clone(),
            live,
        }))
    });
}

/// The facts [`facts_of`] found for `action` on `element` in this very task (no microtask
/// checkpoint since), taken: what it would find again now, since neither the page nor its
/// layout can have changed in between.
fn found_this_turn(action: &Action, element: &Element) -> Option<TargetFacts> {
    let found = LAST_FOUND.with(|last| last.replace(None))?;
    (found.live.get() && found.action == *action && found.element == *element)
        .then_some(found.facts)
}

/// One reason as JSON text, with its plain-language sentence for the question shown to the
/// user: its serialized form (`code` and its fields, as the derived `Serialize` gives them;
/// written by hand, `browser_json_out` checks both agree) and its `message`.
pub fn reason_json(reason: &AskReason) -> String {
    let mut object = SortedObject::new();
    let mut put = |key: &'static str, value: &str| object.string(key, value);
    match reason {
        AskReason::EachActionMode => put("code", "each_action_mode"),
        AskReason::RiskyClick { word, name } => {
            put("code", "risky_click");
            put("word", word);
            put("name", name);
        }
        AskReason::RiskyNavigation { word, url } => {
            put("code", "risky_navigation");
            put("word", word);
            put("url", url);
        }
        AskReason::PasswordField => put("code", "password_field"),
        AskReason::SecretInAddress => put("code", "secret_in_address"),
        AskReason::SecretChecked => put("code", "secret_checked"),
        AskReason::TargetUnchecked => put("code", "target_unchecked"),
        AskReason::RiskyDestination { word, url } => {
            put("code", "risky_destination");
            put("word", word);
            put("url", url);
        }
        AskReason::UnknownActivation { element } => {
            put("code", "unknown_activation");
            put("element", element);
        }
        AskReason::Rule { rule } => {
            put("code", "rule_asks");
            put("rule", rule);
        }
        AskReason::PageBoundKey { key, element } => {
            put("code", "page_bound_key");
            put("key", key);
            put("element", element);
        }
        AskReason::EnterMaySend { element } => {
            put("code", "enter_may_send");
            put("element", element);
        }
        AskReason::UnknownChoice { key, element } => {
            put("code", "unknown_choice");
            put("key", key);
            put("element", element);
        }
        AskReason::TextTooLong { name } => {
            put("code", "text_too_long");
            put("name", name);
        }
        AskReason::DownloadsFile { name } => {
            put("code", "downloads_file");
            put("name", name);
        }
        AskReason::Picture { origin } => {
            put("code", "picture");
            put("origin", origin);
        }
    }
    put("message", &reason.message());
    object.into_json()
}

/// A DOM failure as JSON text for the glue. Where the page offers something close to what the
/// selector asked for, it carries `hints` (observation lines with refs): the model can act on
/// those next instead of guessing again.
fn failure_with_hints(action: &crate::protocol::Action, error: &crate::dom::ActionError) -> String {
    let hints = crate::dom::hints_for_failure(action, error);
    // The failure goes to the log, the panel and the model: text read from the page in it (a
    // field's actual value, a candidate's label) loses anything that looks like a secret.
    error.to_json_string(&hints, &crate::dom::redact::redact_secrets)
}
