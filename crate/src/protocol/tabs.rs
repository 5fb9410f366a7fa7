//! The tabs a workflow owns (capability `tabs`): the tab it was bound to (`t1`) and those its
//! `open_tab` actions opened (`t2`, `t3`, ...). The extension's background keeps one table per
//! workflow and asks it, before every action, which browser tab a `tab` field names and whether
//! that tab may be acted on; nothing else ever names a tab. A tab the page opened itself
//! (`window.open`), or any other tab of the browser, is in no table, so no action reaches it.
//!
//! Element refs are per tab: the table decides the ref floor of every read of any of the
//! workflow's tabs (an action's, and the result's page-state read in the bound tab): above
//! every number any of them issued, so no two tabs issue the same `@eN`. It remembers which tab
//! issued which, so a ref from one tab used on another is refused before anything is delivered.
//!
//! Pure data and decisions: the background stores the table (storage.session, so it survives the
//! service worker being stopped) and performs everything the browser does.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::action::Action;
use super::selector::SelectorKind;

/// Most tabs one workflow may own, the bound one and closed ones included (names are never
/// reused, so a closed tab keeps its place).
pub const MAX_OWNED_TABS: usize = 10;
/// Most ref ranges remembered per tab (adjacent ranges merge; the oldest go first).
const MAX_REF_RANGES: usize = 64;

/// Whether a tab can still be acted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TabState {
    /// Open on the bound site.
    Open,
    /// Closed (by the user, the page or the browser).
    Closed,
    /// It showed a page off the bound origin; it stays refused even if it comes back.
    LeftBoundSite,
}

/// One tab of the workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnedTab {
    /// Its name on the wire (`"t1"`).
    pub name: String,
    /// The browser's id for it: the background's handle, never written to the model.
    pub tab_id: i64,
    /// Whether it can be acted on.
    pub state: TabState,
    /// Ref numbers it issued, as `[from, to)` ranges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    refs: Vec<(u32, u32)>,
}

/// The tabs of one workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnedTabs {
    /// The bound origin: every owned tab stays on it.
    pub origin: String,
    /// `t1` first, then in the order they were opened.
    pub tabs: Vec<OwnedTab>,
    /// The next ref number any of them may issue.
    pub next_ref: u32,
}

/// The next ref number one browser tab would issue (the background's counter for that tab).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct RefCounter {
    /// The browser's id for the tab.
    pub tab_id: i64,
    /// The next number it would issue.
    pub next: u32,
}

/// What the browser says of one owned tab now, for the `tabs` listing.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct LiveTab {
    /// The browser's id for the tab.
    pub tab_id: i64,
    /// Whether it shows a page of the bound origin (or its first empty page).
    pub on_site: bool,
    /// Its title.
    #[serde(default)]
    pub title: String,
}

/// Most characters of a tab's title in the listing.
const MAX_TITLE_CHARS: usize = 120;

/// Why an action may not go to the tab it names.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TabRefusal {
    /// The name is no tab of this workflow (never opened by it, or another workflow's).
    NotOwned { name: String },
    /// The tab was closed.
    Closed { name: String },
    /// The tab left the bound site.
    LeftBoundSite { name: String, origin: String },
    /// A ref that another of the workflow's tabs issued.
    RefFromOtherTab {
        reference: String,
        name: String,
        issued_in: String,
    },
    /// `open_tab` when the workflow already owns [`MAX_OWNED_TABS`] tabs.
    TooManyTabs { max: usize },
}

impl TabRefusal {
    /// The stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotOwned { .. } => "tab_not_owned",
            Self::Closed { .. } => "tab_closed",
            Self::LeftBoundSite { .. } => "left_bound_site",
            Self::RefFromOtherTab { .. } => "ref_from_other_tab",
            Self::TooManyTabs { .. } => "too_many_tabs",
        }
    }
}

