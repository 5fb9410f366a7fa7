//! Turns the live transcript into the protocol engine's messages, incrementally.
//!
//! The reader keeps every message element with its last read role, text and completeness.
//! Mutation records only mark the messages they touch as dirty; [`TranscriptReader::take_changes`]
//! re-reads those and reports what differs from what it reported before. A new message at the
//! end is appended without looking at the others; only an edit that changes the list itself (a
//! message removed, or inserted before the last one) re-indexes, and even then unchanged
//! messages are not re-read. The work per mutation batch is proportional to what changed, not
//! to the length of the conversation.

/// A set of message indexes, as a sorted list: the operations the reader needs, in the order a
/// `BTreeSet` gives, without the B-tree's code for one more type in the chat module. Indexes
/// mostly arrive in order (a rescan marks them from first to last), so inserting is cheap.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IndexSet(Vec<usize>);

impl IndexSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `index` (no effect when present).
    pub fn insert(&mut self, index: usize) {
        if let Err(at) = self.0.binary_search(&index) {
            self.0.insert(at, index);
        }
    }

    /// Whether `index` is in the set.
    pub fn contains(&self, index: &usize) -> bool {
        self.0.binary_search(index).is_ok()
    }

    /// Removes and returns the largest index.
    pub fn pop_last(&mut self) -> Option<usize> {
        self.0.pop()
    }

    /// How many indexes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The indexes, smallest first.
    pub fn iter(&self) -> std::slice::Iter<'_, usize> {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a IndexSet {
    type Item = &'a usize;
    type IntoIter = std::slice::Iter<'a, usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl IntoIterator for IndexSet {
    type Item = usize;
    type IntoIter = std::vec::IntoIter<usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

use js_sys::{Array, WeakMap};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Document, Element, MutationObserverInit, MutationRecord, Node};

use super::calls;
use super::sites::SiteProfile;
use super::text::{HandshakeRule, Reading, read_message};
use crate::protocol::{Message, Role};

/// One message element and what was last read from it.
#[derive(Debug)]
struct Entry {
    element: Element,
    role: Role,
    text: String,
    complete: bool,
    /// Code blocks of this message read as handshakes by their content (see
    /// [`super::text::read_message`]).
    handshake_rules: Vec<HandshakeRule>,
    /// Those rules were reported (once, when the message was complete).
    rules_reported: bool,
    /// The text read depends on whether the message is streaming (its lines
    /// are held, see [`super::text::MessageRead::holds`]): read again when that changes.
    holds: bool,
    /// When this message was last seen being written (a stop indicator on the page) or
    /// changing after the page was first read: it stays streaming until it has been quiet for
    /// [`QUIET_MS`] (or the site marks it finished). `None`: nothing says it is being written.
    live_since: Option<f64>,
    /// A stop indicator was on the page at the last look: the quiet time starts when it goes.
    seen_generating: bool,
}

impl Entry {
    /// A message element not read yet.
    fn new(element: Element) -> Self {
        Self {
            element,
            role: Role::User,
            text: String::new(),
            complete: true,
            handshake_rules: Vec::new(),
            rules_reported: false,
            holds: false,
            live_since: None,
            seen_generating: false,
        }
    }
}

/// How long a message being written must stay unchanged, with no stop indicator on the page,
/// before its lines count (unless the site marks it finished, [`SiteProfile::shows_finished`]).
/// Nothing in a streaming message is a record, so whether it still streams is the gate: a stop
/// button missing for one poll (a send/stop swap done in two commits, a tool call, a button
/// re-mounted, a label in another language, a composer that shows Send while the user types)
/// must not let a half-written line run. 1.5 s is longer than the gaps between chunks seen on
/// these sites and short against the time a model takes to write an action.
pub const QUIET_MS: f64 = 1500.0;

/// Where the reader's time comes from: the page's clock, or a test's hand.
#[derive(Debug)]
enum Clock {
    Page(Option<web_sys::Performance>),
    Manual(f64),
}

