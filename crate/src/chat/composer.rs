//! Writes one line into the chat's composer and sends it: how the extension posts its
//! `BAI_ACK` (and later `BAI_RESULT`) lines. It never clobbers text the user is typing.

use std::time::Duration;

use gloo_timers::future::sleep;
use serde::Serialize;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement, HtmlTextAreaElement};

use super::image;
use super::sites::SiteProfile;

/// Whether to press send after inserting the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendMode {
    /// Insert the line and send it (default).
    Send,
    /// Insert the line and let the user press Enter (a setting).
    InsertOnly,
}

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PostOutcome {
    /// The line was sent and a user message containing it appeared in the transcript.
    SentAndConfirmed,
    /// The line is in the composer; the user sends it.
    Inserted,
}

/// Why a line could not be posted. Codes are stable; messages are for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ComposerError {
    /// No composer matched the site table.
    #[error("the chat's message box was not found; the page may have changed")]
    ComposerNotFound,
    /// The user has text in the composer; writing would destroy it.
    #[error("you are typing in the chat's message box; BAI will post when it is empty")]
    UserIsTyping,
    /// The inserted text did not read back as the line: the site's editor dropped or changed it
    /// (a framework that reverts input it did not see).
    #[error(
        "the chat did not take the text BAI inserted: its message box did not keep it. Post the line yourself or reload the chat"
    )]
    InsertRejected,
    /// No send button became available.
    #[error("the chat's send button did not appear")]
    SendButtonMissing,
    /// The line is in the message box but the site's send button stayed disabled: the page did
    /// not take the inserted text (its framework ignored the input). BAI took its line back out.
    #[error(
        "the chat did not take the text BAI inserted: its send button stayed disabled. BAI removed its line from the message box; post it yourself or reload the chat"
    )]
    SendDisabled,
    /// The line was sent but no user message with it appeared.
    #[error("the message was sent but did not appear in the conversation")]
    NotConfirmed,
    /// Someone edited the message box between BAI's insertion and its send: nothing was sent,
    /// so the user's words are never mixed into BAI's line.
    #[error(
        "the message box changed while BAI was posting; nothing was sent: clear the box and BAI will post again"
    )]
    ComposerChanged,
    /// A picture for the message could not be attached (see
    /// [`crate::chat::image::ImageError`]); nothing was posted.
    #[error("{message}")]
    ImageNotAttached {
        /// The image error's code (`vision_unsupported_site`, ...).
        image_code: &'static str,
        /// Its message.
        message: String,
    },
    /// BAI attached its picture, then could not send its line (`cause`, another code of this
    /// type), and could not take the picture back out of the message box: the user must, or it
    /// goes out with their next message. Never retried (a retry would attach a second copy).
    #[error(
        "BAI could not send its line ({cause}) and could not take the picture it attached back out of the chat's message box: remove it there before you send anything"
    )]
    ImageLeftInComposer {
        /// The code of the failure that stopped the post.
        cause: &'static str,
    },
}

impl ComposerError {
    /// The stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::ComposerNotFound => "composer_not_found",
            Self::UserIsTyping => "user_is_typing",
            Self::InsertRejected => "insert_rejected",
            Self::SendButtonMissing => "send_button_missing",
            Self::SendDisabled => "send_disabled",
            Self::NotConfirmed => "not_confirmed",
            Self::ComposerChanged => "composer_changed",
            Self::ImageNotAttached { image_code, .. } => image_code,
            Self::ImageLeftInComposer { .. } => "image_left_in_composer",
        }
    }
}

/// How long to wait for the send button, and then for the sent line to show up.
const SEND_BUTTON_WAIT: Duration = Duration::from_secs(5);
const CONFIRM_WAIT: Duration = Duration::from_secs(8);
/// How long the send button may take to come back after a picture was attached (the site
/// uploads it meanwhile).
const ATTACHED_SEND_WAIT: Duration = Duration::from_secs(15);
/// How long a site may take to show, and then drop, the picture BAI takes back out.
const REMOVE_WAIT: Duration = Duration::from_secs(2);
const POLL: Duration = Duration::from_millis(50);