impl std::fmt::Display for TabRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotOwned { name } => write!(
                f,
                "{name} is not a tab of this workflow; BAI acts only on the bound tab (t1) and the tabs open_tab opened (list them with the tabs action)"
            ),
            Self::Closed { name } => write!(
                f,
                "tab {name} was closed; BAI did not act. The workflow's other tabs still work"
            ),
            Self::LeftBoundSite { name, origin } => write!(
                f,
                "tab {name} left this workflow's site {origin}; BAI acts there no more. The workflow's other tabs still work"
            ),
            Self::RefFromOtherTab {
                reference,
                name,
                issued_in,
            } => write!(
                f,
                "{reference} is an element of tab {issued_in}, not of tab {name}; refs belong to the tab that issued them (add \"tab\":\"{issued_in}\", or observe tab {name})"
            ),
            Self::TooManyTabs { max } => write!(
                f,
                "this workflow already has {max} tabs (closed ones count); BAI opened no other"
            ),
        }
    }
}

/// The tab an action goes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selected {
    /// Its name.
    pub name: String,
    /// The browser's id for it.
    pub tab_id: i64,
    /// The ref floor to deliver with the action (refs stay unique across the workflow's tabs:
    /// see [`OwnedTabs::ref_floor`]).
    pub ref_floor: u32,
}

/// The wire name of the tab the workflow was bound to.
pub const BOUND_TAB: &str = "t1";

impl OwnedTabs {
    /// The table of a workflow bound to browser tab `tab_id` on `origin`, whose refs so far
    /// (below `ref_floor`) all came from that tab.
    pub fn new(tab_id: i64, origin: &str, ref_floor: u32) -> Self {
        let floor = ref_floor.max(1);
        let refs = if floor > 1 {
            vec![(1, floor)]
        } else {
            Vec::new()
        };
        Self {
            origin: origin.to_owned(),
            tabs: vec![OwnedTab {
                name: BOUND_TAB.to_owned(),
                tab_id,
                state: TabState::Open,
                refs,
            }],
            next_ref: floor,
        }
    }

    fn named(&self, name: &str) -> Option<&OwnedTab> {
        self.tabs.iter().find(|tab| tab.name == name)
    }

    /// The floor of the next read of any of the workflow's tabs: past every ref the table saw
    /// issued and past every owned tab's own counter (`counters`, the background's; a read the
    /// table was not told of still moved its tab's counter). Counters of tabs this workflow
    /// does not own are not its business and are ignored.
    pub fn ref_floor(&self, counters: &[RefCounter]) -> u32 {
        counters
            .iter()
            .filter(|counter| self.tabs.iter().any(|tab| tab.tab_id == counter.tab_id))
            .map(|counter| counter.next)
            .fold(self.next_ref, u32::max)
            .max(1)
    }

    /// The tab `name` (the bound tab when `None`) if `action` may go to it now: the tab is this
    /// workflow's, open on the bound site, and any ref the action names was issued there.
    /// `open_tab` also needs room for one more tab. `counters`: the background's ref counters
    /// of the owned tabs (see [`OwnedTabs::ref_floor`]).
    pub fn select(
        &self,
        name: Option<&str>,
        action: &Action,
        counters: &[RefCounter],
    ) -> Result<Selected, TabRefusal> {
        let name = name.unwrap_or(BOUND_TAB);
        let tab = self.named(name).ok_or_else(|| TabRefusal::NotOwned {
            name: name.to_owned(),
        })?;
        match tab.state {
            TabState::Open => {}
            TabState::Closed => {
                return Err(TabRefusal::Closed {
                    name: name.to_owned(),
                });
            }
            TabState::LeftBoundSite => {
                return Err(TabRefusal::LeftBoundSite {
                    name: name.to_owned(),
                    origin: self.origin.clone(),
                });
            }
        }
        if matches!(action, Action::OpenTab { .. }) && self.tabs.len() >= MAX_OWNED_TABS {
            return Err(TabRefusal::TooManyTabs {
                max: MAX_OWNED_TABS,
            });
        }
        if let Some(number) = ref_number(action) {
            if let Some(issuer) = self.issuer_of(number) {
                if issuer.name != tab.name {
                    return Err(TabRefusal::RefFromOtherTab {
                        reference: format!("@e{number}"),
                        name: name.to_owned(),
                        issued_in: issuer.name.clone(),
                    });
                }
            }
        }
        Ok(Selected {
            name: tab.name.clone(),
            tab_id: tab.tab_id,
            ref_floor: self.ref_floor(counters),
        })
    }