/// Reads a chat transcript into [`Message`]s and reports only what changed.
#[derive(Debug)]
pub struct TranscriptReader {
    document: Document,
    profile: &'static SiteProfile,
    /// The message selector chosen from the profile's fallbacks (`None` until one matches).
    selector: Option<&'static str>,
    /// Message elements in document order.
    entries: Vec<Entry>,
    /// Element -> index in `entries`.
    index_of: WeakMap,
    /// Messages to re-read on the next `take_changes`.
    dirty: IndexSet,
    /// Messages whose role, text or completeness differ from what was last reported.
    changed: IndexSet,
    /// The list itself must be rebuilt (a message went away or appeared out of order).
    reindex: bool,
    /// The messages reported as still streaming (usually none or the last one; two answers
    /// side by side, or an answer with a queued message after it, can make more).
    streaming: IndexSet,
    /// How many times a message's text was read from the DOM (for tests and benchmarks).
    reads: u64,
    /// The composer's `<form>`, where the stop button lives while the assistant writes; kept
    /// between polls so the streaming check looks there instead of walking the whole transcript.
    composer_form: Option<Element>,
    /// `composer_form` was connected when last looked at, and no mutation record since could
    /// have taken it out of the page: no node was removed outside the messages (the form is
    /// not inside one, see `form_outside_messages`). The streaming check then skips asking the
    /// page again (one page call fewer on the poll of every appended or streamed message).
    form_seen_connected: bool,
    /// `composer_form` is not inside a message element (removals inside a message, which the
    /// flag above ignores, cannot take it away). Checked once when the form is found.
    form_outside_messages: bool,
    /// Handshakes recognized by their content in complete messages, not taken yet.
    recognitions: Vec<(usize, HandshakeRule)>,
    /// The page was read once: a message that appears or changes after that may be being
    /// written (those read before are the conversation as it was when BAI came).
    scanned: bool,
    clock: Clock,
    /// When a message waiting to be quiet should be looked at again (see [`Self::take_wake_at`]).
    wake_at: Option<f64>,
    /// Messages the page changed since the last [`Self::take_changes`] (their text or role
    /// read differently), after the page was first read.
    touched: IndexSet,
}

impl TranscriptReader {
    /// A reader for `document`; call [`Self::full_scan`] before anything else.
    pub fn new(document: Document, profile: &'static SiteProfile) -> Self {
        Self {
            document,
            profile,
            selector: None,
            entries: Vec::new(),
            index_of: WeakMap::new(),
            dirty: IndexSet::new(),
            changed: IndexSet::new(),
            reindex: false,
            streaming: IndexSet::new(),
            reads: 0,
            composer_form: None,
            form_seen_connected: false,
            form_outside_messages: false,
            recognitions: Vec::new(),
            scanned: false,
            clock: Clock::Page(web_sys::window().and_then(|window| window.performance())),
            wake_at: None,
            touched: IndexSet::new(),
        }
    }

    /// Every message on the page from now on is new (a reader made when the first messages of
    /// a chat appear): each may be being written, and waits to be quiet like one that streamed.
    pub fn treat_all_as_new(&mut self) {
        self.scanned = true;
    }

    /// Moves the reader's time on by at least `ms` and keeps it there (tests: the quiet time
    /// passes without waiting for it). The time is rounded up to a whole millisecond first, so
    /// that `(t + ms) - t` is not a hair under `ms` in floating point.
    pub fn advance_time(&mut self, ms: f64) {
        self.clock = Clock::Manual(self.now().ceil() + ms);
    }

    fn now(&self) -> f64 {
        match &self.clock {
            Clock::Page(performance) => performance.as_ref().map_or(0.0, |p| p.now()),
            Clock::Manual(now) => *now,
        }
    }

