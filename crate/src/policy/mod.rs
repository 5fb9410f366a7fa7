//! The safety policy: which validated actions may run without asking the user.
//!
//! Pure and sans-IO like the protocol engine: the DOM layer passes in what it found out about the
//! target element ([`TargetFacts`]) and the host passes the user's settings and the time. The
//! model's text is untrusted input, so whatever the approval mode, some actions always need a
//! person: a click whose target reads like paying, buying, deleting or sending; typing into a
//! password field.

pub mod drawn;
mod rules;
pub mod runs;
pub mod selector_reads;
mod words;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::protocol::Action;
use crate::protocol::action::Key;
pub use rules::{ApprovalRule, RuleVerdict};
pub use words::{Position, find_risky, percent_decode, words};

/// How often the user is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// Ask before every action that touches the page.
    EachAction,
    /// Allowing the handshake allows the workflow's ordinary actions (default).
    #[default]
    OncePerWorkflow,
    /// Allow handshakes and ordinary actions without asking.
    Auto,
}

/// Words that make a click risky, matched case-insensitively as whole words (or phrases) in the
/// target's accessible name and text: the English ones; with [`OTHER_LANGUAGE_RISKY_WORDS`] the
/// default list, which the user can edit in the panel.
pub const DEFAULT_RISKY_WORDS: &[&str] = &[
    "pay",
    "buy",
    "order",
    "purchase",
    "checkout",
    "check out",
    "delete",
    "remove",
    "transfer",
    "send",
    "submit payment",
    "confirm payment",
    "place order",
    "subscribe",
    "unsubscribe",
    "donate",
    "withdraw",
    "sell",
    "cancel subscription",
    "close account",
    "close my account",
    "confirm",
    "deactivate",
    "authorize",
    "publish",
    "book",
    // Emptying a trash deletes its contents for good.
    "empty trash",
    "empty the trash",
    "empty bin",
    "empty the bin",
    "empty recycle bin",
    "empty deleted items",
    "erase",
    "wipe",
];

/// The same verbs in the main languages of the secret-field classifier (`dom::secret`): German,
/// French, Spanish, Italian, Portuguese, Dutch. Infinitives and the imperatives buttons use;
/// accents do not matter (`words` folds them). Part of the default list the user edits.
pub const OTHER_LANGUAGE_RISKY_WORDS: &[&str] = &[
    "löschen",
    "entfernen",
    "bezahlen",
    "kaufen",
    "verkaufen",
    "bestellen",
    "zur kasse",
    "überweisen",
    "senden",
    "absenden",
    "abschicken",
    "versenden",
    "abonnieren",
    "abbestellen",
    "kündigen",
    "spenden",
    "abheben",
    "bestätigen",
    "deaktivieren",
    "autorisieren",
    "veröffentlichen",
    "buchen",
    "konto schließen",
    "papierkorb leeren",
    "supprimer",
    "effacer",
    "retirer",
    "payer",
    "acheter",
    "commander",
    "passer commande",
    "valider la commande",
    "valider ma commande",
    "virer",
    "envoyer",
    "abonner",
    "désabonner",
    "désinscrire",
    "résilier",
    "faire un don",
    "vendre",
    "fermer le compte",
    "fermer mon compte",
    "confirmer",
    "désactiver",
    "autoriser",
    "publier",
    "réserver",
    "vider la corbeille",
    "eliminar",
    "borrar",
    "quitar",
    "pagar",
    "comprar",
    "finalizar compra",
    "realizar pedido",
    "hacer pedido",
    "tramitar pedido",
    "transferir",
    "enviar",
    "suscribir",
    "suscribirse",
    "darse de baja",
    "donar",
    "retirar",
    "vender",
    "cerrar cuenta",
    "cerrar mi cuenta",
    "confirmar",
    "desactivar",
    "autorizar",
    "publicar",
    "reservar",
    "vaciar papelera",
    "elimina",
    "eliminare",
    "cancella",
    "cancellare",
    "rimuovi",
    "rimuovere",
    "paga",
    "pagare",
    "acquista",
    "acquistare",
    "compra",
    "invia",
    "inviare",
    "iscriviti",
    "abbonati",
    "annulla iscrizione",
    "annulla abbonamento",
    "donare",
    "preleva",
    "prelevare",
    "vendi",
    "vendere",
    "chiudi account",
    "chiudi il conto",
    "conferma",
    "confermare",
    "disattiva",
    "disattivare",
    "autorizza",
    "pubblicare",
    "prenota",
    "prenotare",
    "svuota cestino",
    "excluir",
    "apagar",
    "remover",
    "fazer pedido",
    "finalizar pedido",
    "assinar",
    "cancelar assinatura",
    "doar",
    "sacar",
    "encerrar conta",
    "fechar conta",
    "desativar",
    "esvaziar lixeira",
    "verwijderen",
    "betalen",
    "afrekenen",
    "kopen",
    "overmaken",
    "verzenden",
    "versturen",
    "abonneren",
    "opzeggen",
    "doneren",
    "verkopen",
    "bevestigen",
    "deactiveren",
    "publiceren",
    "boeken",
    "reserveren",
    "account opheffen",
    "prullenbak legen",
];

/// The user's policy settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PolicySettings {
    /// How often to ask.
    pub approval_mode: ApprovalMode,
    /// Words that make a click risky.
    pub risky_words: Vec<String>,
    /// Most actions one workflow may run.
    pub max_actions_per_workflow: u32,
    /// Most actions per minute, across workflows of one chat tab.
    pub max_actions_per_minute: u32,
    /// The user's approval rules, for every site (only those of `site` apply).
    pub rules: Vec<ApprovalRule>,
    /// The origin the reviewed action acts on (the workflow's bound site), set by the host for
    /// each review; without it no rule applies.
    pub site: Option<String>,
    /// The time of the review (milliseconds since the epoch), set by the host: expired rules
    /// do nothing.
    pub now_ms: Option<u64>,
}

impl Default for PolicySettings {
    fn default() -> Self {
        Self {
            approval_mode: ApprovalMode::default(),
            // Packed (`words!`): the lists cost the wasm their text only.
            risky_words: crate::words!(DEFAULT_RISKY_WORDS)
                .iter()
                .chain(crate::words!(OTHER_LANGUAGE_RISKY_WORDS).iter())
                .map(str::to_owned)
                .collect(),
            max_actions_per_workflow: 200,
            max_actions_per_minute: 60,
            rules: Vec::new(),
            site: None,
            now_ms: None,
        }
    }
}

impl PolicySettings {
    /// What unreadable settings mean: ask before every action, with the default limits.
    pub fn strictest() -> Self {
        Self {
            approval_mode: ApprovalMode::EachAction,
            ..Self::default()
        }
    }
}

/// The settings in `text` (JSON of [`PolicySettings`]) as the derived `Deserialize` reads them
/// (missing fields take their defaults, unknown fields are ignored, a field of the wrong type
/// or an unknown mode makes the whole text unreadable), read by the engine's strict reader
/// ([`crate::protocol::json`]) instead of serde_json, so the executor's wasm carries no derived
/// `Deserialize` code for them. That reader also refuses what serde_json would read one way and JavaScript
/// another (a key written twice, a NUL in a string): such settings are unreadable too, never
/// read differently. `None`: unreadable.
pub fn settings_from_json(text: &str) -> Option<PolicySettings> {
    use serde_json::Value;
    let Ok(fields) = crate::protocol::json::read_object(text) else {
        return None;
    };
    let mut settings = PolicySettings::default();
    for (key, value) in &fields {
        match key.as_str() {
            "approval_mode" => {
                settings.approval_mode = match value.as_str()? {
                    "each_action" => ApprovalMode::EachAction,
                    "once_per_workflow" => ApprovalMode::OncePerWorkflow,
                    "auto" => ApprovalMode::Auto,
                    _ => return None,
                };
            }
            "risky_words" => settings.risky_words = strings(value)?,
            "max_actions_per_workflow" => {
                settings.max_actions_per_workflow = u32::try_from(value.as_u64()?).ok()?;
            }
            "max_actions_per_minute" => {
                settings.max_actions_per_minute = u32::try_from(value.as_u64()?).ok()?;
            }
            "rules" => {
                settings.rules = value
                    .as_array()?
                    .iter()
                    .map(rule_from_json)
                    .collect::<Option<_>>()?;
            }
            "site" => {
                settings.site = match value {
                    Value::Null => None,
                    other => Some(other.as_str()?.to_owned()),
                };
            }
            "now_ms" => {
                settings.now_ms = match value {
                    Value::Null => None,
                    other => Some(other.as_u64()?),
                };
            }
            _ => {}
        }
    }
    Some(settings)
}

/// An array of strings, as `Vec<String>`'s `Deserialize` reads it.
fn strings(value: &serde_json::Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect()
}

/// One rule, as [`ApprovalRule`]'s derived `Deserialize` reads it: `site`, `actions` and
/// `verdict` required, the rest optional, unknown fields ignored.
fn rule_from_json(value: &serde_json::Value) -> Option<ApprovalRule> {
    use serde_json::Value;
    let fields = value.as_object()?;
    let text = |key: &str| match fields.get(key) {
        None => Some(String::new()),
        Some(value) => value.as_str().map(str::to_owned),
    };
    Some(ApprovalRule {
        id: text("id")?,
        site: fields.get("site")?.as_str()?.to_owned(),
        actions: strings(fields.get("actions")?)?,
        name: text("name")?,
        verdict: match fields.get("verdict")?.as_str()? {
            "allow" => RuleVerdict::Allow,
            "ask" => RuleVerdict::Ask,
            "deny" => RuleVerdict::Deny,
            _ => return None,
        },
        expires_at_ms: match fields.get("expires_at_ms") {
            None | Some(Value::Null) => None,
            Some(other) => Some(other.as_u64()?),
        },
    })
}