    /// The tab that issued ref `number`, if the table saw it issued.
    fn issuer_of(&self, number: u32) -> Option<&OwnedTab> {
        self.tabs.iter().find(|tab| {
            tab.refs
                .iter()
                .any(|(from, to)| (*from..*to).contains(&number))
        })
    }

    /// Records that tab `name` issued refs `from..to` (the floor it was given, and the next
    /// number it answered with); the shared counter moves past them.
    pub fn issued(&mut self, name: &str, from: u32, to: u32) {
        self.next_ref = self.next_ref.max(to);
        if to <= from {
            return;
        }
        let Some(tab) = self.tabs.iter_mut().find(|tab| tab.name == name) else {
            return;
        };
        match tab.refs.last_mut() {
            Some(last) if last.1 == from => last.1 = to,
            _ => tab.refs.push((from, to)),
        }
        if tab.refs.len() > MAX_REF_RANGES {
            tab.refs.remove(0);
        }
    }

    /// Adds the browser tab `tab_id` that `open_tab` opened; answers its name. `None` when the
    /// table is full (checked before opening, in [`OwnedTabs::select`]) or the tab is owned
    /// already.
    pub fn open(&mut self, tab_id: i64) -> Option<String> {
        if self.tabs.len() >= MAX_OWNED_TABS || self.tabs.iter().any(|tab| tab.tab_id == tab_id) {
            return None;
        }
        let name = format!("t{}", self.tabs.len() + 1);
        self.tabs.push(OwnedTab {
            name: name.clone(),
            tab_id,
            state: TabState::Open,
            refs: Vec::new(),
        });
        Some(name)
    }

    /// Browser tab `tab_id` closed or left the site: its actions fail from now on (a tab that
    /// left stays refused; a closed one stays closed). Answers whether the table changed.
    pub fn ended(&mut self, tab_id: i64, state: TabState) -> bool {
        let Some(tab) = self
            .tabs
            .iter_mut()
            .find(|tab| tab.tab_id == tab_id && tab.state == TabState::Open)
        else {
            return false;
        };
        tab.state = state;
        true
    }

    /// The tabs as the model may see them, given what the browser says of them now (`live`;
    /// an open tab missing there was closed): names, states, the bound origin and, for a tab
    /// still on the site, its title; never the browser's ids, and never where a tab went after
    /// it left the site (that is the user's browsing, not the workflow's). A tab found closed or
    /// off the site is recorded so. Answers the rows and whether the table changed.
    pub fn listing(&mut self, live: &[LiveTab]) -> (Vec<TabListing>, bool) {
        let mut changed = false;
        let mut rows = Vec::with_capacity(self.tabs.len());
        for index in 0..self.tabs.len() {
            let Some(tab) = self.tabs.get(index) else {
                continue;
            };
            let (tab_id, state) = (tab.tab_id, tab.state);
            let now = live.iter().find(|live| live.tab_id == tab_id);
            let mut title = None;
            if state == TabState::Open {
                match now {
                    Some(now) if now.on_site => {
                        title = Some(now.title.chars().take(MAX_TITLE_CHARS).collect());
                    }
                    Some(_) => changed |= self.ended(tab_id, TabState::LeftBoundSite),
                    None => changed |= self.ended(tab_id, TabState::Closed),
                }
            }
            let Some(tab) = self.tabs.get(index) else {
                continue;
            };
            rows.push(TabListing {
                tab: tab.name.clone(),
                bound: tab.name == BOUND_TAB,
                alive: title.is_some(),
                state: tab.state,
                origin: self.origin.clone(),
                title,
            });
        }
        (rows, changed)
    }
}

/// One line of the `tabs` action's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TabListing {
    /// Its name.
    pub tab: String,
    /// Whether it is the tab the workflow was bound to.
    pub bound: bool,
    /// Whether it is open on the bound site now.
    pub alive: bool,
    /// Whether it can be acted on.
    pub state: TabState,
    /// The workflow's bound origin (every owned tab's site), whatever the tab shows now.
    pub origin: String,
    /// Its title, only while it is alive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// The number of the ref an action's selector names (`@e12` → 12), if it names one.