/// Inserts `line` into the composer and (in [`SendMode::Send`]) sends it, then confirms that a
/// user message containing it appeared.
pub async fn post_line(
    document: &Document,
    profile: &SiteProfile,
    line: &str,
    mode: SendMode,
) -> Result<PostOutcome, ComposerError> {
    post_line_with(
        document,
        profile,
        line,
        mode,
        None::<fn() -> Result<(), ComposerError>>,
    )
    .await
}

/// [`post_line`], with `attach` (a `screenshot`'s picture joining the message) called once the
/// line is in the composer and, when BAI sends, once the send button is there and the box
/// still holds exactly the line: the last step before the press. A failure after it takes the
/// picture back out (the site profile's remove control), so that it never goes out with the
/// user's next message and a retry attaches one copy, not two; where that cannot be confirmed
/// the post fails with `image_left_in_composer`, which is not retried.
pub async fn post_line_with(
    document: &Document,
    profile: &SiteProfile,
    line: &str,
    mode: SendMode,
    attach: Option<impl FnOnce() -> Result<(), ComposerError>>,
) -> Result<PostOutcome, ComposerError> {
    let composer = profile
        .find_composer(document)
        .ok_or(ComposerError::ComposerNotFound)?;
    if !composer_text(&composer).trim().is_empty() {
        return Err(ComposerError::UserIsTyping);
    }
    let before = user_messages_containing(document, profile, line);
    insert_text(document, &composer, line)?;
    if composer_text(&composer).trim() != line.trim() {
        // Whatever part of the line got in is ours: take it out, so the next attempt does not
        // mistake it for the user's typing.
        take_back(document, &composer, line);
        return Err(ComposerError::InsertRejected);
    }
    if mode == SendMode::InsertOnly {
        if let Some(attach) = attach {
            let shown = image::attachment_controls(document, profile);
            if let Err(error) = attach() {
                return Err(failed_after_attach(
                    document, profile, &composer, line, &shown, error, false,
                )
                .await);
            }
        }
        return Ok(PostOutcome::Inserted);
    }
    let Some(send_button) =
        wait_for(SEND_BUTTON_WAIT, || enabled_send_button(document, profile)).await
    else {
        take_back(document, &composer, line);
        return Err(send_button_error(document, profile));
    };
    // Waiting for the button yielded to the page: the user may have typed meanwhile. Send only
    // if the box still holds exactly the line.
    if composer_text(&composer).trim() != line.trim() {
        return Err(ComposerError::ComposerChanged);
    }
    let send_button = match attach {
        None => send_button,
        Some(attach) => {
            let shown = image::attachment_controls(document, profile);
            if let Err(error) = attach() {
                return Err(failed_after_attach(
                    document, profile, &composer, line, &shown, error, false,
                )
                .await);
            }
            // The site takes the picture in (an upload) before it lets the message go.
            let Some(button) = wait_for(ATTACHED_SEND_WAIT, || {
                enabled_send_button(document, profile)
            })
            .await
            else {
                let error = send_button_error(document, profile);
                return Err(failed_after_attach(
                    document, profile, &composer, line, &shown, error, true,
                )
                .await);
            };
            if composer_text(&composer).trim() != line.trim() {
                // The user's words stay; only the picture is BAI's to take back.
                let error = ComposerError::ComposerChanged;
                return Err(failed_after_attach(
                    document, profile, &composer, line, &shown, error, true,
                )
                .await);
            }
            button
        }
    };
    send_button.click();
    wait_for(CONFIRM_WAIT, || {
        (user_messages_containing(document, profile, line) > before).then_some(())
    })
    .await
    .ok_or(ComposerError::NotConfirmed)?;
    Ok(PostOutcome::SentAndConfirmed)
}