    /// When (page time, ms) a message still waiting to be quiet should be read again, as of the
    /// last [`Self::take_changes`]: poll then, even if the page does not change. Taken once.
    pub fn take_wake_at(&mut self) -> Option<f64> {
        self.wake_at.take()
    }

    /// Indexes every message on the page (once, at start, or after the conversation changed).
    /// The texts are read on the next [`Self::take_changes`].
    pub fn full_scan(&mut self) {
        self.selector = self.profile.active_message_selector(&self.document);
        self.rebuild_index();
    }

    /// Notes the records of one `MutationObserver` callback. Cheap: it maps each record to the
    /// message it touches and marks that message dirty; nothing is read here.
    pub fn note_mutations(&mut self, records: &Array) {
        for record in records.iter() {
            if let Ok(record) = record.dyn_into::<MutationRecord>() {
                self.note_record(&record);
            }
        }
    }

    /// Messages whose role, text or completeness changed since the last call, by index in the
    /// transcript, in order. After a re-index the transcript may also have become shorter: the
    /// caller keeps only the first [`Self::len`] messages.
    pub fn take_changes(&mut self) -> Vec<(usize, Message)> {
        self.take_changed_indexes()
            .into_iter()
            .filter_map(|index| {
                let entry = self.entries.get(index)?;
                Some((
                    index,
                    Message {
                        role: entry.role,
                        text: entry.text.clone(),
                        complete: entry.complete,
                    },
                ))
            })
            .collect()
    }

    /// What [`Self::take_changes`] does, returning only the indexes of the messages that
    /// changed (for a caller that takes the whole transcript with [`Self::messages`] anyway).
    pub fn take_changed_indexes(&mut self) -> IndexSet {
        // Set again below if a message still waits to be quiet.
        self.wake_at = None;
        self.refresh_index();
        // When the message that may be streaming changed, whether it streams is decided first
        // (from its role as last read): it is then read once, as it is now, not as complete and
        // then again as streaming (a streaming message's last block reads with hold marks).
        if self
            .entries
            .len()
            .checked_sub(1)
            .is_some_and(|last| self.dirty.contains(&last))
        {
            self.update_streaming();
        }
        let dirty = std::mem::take(&mut self.dirty);
        for index in dirty {
            self.read_changed(index);
        }
        self.update_streaming();
        let changed = std::mem::take(&mut self.changed);
        for &index in &changed {
            if let Some(entry) = self.entries.get_mut(index) {
                if entry.complete && !entry.rules_reported && !entry.handshake_rules.is_empty() {
                    entry.rules_reported = true;
                    self.recognitions
                        .extend(entry.handshake_rules.iter().map(|rule| (index, *rule)));
                }
            }
        }
        self.scanned = true;
        self.touched = IndexSet::new();
        changed
    }

    /// Reads messages waiting to be read, newest first, one at a time, until none is left
    /// (`true`) or `out_of_time` says to stop (`false`: call again later, after yielding to
    /// the page). At least one message is read per call, so repeated calls always finish.
    /// What was read stays pending for [`Self::take_changes`], which reads whatever is still
    /// left: splitting the reading over calls changes when it happens, not what is reported.
    pub fn read_pending_until(&mut self, mut out_of_time: impl FnMut() -> bool) -> bool {
        self.refresh_index();
        while let Some(index) = self.dirty.pop_last() {
            self.read_changed(index);
            if self.dirty.is_empty() {
                return true;
            }
            if out_of_time() {
                return false;
            }
        }
        true
    }

    /// Messages indexed but not read yet.
    pub fn pending_reads(&self) -> usize {
        self.dirty.len()
    }

    /// Picks the message selector on a new chat and rebuilds the list when it must.
    fn refresh_index(&mut self) {
        if self.selector.is_none() {
            // A new chat: no message matched any selector yet.
            if let Some(selector) = self.profile.active_message_selector(&self.document) {
                self.selector = Some(selector);
                self.reindex = true;
            }
        }
        if self.reindex {
            self.rebuild_index();
        }
    }