/// What the DOM layer found out about what an action really activates: the element under the
/// pointer (or the one a key activates), the button or link around it, where that goes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetFacts {
    /// A short description (`button#buy`), for the question shown to the user.
    pub description: String,
    /// Its accessible name.
    pub name: String,
    /// Its visible text (may be empty): the first 200 characters, what questions and rules read.
    #[serde(default)]
    pub text: String,
    /// Words the user may see on it that `name` and `text` leave out, judged for risky words
    /// (as its name is) but never shown: its text past `text`'s 200 characters (a hidden
    /// prefix must not push "Delete account" out of what is read), and the `alt` and `title`
    /// of it and of what is inside it (an image marked presentational has no part in the
    /// name, yet its alt shows while it fails to load, and a title shows on hover).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub more_text: String,
    /// `more_text` is only the first part of those words (the DOM layer reads a bounded
    /// amount): what was left out was never judged, so activating it asks (`text_too_long`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub more_text_cut: bool,
    /// Its name and its text again, each with a break where the page draws pieces apart but
    /// joins them (owned elements, generated content, an inline element's edge with a margin,
    /// padding or border), only the groups of pieces of each word so split, each with the
    /// word before it (`runs::glued_runs`): judged as its name and text are (same position),
    /// never shown. Browsers join inline pieces as laid out, so a checkbox owning a "delete"
    /// placed after its "keep" is named "keepdelete", where no word is risky; read in runs,
    /// "delete" is found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<String>,
    /// An `<input type=password>`.
    #[serde(default)]
    pub is_password: bool,
    /// Its role (computed: `button`, `link`, `combobox`…); empty when it has none.
    #[serde(default)]
    pub role: String,
    /// Where activating it goes: a link's address, or for a control that submits a form the
    /// address the form is sent to (the button's `formaction`, else the form's `action`).
    #[serde(default)]
    pub destination: Option<String>,
    /// Activating it submits a form (a submit button, Enter in a form field).
    #[serde(default)]
    pub submits_form: bool,
    /// The form it submits goes by GET (the default when a form names no method, as when the
    /// page's script never attached) and holds a secret field: the browser puts that field's
    /// value into the address, which the model reads back. Set whether the field is filled or
    /// not, since whether it is empty is a bit of the secret too.
    #[serde(default)]
    pub sends_secret_in_address: bool,
    /// The form it submits is checked by the browser before it is sent (no `novalidate` or
    /// `formnovalidate`), and one of its secret fields has a rule that what it holds can fail:
    /// a `pattern`, a minimum length, a range or step, a type with a format (`email`,
    /// `number`…), `required` on a secret choice. Whether the form is sent then tells a bit of
    /// the secret, filled or empty. (`required` on a secret text field alone tells only whether
    /// it is empty, which a login form always asks of its password: not counted.)
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub checks_secret: bool,
    /// Names of the controls inside it that a click on it may press (descendants, shadow
    /// content), such as an icon-only "Delete" button in a nameless toolbar.
    #[serde(default)]
    pub inner_names: Vec<String>,
    /// For `select_option`: the names of the option that will be chosen, as the page shows it
    /// (a native option's label, text and `label` attribute; a custom option's name), judged
    /// whatever value the model chose it by.
    #[serde(default)]
    pub option_names: Vec<String>,
    /// For `select_option`: the page does not show which option will be chosen (a custom list
    /// that renders its options only once opened). Such an option is judged when the list has
    /// opened, right before it is chosen: one that needs a question is not chosen
    /// (`target_changed`, the list closed again), so the model's requested text is judged here
    /// and the option itself there. Asking up front instead would put a question on every
    /// react-select, MUI or Headless UI choice, and still not show the user the option.
    #[serde(default)]
    pub option_unknown: bool,
    /// The action chooses an option or a radio button although it is not `select_option`:
    /// `input_text` on a `<select>` (which picks the option the text names), an arrow key on a
    /// `<select>` or a radio button (which moves the choice to the next one). It is judged as
    /// `select_option` of that option or button (`option_names`), whatever the action is
    /// called; `option_unknown` then means BAI cannot tell which one the key will choose (a
    /// custom list or group whose own key handlers move the choice), and it asks.
    #[serde(default)]
    pub chooses: bool,
    /// `press_key` Enter goes to an element where it has no default action BAI performs: not a
    /// button or link, not a single-line field of a form (whose default button is judged
    /// instead). There only the page's key handlers give it a meaning, and message boxes send
    /// what they hold on it.
    #[serde(default)]
    pub enter_left_to_page: bool,
    /// It is a link with a `download` attribute: following it saves a file on the user's
    /// computer, an effect the user should see whatever the link is called.
    #[serde(default)]
    pub downloads: bool,
    /// A key in a custom list, menu, tree or grid moves its active option through the page's
    /// own handlers to one of these (name, text, role, address), and BAI cannot tell which:
    /// when any of them reads as risky or downloads, the key asks (`unknown_choice`).
    #[serde(default)]
    pub may_choose: Vec<TargetFacts>,
    /// What the same press activates besides this control, each judged as if it were pressed
    /// itself (the most severe verdict wins): the links, buttons and other controls around
    /// what is pressed (a button inside a link follows the link too), a label's control, a
    /// link's `ping` addresses. Only the control itself says "unknown".
    #[serde(default)]
    pub also_activates: Vec<TargetFacts>,
}

/// Field roles whose name is a choice, not what a field holds: choosing "Permanently delete" or
/// "Konto löschen" can do it (German and Dutch put the verb last), so a risky verb counts
/// anywhere in their short names ([`Position::ShortName`]). The other field roles keep "Amount
/// to pay" a plain field.
const CHOICE_ROLES: &[&str] = &["option", "radio", "tab", "treeitem"];

/// Roles of elements whose text Delete and Backspace edit.
const TEXT_ROLES: &[&str] = &["textbox", "searchbox", "combobox", "spinbutton"];

/// Roles whose own name says what they hold, not what they do: opening a combobox named
/// "Favourite book" books nothing. Their names count only at the verb position.
const FIELD_ROLES: &[&str] = &[
    "combobox",
    "listbox",
    "textbox",
    "searchbox",
    "spinbutton",
    "slider",
    "tab",
    "option",
    "radio",
    "treeitem",
    "gridcell",
    "row",
    "cell",
    "heading",
];

impl TargetFacts {
    /// Whether the element is a command (a button, link, menu item, checkbox, anything that
    /// submits or goes somewhere, or an element whose role is unknown), whose name counts
    /// wherever a risky word stands in it.
    fn is_command(&self) -> bool {
        self.submits_form
            || self.destination.is_some()
            || !crate::words!(FIELD_ROLES).contains(&self.role)
    }

    /// Whether Delete and Backspace edit text in it (a text field, by its role, or a password
    /// field); anywhere else only the page's key handlers give them a meaning.
    fn edits_text(&self) -> bool {
        self.is_password || crate::words!(TEXT_ROLES).contains(&self.role)
    }

    /// Whether nothing tells what activating it does: no role, name, text, address, form, or
    /// named control inside. Unknown means ask.
    fn is_unknown(&self) -> bool {
        self.role.trim().is_empty()
            && self.name.trim().is_empty()
            && self.text.trim().is_empty()
            && self.destination.is_none()
            && !self.submits_form
            && self.inner_names.iter().all(|n| n.trim().is_empty())
    }
}

/// Why the user must be asked. Codes are stable; messages are for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum AskReason {
    /// The approval mode asks before every action.
    EachActionMode,
    /// The click target reads like a risky operation.
    RiskyClick {
        /// The risky word found.
        word: String,
        /// What the element is called.
        name: String,
    },
    /// Opening an address that reads like a risky operation (`/checkout`, `/account/delete`).
    RiskyNavigation {
        /// The risky word found.
        word: String,
        /// The address.
        url: String,
    },
    /// Typing into a password field.
    PasswordField,
    /// Activating it sends a form by GET that holds a secret field: the secret would land in
    /// the page's address, where the model can read it.
    SecretInAddress,
    /// Activating it sends a form whose secret field has rules the browser checks before it
    /// sends anything (a `pattern`, a length, a range, a required choice): whether the form
    /// goes tells the model whether what the field holds meets them, a bit of the secret per
    /// try (red team red7, session 20).
    SecretChecked,
    /// The target could not be found in time to be checked; it might be anything.
    TargetUnchecked,
    /// Activating the target goes to an address that reads like a risky operation (a link's
    /// `href`, a form's `action`, a button's `formaction`).
    RiskyDestination {
        /// The risky word found.
        word: String,
        /// The address.
        url: String,
    },
    /// Nothing tells what the target is or does (no role, name, text or address).
    UnknownActivation {
        /// The element, described.
        element: String,
    },
    /// One of the user's approval rules asks for it.
    #[serde(rename = "rule_asks")]
    Rule {
        /// The rule, in words.
        rule: String,
    },
    /// Delete or Backspace pressed where they edit no text: only the page's own key handlers
    /// give them a meaning there, and pages bind them to deleting a row, a message, a file.
    PageBoundKey {
        /// The key.
        key: String,
        /// The element that gets it, described.
        element: String,
    },
    /// Enter pressed in a message box, an editor, a multi-line field or any element that is
    /// neither a button or link nor a single-line field of a form: chat boxes send on Enter,
    /// and BAI cannot tell what this page does with it.
    EnterMaySend {
        /// The element that gets it, described.
        element: String,
    },
    /// A key on a `<select>`, a radio group or a list moves the choice, and BAI cannot tell to
    /// which option or button (the page's own key handlers move it).
    UnknownChoice {
        /// The key.
        key: String,
        /// The element that gets it, described.
        element: String,
    },
    /// Its text (with the `alt` and `title` on and inside it) is too long to read all of it:
    /// what was not read may say what it does.
    TextTooLong {
        /// What the element is called (its description when it has no name).
        name: String,
    },
    /// Activating it follows a link with a `download` attribute: a file is saved on the user's
    /// computer.
    DownloadsFile {
        /// The link's name (or its description when it has none).
        name: String,
    },
    /// A `screenshot`: a picture of the page goes to the chat (and so to the model). Asked
    /// about unless the user's allow rule for `screenshot` on this site says yes.
    Picture {
        /// The site pictured (the workflow's bound origin), or "this page" when unknown.
        origin: String,
    },
}

