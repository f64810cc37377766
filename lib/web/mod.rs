//! The web: URLs and their normal form, HTTP transfers and header checks,
//! robots.txt, the politeness policy and link extraction. Uses `document`
//! (the tokenizer, for links) and `error`.

pub mod address;
pub mod admit;
pub mod http;
pub mod links;
pub mod partition;
pub mod politeness;
pub mod robots;
pub mod scope;
pub mod url;
