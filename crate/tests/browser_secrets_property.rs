#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! Property: no answer depends on a secret field's value.
//!
//! Random pages (seeded) hold secret fields of every kind the classifier knows, filled the way
//! React fills them (the `value` property, the mirrored `value` attribute, a `data-value` mirror,
//! a textarea's text, an editor's text, a select's choice). A random "model" (seeded) observes,
//! extracts, asserts and waits with selectors of every syntax that guess at the secret. The same
//! operations run on two copies of the page that differ only in the secrets' values; every
//! output (the report or error as the result line would carry it, the failure hints, the
//! observation diff, and the log entry made of them) must be identical, and none may contain a
//! secret. Bounded: a few seconds per browser.

use bai::dom::fixture::{Fixture, run_script};
use bai::dom::{ExecOptions, execute, hints_for_failure, observe_changes};
use bai::protocol::action::{ElementState, Expectation, WaitCondition};
use bai::protocol::{Action, Selector, SelectorKind};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const SEED: u64 = 0x5EC2_E7F1_E1D5_0015;
const PAGES: usize = 40;
const OPS_PER_PAGE: usize = 18;

/// xorshift64*: small, seeded, the same in every browser.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn secret(&mut self) -> String {
        const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
        let mut out = String::from("Qx");
        for _ in 0..8 {
            out.push(ALPHABET[self.below(ALPHABET.len())] as char);
        }
        out
    }
}