    /// Every message as last read, in order (what a new engine or a panel needs at once).
    pub fn messages(&self) -> Vec<Message> {
        self.entries
            .iter()
            .map(|entry| Message {
                role: entry.role,
                text: entry.text.clone(),
                complete: entry.complete,
            })
            .collect()
    }

    /// Code blocks read as handshakes by their content (the page had lost their ```` ```bai ````
    /// label), by message index, each reported once when its message is complete: the log says
    /// which rule recognized them.
    pub fn take_handshake_recognitions(&mut self) -> Vec<(usize, HandshakeRule)> {
        std::mem::take(&mut self.recognitions)
    }

    /// The element of message `index` and the role it was last read with (where the chat tab
    /// draws that message's line marks).
    pub fn element(&self, index: usize) -> Option<(&Element, Role)> {
        self.entries
            .get(index)
            .map(|entry| (&entry.element, entry.role))
    }

    /// How message `index` was last read: as streaming or complete (the line marks locate their
    /// lines in the text read the same way).
    pub fn reading(&self, index: usize) -> Reading {
        match self.entries.get(index) {
            Some(entry) if !entry.complete => Reading::Streaming,
            _ => Reading::Complete,
        }
    }

    /// Messages in the transcript.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No message yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The layout profile this reader reads with.
    pub fn profile(&self) -> &'static SiteProfile {
        self.profile
    }

    /// The selector that matched the page's messages, `None` while nothing matched (on a chat
    /// host with messages on screen that means the markup changed).
    pub fn message_selector(&self) -> Option<&'static str> {
        self.selector
    }

    /// How many times a message's text was read from the DOM since the reader was made.
    pub fn reads(&self) -> u64 {
        self.reads
    }

    fn note_record(&mut self, record: &MutationRecord) {
        let Some(selector) = self.selector else {
            // Nothing indexed yet: `take_changes` checks the page once per batch.
            self.form_seen_connected = false;
            return;
        };
        let Some(target) = record.target() else {
            self.form_seen_connected = false;
            return;
        };
        let target_element = match target.dyn_ref::<Element>() {
            Some(element) => Some(element.clone()),
            None => target.parent_element(),
        };
        let message = target_element.and_then(|element| calls::closest(&element, selector));
        if let Some(message) = message {
            // Inside one message (streaming text, a re-rendered code block, a class change):
            // only that message is dirty. Messages do not nest, so added or removed nodes here
            // cannot be messages.
            match self.known_index(&message) {
                Some(index) => {
                    self.dirty.insert(index);
                }
                None => self.add_candidate(message),
            }
            return;
        }
        if record.type_() != "childList" {
            return;
        }
        if self.reindex {
            // A re-index finds added and removed messages by itself. The composer's form may
            // have gone with what was removed: asked again.
            self.form_seen_connected = false;
            return;
        }
        let removed = record.removed_nodes();
        let removed_count = removed.length();
        if removed_count > 0 {
            // Outside the messages: the composer's form may have been in what was removed.
            self.form_seen_connected = false;
        }
        for position in 0..removed_count {
            if let Some(node) = removed.item(position) {
                if self.holds_known_message(&node, selector) {
                    self.reindex = true;
                    return;
                }
            }
        }
        let added = record.added_nodes();
        for position in 0..added.length() {
            let Some(element) = added
                .item(position)
                .and_then(|node| node.dyn_into::<Element>().ok())
            else {
                continue;
            };
            if calls::matches(&element, selector) {
                self.add_candidate(element);
            } else if let Ok(found) = element.query_selector_all(selector) {
                for inner in 0..found.length() {
                    if let Some(message) = found
                        .item(inner)
                        .and_then(|node| node.dyn_into::<Element>().ok())
                    {
                        self.add_candidate(message);
                    }
                }
            }
            if self.reindex {
                return;
            }
        }
    }

    /// A message element not indexed yet: appended when it comes after the last one, otherwise
    /// the list is rebuilt.
    fn add_candidate(&mut self, element: Element) {
        if self.reindex || self.known_index(&element).is_some() {
            return;
        }
        if !element.is_connected() {
            return;
        }
        let follows = match self.entries.last() {
            None => true,
            Some(last) => {
                last.element.compare_document_position(&element) & Node::DOCUMENT_POSITION_FOLLOWING
                    != 0
            }
        };
        if !follows {
            self.reindex = true;
            return;
        }
        let index = self.entries.len();
        self.index_of
            .set(element.as_ref(), &JsValue::from(index as f64));
        self.entries.push(Entry::new(element));
        self.dirty.insert(index);
        self.changed.insert(index);
    }

    /// Whether `node` is, or contains, a message this reader knows.
    fn holds_known_message(&self, node: &Node, selector: &str) -> bool {
        let Some(element) = node.dyn_ref::<Element>() else {
            return false;
        };
        if self.known_index(element).is_some() {
            return true;
        }
        // Only descend when the removed subtree can hold messages at all.
        match element.query_selector_all(selector) {
            Ok(found) => (0..found.length())
                .filter_map(|position| found.item(position))
                .filter_map(|node| node.dyn_into::<Element>().ok())
                .any(|message| self.known_index(&message).is_some()),
            Err(_) => false,
        }
    }

    fn known_index(&self, element: &Element) -> Option<usize> {
        lookup(&self.index_of, &self.entries, element)
    }

    /// Rebuilds the element list from the page. Elements already known keep their cached
    /// text (and stay dirty if they were); only new ones are read.
    fn rebuild_index(&mut self) {
        self.reindex = false;
        let found: Vec<Element> = match self.selector {
            Some(selector) => match self.document.query_selector_all(selector) {
                Ok(list) => (0..list.length())
                    .filter_map(|position| list.item(position))
                    .filter_map(|node| node.dyn_into::<Element>().ok())
                    .collect(),
                Err(_) => Vec::new(),
            },
            None => Vec::new(),
        };
        let old_index_of = std::mem::replace(&mut self.index_of, WeakMap::new());
        let old_entries = std::mem::take(&mut self.entries);
        let previous_of: Vec<Option<usize>> = found
            .iter()
            .map(|element| lookup(&old_index_of, &old_entries, element))
            .collect();
        // Inserted one by one: collecting into a set sorts first, with the standard library's
        // stable sort (kept out of the chat module, see `protocol::small_sort`).
        let mut reused_old = IndexSet::new();
        for previous in previous_of.iter().flatten() {
            reused_old.insert(*previous);
        }
        let mut old: Vec<Option<Entry>> = old_entries.into_iter().map(Some).collect();
        let old_dirty = std::mem::take(&mut self.dirty);
        let index_of = WeakMap::new();
        let mut entries = Vec::with_capacity(found.len());
        let mut dirty = IndexSet::new();
        let mut changed = IndexSet::new();
        let mut streaming = IndexSet::new();
        for (index, (element, previous)) in found.into_iter().zip(previous_of).enumerate() {
            let reused = previous.and_then(|previous| old.get_mut(previous).and_then(Option::take));
            let entry = match reused {
                Some(entry) => {
                    if previous.is_some_and(|previous| old_dirty.contains(&previous)) {
                        dirty.insert(index);
                    }
                    if previous != Some(index)
                        || previous.is_some_and(|previous| self.changed.contains(&previous))
                    {
                        changed.insert(index);
                    }
                    entry
                }
                None => {
                    dirty.insert(index);
                    // A new element where an element that is gone used to be (a re-rendered
                    // message): start from what was reported for this index, so re-reading
                    // the same text reports nothing.
                    let replaced = if reused_old.contains(&index) {
                        None
                    } else {
                        old.get_mut(index).and_then(Option::take)
                    };
                    match replaced {
                        Some(gone) if !self.changed.contains(&index) => Entry { element, ..gone },
                        _ => {
                            changed.insert(index);
                            Entry::new(element)
                        }
                    }
                }
            };
            index_of.set(entry.element.as_ref(), &JsValue::from(index as f64));
            if !entry.complete {
                streaming.insert(index);
            }
            entries.push(entry);
        }
        self.entries = entries;
        self.index_of = index_of;
        self.dirty = dirty;
        self.changed = changed;
        self.streaming = streaming;
    }

    /// Reads message `index` because the page changed it. After the page was first read, a
    /// message whose text or role this changes may be being written ([`Self::still_written`]).
    fn read_changed(&mut self, index: usize) {
        if self.read(index) && self.scanned {
            self.touched.insert(index);
        }
    }

    /// Reads message `index`; whether its role or text differ from the last read.
    fn read(&mut self, index: usize) -> bool {
        let profile = self.profile;
        let Some(entry) = self.entries.get_mut(index) else {
            return false;
        };
        let role = profile.role_of(&entry.element).unwrap_or(Role::User);
        let reading = if entry.complete {
            Reading::Complete
        } else {
            Reading::Streaming
        };
        let read = read_message(&entry.element, profile, role, reading);
        self.reads += 1;
        entry.handshake_rules = read.handshake_rules;
        entry.holds = read.holds;
        if role != entry.role || read.text != entry.text {
            entry.role = role;
            entry.text = read.text;
            self.changed.insert(index);
            return true;
        }
        false
    }

    /// Which answers are still being written. Candidates: the last message when it is the
    /// assistant's, the answers streaming before (a message of the user's queued after one while
    /// the stop indicator stays does not end it), and every answer the page added or changed
    /// since the last poll, after it was first read (two answers side by side; an answer and a
    /// queued message that arrive in one poll). Each streams while a stop indicator is on the
    /// page, and after that until it has been quiet for [`QUIET_MS`] or the site marks it
    /// finished. (When the user just sent a message the stop button shows before the assistant's
    /// message exists; the previous answer, not changed, stays complete.)
    fn update_streaming(&mut self) {
        let is_assistant = |entries: &[Entry], index: usize| {
            entries
                .get(index)
                .is_some_and(|e| e.role == Role::Assistant)
        };
        let mut candidates = self.streaming.clone();
        if let Some(last) = self.entries.len().checked_sub(1) {
            candidates.insert(last);
        }
        for &index in &self.touched {
            candidates.insert(index);
        }
        let mut streaming = IndexSet::new();
        for index in candidates {
            if is_assistant(&self.entries, index) && self.still_written(index) {
                streaming.insert(index);
            }
        }
        // Only the previously and the newly streaming messages can change here.
        let mut reread = Vec::new();
        for &index in self.streaming.iter().chain(streaming.iter()) {
            let complete = !streaming.contains(&index);
            if let Some(entry) = self.entries.get_mut(index) {
                if entry.complete != complete {
                    entry.complete = complete;
                    self.changed.insert(index);
                    if entry.holds && !self.dirty.contains(&index) {
                        reread.push(index);
                    }
                }
            }
        }
        self.streaming = streaming;
        // Its text as read now differs (a held line gains or loses its mark).
        for index in reread {
            self.read(index);
        }
    }

    /// Whether message `index` (the assistant's, last or streaming before) is still being
    /// written: a stop indicator is on the page, or it was written or changed less than
    /// [`QUIET_MS`] ago and the site does not mark it finished.
    fn still_written(&mut self, index: usize) -> bool {
        let Some(element) = self.entries.get(index).map(|entry| entry.element.clone()) else {
            return false;
        };
        let generating = self.is_generating(&element);
        let now = self.now();
        // Changed by the page since the last poll, after the page was first read: new text came
        // (re-reading it for another reading mode is not a change by the page).
        let touched = self.touched.contains(&index);
        let Some(entry) = self.entries.get_mut(index) else {
            return false;
        };
        // While the indicator shows, and when it goes (`seen_generating`), the quiet time starts
        // again.
        if generating || touched || entry.seen_generating {
            entry.live_since = Some(now);
        }
        entry.seen_generating = generating;
        if generating {
            return true;
        }
        let Some(since) = entry.live_since else {
            return false;
        };
        // The site's own "finished" mark ends it at once (and costs no page-wide query).
        if self.profile.shows_finished(&element) {
            if let Some(entry) = self.entries.get_mut(index) {
                entry.live_since = None;
            }
            return false;
        }
        // A stop button the composer's form and the message do not hold (placed elsewhere on
        // the page): asked of the whole page, only while a message waits to be quiet.
        if self.profile.is_generating(&self.document) {
            if let Some(entry) = self.entries.get_mut(index) {
                entry.live_since = Some(now);
                entry.seen_generating = true;
            }
            return true;
        }
        if now - since >= QUIET_MS {
            if let Some(entry) = self.entries.get_mut(index) {
                entry.live_since = None;
            }
            return false;
        }
        let wake = since + QUIET_MS;
        self.wake_at = Some(self.wake_at.map_or(wake, |at| at.min(wake)));
        true
    }
}