impl AskReason {
    /// A plain-language sentence for the approval question.
    pub fn message(&self) -> String {
        match self {
            Self::EachActionMode => "you asked to approve every action".to_owned(),
            Self::RiskyClick { word, name } => {
                format!("the button “{name}” {}", looks_risky(word))
            }
            Self::RiskyNavigation { word, url } => {
                format!("it opens {url}, which {}", looks_risky(word))
            }
            Self::PasswordField => "it types into or edits a password field".to_owned(),
            Self::SecretChecked => {
                "the page checks what its secret field holds before sending the form (a pattern or a length): whether the form is sent would tell the model something of it"
                    .to_owned()
            }
            Self::SecretInAddress => {
                "it sends the form by GET, which puts what the secret field holds into the address"
                    .to_owned()
            }
            Self::TargetUnchecked => {
                "its target was not on the page yet, so BAI could not check what it is".to_owned()
            }
            Self::RiskyDestination { word, url } => {
                format!("it goes to {url}, which {}", looks_risky(word))
            }
            Self::UnknownActivation { element } => {
                format!("BAI cannot tell what {element} does (no role, name, text or address)")
            }
            Self::Rule { rule } => format!("your rule “{rule}” says so"),
            Self::Picture { origin } => {
                format!("BAI will send a picture of {origin} to the chat")
            }
            Self::EnterMaySend { element } => format!(
                "Enter in {element} may send or submit what it holds; BAI cannot tell what the page does with it"
            ),
            Self::DownloadsFile { name } => {
                format!(
                    "it follows the download link “{name}”, which saves a file on your computer"
                )
            }
            Self::TextTooLong { name } => format!(
                "“{name}” holds too much text for BAI to read all of it, so it cannot tell what it does"
            ),
            Self::UnknownChoice { key, element } => format!(
                "{key} on {element} may choose another option, and BAI cannot tell which one"
            ),
            Self::PageBoundKey { key, element } => format!(
                "it presses {key} on {element}, which is not a text field: only the page decides what that does, and pages use it to delete things"
            ),
        }
    }
}

/// How a question says that `word` is risky: "looks like it will delete something" reads well
/// for an English verb only, so a word of another language is quoted as what it is.
fn looks_risky(word: &str) -> String {
    if crate::words!(OTHER_LANGUAGE_RISKY_WORDS).contains(word) {
        format!("has “{word}” in it, a risky word (pay, buy, delete, send…)")
    } else {
        format!("looks like it will {word} something")
    }
}

/// The policy's answer for one action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Run it.
    Allow,
    /// Run it: one of the user's allow rules waived every question the policy had.
    AllowedByRule {
        /// The rule, in words.
        rule: String,
        /// The questions it waived (none when nothing would have asked).
        waived: Vec<AskReason>,
    },
    /// Ask the user first, for these reasons.
    Ask {
        /// Why (at least one).
        reasons: Vec<AskReason>,
    },
    /// Do not run it: one of the user's deny rules holds (`denied_by_rule`).
    Deny {
        /// The rule, in words.
        rule: String,
    },
}

impl Verdict {
    /// The stable code of a refusal, for the model's result and the panel.
    pub const DENIED_BY_RULE: &'static str = "denied_by_rule";

    /// The plain message of a refusal by `rule`.
    pub fn denied_message(rule: &str) -> String {
        format!("Your rule “{rule}” does not allow this action; BAI did not act.")
    }
}

/// How an action touches the page, as far as the policy is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Touch {
    /// It only reads or waits (`wait`, `observe`, `wait_for`, `extract`, `assert`, `done`).
    ReadsOnly,
    /// It activates its target the way a click does: `click`, `check`, `uncheck`,
    /// `select_option`, and `press_key` Enter or Space (which click buttons and links, and
    /// submit forms from their fields).
    Activates,
    /// It types into its target (`input_text`).
    Types,
    /// Delete or Backspace: edits in a text field, anything the page binds elsewhere.
    DeletesOrBound,
    /// It changes what is shown without activating anything (`scroll`, `hover`, other keys,
    /// `navigate`).
    Moves,
}

fn touch_of(action: &Action) -> Touch {
    match action {
        Action::Click { .. }
        | Action::Check { .. }
        | Action::Uncheck { .. }
        | Action::SelectOption { .. } => Touch::Activates,
        Action::PressKey {
            key: Key::Enter | Key::Space,
            ..
        } => Touch::Activates,
        Action::PressKey {
            key: Key::Delete | Key::Backspace,
            ..
        } => Touch::DeletesOrBound,
        Action::InputText { .. } => Touch::Types,
        Action::Wait { .. }
        | Action::Observe { .. }
        | Action::WaitFor { .. }
        | Action::Extract { .. }
        | Action::Assert { .. }
        | Action::Done { .. }
        | Action::More { .. }
        | Action::Screenshot { .. }
        | Action::Tabs {} => Touch::ReadsOnly,
        // Scroll, hover, navigate, other keys; and, fail closed, any action added later.
        _ => Touch::Moves,
    }
}

/// Decides whether `action`, on an element described by `target`, may run without asking.
///
/// `target` describes what the action will really act on: for a click, the button or link
/// around the clicked element; for `press_key` Enter in a form field, the form's submit button;
/// for `press_key` without a selector, the focused element. `None` means it could not be found.
///
/// The user's approval rules for `settings.site` then have their say ([`rules`]): a deny rule
/// refuses, an ask rule adds its question, an allow rule waives the questions it may waive.
pub fn review(settings: &PolicySettings, action: &Action, target: Option<&TargetFacts>) -> Verdict {
    let reasons = builtin_reasons(settings, action, target);
    let said = rules::decide(
        &settings.rules,
        settings.site.as_deref(),
        settings.now_ms,
        action,
        target,
    );
    match said {
        rules::RulesSay::Deny(rule) => Verdict::Deny {
            rule: rule.describe(),
        },
        rules::RulesSay::Ask(rule) => {
            let mut reasons = reasons;
            reasons.push(AskReason::Rule {
                rule: rule.describe(),
            });
            Verdict::Ask { reasons }
        }
        rules::RulesSay::Allow(rule) => {
            if reasons
                .iter()
                .all(|reason| rules::allow_waives(&rule, reason))
            {
                Verdict::AllowedByRule {
                    rule: rule.describe(),
                    waived: reasons,
                }
            } else {
                Verdict::Ask { reasons }
            }
        }
        rules::RulesSay::Nothing if reasons.is_empty() => Verdict::Allow,
        rules::RulesSay::Nothing => Verdict::Ask { reasons },
    }
}

/// The questions the policy itself asks, before any rule.
fn builtin_reasons(
    settings: &PolicySettings,
    action: &Action,
    target: Option<&TargetFacts>,
) -> Vec<AskReason> {
    let mut reasons = Vec::new();
    let touch = touch_of(action);
    if settings.approval_mode == ApprovalMode::EachAction && touch != Touch::ReadsOnly {
        reasons.push(AskReason::EachActionMode);
    }
    match (touch, target) {
        (Touch::Activates, Some(target)) => {
            // A chosen option is part of what gets activated ("Plan: Pay yearly"); it names a
            // choice, so its words count at the verb position.
            let option = match action {
                Action::SelectOption { option, .. } => option.as_str(),
                _ => "",
            };
            reasons.extend(activation_reasons(target, option, &settings.risky_words));
            if target.enter_left_to_page && is_key(action, Key::Enter) {
                reasons.push(AskReason::EnterMaySend {
                    element: shorten(&target.description, 60),
                });
            }
            // A form sent by what the same press activates around the control counts too.
            if target.sends_secret_in_address
                || target
                    .also_activates
                    .iter()
                    .any(|other| other.sends_secret_in_address)
            {
                reasons.push(AskReason::SecretInAddress);
            }
            if target.checks_secret
                || target
                    .also_activates
                    .iter()
                    .any(|other| other.checks_secret)
            {
                reasons.push(AskReason::SecretChecked);
            }
            // Space types a space into a secret field, as Backspace and Delete edit it (below):
            // each, with a form sent or refused after it, tells the model something of what it
            // holds (red team red7, session 20).
            if target.is_password && is_key(action, Key::Space) {
                reasons.push(AskReason::PasswordField);
            }
        }
        (Touch::Types | Touch::DeletesOrBound, Some(target)) if target.is_password => {
            reasons.push(AskReason::PasswordField);
        }
        (Touch::DeletesOrBound, Some(target)) if !target.edits_text() => {
            let key = match action {
                Action::PressKey { key, .. } => key.as_str(),
                _ => "a key",
            };
            reasons.push(AskReason::PageBoundKey {
                key: key.to_owned(),
                element: shorten(&target.description, 60),
            });
        }
        // Fail closed: an element the review could not see might be the risky one.
        (Touch::Activates | Touch::Types | Touch::DeletesOrBound, None) => {
            reasons.push(AskReason::TargetUnchecked);
        }
        _ => {}
    }
    // `input_text` on a `<select>` and arrow keys on a `<select>` or a radio button choose an
    // option as `select_option` and a click do: the option they will choose is judged the same
    // way, whatever the action is called.
    if let Some(target) = target.filter(|target| target.chooses) {
        if touch != Touch::Activates {
            reasons.extend(activation_reasons(target, "", &settings.risky_words));
        }
        // A custom list's own key handlers move its choice to an option BAI cannot tell: asked
        // when any option it may move to reads as risky ("Delete account") or downloads, so a
        // list of "Shoes" and "Shirts" runs. All options are read together, every word counting
        // in its verb forms as in an address (what a click on any one of them would be asked
        // about, and more): one search, as hundreds of options are judged at each key.
        let mut all = String::new();
        for option in &target.may_choose {
            for part in [&option.name, &option.text]
                .into_iter()
                .chain(&option.runs)
                .chain(option.destination.as_ref())
            {
                all.push_str(part);
                all.push('\n');
            }
        }
        let risky_option = target.may_choose.iter().any(|option| option.downloads)
            || find_risky(&all, &settings.risky_words, Position::Address).is_some();
        if target.option_unknown || risky_option {
            let key = match action {
                Action::PressKey { key, .. } => key.as_str(),
                _ => "the action",
            };
            reasons.push(AskReason::UnknownChoice {
                key: key.to_owned(),
                element: shorten(&target.description, 60),
            });
        }
    }
    // A picture shows whatever the page shows: never sent without the question or the user's
    // own allow rule for this site.
    if let Action::Screenshot { .. } = action {
        reasons.push(AskReason::Picture {
            origin: settings
                .site
                .clone()
                .unwrap_or_else(|| "this page".to_owned()),
        });
    }
    if let Action::Navigate { url } | Action::OpenTab { url } = action {
        if let Some(word) = find_risky(url, &settings.risky_words, Position::Address) {
            reasons.push(AskReason::RiskyNavigation {
                word: word.to_owned(),
                url: shorten(url, 80),
            });
        }
    }
    reasons
}