/// The kinds of secret field a page may hold (the HTML of field `n`).
fn field_html(kind: usize, n: usize) -> String {
    match kind {
        0 => format!(
            r#"<label for="s{n}">Password</label><input id="s{n}" type="password" name="pwd{n}">"#
        ),
        1 => format!(r#"<input id="s{n}" name="cvc{n}" autocomplete="cc-csc" placeholder="CVC">"#),
        2 => format!(
            r#"<label for="s{n}">Recovery code</label><textarea id="s{n}" rows="2"></textarea>"#
        ),
        3 => format!(r#"<input id="s{n}" type="hidden" name="csrf{n}">"#),
        4 => format!(
            r#"<div id="s{n}" contenteditable="true" role="textbox" aria-label="PIN" style="display:inline-block;width:120px;height:22px;overflow:hidden"></div>"#
        ),
        5 => format!(
            r#"<span id="l{n}">One-time code</span><input id="s{n}" aria-labelledby="l{n}" inputmode="numeric">"#
        ),
        6 => {
            let options: String = (1..=12)
                .map(|m| format!(r#"<option value="{m:02}">{m:02}</option>"#))
                .collect();
            format!(
                r#"<select id="s{n}" autocomplete="cc-exp-month" aria-label="Expiry month">{options}</select>"#
            )
        }
        7 => format!(r#"<label>Security code <input id="s{n}" name="sc{n}"></label>"#),
        8 => format!(r#"<input id="s{n}" autocomplete="cc-number" aria-label="Card number">"#),
        9 => format!(r#"<label for="s{n}">IBAN</label><input id="s{n}" name="iban{n}">"#),
        _ => format!(
            r#"<input id="s{n}" name="otp{n}"><div role="button" tabindex="0" aria-labelledby="s{n}">Use code</div>"#
        ),
    }
}

const KINDS: usize = 11;

struct Page {
    html: String,
    /// `(field id, kind)`.
    fields: Vec<(String, usize)>,
}

fn random_page(rng: &mut Rng) -> Page {
    let mut html = String::from(r#"<form id="F" aria-label="Checkout"><h2>Payment</h2>"#);
    let mut fields = Vec::new();
    let count = 3 + rng.below(5);
    for n in 0..count {
        let kind = rng.below(KINDS);
        html.push_str(&field_html(kind, n));
        fields.push((format!("s{n}"), kind));
        if rng.below(3) == 0 {
            html.push_str(r#"<button type="button">Save</button>"#);
        }
    }
    html.push_str(r##"<label for="em">Email</label><input id="em" name="email" value="ann@x.io"><input type="checkbox" id="cb" aria-label="Remember me"><a href="#help">Help</a></form>"##);
    Page { html, fields }
}

/// Fills every secret field with `secret`, as React would render it.
fn fill(page: &Page, secret: &str) {
    let month = 1 + secret.bytes().map(usize::from).sum::<usize>() % 12;
    let mut script = String::from("(() => { const $ = (id) => document.getElementById(id);\n");
    for (id, kind) in &page.fields {
        script.push_str(&match kind {
            2 => format!("$('{id}').textContent = '{secret}'; $('{id}').value = '{secret}';\n"),
            4 => format!("$('{id}').textContent = '{secret}';\n"),
            6 => format!("$('{id}').value = '{month:02}';\n"),
            _ => format!(
                "$('{id}').value = '{secret}'; $('{id}').setAttribute('value', '{secret}'); $('{id}').dataset.value = '{secret}';\n"
            ),
        });
    }
    script.push_str("})()");
    run_script(&script).unwrap();
}

fn selector(rng: &mut Rng, page: &Page, guess: &str) -> Selector {
    let (id, _) = rng.pick(&page.fields).clone();
    let css = |value: String| Selector::css(&value);
    let choice = rng.below(24);
    match choice {
        0 => css(format!("#{id}")),
        1 => css(format!(r#"[value^="{guess}"]"#)),
        2 => css(format!(r#"input[value="{guess}"]"#)),
        3 => css(format!(r#"form:has([value*="{guess}"])"#)),
        4 => css(format!(r#"[data-value^="{guess}"]"#)),
        5 => css("textarea:empty".to_owned()),
        6 => css(":placeholder-shown".to_owned()),
        7 => css("select option:checked".to_owned()),
        8 => css(format!(r##"#F:not(:has(input[v\61lue^="{guess}"]))"##)),
        9 => css(format!("#{id}, #em")),
        10 => Selector::new(
            SelectorKind::Xpath,
            format!("//input[starts-with(@value,'{guess}')]"),
        ),
        11 => Selector::new(
            SelectorKind::Xpath,
            format!("//*[contains(text(),'{guess}')]"),
        ),
        12 => Selector::new(SelectorKind::Xpath, format!("//textarea[.='{guess}']")),
        13 => Selector::new(SelectorKind::Xpath, format!("//*[@*='{guess}']")),
        14 => Selector::new(SelectorKind::Xpath, format!("//*[@id='{id}']")),
        15 => Selector::new(SelectorKind::Text, guess),
        16 => Selector::new(SelectorKind::Aria, guess),
        17 => Selector::new(SelectorKind::Label, guess),
        18 => Selector::new(
            SelectorKind::Label,
            *rng.pick(&["Recovery code", "Security code", "IBAN", "Password"]),
        ),
        19 => Selector::new(SelectorKind::Placeholder, guess),
        20 => {
            let mut role = Selector::new(
                SelectorKind::Role,
                *rng.pick(&["textbox", "button", "combobox"]),
            );
            role.name = Some(guess.to_owned());
            role
        }
        21 => Selector::new(
            SelectorKind::Aria,
            *rng.pick(&["PIN", "Card number", "Use code", "Expiry month"]),
        ),
        22 => css("#F *".to_owned()),
        _ => Selector::new(SelectorKind::Text, "Payment"),
    }
}

fn random_action(rng: &mut Rng, page: &Page, guess: &str) -> Action {
    let selector = selector(rng, page, guess);
    match rng.below(8) {
        0 => Action::Observe {
            max_elements: *rng.pick(&[None, Some(3), Some(60)]),
        },
        1 | 2 => Action::Extract {
            selector,
            attribute: rng
                .pick(&[
                    None,
                    Some("value"),
                    Some("data-value"),
                    Some("name"),
                    Some("aria-label"),
                ])
                .map(str::to_owned),
            // The large read of `chunked_results` redacts as the default one does.
            max_chars: *rng.pick(&[None, Some(100_000)]),
        },
        3 | 4 => Action::Assert {
            selector,
            expect: match rng.below(5) {
                0 => Expectation::Exists,
                1 => Expectation::Absent,
                2 => Expectation::TextEquals {
                    value: guess.to_owned(),
                },
                3 => Expectation::TextContains {
                    value: guess.to_owned(),
                },
                _ => Expectation::ValueEquals {
                    value: guess.to_owned(),
                },
            },
        },
        5 => Action::WaitFor {
            until: WaitCondition::Text {
                text: guess.to_owned(),
            },
        },
        _ => Action::WaitFor {
            until: WaitCondition::Element {
                selector,
                state: *rng.pick(&[
                    ElementState::Visible,
                    ElementState::Attached,
                    ElementState::Detached,
                    ElementState::Hidden,
                ]),
            },
        },
    }
}

/// Drops what depends on time, and numbers refs by first appearance (ref numbers grow across
/// runs; a new ref where the other run reused one still shows as a difference).
fn normalize(value: &mut serde_json::Value, refs: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(fields) => {
            fields.remove("elapsed_ms");
            fields.remove("waited_ms");
            fields.remove("attempts");
            fields.values_mut().for_each(|v| normalize(v, refs));
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| normalize(v, refs)),
        serde_json::Value::String(text) => *text = renumber(text, refs),
        _ => {}
    }
}

fn renumber(text: &str, refs: &mut Vec<String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("@e") {
        out.push_str(&rest[..at]);
        let digits: String = rest[at + 2..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if digits.is_empty() {
            out.push_str("@e");
        } else {
            let position = refs.iter().position(|r| *r == digits).unwrap_or_else(|| {
                refs.push(digits.clone());
                refs.len() - 1
            });
            out.push_str(&format!("@r{position}"));
        }
        rest = &rest[at + 2 + digits.len()..];
    }
    out.push_str(rest);
    out
}

/// What `action` answers, as the result line would carry it: the report, or the error with its
/// failure hints.
async fn answer(action: &Action, options: &ExecOptions) -> serde_json::Value {
    match execute(action, options).await {
        Ok(report) => serde_json::to_value(&report).unwrap(),
        Err(error) => {
            let mut value = serde_json::to_value(&error).unwrap();
            value["hints"] = serde_json::json!(hints_for_failure(action, &error));
            value
        }
    }
}

/// Every output of one run, as the result line and the log would carry them.
async fn run(page: &Page, secret: &str, actions: &[Action]) -> Vec<String> {
    let _fixture = Fixture::mount(&page.html).unwrap();
    fill(page, secret);
    let options = ExecOptions { timeout_ms: 0 };
    let mut refs = Vec::new();
    let mut outputs = Vec::new();
    for action in actions {
        let mut value = answer(action, &options).await;
        let logged = bai::bindings::redact_log_event(
            &serde_json::json!({"kind": "executed", "result": value.clone()}).to_string(),
        );
        normalize(&mut value, &mut refs);
        outputs.push(value.to_string());
        let mut logged: serde_json::Value = serde_json::from_str(&logged).unwrap();
        normalize(&mut logged, &mut refs);
        outputs.push(logged.to_string());
    }
    let mut changes = serde_json::to_value(observe_changes(60)).unwrap();
    normalize(&mut changes, &mut refs);
    outputs.push(changes.to_string());
    outputs
}

#[wasm_bindgen_test]
async fn no_output_depends_on_a_secret_value() {
    let mut rng = Rng(SEED);
    let started = js_sys::Date::now();
    let mut refused = 0;
    for page_number in 0..PAGES {
        let page = random_page(&mut rng);
        let secret_a = rng.secret();
        let mut secret_b = rng.secret();
        while secret_b == secret_a {
            secret_b = rng.secret();
        }
        // The attacker guesses prefixes of the first page's secret (never the whole of it).
        let mut actions = vec![Action::Observe { max_elements: None }];
        for _ in 0..OPS_PER_PAGE {
            let length = 1 + rng.below(secret_a.len() - 2);
            let guess = secret_a[..length].to_owned();
            actions.push(random_action(&mut rng, &page, &guess));
        }
        let a = run(&page, &secret_a, &actions).await;
        let b = run(&page, &secret_b, &actions).await;
        for (i, (out_a, out_b)) in a.iter().zip(&b).enumerate() {
            let action = actions
                .get(i / 2)
                .map(|a| serde_json::to_string(a).unwrap());
            assert_eq!(
                out_a, out_b,
                "page {page_number} output {i} ({action:?}) depends on the secret\npage: {}",
                page.html
            );
            for secret in [&secret_a, &secret_b] {
                assert!(
                    !out_a.contains(secret.as_str()) && !out_b.contains(secret.as_str()),
                    "page {page_number} output {i} carries the secret: {out_a}"
                );
            }
            refused += usize::from(out_a.contains("secret_field"));
        }
    }
    // The refusals are exercised, and the test stays bounded (about 12 s on a loaded 2-core
    // machine; the bound is for a run gone slow, not a benchmark).
    assert!(refused > 20, "only {refused} refusals");
    let elapsed = js_sys::Date::now() - started;
    assert!(elapsed < 60_000.0, "took {elapsed} ms");
}

/// A PIN entered one digit group at a time: native radio groups named for it, an ARIA
/// radiogroup labelled for it (roving tab stop, as the ARIA pattern has it) and a fieldset whose
/// legend names it; beside them plain groups (shipping, and how to send a verification code:
/// ways, not digits), whose state stays visible.
const RADIO_PIN: &str = r#"
<form id="R" aria-label="Sign in">
  <button type="button" id="before">Start</button>
  <div id="d1">PIN, first digit:
    <label><input type="radio" name="pin1" id="p1-3" value="3">3</label>
    <label><input type="radio" name="pin1" id="p1-7" value="7">7</label></div>
  <div role="radiogroup" aria-label="PIN, second digit" id="d2">
    <span role="radio" tabindex="0" id="p2-3" aria-checked="false">3</span>
    <span role="radio" tabindex="0" id="p2-7" aria-checked="false">7</span></div>
  <fieldset id="d3"><legend>Security code</legend>
    <label><input type="radio" name="digit3" id="p3-3">3</label>
    <label><input type="radio" name="digit3" id="p3-7">7</label></fieldset>
  <fieldset><legend>Shipping</legend>
    <label><input type="radio" name="ship" id="s-std" checked>Standard</label>
    <label><input type="radio" name="ship" id="s-exp">Express</label></fieldset>
  <fieldset><legend>Send my verification code by</legend>
    <label><input type="radio" name="otp_channel" id="v-sms" checked>SMS</label>
    <label><input type="radio" name="otp_channel" id="v-voice">Voice call</label></fieldset>
</form>"#;

/// Checks the radio buttons ending in `digit` (the user's choice) and makes the page react as a
/// widget library would: the ARIA radios follow a click and keep one tab stop (the checked
/// one), and a change of a native group re-styles its labels (only when it changes).
fn choose(digit: &str) {
    run_script(&format!(
        "(() => {{
            const aria = [...document.querySelectorAll('#d2 [role=radio]')];
            const pick = (radio) => {{
                for (const other of aria) {{
                    other.setAttribute('aria-checked', String(other === radio));
                    other.tabIndex = other === radio ? 0 : -1;
                }}
            }};
            for (const radio of aria) radio.addEventListener('click', () => pick(radio));
            pick(document.getElementById('p2-{digit}'));
            for (const id of ['p1-{digit}', 'p3-{digit}']) document.getElementById(id).checked = true;
            for (const input of document.querySelectorAll('input[type=radio]')) {{
                input.addEventListener('change', () => {{
                    for (const label of document.querySelectorAll('label')) label.classList.toggle('on', label.control?.checked === true);
                }});
            }}
        }})()"
    ))
    .unwrap();
}

async fn run_radio_pin(digit: &str, actions: &[Action]) -> Vec<String> {
    let _fixture = Fixture::mount(RADIO_PIN).unwrap();
    choose(digit);
    let options = ExecOptions { timeout_ms: 0 };
    let mut refs = Vec::new();
    let mut outputs = Vec::new();
    for action in actions {
        let mut value = answer(action, &options).await;
        normalize(&mut value, &mut refs);
        outputs.push(value.to_string());
    }
    let mut changes = serde_json::to_value(observe_changes(60)).unwrap();
    normalize(&mut changes, &mut refs);
    outputs.push(changes.to_string());
    // What a picture would hide: the same boxes either way.
    outputs.push(format!("{:?}", bai::dom::vision::masks()));
    outputs
}

#[wasm_bindgen_test]
async fn which_radio_button_of_a_secret_group_is_checked_is_never_told() {
    let css = |value: &str| Selector::css(value);
    let xpath = |value: &str| Selector::new(SelectorKind::Xpath, value);
    let mut actions = vec![Action::Observe { max_elements: None }];
    for id in ["p1-3", "p2-3", "p3-3"] {
        for expect in [Expectation::Checked, Expectation::Unchecked] {
            actions.push(Action::Assert {
                selector: css(&format!("#{id}")),
                expect,
            });
        }
        for attribute in [
            None,
            Some("aria-checked"),
            Some("checked"),
            Some("tabindex"),
            Some("class"),
        ] {
            actions.push(Action::Extract {
                selector: css(&format!("#{id}")),
                attribute: attribute.map(str::to_owned),
                max_chars: None,
            });
        }
    }
    for selector in [
        css("#p1-3:checked"),
        css("[aria-checked=true]"),
        css("#R:has(#p3-3:checked)"),
        xpath("//*[@aria-checked='true']"),
        css("#d2 [tabindex='0']"),
        css("#d2 [TabIndex^='0']"),
        xpath("//*[@role='radio'][@tabindex='0']"),
        css("input[name=pin1][checked]"),
        css(":state(checked)"),
    ] {
        actions.push(Action::Assert {
            selector: selector.clone(),
            expect: Expectation::Exists,
        });
        actions.push(Action::WaitFor {
            until: WaitCondition::Element {
                selector,
                state: ElementState::Attached,
            },
        });
    }
    // Tabbing into the ARIA group lands on its tab stop, the checked button.
    actions.push(Action::PressKey {
        key: bai::protocol::action::Key::Tab,
        selector: Some(css("#before")),
    });
    actions.push(Action::Observe { max_elements: None });
    // Choosing an option is allowed; its report is the same whichever was checked before.
    actions.push(Action::Check {
        selector: css("#p1-3"),
    });
    actions.push(Action::Click {
        selector: css("#p2-3"),
    });
    actions.push(Action::Check {
        selector: css("#p3-3"),
    });
    actions.push(Action::Observe { max_elements: None });

    let a = run_radio_pin("3", &actions).await;
    let b = run_radio_pin("7", &actions).await;
    for (i, (out_a, out_b)) in a.iter().zip(&b).enumerate() {
        assert_eq!(
            out_a,
            out_b,
            "output {i} ({:?}) tells which radio button is checked",
            actions.get(i).map(|a| serde_json::to_string(a).unwrap())
        );
    }
    // The secret groups say so; the plain group keeps its state.
    let observed = &a[0];
    assert_eq!(
        observed.matches("checked=<hidden>").count(),
        6,
        "{observed}"
    );
    assert!(observed.contains(r#"secret=\"PIN\""#), "{observed}");
    assert!(
        observed.contains(r#"secret=\"card security code\""#),
        "{observed}"
    );
    assert!(
        observed.contains(r#"radio \"Standard\" checked=true"#),
        "{observed}"
    );
    assert!(
        observed.contains(r#"radio \"Express\" checked=false"#),
        "{observed}"
    );
    assert!(
        observed.contains(r#"radio \"SMS\" checked=true"#),
        "{observed}"
    );
    // The picture hides the labels and the groups too (where custom buttons draw the dot): six
    // buttons, four labels, two group boxes (the first group sits in a plain div).
    let masks = a.last().unwrap();
    assert!(masks.matches("SecretField").count() >= 6 + 4 + 2, "{masks}");
    // The check and the click went through.
    let checked = &a[actions.len() - 4];
    assert!(checked.contains("checked_changed"), "{checked}");
    assert!(a[1].contains("secret_field"), "{}", a[1]);
}
