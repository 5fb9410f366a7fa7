#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The fields of the events the actions dispatch (what page listeners read: `bubbles`,
//! `composed`, `view`, coordinates, `pointerType`, `key`, `inputType`, `relatedTarget`...), event
//! by event. The init dictionaries are filled field by field through one generic setter rather
//! than web-sys's typed setters (a smaller module); this pins that every field is still set.

use bai::dom::fixture::{Fixture, run_script};
use bai::dom::{ExecOptions, execute};
use bai::protocol::action::Key;
use bai::protocol::{Action, Selector};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Records, for each event of `kinds` reaching the document (capture phase), a line of its
/// fields in `window.__fields` (a pointer's fields only for a pointer's events: the browser's own
/// `click()` differs between browsers there).
fn record(kinds: &[&str]) {
    let kinds = kinds
        .iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(",");
    run_script(&format!(
        "{{ window.__fields = []; if (window.__off) window.__off(); \
         const kinds = [{kinds}]; \
         const log = (e) => {{ \
           const f = [e.type, 'b=' + e.bubbles, 'c=' + e.cancelable, 'x=' + e.composed]; \
           if ('view' in e) f.push('view=' + (e.view === window)); \
           if (e instanceof PointerEvent && e.pointerType) f.push('id=' + e.pointerId, 'pt=' + e.pointerType, \
             'primary=' + e.isPrimary, 'w=' + e.width, 'h=' + e.height, 'p=' + e.pressure); \
           if (e instanceof MouseEvent) f.push('d=' + e.detail, 'btn=' + e.button, \
             'btns=' + e.buttons, 'cx=' + Number.isInteger(e.clientX), \
             'sx=' + Number.isInteger(e.screenX), 'in=' + (e.clientX > 0 && e.clientY > 0)); \
           if (e instanceof KeyboardEvent) f.push('k=' + e.key, 'code=' + e.code, \
             'shift=' + e.shiftKey, 'kc=' + e.keyCode); \
           if (e instanceof InputEvent) f.push('it=' + e.inputType, 'data=' + e.data); \
           if (e instanceof FocusEvent) f.push('rt=' + (e.relatedTarget ? e.relatedTarget.id : e.relatedTarget)); \
           window.__fields.push(f.join(' ')); }}; \
         for (const k of kinds) document.addEventListener(k, log, true); \
         window.__off = () => {{ for (const k of kinds) document.removeEventListener(k, log, true); }}; }}"
    ))
    .unwrap();
}

fn recorded() -> Vec<String> {
    let value = js_sys::Reflect::get(&js_sys::global(), &"__fields".into()).unwrap();
    value
        .dyn_into::<js_sys::Array>()
        .unwrap()
        .iter()
        .map(|line| line.as_string().unwrap())
        .collect()
}

fn options() -> ExecOptions {
    ExecOptions { timeout_ms: 1000 }
}