fn is_key(action: &Action, wanted: Key) -> bool {
    matches!(action, Action::PressKey { key, .. } if *key == wanted)
}

/// Why activating `target` (choosing `option`, when not empty) needs a question, if it does.
fn activation_reasons(target: &TargetFacts, option: &str, risky: &[String]) -> Vec<AskReason> {
    let mut reasons = Vec::new();
    let own = if target.is_command() {
        Position::Anywhere
    } else if crate::words!(CHOICE_ROLES).contains(&target.role) {
        Position::ShortName
    } else {
        Position::VerbOnly
    };
    let named = if target.name.trim().is_empty() {
        &target.text
    } else {
        &target.name
    };
    // What it is called (name, then its text), then the controls inside it: each is judged as
    // a command of its own, since a click may land on it.
    let found = [(target.name.as_str(), own), (target.text.as_str(), own)]
        .into_iter()
        .chain(target.runs.iter().map(|runs| (runs.as_str(), own)))
        .find_map(|(text, position)| find_risky(text, risky, position).map(|w| (w, named.clone())))
        .or_else(|| {
            // Past the verb position of a field's name and text, nothing here stands there.
            let word = (own == Position::Anywhere)
                .then(|| find_risky(&target.more_text, risky, Position::Anywhere))
                .flatten()?;
            Some((word, format!("{} … {word}", named.trim())))
        })
        .or_else(|| {
            target.inner_names.iter().find_map(|inner| {
                find_risky(inner, risky, Position::Anywhere).map(|w| (w, inner.clone()))
            })
        })
        .or_else(|| find_risky(option, risky, Position::ShortName).map(|w| (w, option.to_owned())))
        .or_else(|| {
            // The option really chosen, whatever value the model named it by.
            target.option_names.iter().find_map(|name| {
                find_risky(name, risky, Position::ShortName).map(|w| (w, name.clone()))
            })
        });
    match found {
        Some((word, name)) => reasons.push(AskReason::RiskyClick {
            word: word.to_owned(),
            name: shorten(name.trim(), 60),
        }),
        // Words past what was read were never judged: unknown means ask.
        None if own == Position::Anywhere && target.more_text_cut => {
            let name = match named.trim() {
                "" => target.description.as_str(),
                name => name,
            };
            reasons.push(AskReason::TextTooLong {
                name: shorten(name, 60),
            });
        }
        None => {}
    }
    if let Some(url) = &target.destination {
        if let Some(word) = find_risky(url, risky, Position::Address) {
            reasons.push(AskReason::RiskyDestination {
                word: word.to_owned(),
                url: shorten(url, 80),
            });
        }
    }
    if target.downloads {
        let name = match named.trim() {
            "" => target.description.as_str(),
            name => name,
        };
        reasons.push(AskReason::DownloadsFile {
            name: shorten(name, 60),
        });
    }
    for other in &target.also_activates {
        for reason in activation_reasons(other, "", risky) {
            if !matches!(reason, AskReason::UnknownActivation { .. }) && !reasons.contains(&reason)
            {
                reasons.push(reason);
            }
        }
    }
    if reasons.is_empty() && target.is_unknown() && option.trim().is_empty() {
        reasons.push(AskReason::UnknownActivation {
            element: shorten(&target.description, 60),
        });
    }
    reasons
}

/// The first of `words` that occurs in `text` as a whole word or phrase, ignoring case,
/// encoding and how words are joined (the name of a command: anywhere).
pub fn find_risky_word<'w>(text: &str, words: &'w [String]) -> Option<&'w str> {
    find_risky(text, words, Position::Anywhere)
}

fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max_chars).collect();
    out.push('…');
    out
}

/// Why the rate limiter stopped a workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum RateLimitError {
    /// Too many actions in one workflow.
    #[error("this workflow reached its limit of {limit} actions; start a new one to go on")]
    WorkflowActionLimit {
        /// The limit.
        limit: u32,
    },
    /// Too many actions per minute.
    #[error("more than {limit} actions in one minute; BAI stopped the workflow to be safe")]
    ActionsPerMinute {
        /// The limit.
        limit: u32,
    },
}

impl RateLimitError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::WorkflowActionLimit { .. } => "action_limit_reached",
            Self::ActionsPerMinute { .. } => "rate_limited",
        }
    }
}

/// Counts actions per workflow and per minute. Time is passed in (milliseconds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimiter {
    recent: VecDeque<u64>,
    per_workflow: Vec<(String, u32)>,
}

impl RateLimiter {
    /// A limiter as [`Serialize`] wrote it (in a saved session): `{recent: [ms, ...],
    /// per_workflow: [[id, count], ...]}`, both required.
    pub fn from_value(
        value: &serde_json::Value,
    ) -> Result<Self, crate::protocol::fields::FieldError> {
        use crate::protocol::fields::{fields, string, u32_of};
        let f = fields(value, "rate limiter")?;
        let recent = f.list("recent", false, |v| {
            v.as_u64()
                .ok_or_else(|| "a time must be an unsigned integer".to_owned())
        })?;
        let per_workflow = f.list("per_workflow", false, |v| {
            match v.as_array().map(Vec::as_slice) {
                Some([id, count]) => string(id)
                    .zip(u32_of(count))
                    .ok_or_else(|| "expected [workflow id, count]".to_owned()),
                _ => Err("expected [workflow id, count]".to_owned()),
            }
        })?;
        Ok(Self {
            recent: recent.into(),
            per_workflow,
        })
    }

    /// Appends the limiter as its derived `Serialize` writes it (what [`RateLimiter::from_value`]
    /// reads): `{"recent":[ms,...],"per_workflow":[[id,count],...]}`.
    pub fn write_json(&self, out: &mut String) {
        use crate::protocol::json_write::{self, Object};
        let mut o = Object::new(out);
        let recent = o.key("recent");
        recent.push('[');
        for (index, at) in self.recent.iter().enumerate() {
            if index > 0 {
                recent.push(',');
            }
            recent.push_str(&at.to_string());
        }
        recent.push(']');
        o.list("per_workflow", &self.per_workflow, |out, (id, count)| {
            out.push('[');
            json_write::string(out, id);
            out.push(',');
            out.push_str(&count.to_string());
            out.push(']');
        });
        o.end();
    }