fn ref_number(action: &Action) -> Option<u32> {
    let selector = action.selector()?;
    if selector.kind != SelectorKind::Ref {
        return None;
    }
    selector.value.strip_prefix("@e")?.parse().ok()
}

/// What the background asks of a table (JSON, for the wasm binding).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TabCommand {
    /// A new table.
    New {
        tab_id: i64,
        origin: String,
        ref_floor: u32,
    },
    /// Which browser tab an action goes to ([`OwnedTabs::select`]).
    Select {
        tab: Option<String>,
        action: Value,
        #[serde(default)]
        counters: Vec<RefCounter>,
    },
    /// The ref floor of a read the table does not route (the result's page state, read in the
    /// bound tab): [`OwnedTabs::ref_floor`].
    Floor {
        #[serde(default)]
        counters: Vec<RefCounter>,
    },
    /// Refs a tab issued ([`OwnedTabs::issued`]).
    Issued { tab: String, from: u32, to: u32 },
    /// A tab `open_tab` opened ([`OwnedTabs::open`]).
    Open { tab_id: i64 },
    /// A browser tab closed or left the site ([`OwnedTabs::ended`]).
    Ended { tab_id: i64, state: TabState },
    /// The listing for the `tabs` action ([`OwnedTabs::listing`]).
    List {
        #[serde(default)]
        live: Vec<LiveTab>,
    },
}

