//! Control characters made visible. Text that came from outside (URLs,
//! header values, reasons built from them) is written to the log, the
//! monitor and the listings; a raw escape there would rewrite an
//! administrator's terminal, and a raw newline or tab would split a line
//! or a TSV field. Every such output passes through [`controls`].

use std::borrow::Cow;
use std::fmt::Write;

/// True for a C0 control, DEL or a C1 control.
pub fn is_control(c: char) -> bool {
    matches!(c, '\0'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}')
}

/// `s` with every control character (C0, DEL, C1) written as an escape:
/// `\x1b` for those below 0x80, `\u{9b}` for the C1 ones. Newline and tab
/// are escaped too: the result is one line and one TSV field. Borrowed
/// when there is nothing to escape.
pub fn controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !is_control(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

/// A JSON text with DEL and the C1 controls, which JSON allows raw in
/// strings, written as `\u` escapes too (C0 controls are escaped by every
/// JSON writer). Outside strings JSON holds no such characters, so the
/// text stays the same JSON.
pub fn json_controls(json: String) -> String {
    if !json.chars().any(is_control) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        if is_control(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_the_rest_kept() {
        assert!(matches!(controls("plain ž text"), Cow::Borrowed(_)));
        assert_eq!(
            controls("a\x1b[2Jb\tc\nd\re\x7ff\u{9b}g\u{a0}h\\"),
            "a\\x1b[2Jb\\x09c\\x0ad\\x0de\\x7ff\\u{9b}g\u{a0}h\\"
        );
        let j = serde_json::json!({ "s": "a\x1b\x7f\u{9b}ž" }).to_string();
        let safe = json_controls(j);
        assert_eq!(safe, r#"{"s":"a\u001b\u007f\u009bž"}"#);
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["s"], "a\x1b\x7f\u{9b}ž");
    }
}