impl TranscriptReader {
    /// Whether the assistant is still writing `last_message`. A stop indicator is either in the
    /// composer's form (the stop button) or on the message itself (`.result-streaming`); looking
    /// only there keeps the check's cost independent of the conversation's length. Without a
    /// composer form (an unknown layout) the whole document is searched, as a fallback.
    fn is_generating(&mut self, last_message: &Element) -> bool {
        let trusted =
            self.composer_form.is_some() && self.form_seen_connected && self.form_outside_messages;
        if !trusted {
            if !self
                .composer_form
                .as_ref()
                .is_some_and(|form| form.is_connected())
            {
                self.composer_form = self
                    .profile
                    .find_composer(&self.document)
                    .and_then(|composer| composer.closest("form").ok().flatten());
            }
            // Asked again whenever the page was: a connected form the page moved under a
            // message (whose removal the observer then ignores) is no longer trusted. Without a
            // message selector (none matched yet) the form is never trusted: every check asks
            // the page.
            self.form_outside_messages = match (&self.composer_form, self.selector) {
                (Some(form), Some(selector)) => calls::closest(form, selector).is_none(),
                _ => false,
            };
        }
        // Found by a document query, or just asked: connected now.
        self.form_seen_connected = self.composer_form.is_some();
        match &self.composer_form {
            Some(form) => self.profile.has_stop_indicator(form, last_message),
            None => self.profile.is_generating(&self.document),
        }
    }
}

/// The index of `element` in `entries`, through the weak map (checked: a stale map entry never
/// answers for another element).
fn lookup(index_of: &WeakMap, entries: &[Entry], element: &Element) -> Option<usize> {
    // A saturating cast; whatever it gives is checked against the element below.
    let index = index_of.get(element.as_ref()).as_f64()? as usize;
    let entry = entries.get(index)?;
    entry.element.is_same_node(Some(element)).then_some(index)
}

/// The observer options the reader needs: structure, text and the attributes that carry roles
/// and streaming state, in the whole subtree.
pub fn observer_options() -> MutationObserverInit {
    let options = MutationObserverInit::new();
    options.set_child_list(true);
    options.set_subtree(true);
    options.set_character_data(true);
    options.set_attributes(true);
    let filter: Array = [
        "class",
        "id",
        "data-message-author-role",
        "data-conversation-role",
        "data-message-role",
        "data-message-streaming",
        "data-message-complete",
        "data-is-streaming",
    ]
    .iter()
    .map(|name| JsValue::from_str(name))
    .collect();
    options.set_attribute_filter(&filter);
    options
}