/// Runs one command on `table` (absent for `New`); answers JSON: `{"table", ...}` with the
/// table after the command and the command's answer (`selected`, `floor`, `name`, `changed`,
/// `tabs`), or
/// `{"error": {code, message}}`.
pub fn run_command(table: Option<OwnedTabs>, command: TabCommand) -> Value {
    let refused = |refusal: TabRefusal| serde_json::json!({ "error": { "code": refusal.code(), "message": refusal.to_string() } });
    let no_table = || serde_json::json!({ "error": { "code": "no_target", "message": "This workflow has no tab table; bind a target tab first." } });
    match command {
        TabCommand::New {
            tab_id,
            origin,
            ref_floor,
        } => serde_json::json!({ "table": OwnedTabs::new(tab_id, &origin, ref_floor) }),
        TabCommand::Select {
            tab,
            action,
            counters,
        } => {
            let Some(table) = table else {
                return no_table();
            };
            let action: Action = match serde_json::from_value(action) {
                Ok(action) => action,
                Err(error) => {
                    return serde_json::json!({ "error": { "code": "invalid_action", "message": error.to_string() } });
                }
            };
            match table.select(tab.as_deref(), &action, &counters) {
                Ok(selected) => serde_json::json!({ "table": table, "selected": selected }),
                Err(refusal) => refused(refusal),
            }
        }
        TabCommand::Floor { counters } => {
            let Some(table) = table else {
                return no_table();
            };
            let floor = table.ref_floor(&counters);
            serde_json::json!({ "table": table, "floor": floor })
        }
        TabCommand::Issued { tab, from, to } => {
            let Some(mut table) = table else {
                return no_table();
            };
            table.issued(&tab, from, to);
            serde_json::json!({ "table": table })
        }
        TabCommand::Open { tab_id } => {
            let Some(mut table) = table else {
                return no_table();
            };
            match table.open(tab_id) {
                Some(name) => serde_json::json!({ "table": table, "name": name }),
                None => refused(TabRefusal::TooManyTabs {
                    max: MAX_OWNED_TABS,
                }),
            }
        }
        TabCommand::Ended { tab_id, state } => {
            let Some(mut table) = table else {
                return no_table();
            };
            let changed = table.ended(tab_id, state);
            serde_json::json!({ "table": table, "changed": changed })
        }
        TabCommand::List { live } => {
            let Some(mut table) = table else {
                return no_table();
            };
            let (tabs, changed) = table.listing(&live);
            serde_json::json!({ "table": table, "tabs": tabs, "changed": changed })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::selector::Selector;

    fn click_ref(number: u32) -> Action {
        Action::Click {
            selector: Selector::new(SelectorKind::Ref, format!("@e{number}")),
        }
    }

    fn click_css() -> Action {
        Action::Click {
            selector: Selector::new(SelectorKind::Css, "#go"),
        }
    }

    fn table() -> OwnedTabs {
        OwnedTabs::new(41, "http://shop.test", 1)
    }

    #[test]
    fn the_bound_tab_is_t1_and_the_default() {
        let tabs = table();
        let selected = tabs.select(None, &click_css(), &[]).unwrap();
        assert_eq!(selected.name, "t1");
        assert_eq!(selected.tab_id, 41);
        assert_eq!(
            tabs.select(Some("t1"), &click_css(), &[]).unwrap(),
            selected
        );
    }

    #[test]
    fn opened_tabs_get_the_next_names_and_never_reuse_one() {
        let mut tabs = table();
        assert_eq!(tabs.open(50).as_deref(), Some("t2"));
        assert_eq!(tabs.open(51).as_deref(), Some("t3"));
        assert!(tabs.ended(50, TabState::Closed));
        assert_eq!(tabs.open(52).as_deref(), Some("t4"));
        // The same browser tab is never owned twice.
        assert_eq!(tabs.open(51), None);
        assert_eq!(
            tabs.select(Some("t3"), &click_css(), &[]).unwrap().tab_id,
            51
        );
    }

    #[test]
    fn a_name_the_workflow_does_not_own_is_refused() {
        let mut tabs = table();
        tabs.open(50);
        for name in ["t3", "t9", "t999"] {
            let refusal = tabs.select(Some(name), &click_css(), &[]).unwrap_err();
            assert_eq!(refusal.code(), "tab_not_owned");
            assert!(refusal.to_string().contains(name));
        }
    }

    #[test]
    fn a_closed_tab_fails_and_the_others_go_on() {
        let mut tabs = table();
        tabs.open(50);
        assert!(tabs.ended(50, TabState::Closed));
        let refusal = tabs.select(Some("t2"), &click_css(), &[]).unwrap_err();
        assert_eq!(refusal.code(), "tab_closed");
        assert_eq!(tabs.select(None, &click_css(), &[]).unwrap().tab_id, 41);
        // Closed stays closed: leaving afterwards changes nothing.
        assert!(!tabs.ended(50, TabState::LeftBoundSite));
        assert_eq!(
            tabs.select(Some("t2"), &click_css(), &[])
                .unwrap_err()
                .code(),
            "tab_closed"
        );
    }

    #[test]
    fn a_tab_that_left_the_site_stays_refused() {
        let mut tabs = table();
        tabs.open(50);
        assert!(tabs.ended(50, TabState::LeftBoundSite));
        let refusal = tabs.select(Some("t2"), &click_css(), &[]).unwrap_err();
        assert_eq!(refusal.code(), "left_bound_site");
        assert!(refusal.to_string().contains("http://shop.test"));
        // The bound tab can leave too; then open tabs still work.
        assert!(tabs.ended(41, TabState::LeftBoundSite));
        assert_eq!(
            tabs.select(None, &click_css(), &[]).unwrap_err().code(),
            "left_bound_site"
        );
    }

    #[test]
    fn an_unowned_browser_tab_ending_changes_nothing() {
        let mut tabs = table();
        let before = tabs.clone();
        assert!(!tabs.ended(77, TabState::Closed));
        assert_eq!(tabs, before);
    }

    #[test]
    fn refs_are_unique_across_tabs_and_belong_to_their_tab() {
        let mut tabs = OwnedTabs::new(41, "http://shop.test", 12);
        tabs.open(50);
        // Refs 1..12 came from the bound tab before the table existed.
        assert_eq!(
            tabs.select(Some("t2"), &click_ref(5), &[])
                .unwrap_err()
                .code(),
            "ref_from_other_tab"
        );
        // t2 starts after every ref issued so far, whatever its own floor says.
        let selected = tabs.select(Some("t2"), &click_css(), &[]).unwrap();
        assert_eq!(selected.ref_floor, 12);
        tabs.issued("t2", 12, 30);
        // t1 goes on after t2's refs.
        let bound = tabs.select(None, &click_css(), &[counter(41, 12)]).unwrap();
        assert_eq!(bound.ref_floor, 30);
        tabs.issued("t1", 30, 31);
        let refusal = tabs.select(None, &click_ref(20), &[]).unwrap_err();
        assert_eq!(refusal.code(), "ref_from_other_tab");
        assert!(refusal.to_string().contains("\"tab\":\"t2\""));
        assert!(tabs.select(Some("t2"), &click_ref(20), &[]).is_ok());
        assert!(tabs.select(None, &click_ref(30), &[]).is_ok());
        // A ref the table never saw issued is the page's to judge (stale_ref there).
        assert!(tabs.select(Some("t2"), &click_ref(900), &[]).is_ok());
    }

    fn counter(tab_id: i64, next: u32) -> RefCounter {
        RefCounter { tab_id, next }
    }

    /// Red team 20, F8: the result's page state is read in t1 and issues refs there (the
    /// changes since t1's observation). Its floor comes from the table and its range is
    /// recorded as t1's, so t2 never issues the same numbers, and a page-state ref used on t2
    /// is refused naming t1 (not sent to whatever t2 numbered so).
    #[test]
    fn page_state_refs_of_t1_are_t1s_and_push_every_tab_past_them() {
        let mut tabs = table();
        tabs.open(50);
        let observe = tabs
            .select(None, &click_css(), &[counter(41, 1), counter(50, 1)])
            .unwrap();
        assert_eq!(observe.ref_floor, 1);
        tabs.issued("t1", 1, 6);
        // The page-state read after the message, in t1.
        let page = tabs.ref_floor(&[counter(41, 6), counter(50, 1)]);
        assert_eq!(page, 6);
        tabs.issued("t1", page, 9);
        let second = tabs
            .select(Some("t2"), &click_css(), &[counter(41, 9), counter(50, 1)])
            .unwrap();
        assert_eq!(second.ref_floor, 9, "t2 starts past t1's page-state refs");
        let refusal = tabs.select(Some("t2"), &click_ref(7), &[]).unwrap_err();
        assert_eq!(refusal.code(), "ref_from_other_tab");
        assert!(refusal.to_string().contains("\"tab\":\"t1\""), "{refusal}");
        assert!(tabs.select(None, &click_ref(7), &[]).is_ok());
        // A read the table was never told of still moved its tab's counter: no tab's floor is
        // below any owned tab's counter. Counters of tabs the workflow does not own are not
        // its business.
        assert_eq!(tabs.ref_floor(&[counter(41, 15), counter(50, 9)]), 15);
        assert_eq!(
            tabs.select(Some("t2"), &click_css(), &[counter(41, 15)])
                .unwrap()
                .ref_floor,
            15
        );
        assert_eq!(tabs.ref_floor(&[counter(77, 500)]), 9);
    }

    #[test]
    fn adjacent_ranges_merge_and_the_list_stays_bounded() {
        let mut tabs = table();
        tabs.issued("t1", 1, 5);
        tabs.issued("t1", 5, 9);
        assert_eq!(tabs.tabs[0].refs, vec![(1, 9)]);
        for n in 0..200 {
            tabs.issued("t1", 10 + n * 2, 11 + n * 2);
        }
        assert!(tabs.tabs[0].refs.len() <= MAX_REF_RANGES);
        assert_eq!(tabs.next_ref, 11 + 199 * 2);
    }

    #[test]
    fn open_tab_is_refused_when_the_table_is_full() {
        let mut tabs = table();
        for id in 0..(MAX_OWNED_TABS as i64 - 1) {
            assert!(tabs.open(100 + id).is_some());
        }
        let open = Action::OpenTab { url: "/x".into() };
        assert_eq!(
            tabs.select(None, &open, &[]).unwrap_err().code(),
            "too_many_tabs"
        );
        assert_eq!(tabs.open(999), None);
        // Other actions still go.
        assert!(tabs.select(Some("t10"), &click_css(), &[]).is_ok());
    }

    fn live(tab_id: i64, on_site: bool, title: &str) -> LiveTab {
        LiveTab {
            tab_id,
            on_site,
            title: title.to_owned(),
        }
    }

    #[test]
    fn the_listing_never_carries_browser_ids() {
        let mut tabs = table();
        tabs.open(50);
        tabs.ended(50, TabState::Closed);
        let (rows, changed) = tabs.listing(&[live(41, true, "List")]);
        assert!(!changed);
        assert_eq!(
            serde_json::to_value(rows).unwrap(),
            serde_json::json!([
                {"tab": "t1", "bound": true, "alive": true, "state": "open", "origin": "http://shop.test", "title": "List"},
                {"tab": "t2", "bound": false, "alive": false, "state": "closed", "origin": "http://shop.test"},
            ])
        );
    }

    /// Red team 20, F9: a tab the user took elsewhere (their bank) is listed with the bound
    /// origin and no title, never where it went; the table records that it left, so it stays
    /// refused. A tab the browser no longer has is recorded closed.
    #[test]
    fn the_listing_never_says_where_a_tab_went_after_it_left() {
        let mut tabs = table();
        tabs.open(50);
        tabs.open(51);
        // t2 still open in the table (the browser's update not seen yet), now on the bank.
        let (rows, changed) = tabs.listing(&[
            live(41, true, &"L".repeat(300)),
            live(50, false, "My bank: accounts"),
        ]);
        assert!(changed);
        let text = serde_json::to_string(&rows).unwrap();
        assert!(!text.contains("bank"), "{text}");
        assert_eq!(
            serde_json::to_value(&rows[1..]).unwrap(),
            serde_json::json!([
                {"tab": "t2", "bound": false, "alive": false, "state": "left_bound_site", "origin": "http://shop.test"},
                {"tab": "t3", "bound": false, "alive": false, "state": "closed", "origin": "http://shop.test"},
            ])
        );
        assert_eq!(rows[0].title.as_deref().map(str::len), Some(120));
        assert_eq!(
            tabs.select(Some("t2"), &click_css(), &[])
                .unwrap_err()
                .code(),
            "left_bound_site"
        );
        // Back on the site, it stays refused and unlisted as alive.
        let (rows, changed) = tabs.listing(&[live(41, true, "List"), live(50, true, "Cart")]);
        assert!(!changed);
        assert!(!rows[1].alive && rows[1].title.is_none());
    }

    #[test]
    fn commands_round_trip_through_json() {
        let new: TabCommand = serde_json::from_value(
            serde_json::json!({"new": {"tab_id": 41, "origin": "http://shop.test", "ref_floor": 3}}),
        )
        .unwrap();
        let answer = run_command(None, new);
        let table: OwnedTabs = serde_json::from_value(answer["table"].clone()).unwrap();
        let select: TabCommand = serde_json::from_value(serde_json::json!({"select": {
            "tab": "t2",
            "action": {"type": "click", "payload": {"selector": "#go"}},
            "counters": [{"tab_id": 41, "next": 3}],
        }}))
        .unwrap();
        let answer = run_command(Some(table.clone()), select);
        assert_eq!(answer["error"]["code"], "tab_not_owned");
        let floor: TabCommand = serde_json::from_value(
            serde_json::json!({"floor": {"counters": [{"tab_id": 41, "next": 7}]}}),
        )
        .unwrap();
        assert_eq!(run_command(Some(table.clone()), floor)["floor"], 7);
        let list: TabCommand = serde_json::from_value(serde_json::json!({"list": {
            "live": [{"tab_id": 41, "on_site": true, "title": "Shop"}],
        }}))
        .unwrap();
        let answer = run_command(Some(table), list);
        assert_eq!(answer["tabs"][0]["tab"], "t1");
        assert_eq!(answer["tabs"][0]["title"], "Shop");
        let answer = run_command(None, TabCommand::List { live: Vec::new() });
        assert_eq!(answer["error"]["code"], "no_target");
    }
}