/// The failure when no enabled send button came: disabled (the page did not take the text) or
/// missing.
fn send_button_error(document: &Document, profile: &SiteProfile) -> ComposerError {
    let disabled_button = profile
        .send_button_selectors
        .iter()
        .any(|selector| document.query_selector(selector).ok().flatten().is_some());
    if disabled_button {
        ComposerError::SendDisabled
    } else {
        ComposerError::SendButtonMissing
    }
}

/// The post failed (`cause`) once `attach` had been called: BAI's line comes out of the box (it
/// is BAI's own text; a changed box keeps the user's), and so does its picture: the remove
/// control of every attachment the composer shows that it did not show before (`shown`). When
/// the attaching itself failed (`attached` false), finding nothing new means nothing was
/// attached; after a successful attach it means BAI cannot tell where the picture went. Answers
/// `cause`, or [`ComposerError::ImageLeftInComposer`] when the picture may still be there.
async fn failed_after_attach(
    document: &Document,
    profile: &SiteProfile,
    composer: &Element,
    line: &str,
    shown: &[Element],
    cause: ComposerError,
    attached: bool,
) -> ComposerError {
    take_back(document, composer, line);
    let mut found = false;
    let polls = (REMOVE_WAIT.as_millis() / POLL.as_millis()).max(1);
    for _ in 0..polls {
        let added = image::remove_attachments_since(document, profile, shown);
        found |= added > 0;
        if found && added == 0 && !image::file_input_holds_files(document, profile) {
            return cause;
        }
        sleep(POLL).await;
    }
    if !found && !attached && !image::file_input_holds_files(document, profile) {
        return cause;
    }
    ComposerError::ImageLeftInComposer {
        cause: cause.code(),
    }
}

/// The composer's current text (contenteditable or textarea).
fn composer_text(composer: &Element) -> String {
    if let Some(textarea) = composer.dyn_ref::<HtmlTextAreaElement>() {
        return textarea.value();
    }
    composer.text_content().unwrap_or_default()
}

/// Removes BAI's own line from the composer after a failed post, only when the composer holds
/// exactly that line (never the user's text).
fn take_back(document: &Document, composer: &Element, line: &str) {
    let held = composer_text(composer);
    if held.trim().is_empty() || !line.trim().starts_with(held.trim()) {
        return;
    }
    if let Some(textarea) = composer.dyn_ref::<HtmlTextAreaElement>() {
        let _ = textarea.focus();
        textarea.select();
        if !exec_command(document, "delete", "") || !textarea.value().is_empty() {
            set_native_value(textarea, "");
        }
        return;
    }
    if let Some(element) = composer.dyn_ref::<HtmlElement>() {
        let _ = element.focus();
    }
    if let (Some(selection), Ok(range)) = (
        document.get_selection().ok().flatten(),
        document.create_range(),
    ) {
        let _ = range.select_node_contents(composer);
        let _ = selection.remove_all_ranges();
        let _ = selection.add_range(&range);
        exec_command(document, "delete", "");
    }
}

/// `document.execCommand(command, false, value)`; whether the browser performed it.
fn exec_command(document: &Document, command: &str, value: &str) -> bool {
    document
        .dyn_ref::<web_sys::HtmlDocument>()
        .and_then(|html| {
            html.exec_command_with_show_ui_and_value(command, false, value)
                .ok()
        })
        .unwrap_or(false)
}

