#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! The aria engine's leaf pre-filter (a link, button, list item or cell with text only, whose
//! text cannot hold the value, is dropped without computing its name) answers exactly as the
//! full computation: on tricky pages, every name, word and pair of words of every element is
//! queried with and without the filter, and the filter must have run (or, where it is
//! unsound, must not have).

use bai::dom::accname::accessible_name;
use bai::dom::fixture::{Fixture, run_script};
use bai::dom::matching::{TextMatcher, fold_for_containment, normalize_whitespace};
use bai::dom::selector::{
    QueryRoot, prefilter_dropped, prefilter_runs, query_all, without_prefilter,
};
use bai::protocol::{Selector, SelectorKind};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// Forty plain buttons: enough candidates for the engine to prove that no style sheet gives
/// generated content (the filter runs only then).
fn padding() -> String {
    (0..40)
        .map(|i| format!(r#"<button id="pad{i}">Save {i}</button>"#))
        .collect()
}

/// Links, items and cells whose name is not their text, or not only: what a wrong filter would
/// get wrong.
const TRICKY: &str = r##"
<a href="#" id="hidden-part">Quan<span hidden>x</span>tity 1</a>
<a href="#" id="styled-hidden-part">Quan<span style="display:none">zz</span>tity 13</a>
<a href="#" id="label-wins" aria-label="Quantity 2">Other</a>
<a href="#" id="labelledby" aria-labelledby="h3" aria-label="Ignored">Text 3</a>
<span id="h3" hidden>Quantity 3</span>
<a href="#" id="misspelled" aria-labeledby="h3b">Text 3b</a><span id="h3b">Quantity 3b</span>
<a href="#" id="blank-label" aria-label="   ">Quantity 4</a>
<a href="#" id="empty-label" aria-label="">Quantity 5</a>
<ul><li role="presentation" id="li-presentation" aria-label="Quantity 6">six</li>
<li role="none" id="li-none">Quantity 6b</li><li id="li-plain">Quantity 6c</li></ul>
<span role="generic" id="generic" aria-label="Quantity 8">eight</span>
<a href="#" id="embedded">Quantity <input value="10" aria-label="n"></a>
<ul><li id="select-item">Quantity <select><option>11</option></select></li></ul>
<a href="#" id="secret-value">Code <input type="password" value="Quantity14"></a>
<input type="password" id="pw" value="hunter2">
<a href="#" id="title-only" title="Quantity 16"></a>
<a href="#" id="title-blank" title="Quantity 16b">   </a>
<a href="#" id="title-and-text" title="Quantity 16c">Other</a>
<a href="#" id="comment">Quantity<!-- c -->18</a>
<a href="#" id="owns" aria-owns="o19">Go</a><span id="o19">Quantity 19</span>
<details><summary id="summary">Quantity 20</summary></details>
<table><tr><th id="th">Quantity 21</th><td id="td">Quantity 22</td>
<td id="td-nested"><b>Quan</b>tity 22b</td></tr></table>
<svg><a href="#" id="svg-a"><title>Quantity 23</title><text>t</text></a></svg>
<a href="#" id="greek">ΟΔΟΣ 24</a>
<a href="#" id="zwsp">Quan&#x200b;tity&#xad; 25</a>
<a href="#" id="textbox" role="textbox" aria-placeholder="Quantity 27"></a>
<a href="#" id="editable" contenteditable="true">Quantity 28</a>
<a id="no-href">Quantity 29</a>
<a href="#" id="image"><img alt="Quantity 30" src="data:,"></a>
<button id="plain-button">Quantity 31</button>
<a href="#" id="nbsp">Quantity&nbsp;&nbsp;32</a>
<a href="#" id="vertical-tab">Quan&#x0b;tity 33</a>
<a href="#" id="upper-sharp-s" style="text-transform:uppercase">Größe 34</a>
<a href="#" id="capitalized" style="text-transform:capitalize">quantity thirty-five</a>
<div id="host"></div>
"##;

/// Every element's id, or its tag, for messages.
fn describe(elements: &[Element]) -> Vec<String> {
    elements
        .iter()
        .map(|e| {
            if e.id().is_empty() {
                e.local_name()
            } else {
                e.id()
            }
        })
        .collect()
}

/// What the filter did over some queries.
#[derive(Debug, Default, Clone, Copy)]
struct Ran {
    /// Queries it ran in.
    queries: usize,
    /// Leaves it dropped one by one (when some text holds the value).
    dropped: usize,
}

/// Queries `value` with and without the filter and fails if the answers differ.
fn compare(value: &str, exact: bool) -> Ran {
    let root = QueryRoot::current().unwrap();
    let mut selector = Selector::new(SelectorKind::Aria, value);
    selector.exact = exact;
    let (runs, dropped) = (prefilter_runs(), prefilter_dropped());
    let fast = query_all(&root, &selector).unwrap();
    let ran = Ran {
        queries: prefilter_runs() - runs,
        dropped: prefilter_dropped() - dropped,
    };
    let full = without_prefilter(|| query_all(&root, &selector).unwrap());
    assert_eq!(
        describe(&fast),
        describe(&full),
        "aria {value:?} (exact {exact}): the filtered answer differs from the full computation"
    );
    assert_eq!(fast, full);
    ran
}

/// Every element's name, its words and pairs of words, its text's words, and a few values
/// across word and node boundaries, each queried both ways.
fn compare_everything(f: &Fixture, extra: &[&str]) -> Ran {
    let mut values: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
    let all = f.container().query_selector_all("*").unwrap();
    for i in 0..all.length() {
        let element: Element = all.item(i).unwrap().unchecked_into();
        for source in [
            accessible_name(&element),
            element.text_content().unwrap_or_default(),
        ] {
            let words: Vec<&str> = source.split_whitespace().collect();
            values.push(source.clone());
            for (j, word) in words.iter().enumerate() {
                values.push((*word).to_owned());
                if let Some(next) = words.get(j + 1) {
                    values.push(format!("{word} {next}"));
                }
            }
        }
    }
    values.retain(|v| !v.trim().is_empty());
    values.sort();
    values.dedup();
    let mut total = Ran::default();
    for value in &values {
        for exact in [false, true] {
            let ran = compare(value, exact);
            total.queries += ran.queries;
            total.dropped += ran.dropped;
        }
    }
    total
}

const EXTRA: &[&str] = &[
    "Quantity",
    "Quantity 1",
    "Quantity 13",
    "antity 1",
    "tity",
    "Quan tity",
    "Quantity18",
    "Quantity 18",
    "οδος",
    "ΟΔΟΣ 24",
    "οδοσ",
    "Quantity 25",
    "Quantity 32",
    "hunter2",
    "Quantity14",
    "Code Quantity14",
    "Quantity 10",
    "Quantity 11",
    "Quantity 26",
    "Quantity 12",
    "Quan tity 33",
];

fn mount_with_shadow(html: &str) -> Fixture {
    let f = Fixture::mount(html).unwrap();
    let host = f.find("#host").unwrap();
    let shadow = host
        .attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))
        .unwrap();
    shadow.set_inner_html(
        r##"<a href="#" id="in-shadow">Quantity 26</a><span role="button"><slot></slot></span>"##,
    );
    host.set_inner_html(r##"<a href="#" id="slotted">Quantity 26b</a>"##);
    f
}

#[wasm_bindgen_test]
fn same_answers_on_a_page_without_labels() {
    let f = mount_with_shadow(&format!("{}{TRICKY}", padding()));
    let ran = compare_everything(&f, EXTRA);
    assert!(ran.dropped > 0, "the filter never dropped a leaf: {ran:?}");
    // A value no text holds: every leaf is left out at once (none fetched).
    let ran = compare("Ignored value", false);
    assert_eq!((ran.queries, ran.dropped), (1, 0));
    // A value the text holds: the buttons are leaves, checked one by one.
    let ran = compare("Save 1", false);
    assert!(ran.dropped >= 40, "buttons are leaves here: {ran:?}");
}

#[wasm_bindgen_test]
fn same_answers_on_a_page_with_labels() {
    // A label names its button: buttons are no leaves here (links still are).
    let f = mount_with_shadow(&format!(
        r#"{}{TRICKY}<label for="labelled-button">Quantity 9</label><button id="labelled-button">Go</button>
        <label>Quantity 9b <button id="wrapped-button">Go</button></label>"#,
        padding()
    ));
    let ran = compare_everything(&f, &[EXTRA, &["Quantity 9", "Quantity 9b", "Go"]].concat());
    assert!(ran.dropped > 0, "the filter never dropped a leaf: {ran:?}");
    let ran = compare("Save 1", false);
    assert!(ran.dropped < 40, "buttons are no leaves here: {ran:?}");
}

#[wasm_bindgen_test]
fn no_filter_with_generated_content() {
    // `::before` text is in the name, not in the text: the filter must not run at all.
    let f = mount_with_shadow(&format!(
        r##"<style>a.gen::before {{ content: "Quantity " }} li.gen::after {{ content: attr(data-x) }}</style>
        {}{TRICKY}<a href="#" class="gen" id="gen">12</a><ul><li class="gen" data-x="Quantity 12b" id="gen-attr"></li></ul>"##,
        padding()
    ));
    let ran = compare_everything(
        &f,
        &[EXTRA, &["Quantity 12b", "12b", "Ignored value"]].concat(),
    );
    assert_eq!(ran.queries, 0, "the filter ran beside generated content");
}

#[wasm_bindgen_test]
fn no_filter_beside_a_secret_whose_value_is_text() {
    // The filter reads the page's text: with a secret editor (or textarea) on the page, which
    // path a query took, and so its time, would depend on the secret. It must not run.
    for secret in [
        r#"<div contenteditable="true" aria-label="PIN" id="pin"><a href="x" id="in-pin">Quantity 40</a>4711</div>"#,
        r#"<label for="pw-area">Password</label><textarea id="pw-area" name="password">Quantity 41</textarea>"#,
        r#"<div role="textbox" aria-label="One-time code" id="otp">Quantity 42</div>"#,
    ] {
        let f = Fixture::mount(&format!("{}{secret}", padding())).unwrap();
        let ran = compare_everything(&f, &["Quantity 40", "Quantity 41", "4711", "Ignored value"]);
        assert_eq!(ran.queries, 0, "the filter ran beside {secret}");
    }
    // A password input's value is no text: the filter runs.
    let f = Fixture::mount(&format!(
        r#"{}<input type="password" id="pw" value="Quantity 43">"#,
        padding()
    ))
    .unwrap();
    let ran = compare_everything(&f, &["Quantity 43", "Ignored value"]);
    assert!(
        ran.queries > 0,
        "the filter never ran beside a password input"
    );
}

#[wasm_bindgen_test]
fn no_filter_with_a_cdata_section() {
    // A CDATA section adopted from an XML document is in `textContent` but not in the name:
    // "Quan" + CDATA + "tity 28" is named "Quantity 28" (adjacent text joins as rendered),
    // which the text "Quanxtity 28" does not hold.
    let f = Fixture::mount(&format!(
        r##"{}<a href="#" id="cdata">Quan</a>"##,
        padding()
    ))
    .unwrap();
    run_script(
        "const xml = new DOMParser().parseFromString('<x/>', 'application/xml'); \
         const link = document.getElementById('cdata'); \
         link.append(xml.createCDATASection('x'), document.createTextNode('tity 28'));",
    )
    .unwrap();
    let link = f.find("#cdata").unwrap();
    assert_eq!(accessible_name(&link), "Quantity 28");
    let root = QueryRoot::current().unwrap();
    let found = query_all(&root, &Selector::new(SelectorKind::Aria, "Quantity")).unwrap();
    assert_eq!(describe(&found), ["cdata"]);
    let ran = compare_everything(&f, &["Quantity", "Quantity 28", "Ignored value"]);
    assert_eq!(ran.queries, 0, "the filter ran beside a CDATA section");
}

/// The pre-filter is sound: whatever the matcher accepts, the fold keeps, also when the
/// text is split into pieces joined with or without spaces.
#[wasm_bindgen_test]
fn fold_keeps_every_match() {
    let pieces = [
        "Quantity",
        " 1500",
        "ΟΔΟΣ",
        "Σ",
        "ς",
        "σ",
        "İstanbul",
        "i\u{307}",
        "\u{200b}",
        "\u{ad}",
        "\u{a0}",
        "\u{3000}",
        "\t\n",
        "\u{b}",
        "\u{c}",
        "\u{85}",
        "\u{2028}",
        "\u{1c}",
        "ẞ",
        "ß",
        "ǅ",
        "Ω",
        "K",
        "k",
        "a b",
        " ",
        "x",
    ];
    let mut texts = Vec::new();
    for a in pieces {
        for b in pieces {
            for sep in ["", " ", "\u{a0}"] {
                texts.push(format!("{a}{sep}{b}"));
            }
        }
    }
    for name in &texts {
        // Every substring of the normalized (and lowercased) name is a needle that matches.
        let normal = normalize_whitespace(name);
        for source in [normal.clone(), normal.to_lowercase()] {
            let chars: Vec<char> = source.chars().collect();
            for i in 0..chars.len() {
                for j in i + 1..=chars.len() {
                    let needle: String = chars[i..j].iter().collect();
                    for exact in [false, true] {
                        if TextMatcher::new(&needle, exact).matches(name) {
                            assert!(
                                fold_for_containment(name).contains(&fold_for_containment(&needle)),
                                "{name:?} matches {needle:?} (exact {exact}) but the fold drops it"
                            );
                        }
                    }
                }
            }
        }
        // Spaces added or removed between characters do not change the fold.
        let spaced: String = name.chars().flat_map(|c| [c, ' ']).collect();
        assert_eq!(fold_for_containment(&spaced), fold_for_containment(name));
    }
}

/// Lowercasing is idempotent per character (what makes the fold of a lowercased name
/// equal the fold of the name), for every Unicode scalar value.
#[wasm_bindgen_test]
fn lowercase_is_idempotent_per_character() {
    for c in (0..=0x10ffffu32).filter_map(char::from_u32) {
        for lower in c.to_lowercase() {
            let again: String = lower.to_lowercase().collect();
            assert_eq!(again, lower.to_string(), "{c:?}");
        }
    }
}

/// Folding a character's upper or lower case (as `text-transform` shows it, and as
/// `TextMatcher` lowercases) gives the character's own fold, for every Unicode scalar value:
/// what keeps the pre-filter sound for transformed text ("straße" named "STRASSE").
#[wasm_bindgen_test]
fn the_fold_of_a_cased_character_is_its_fold() {
    for c in (0..=0x10ffffu32).filter_map(char::from_u32) {
        let fold = fold_for_containment(&c.to_string());
        let upper: String = c.to_uppercase().collect();
        let lower: String = c.to_lowercase().collect();
        assert_eq!(
            fold_for_containment(&upper),
            fold,
            "upper U+{:04X}",
            u32::from(c)
        );
        assert_eq!(
            fold_for_containment(&lower),
            fold,
            "lower U+{:04X}",
            u32::from(c)
        );
    }
    assert_eq!(
        fold_for_containment("Straße"),
        fold_for_containment("STRASSE")
    );
}

/// The fold drops exactly the characters whitespace normalization drops or makes a space (or
/// keeps as one), for every Unicode scalar value.
#[wasm_bindgen_test]
fn fold_drops_what_normalization_changes() {
    for c in (0..=0x10ffffu32).filter_map(char::from_u32) {
        let normal = normalize_whitespace(&format!("x{c}x"));
        let dropped = normal == "x x" || normal == "xx";
        assert_eq!(
            fold_for_containment(&c.to_string()).is_empty(),
            dropped,
            "U+{:04X}",
            u32::from(c)
        );
    }
}