/// One test, not several: wasm-bindgen-test runs async tests concurrently, and the log is the
/// page's.
#[wasm_bindgen_test]
async fn actions_dispatch_events_with_the_fields_of_real_input() {
    let f = Fixture::mount(
        r#"<input id="before"><button id="b" style="width:120px;height:40px">Press</button>
           <input id="t" value="ab"><div style="height:5000px">tall</div>"#,
    )
    .unwrap();
    let before: web_sys::HtmlElement = f.find("#before").unwrap().dyn_into().unwrap();
    before.focus().unwrap();
    let all = [
        "pointerover",
        "pointerenter",
        "mouseover",
        "mouseenter",
        "pointerdown",
        "mousedown",
        "pointerup",
        "mouseup",
        "click",
        "focus",
        "focusin",
        "blur",
        "focusout",
        "keydown",
        "keypress",
        "keyup",
        "beforeinput",
        "input",
        "change",
    ];
    record(&all);
    execute(
        &Action::Click {
            selector: Selector::css("#b"),
        },
        &options(),
    )
    .await
    .unwrap();
    let click = recorded();

    record(&all);
    execute(
        &Action::InputText {
            selector: Selector::css("#t"),
            text: "Z".to_owned(),
        },
        &options(),
    )
    .await
    .unwrap();
    let r#type = recorded();

    let input: web_sys::HtmlInputElement = f.find("#t").unwrap().dyn_into().unwrap();
    input.focus().unwrap();
    let end = input.value().len() as u32;
    input.set_selection_range(end, end).unwrap();
    record(&all);
    execute(
        &Action::PressKey {
            key: Key::Backspace,
            selector: None,
        },
        &options(),
    )
    .await
    .unwrap();
    let backspace = recorded();

    record(&all);
    execute(
        &Action::PressKey {
            key: Key::Enter,
            selector: Some(Selector::css("#b")),
        },
        &options(),
    )
    .await
    .unwrap();
    let enter = recorded();

    assert_eq!(
        [click, r#type, backspace, enter],
        [CLICK, TYPE, BACKSPACE, ENTER],
        "click, input_text, press_key Backspace, press_key Enter"
    );

    // Scroll: `behavior: instant` reaches the position at once.
    execute(&Action::Scroll { x: None, y: 700.0 }, &options())
        .await
        .unwrap();
    let window = web_sys::window().unwrap();
    assert_eq!(window.scroll_y().unwrap(), 700.0);
    window.scroll_to_with_x_and_y(0.0, 0.0);
}

const CLICK: &[&str] = &[
    "pointerover b=true c=true x=true view=true id=1 pt=mouse primary=true w=1 h=1 p=0 d=0 btn=0 btns=0 cx=true sx=true in=true",
    "mouseover b=true c=true x=true view=true d=0 btn=0 btns=0 cx=true sx=true in=true",
    "pointerenter b=false c=false x=true view=true id=1 pt=mouse primary=true w=1 h=1 p=0 d=0 btn=0 btns=0 cx=true sx=true in=true",
    "mouseenter b=false c=false x=true view=true d=0 btn=0 btns=0 cx=true sx=true in=true",
    "pointerdown b=true c=true x=true view=true id=1 pt=mouse primary=true w=1 h=1 p=0.5 d=0 btn=0 btns=1 cx=true sx=true in=true",
    "mousedown b=true c=true x=true view=true d=1 btn=0 btns=1 cx=true sx=true in=true",
    "blur b=false c=false x=true view=true rt=b",
    "focusout b=true c=false x=true view=true rt=b",
    "focus b=false c=false x=true view=true rt=before",
    "focusin b=true c=false x=true view=true rt=before",
    "pointerup b=true c=true x=true view=true id=1 pt=mouse primary=true w=1 h=1 p=0 d=0 btn=0 btns=0 cx=true sx=true in=true",
    "mouseup b=true c=true x=true view=true d=1 btn=0 btns=0 cx=true sx=true in=true",
    "click b=true c=true x=true view=true d=1 btn=0 btns=0 cx=true sx=true in=true",
];
const TYPE: &[&str] = &[
    "blur b=false c=false x=true view=true rt=t",
    "focusout b=true c=false x=true view=true rt=t",
    "focus b=false c=false x=true view=true rt=b",
    "focusin b=true c=false x=true view=true rt=b",
    "input b=true c=false x=true view=false it=insertText data=Z",
    "change b=true c=false x=false",
];
const BACKSPACE: &[&str] = &[
    "keydown b=true c=true x=true view=true k=Backspace code=Backspace shift=false kc=8",
    "input b=true c=false x=true view=false it=deleteContentBackward data=null",
    "keyup b=true c=true x=true view=true k=Backspace code=Backspace shift=false kc=8",
];
const ENTER: &[&str] = &[
    "blur b=false c=false x=true view=true rt=b",
    "focusout b=true c=false x=true view=true rt=b",
    "focus b=false c=false x=true view=true rt=t",
    "focusin b=true c=false x=true view=true rt=t",
    "keydown b=true c=true x=true view=true k=Enter code=Enter shift=false kc=13",
    "keypress b=true c=true x=true view=true k=Enter code=Enter shift=false kc=13",
    "click b=true c=true x=true view=true d=0 btn=0 btns=0 cx=true sx=true in=false",
    "keyup b=true c=true x=true view=true k=Enter code=Enter shift=false kc=13",
];