    /// Records one action of `workflow_id` at `now_ms`, or refuses it.
    pub fn admit(
        &mut self,
        settings: &PolicySettings,
        workflow_id: &str,
        now_ms: u64,
    ) -> Result<(), RateLimitError> {
        while self
            .recent
            .front()
            .is_some_and(|&t| now_ms.saturating_sub(t) >= 60_000)
        {
            self.recent.pop_front();
        }
        if self.recent.len() >= settings.max_actions_per_minute as usize {
            return Err(RateLimitError::ActionsPerMinute {
                limit: settings.max_actions_per_minute,
            });
        }
        if !self.per_workflow.iter().any(|(id, _)| id == workflow_id) {
            // Keep the table small: only the most recent workflows matter.
            if self.per_workflow.len() >= 32 {
                self.per_workflow.remove(0);
            }
            self.per_workflow.push((workflow_id.to_owned(), 0));
        }
        let Some((_, count)) = self
            .per_workflow
            .iter_mut()
            .find(|(id, _)| id == workflow_id)
        else {
            return Ok(());
        };
        if *count >= settings.max_actions_per_workflow {
            return Err(RateLimitError::WorkflowActionLimit {
                limit: settings.max_actions_per_workflow,
            });
        }
        *count += 1;
        self.recent.push_back(now_ms);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Selector;

    #[test]
    fn a_saved_limiter_reads_back() {
        let mut limiter = RateLimiter::default();
        let settings = PolicySettings::default();
        limiter.admit(&settings, "wf-1", 1_700_000_000_000).unwrap();
        limiter.admit(&settings, "wf-2", 1_700_000_000_500).unwrap();
        let value = serde_json::to_value(&limiter).unwrap();
        assert_eq!(RateLimiter::from_value(&value).unwrap(), limiter);
        for bad in [
            serde_json::json!({"recent": []}),
            serde_json::json!({"recent": [], "per_workflow": [["a"]]}),
            serde_json::json!({"recent": [-1], "per_workflow": []}),
            serde_json::json!({"recent": [], "per_workflow": [["a", 4294967296u64]]}),
        ] {
            assert!(RateLimiter::from_value(&bad).is_err(), "{bad}");
            assert!(serde_json::from_value::<RateLimiter>(bad).is_err());
        }
    }

    /// The executor reads settings with `settings_from_json`, not serde: both must read every
    /// text the extension can write the same, and refuse the same wrong types.
    #[test]
    fn settings_read_as_serde_reads_them() {
        let rule = r#"{"id":"r1","site":"https://a.example","actions":["click"],"name":"delete","verdict":"deny","expires_at_ms":null}"#;
        let cases = [
            "{}".to_owned(),
            r#"{"approval_mode":"auto"}"#.to_owned(),
            r#"{"approval_mode":"each_action","site":"https://a.example","now_ms":1764000000000}"#
                .to_owned(),
            r#"{"approval_mode":"once_per_workflow","risky_words":["pay","send money"]}"#
                .to_owned(),
            r#"{"max_actions_per_workflow":5,"max_actions_per_minute":0,"other":[1,{"x":2}]}"#
                .to_owned(),
            format!(r#"{{"rules":[{rule}],"site":null,"now_ms":null}}"#),
            r#"{"rules":[{"site":"s","actions":[],"verdict":"allow","extra":true}]}"#.to_owned(),
            r#"{"rules":[{"site":"s","actions":["a"],"verdict":"ask","expires_at_ms":9}]}"#
                .to_owned(),
            // Unreadable, both ways.
            r#"{"approval_mode":"sometimes"}"#.to_owned(),
            r#"{"approval_mode":null}"#.to_owned(),
            r#"{"risky_words":"pay"}"#.to_owned(),
            r#"{"risky_words":["pay",1]}"#.to_owned(),
            r#"{"risky_words":null}"#.to_owned(),
            r#"{"max_actions_per_workflow":-1}"#.to_owned(),
            r#"{"max_actions_per_workflow":1.5}"#.to_owned(),
            r#"{"max_actions_per_workflow":4294967296}"#.to_owned(),
            r#"{"now_ms":-5}"#.to_owned(),
            r#"{"now_ms":"5"}"#.to_owned(),
            r#"{"site":5}"#.to_owned(),
            r#"{"rules":{}}"#.to_owned(),
            r#"{"rules":[{"actions":["a"],"verdict":"ask"}]}"#.to_owned(),
            r#"{"rules":[{"site":"s","verdict":"ask"}]}"#.to_owned(),
            r#"{"rules":[{"site":"s","actions":["a"]}]}"#.to_owned(),
            r#"{"rules":[{"site":"s","actions":["a"],"verdict":"maybe"}]}"#.to_owned(),
            r#"{"rules":[{"site":"s","actions":["a"],"verdict":"ask","id":null}]}"#.to_owned(),
            r#"{"rules":[{"site":"s","actions":["a"],"verdict":"ask","expires_at_ms":1.5}]}"#
                .to_owned(),
            r#"{"rules":[5]}"#.to_owned(),
            r#"{"approval_mode":"auto","approval_mode":"auto"}"#.to_owned(),
            "null".to_owned(),
            "not json".to_owned(),
            r#"{"approval_mode":"auto"} x"#.to_owned(),
        ];
        for case in &cases {
            let by_serde = serde_json::from_str::<PolicySettings>(case).ok();
            assert_eq!(settings_from_json(case), by_serde, "{case}");
        }
        // A NUL in a string: serde_json reads it, the strict reader does not (JavaScript
        // readers cut C strings there); unreadable settings are the strictest ones.
        assert!(serde_json::from_str::<PolicySettings>(r#"{"site":"a\u0000b"}"#).is_ok());
        assert_eq!(settings_from_json(r#"{"site":"a\u0000b"}"#), None);
    }

    fn click() -> Action {
        Action::Click {
            selector: Selector::css("#b"),
        }
    }

    fn button(name: &str) -> TargetFacts {
        TargetFacts {
            description: "button".into(),
            name: name.into(),
            ..TargetFacts::default()
        }
    }

    /// A control whose text the DOM layer read only in part (`more_text_cut`): what was left out
    /// was never judged, so a command asks (`text_too_long`), even in auto mode; a risky word in
    /// what was read asks as risky; a field's text (not at the verb position) does not ask.
    #[test]
    fn a_control_whose_text_was_cut_asks_as_too_long_to_judge() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let cut = |facts: TargetFacts| TargetFacts {
            more_text: "word ".repeat(100),
            more_text_cut: true,
            ..facts
        };
        assert_eq!(
            asked(&settings, &click(), &button("Close")),
            Vec::<String>::new()
        );
        assert_eq!(
            asked(&settings, &click(), &cut(button("Close"))),
            ["text_too_long"]
        );
        assert_eq!(
            asked(&settings, &click(), &cut(button("Delete account"))),
            ["risky_click"]
        );
        let field = TargetFacts {
            role: "combobox".into(),
            ..button("Notes")
        };
        assert_eq!(
            asked(&settings, &click(), &cut(field)),
            Vec::<String>::new()
        );
        // Around what is pressed too.
        let around = TargetFacts {
            also_activates: vec![cut(button("Panel"))],
            ..button("Close")
        };
        assert_eq!(asked(&settings, &click(), &around), ["text_too_long"]);
        let reason = AskReason::TextTooLong {
            name: "Close".into(),
        };
        assert_eq!(
            reason.message(),
            "“Close” holds too much text for BAI to read all of it, so it cannot tell what it does"
        );
    }

    /// A name or text read in runs (`runs`: the pieces the page renders apart, which browsers
    /// may join into "keepdelete") is judged as the name is: anywhere for a command, at the
    /// verb position for a field (red team, session 15).
    #[test]
    fn a_name_read_in_runs_is_judged_as_the_name() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let runs = |facts: TargetFacts, runs: &str| TargetFacts {
            runs: vec![runs.into()],
            ..facts
        };
        assert_eq!(
            asked(&settings, &click(), &button("keepdelete")),
            Vec::<String>::new()
        );
        assert_eq!(
            asked(
                &settings,
                &click(),
                &runs(button("keepdelete"), "keep delete")
            ),
            ["risky_click"]
        );
        let field = |name: &str| TargetFacts {
            role: "combobox".into(),
            ..button(name)
        };
        assert_eq!(
            asked(
                &settings,
                &click(),
                &runs(field("deletekeep"), "delete keep")
            ),
            ["risky_click"]
        );
        assert_eq!(
            asked(
                &settings,
                &click(),
                &runs(field("Favouritebook"), "Favourite book")
            ),
            Vec::<String>::new()
        );
    }

    #[test]
    fn ordinary_click_is_allowed_once_per_workflow() {
        let settings = PolicySettings::default();
        assert_eq!(
            review(&settings, &click(), Some(&button("Next page"))),
            Verdict::Allow
        );
    }

    #[test]
    fn risky_words_ask_even_in_auto_mode() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        for name in [
            "Buy now",
            "DELETE account",
            "Place order",
            "Send money",
            "Pay €20",
        ] {
            let verdict = review(&settings, &click(), Some(&button(name)));
            assert!(
                matches!(verdict, Verdict::Ask { .. }),
                "{name}: {verdict:?}"
            );
        }
    }

    #[test]
    fn risky_words_match_whole_words_and_their_endings_only() {
        let settings = PolicySettings::default();
        for name in [
            "Confirm deletion",
            "Continue to payment",
            "Close my account",
            "Removal",
            "Booking",
        ] {
            let verdict = review(&settings, &click(), Some(&button(name)));
            assert!(
                matches!(verdict, Verdict::Ask { .. }),
                "{name}: {verdict:?}"
            );
        }
        for name in [
            "Display settings",
            "Payload viewer",
            "Sender info",
            "Buyer guide",
            "Repay",
        ] {
            assert_eq!(
                review(&settings, &click(), Some(&button(name))),
                Verdict::Allow,
                "{name}"
            );
        }
    }

    #[test]
    fn typing_into_a_password_field_always_asks() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let action = Action::InputText {
            selector: Selector::css("#pw"),
            text: "secret".into(),
        };
        let target = TargetFacts {
            is_password: true,
            ..button("Password")
        };
        assert_eq!(
            review(&settings, &action, Some(&target)),
            Verdict::Ask {
                reasons: vec![AskReason::PasswordField]
            }
        );
    }

    #[test]
    fn an_unchecked_target_asks() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        assert_eq!(
            review(&settings, &click(), None),
            Verdict::Ask {
                reasons: vec![AskReason::TargetUnchecked]
            }
        );
    }

    #[test]
    fn each_action_mode_asks_for_page_actions_but_not_waits() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::EachAction,
            ..Default::default()
        };
        assert!(matches!(
            review(&settings, &click(), Some(&button("Next"))),
            Verdict::Ask { .. }
        ));
        assert_eq!(
            review(&settings, &Action::Wait { ms: 10 }, None),
            Verdict::Allow
        );
    }

    #[test]
    fn edited_word_list_is_used() {
        let settings = PolicySettings {
            risky_words: vec!["launch".into()],
            ..PolicySettings::default()
        };
        assert!(matches!(
            review(&settings, &click(), Some(&button("Launch rocket"))),
            Verdict::Ask { .. }
        ));
        assert_eq!(
            review(&settings, &click(), Some(&button("Buy now"))),
            Verdict::Allow
        );
    }

    #[test]
    fn every_action_that_activates_is_reviewed_like_a_click() {
        use crate::protocol::action::Key;
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let target = Selector::css("#x");
        let activating = [
            Action::PressKey {
                key: Key::Enter,
                selector: Some(target.clone()),
            },
            Action::PressKey {
                key: Key::Space,
                selector: None,
            },
            Action::Check {
                selector: target.clone(),
            },
            Action::Uncheck {
                selector: target.clone(),
            },
            Action::SelectOption {
                selector: target.clone(),
                option: "Monthly".into(),
            },
        ];
        for action in &activating {
            assert!(
                matches!(
                    review(&settings, action, Some(&button("Delete account"))),
                    Verdict::Ask { .. }
                ),
                "{action:?} on a risky target must ask"
            );
            assert_eq!(
                review(&settings, action, None),
                Verdict::Ask {
                    reasons: vec![AskReason::TargetUnchecked]
                },
                "{action:?} on a target nobody could check must ask"
            );
            assert_eq!(
                review(&settings, action, Some(&button("Next"))),
                Verdict::Allow
            );
        }
        // The chosen option counts too.
        let plan = Action::SelectOption {
            selector: target.clone(),
            option: "Pay yearly".into(),
        };
        assert!(matches!(
            review(&settings, &plan, Some(&button("Plan"))),
            Verdict::Ask { .. }
        ));
        // Tab only moves focus.
        let tab = Action::PressKey {
            key: Key::Tab,
            selector: None,
        };
        assert_eq!(review(&settings, &tab, None), Verdict::Allow);
    }

    #[test]
    fn each_action_mode_asks_for_everything_but_reading() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::EachAction,
            ..Default::default()
        };
        let hover = Action::Hover {
            selector: Selector::css("#m"),
        };
        let navigate = Action::Navigate {
            url: "/next".into(),
        };
        for action in [hover, navigate] {
            assert_eq!(
                review(&settings, &action, Some(&button("Menu"))),
                Verdict::Ask {
                    reasons: vec![AskReason::EachActionMode]
                }
            );
        }
        let observe = Action::Observe { max_elements: None };
        assert_eq!(review(&settings, &observe, None), Verdict::Allow);
    }

    #[test]
    fn risky_addresses_ask() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let delete = Action::Navigate {
            url: "/account/delete?confirm=1".into(),
        };
        assert!(matches!(
            review(&settings, &delete, None),
            Verdict::Ask { reasons } if matches!(reasons.as_slice(), [AskReason::RiskyNavigation { word, .. }] if word == "delete")
        ));
        let docs = Action::Navigate {
            url: "/docs/intro".into(),
        };
        assert_eq!(review(&settings, &docs, None), Verdict::Allow);
    }

    #[test]
    fn open_tab_is_judged_as_a_navigation() {
        let auto = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let delete = Action::OpenTab {
            url: "/account/delete?confirm=1".into(),
        };
        assert!(matches!(
            review(&auto, &delete, None),
            Verdict::Ask { reasons } if matches!(reasons.as_slice(), [AskReason::RiskyNavigation { word, .. }] if word == "delete")
        ));
        let docs = Action::OpenTab {
            url: "/docs/intro".into(),
        };
        assert_eq!(review(&auto, &docs, None), Verdict::Allow);
        let each = PolicySettings {
            approval_mode: ApprovalMode::EachAction,
            ..Default::default()
        };
        assert_eq!(
            review(&each, &docs, None),
            Verdict::Ask {
                reasons: vec![AskReason::EachActionMode]
            }
        );
        // Listing the workflow's tabs touches no page.
        assert_eq!(review(&each, &Action::Tabs {}, None), Verdict::Allow);
    }

    /// One review case: what the DOM layer found, and the codes of the reasons expected
    /// (empty: allowed without a question), with the default settings in "never, except for
    /// risky actions" mode.
    struct Case {
        what: &'static str,
        facts: TargetFacts,
        option: &'static str,
        expected: &'static [&'static str],
    }

    #[test]
    fn delete_and_backspace_outside_a_text_field_ask_even_in_auto_mode() {
        use crate::protocol::action::Key;
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let press = |key| Action::PressKey {
            key,
            selector: Some(Selector::css("#x")),
        };
        // Pages bind these keys to deleting what is selected or focused: a row, a message, a
        // list item, the page itself (body).
        for key in [Key::Delete, Key::Backspace] {
            for target in [
                facts("row", "Invoice 42"),
                facts("listitem", "Draft from Ann"),
                facts("", ""),
                facts("generic", "Inbox"),
                facts("gridcell", "12 March"),
                facts("button", "Open"),
            ] {
                let verdict = review(&settings, &press(key), Some(&target));
                let Verdict::Ask { reasons } = verdict else {
                    panic!("{key:?} on {target:?} must ask");
                };
                assert!(
                    matches!(&reasons[..], [AskReason::PageBoundKey { key: k, .. }] if k == key.as_str()),
                    "{reasons:?}"
                );
                assert!(reasons[0].message().contains("not a text field"));
            }
            // Where they edit text, they run: text fields, search boxes, comboboxes, spin
            // buttons.
            for target in [
                facts("textbox", "Note"),
                facts("searchbox", "Search"),
                facts("combobox", "City"),
                facts("spinbutton", "Amount"),
            ] {
                assert_eq!(
                    review(&settings, &press(key), Some(&target)),
                    Verdict::Allow,
                    "{target:?}"
                );
            }
            // A secret field they edit asks: a character at a time, with a form sent after
            // each, they read it (red team red7, session 20).
            let password = TargetFacts {
                is_password: true,
                ..facts("", "Password")
            };
            assert_eq!(
                review(&settings, &press(key), Some(&password)),
                Verdict::Ask {
                    reasons: vec![AskReason::PasswordField]
                }
            );
            // Not found in time: fail closed.
            assert!(matches!(
                review(&settings, &press(key), None),
                Verdict::Ask { reasons } if reasons == [AskReason::TargetUnchecked]
            ));
        }
        // Other keys that only move stay unasked in auto mode.
        for key in [Key::Escape, Key::ArrowDown, Key::Tab, Key::Home] {
            assert_eq!(
                review(&settings, &press(key), Some(&facts("row", "Invoice 42"))),
                Verdict::Allow
            );
        }
    }

    fn facts(role: &str, name: &str) -> TargetFacts {
        TargetFacts {
            description: format!("{role} \"{name}\""),
            name: name.into(),
            role: role.into(),
            ..TargetFacts::default()
        }
    }

    fn run_cases(cases: Vec<Case>) {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        for case in cases {
            let action = if case.option.is_empty() {
                click()
            } else {
                Action::SelectOption {
                    selector: Selector::css("#s"),
                    option: case.option.into(),
                }
            };
            let codes: Vec<String> = match review(&settings, &action, Some(&case.facts)) {
                Verdict::Allow => vec![],
                Verdict::Ask { reasons } => reasons
                    .iter()
                    .map(|r| {
                        serde_json::to_value(r).unwrap()["code"]
                            .as_str()
                            .unwrap()
                            .to_owned()
                    })
                    .collect(),
                other => panic!("no rules here: {other:?}"),
            };
            assert_eq!(codes, case.expected, "{}: {:?}", case.what, case.facts);
        }
    }

    #[test]
    fn false_positives_a_harmless_control_is_not_asked_about() {
        let link = |name: &str, href: &str| TargetFacts {
            destination: Some(href.into()),
            ..facts("link", name)
        };
        run_cases(vec![
            Case {
                what: "a combobox named after a noun",
                facts: facts("combobox", "Favourite book"),
                option: "",
                expected: &[],
            },
            Case {
                what: "choosing a book title",
                facts: facts("combobox", "Favourite book"),
                option: "Dune",
                expected: &[],
            },
            Case {
                what: "a listbox of orders",
                facts: facts("listbox", "Sort orders by"),
                option: "Newest",
                expected: &[],
            },
            Case {
                what: "a search field about deletion",
                facts: facts("searchbox", "Search account deletion help"),
                option: "",
                expected: &[],
            },
            Case {
                what: "a plural noun link",
                facts: link("My orders", "/orders"),
                option: "",
                expected: &[],
            },
            Case {
                what: "a noun after the verb position",
                facts: facts("button", "Show book details"),
                option: "",
                expected: &[],
            },
            Case {
                what: "a words-inside-words button",
                facts: facts("button", "Payload viewer"),
                option: "",
                expected: &[],
            },
            Case {
                what: "a link to a list of books",
                facts: link("Books", "/shop/books?page=2"),
                option: "",
                expected: &[],
            },
            Case {
                what: "a tab about payments",
                facts: facts("tab", "Payment history"),
                option: "",
                expected: &[],
            },
            Case {
                what: "an ordinary submit button to an ordinary address",
                facts: TargetFacts {
                    submits_form: true,
                    destination: Some("https://shop.example/search".into()),
                    ..facts("button", "Search")
                },
                option: "",
                expected: &[],
            },
            Case {
                what: "a nameless checkbox is still a checkbox",
                facts: facts("checkbox", ""),
                option: "",
                expected: &[],
            },
        ]);
    }

    #[test]
    fn false_negatives_a_risky_control_is_asked_about_in_any_form() {
        run_cases(vec![
            Case {
                what: "a verb first",
                facts: facts("button", "Book now"),
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "camelCase",
                facts: facts("button", "deleteAccount"),
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "snake_case",
                facts: facts("button", "delete_account"),
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "kebab-case",
                facts: facts("button", "delete-account"),
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "joined lowercase",
                facts: facts("button", "deleteaccount"),
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "percent-encoded",
                facts: facts("button", "%64elete"),
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "invisible characters",
                facts: facts("button", "De\u{200b}lete"),
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "upper case",
                facts: facts("button", "PLACE ORDER"),
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "a harmless word on a link to a risky address",
                facts: TargetFacts {
                    destination: Some("https://shop.example/account/%64elete?x=1".into()),
                    ..facts("link", "Continue")
                },
                option: "",
                expected: &["risky_destination"],
            },
            Case {
                what: "a harmless submit button whose form goes to a risky address",
                facts: TargetFacts {
                    submits_form: true,
                    destination: Some("https://bank.example/transfer".into()),
                    ..facts("button", "Next")
                },
                option: "",
                expected: &["risky_destination"],
            },
            Case {
                what: "a formaction spelled with joined words",
                facts: TargetFacts {
                    submits_form: true,
                    destination: Some("https://x.example/api/deleteAccount".into()),
                    ..facts("button", "Save")
                },
                option: "",
                expected: &["risky_destination"],
            },
            Case {
                what: "an icon-only Delete button inside a nameless wrapper",
                facts: TargetFacts {
                    inner_names: vec!["Delete".into()],
                    ..facts("", "")
                },
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "a combobox whose name starts with a risky verb",
                facts: facts("combobox", "Delete after"),
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "a role that claims to be a field but submits a form",
                facts: TargetFacts {
                    submits_form: true,
                    ..facts("combobox", "Account deletion")
                },
                option: "",
                expected: &["risky_click"],
            },
            Case {
                what: "a risky option",
                facts: facts("combobox", "Plan"),
                option: "Pay yearly",
                expected: &["risky_click"],
            },
            Case {
                what: "unknown means ask: nothing tells what it does",
                facts: TargetFacts {
                    description: "div.x".into(),
                    ..TargetFacts::default()
                },
                option: "",
                expected: &["unknown_activation"],
            },
        ]);
    }

    #[test]
    fn risky_addresses_ask_in_every_spelling() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        for url in [
            "/account/%64elete",
            "/account/%2564elete",
            "/ACCOUNT/DELETE",
            "/api/deleteAccount",
            "/api/delete_account",
            "/api/delete-account",
            "/checkout",
            "/book?room=2",
        ] {
            let verdict = review(&settings, &Action::Navigate { url: url.into() }, None);
            assert!(matches!(verdict, Verdict::Ask { .. }), "{url}: {verdict:?}");
        }
        for url in ["/books/2", "/orders", "/docs/deletion-policy-faq"] {
            let verdict = review(&settings, &Action::Navigate { url: url.into() }, None);
            // "deletion" is a risky word wherever it stands in an address: only the plural
            // nouns of noun-or-verb words are let through.
            if url.contains("deletion") {
                assert!(matches!(verdict, Verdict::Ask { .. }), "{url}");
            } else {
                assert_eq!(verdict, Verdict::Allow, "{url}");
            }
        }
    }

    #[test]
    fn the_option_really_chosen_is_judged_and_an_unseen_option_asks() {
        let choose = |option: &str| Action::SelectOption {
            selector: Selector::css("#plan"),
            option: option.into(),
        };
        let select = |names: &[&str], unknown: bool| TargetFacts {
            option_names: names.iter().map(|n| (*n).to_owned()).collect(),
            option_unknown: unknown,
            ..facts("combobox", "Plan")
        };
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let codes =
            |action: &Action, target: &TargetFacts| match review(&settings, action, Some(target)) {
                Verdict::Allow | Verdict::AllowedByRule { .. } | Verdict::Deny { .. } => Vec::new(),
                Verdict::Ask { reasons } => reasons
                    .iter()
                    .map(|r| {
                        serde_json::to_value(r).unwrap()["code"]
                            .as_str()
                            .unwrap()
                            .to_owned()
                    })
                    .collect(),
            };
        // Chosen by a harmless value, the option's label (or `label` attribute) is risky.
        assert_eq!(
            codes(&choose("x1"), &select(&["Delete my account"], false)),
            ["risky_click"]
        );
        assert_eq!(
            codes(&choose("2"), &select(&["Yearly", "Pay yearly"], false)),
            ["risky_click"]
        );
        // A harmless option runs.
        assert_eq!(
            codes(&choose("x2"), &select(&["Thirty"], false)),
            Vec::<String>::new()
        );
        // The list does not show its options: the requested text is judged now, the option
        // itself once the list opens (perform.rs `recheck_option` fails closed there).
        assert_eq!(
            codes(&choose("x3"), &select(&[], true)),
            Vec::<String>::new()
        );
        assert_eq!(
            codes(&choose("Delete everything"), &select(&[], true)),
            ["risky_click"]
        );
    }

    /// The codes of the questions `review` asks (none when it allows or denies).
    fn asked(settings: &PolicySettings, action: &Action, target: &TargetFacts) -> Vec<String> {
        match review(settings, action, Some(target)) {
            Verdict::Allow | Verdict::AllowedByRule { .. } | Verdict::Deny { .. } => Vec::new(),
            Verdict::Ask { reasons } => reasons
                .iter()
                .map(|r| {
                    serde_json::to_value(r).unwrap()["code"]
                        .as_str()
                        .unwrap()
                        .to_owned()
                })
                .collect(),
        }
    }

    #[test]
    fn input_text_and_keys_that_choose_are_judged_by_the_option_they_choose() {
        use crate::protocol::action::Key;
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let chooses = |role: &str, name: &str, option: &[&str], unknown: bool| TargetFacts {
            option_names: option.iter().map(|n| (*n).to_owned()).collect(),
            option_unknown: unknown,
            chooses: true,
            ..facts(role, name)
        };
        let typed = Action::InputText {
            selector: Selector::css("#bulk-action-selector-top"),
            text: "delete".into(),
        };
        // WordPress's bulk action: the text "delete" chooses "Delete permanently".
        let bulk = chooses(
            "combobox",
            "Select bulk action",
            &["Delete permanently"],
            false,
        );
        assert_eq!(asked(&settings, &typed, &bulk), ["risky_click"]);
        assert_eq!(
            asked(
                &settings,
                &typed,
                &chooses("combobox", "Select bulk action", &["Restore"], false)
            ),
            Vec::<String>::new()
        );
        let press = |key: Key| Action::PressKey {
            key,
            selector: Some(Selector::css("#auto")),
        };
        for key in [Key::ArrowDown, Key::ArrowUp] {
            assert_eq!(
                asked(
                    &settings,
                    &press(key),
                    &chooses("combobox", "Account status", &["Close account"], false)
                ),
                ["risky_click"]
            );
        }
        // A radio's arrow key chooses the next radio of its group.
        assert_eq!(
            asked(
                &settings,
                &press(Key::ArrowRight),
                &chooses("radio", "Keep my data", &["Delete my data"], false)
            ),
            ["risky_click"]
        );
        // Which option a custom list's own handlers choose cannot be told: ask, and no rule
        // waives it.
        for key in [
            Key::ArrowDown,
            Key::Home,
            Key::End,
            Key::PageDown,
            Key::Space,
        ] {
            assert!(
                asked(
                    &settings,
                    &press(key),
                    &chooses("listbox", "Status", &[], true)
                )
                .contains(&"unknown_choice".to_owned()),
                "{key:?}"
            );
        }
        let allow_keys = PolicySettings {
            site: Some("https://a.test".into()),
            rules: vec![ApprovalRule {
                id: String::new(),
                site: "https://a.test".into(),
                actions: vec!["press_key".into()],
                name: String::new(),
                verdict: RuleVerdict::Allow,
                expires_at_ms: None,
            }],
            ..settings.clone()
        };
        assert_eq!(
            asked(
                &allow_keys,
                &press(Key::End),
                &chooses("listbox", "Status", &[], true)
            ),
            ["unknown_choice"]
        );
        // Without the fact (a key that chooses nothing), arrows still only move.
        assert_eq!(
            asked(
                &settings,
                &press(Key::ArrowDown),
                &facts("combobox", "Status")
            ),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_key_in_a_custom_list_asks_only_when_an_option_it_may_choose_is_risky() {
        use crate::protocol::action::Key;
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let list = |options: &[(&str, &str)]| TargetFacts {
            chooses: true,
            may_choose: options
                .iter()
                .map(|(role, name)| facts(role, name))
                .collect(),
            ..facts("combobox", "Search")
        };
        let arrow = Action::PressKey {
            key: Key::ArrowDown,
            selector: Some(Selector::css("#q")),
        };
        assert_eq!(
            asked(
                &settings,
                &arrow,
                &list(&[("option", "Shoes"), ("option", "Shirts")])
            ),
            Vec::<String>::new()
        );
        // A nameless option is no reason by itself.
        assert_eq!(
            asked(&settings, &arrow, &list(&[("", ""), ("option", "Shirts")])),
            Vec::<String>::new()
        );
        for risky in [
            ("option", "Delete account"),
            ("menuitem", "Account deletion: delete"),
        ] {
            assert_eq!(
                asked(&settings, &arrow, &list(&[("option", "Shoes"), risky])),
                ["unknown_choice"],
                "{risky:?}"
            );
        }
        // An option that is a link to a risky address counts too.
        let link = TargetFacts {
            destination: Some("https://a.test/account/delete".into()),
            ..facts("menuitem", "Account")
        };
        let mut by_address = list(&[]);
        by_address.may_choose.push(link);
        assert_eq!(asked(&settings, &arrow, &by_address), ["unknown_choice"]);
        let mut by_download = list(&[("option", "Report")]);
        by_download.may_choose[0].downloads = true;
        assert_eq!(asked(&settings, &arrow, &by_download), ["unknown_choice"]);
        // An option named "keepdelete" by markup that shows "keep" and "delete" apart: its
        // name read in runs counts.
        let mut glued = list(&[("option", "keepdelete")]);
        assert_eq!(asked(&settings, &arrow, &glued), Vec::<String>::new());
        glued.may_choose[0].runs = vec!["keep delete".into()];
        assert_eq!(asked(&settings, &arrow, &glued), ["unknown_choice"]);
    }

    #[test]
    fn a_download_link_asks_and_only_a_rule_for_that_link_waives_it() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            site: Some("https://a.test".into()),
            ..Default::default()
        };
        let click = Action::Click {
            selector: Selector::css("#dl"),
        };
        let download = TargetFacts {
            downloads: true,
            destination: Some("https://a.test/files/report.csv".into()),
            ..facts("link", "Report")
        };
        assert_eq!(asked(&settings, &click, &download), ["downloads_file"]);
        let Verdict::Ask { reasons } = review(&settings, &click, Some(&download)) else {
            panic!("a download asks");
        };
        assert_eq!(
            reasons[0].message(),
            "it follows the download link “Report”, which saves a file on your computer"
        );
        // A button inside a download link: the link around it downloads.
        let inside = TargetFacts {
            also_activates: vec![download.clone()],
            ..facts("button", "Open")
        };
        assert_eq!(asked(&settings, &click, &inside), ["downloads_file"]);
        assert_eq!(
            asked(&settings, &click, &facts("link", "Report")),
            Vec::<String>::new()
        );
        let allow = |name: &str| PolicySettings {
            rules: vec![ApprovalRule {
                id: String::new(),
                site: "https://a.test".into(),
                actions: vec!["click".into()],
                name: name.into(),
                verdict: RuleVerdict::Allow,
                expires_at_ms: None,
            }],
            ..settings.clone()
        };
        assert!(matches!(
            review(&allow("\"Report\""), &click, Some(&download)),
            Verdict::AllowedByRule { .. }
        ));
        // A rule for the button does not cover the link around it.
        assert!(matches!(
            review(&allow("\"Open\""), &click, Some(&inside)),
            Verdict::Ask { .. }
        ));
    }

    #[test]
    fn enter_left_to_the_page_asks_unless_an_allow_rule_covers_it() {
        use crate::protocol::action::Key;
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            site: Some("https://chat.test".into()),
            ..Default::default()
        };
        let enter = Action::PressKey {
            key: Key::Enter,
            selector: Some(Selector::css("#composer")),
        };
        let composer = TargetFacts {
            enter_left_to_page: true,
            description: "div#composer".into(),
            ..facts("textbox", "Message #general")
        };
        assert_eq!(asked(&settings, &enter, &composer), ["enter_may_send"]);
        let Verdict::Ask { reasons } = review(&settings, &enter, Some(&composer)) else {
            panic!("Enter in a message box must ask");
        };
        assert_eq!(
            reasons[0].message(),
            "Enter in div#composer may send or submit what it holds; BAI cannot tell what the page does with it"
        );
        // A single-line field of a form: its default button is judged (the facts are the
        // button's), nothing more.
        assert_eq!(
            asked(&settings, &enter, &facts("button", "Search")),
            Vec::<String>::new()
        );
        // Other keys in the message box do not ask.
        let tab = Action::PressKey {
            key: Key::Tab,
            selector: Some(Selector::css("#composer")),
        };
        assert_eq!(asked(&settings, &tab, &composer), Vec::<String>::new());
        // The user's allow rule for press_key on this message box covers it.
        let allowed = PolicySettings {
            rules: vec![ApprovalRule {
                id: String::new(),
                site: "https://chat.test".into(),
                actions: vec!["press_key".into()],
                name: "Message #general".into(),
                verdict: RuleVerdict::Allow,
                expires_at_ms: None,
            }],
            ..settings.clone()
        };
        assert!(matches!(
            review(&allowed, &enter, Some(&composer)),
            Verdict::AllowedByRule { .. }
        ));
    }

    #[test]
    fn rate_limiter_caps_per_minute_and_per_workflow() {
        let settings = PolicySettings {
            max_actions_per_minute: 3,
            max_actions_per_workflow: 4,
            ..Default::default()
        };
        let mut limiter = RateLimiter::default();
        for t in 0..3 {
            limiter.admit(&settings, "w", t).unwrap();
        }
        assert_eq!(
            limiter.admit(&settings, "w", 10).unwrap_err().code(),
            "rate_limited"
        );
        // A minute later the window has room again, but the workflow cap is 4.
        limiter.admit(&settings, "w", 61_000).unwrap();
        assert_eq!(
            limiter.admit(&settings, "w", 61_001).unwrap_err().code(),
            "action_limit_reached"
        );
        // Another workflow has its own count.
        limiter.admit(&settings, "other", 61_002).unwrap();
    }

    /// Risky verbs in other languages, after the verb position, and the false friends that
    /// must stay quiet: `(role, name, option chosen, asks)`.
    #[test]
    fn risky_words_in_other_languages_and_anywhere_in_a_short_choice() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let table: &[(&str, &str, &str, bool)] = &[
            // Found by the red team: no question before session 11.
            ("button", "Konto löschen", "", true),
            ("button", "Zahlungspflichtig bestellen", "", true),
            ("button", "Supprimer le compte", "", true),
            ("button", "Empty trash", "", true),
            // The same verbs, other languages and spellings.
            ("button", "KONTO LÖSCHEN", "", true),
            ("button", "Konto lo\u{308}schen", "", true),
            ("button", "Jetzt kaufen", "", true),
            ("button", "Passer commande", "", true),
            ("button", "Eliminar cuenta", "", true),
            ("button", "Vaciar papelera", "", true),
            ("button", "Elimina account", "", true),
            ("button", "Svuota cestino", "", true),
            ("button", "Excluir conta", "", true),
            ("button", "Account verwijderen", "", true),
            ("button", "Empty the bin", "", true),
            ("menuitem", "Permanently delete", "", true),
            // A choice: the verb counts anywhere in a short name (verb last in German).
            ("option", "Permanently delete", "", true),
            ("radio", "Für immer löschen", "", true),
            ("tab", "Konto löschen", "", true),
            ("treeitem", "Papierkorb leeren", "", true),
            ("combobox", "Bulk actions", "Permanently delete", true),
            ("combobox", "Aktion", "Auswahl löschen", true),
            // Undone or negated: the page's words may not make a risky verb safe (a hidden
            // "Don't" reads so too; see `words`), so these ask.
            ("button", "Undo delete", "", true),
            ("button", "Undo send", "", true),
            ("button", "Don't delete", "", true),
            ("button", "Nicht löschen", "", true),
            // Nouns and descriptions, not commands.
            ("button", "Move to trash", "", false),
            ("treeitem", "Deleted items", "", false),
            ("tab", "Payment history", "", false),
            ("tab", "Bestellungen", "", false),
            ("link", "Mis compras", "", false),
            ("link", "Abonnement", "", false),
            ("textbox", "Amount to pay", "", false),
            ("combobox", "Mail folder", "Deleted items", false),
            (
                "radio",
                "Keep my messages for 30 days and then delete them",
                "",
                false,
            ),
        ];
        for &(role, name, option, asks) in table {
            let action = if option.is_empty() {
                click()
            } else {
                Action::SelectOption {
                    selector: Selector::css("#s"),
                    option: option.into(),
                }
            };
            let verdict = review(&settings, &action, Some(&facts(role, name)));
            assert_eq!(
                matches!(verdict, Verdict::Ask { .. }),
                asks,
                "{role} {name:?} {option:?}: {verdict:?}"
            );
        }
        // The question quotes a word of another language instead of "it will löschen".
        let Verdict::Ask { reasons } = review(&settings, &click(), Some(&button("Konto löschen")))
        else {
            panic!("Konto löschen asks");
        };
        assert_eq!(
            reasons[0].message(),
            "the button “Konto löschen” has “löschen” in it, a risky word (pay, buy, delete, send…)"
        );
    }

    /// A form sent by GET puts its fields into the address, which the model reads back: a
    /// secret field in it asks, whatever the mode and whatever the button is called, and an
    /// allow rule cannot waive it.
    #[test]
    fn a_get_form_with_a_secret_field_asks_and_no_rule_waives_it() {
        let settings = PolicySettings {
            approval_mode: ApprovalMode::Auto,
            ..Default::default()
        };
        let sign_in = TargetFacts {
            submits_form: true,
            sends_secret_in_address: true,
            destination: Some("https://site.example/login".into()),
            ..facts("button", "Sign in")
        };
        let enter = Action::PressKey {
            key: crate::protocol::action::Key::Enter,
            selector: Some(Selector::css("#email")),
        };
        for action in [click(), enter] {
            let Verdict::Ask { reasons } = review(&settings, &action, Some(&sign_in)) else {
                panic!("{action:?} must ask");
            };
            assert_eq!(reasons, vec![AskReason::SecretInAddress]);
            assert_eq!(
                serde_json::to_value(&reasons[0]).unwrap()["code"],
                "secret_in_address"
            );
            assert_eq!(
                reasons[0].message(),
                "it sends the form by GET, which puts what the secret field holds into the address"
            );
        }
        // The same button of a POST form (or one without a secret field) asks nothing.
        let plain = TargetFacts {
            sends_secret_in_address: false,
            ..sign_in.clone()
        };
        assert_eq!(review(&settings, &click(), Some(&plain)), Verdict::Allow);
        // The user's allow rule for the site does not waive it.
        let allowing = PolicySettings {
            rules: vec![ApprovalRule {
                id: "r".into(),
                site: "https://site.example".into(),
                actions: vec!["click".into()],
                name: String::new(),
                verdict: RuleVerdict::Allow,
                expires_at_ms: None,
            }],
            site: Some("https://site.example".into()),
            ..settings
        };
        assert!(matches!(
            review(&allowing, &click(), Some(&sign_in)),
            Verdict::Ask { .. }
        ));
    }
}