/// Sets a textarea's value through `HTMLTextAreaElement.prototype`'s own setter, then fires a
/// bubbling `input` event. React tracks a controlled field's value with a setter on the element
/// itself: a value set through that one looks unchanged to React, which then ignores the event
/// (and the event must bubble: React listens at its root, not on the field).
fn set_native_value(textarea: &HtmlTextAreaElement, text: &str) {
    let prototype = js_sys::Object::get_prototype_of(textarea.as_ref());
    let descriptor = js_sys::Object::get_own_property_descriptor(&prototype, &"value".into());
    let setter = js_sys::Reflect::get(&descriptor, &"set".into())
        .ok()
        .and_then(|setter| setter.dyn_into::<js_sys::Function>().ok());
    match setter {
        Some(setter) if setter.call1(textarea.as_ref(), &text.into()).is_ok() => {}
        _ => textarea.set_value(text),
    }
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    if let Ok(event) = web_sys::Event::new_with_event_init_dict("input", &init) {
        let _ = textarea.dispatch_event(&event);
    }
}

/// Focuses the composer, puts the caret at the end and inserts `text` the way a user's typing
/// would arrive: `execCommand('insertText')` fires a trusted `beforeinput`/`input` pair that
/// ProseMirror, Quill and React handle. A textarea whose browser does not perform the command
/// gets its native value setter and a bubbling input event (see [`set_native_value`]).
fn insert_text(document: &Document, composer: &Element, text: &str) -> Result<(), ComposerError> {
    if let Some(textarea) = composer.dyn_ref::<HtmlTextAreaElement>() {
        let _ = textarea.focus();
        let end = textarea.value().encode_utf16().count() as u32;
        let _ = textarea.set_selection_range(end, end);
        if !exec_command(document, "insertText", text) || textarea.value() != text {
            set_native_value(textarea, text);
        }
        return Ok(());
    }
    if let Some(element) = composer.dyn_ref::<HtmlElement>() {
        let _ = element.focus();
    }
    if let (Some(selection), Ok(range)) = (
        document.get_selection().ok().flatten(),
        document.create_range(),
    ) {
        // Put the caret inside the last block (ProseMirror's `<p>`), not after it: Firefox
        // inserts text collapsed at the editor's own end as a new paragraph.
        let mut anchor = composer.clone();
        while let Some(child) = anchor.last_element_child() {
            if child.tag_name().eq_ignore_ascii_case("br") {
                break;
            }
            anchor = child;
        }
        let _ = range.select_node_contents(&anchor);
        range.collapse_with_to_start(false);
        let _ = selection.remove_all_ranges();
        let _ = selection.add_range(&range);
    }
    let html_document = document
        .dyn_ref::<web_sys::HtmlDocument>()
        .ok_or(ComposerError::InsertRejected)?;
    match html_document.exec_command_with_show_ui_and_value("insertText", false, text) {
        Ok(true) => Ok(()),
        _ => Err(ComposerError::InsertRejected),
    }
}

fn enabled_send_button(document: &Document, profile: &SiteProfile) -> Option<HtmlElement> {
    profile.send_button_selectors.iter().find_map(|selector| {
        let element = document.query_selector(selector).ok().flatten()?;
        let disabled = element.has_attribute("disabled")
            || element.get_attribute("aria-disabled").as_deref() == Some("true");
        if disabled {
            None
        } else {
            element.dyn_into::<HtmlElement>().ok()
        }
    })
}

/// How many user messages contain `line` (compared after trimming).
fn user_messages_containing(document: &Document, profile: &SiteProfile, line: &str) -> usize {
    let needle = line.trim();
    let Some(list) = profile.message_selectors.iter().find_map(|selector| {
        document
            .query_selector_all(selector)
            .ok()
            .filter(|list| list.length() > 0)
    }) else {
        return 0;
    };
    (0..list.length())
        .filter_map(|index| list.item(index)?.dyn_into::<Element>().ok())
        .filter(|element| profile.role_of(element) != Some(crate::protocol::Role::Assistant))
        .filter(|element| element.text_content().unwrap_or_default().contains(needle))
        .count()
}

/// Polls `probe` every [`POLL`] until it answers or `limit` passes.
async fn wait_for<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let polls = (limit.as_millis() / POLL.as_millis()).max(1);
    for _ in 0..polls {
        if let Some(value) = probe() {
            return Some(value);
        }
        sleep(POLL).await;
    }
    probe()
}
