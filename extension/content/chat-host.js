// Runs before loader.js on the manifest's built-in chat hosts (ChatGPT and the local hosts): the
// content script loads the chat role's module at once instead of first asking the background
// which role the page may run (a round trip at every start-up). Only a hint for which module to
// load: the chat module still decides in Rust whether the page may run the chat role
// (crate/src/sites.rs, chat_page_status), and a page that may not gets the executor only. Content
// scripts run in an isolated world: the page cannot set this.
globalThis.__baiBuiltInChatHost = true;
