//! Splitting a command line into words, with quotes and redirection.
//!
//! Words are separated by blanks; `'…'` and `"…"` keep blanks (and each
//! other's quote) inside one word. `> FILE` and `>> FILE` at the end send
//! the command's output to a file (only `echo` writes its output there;
//! other commands refuse a redirection rather than ignore it).

use alloc::string::String;
use alloc::vec::Vec;

/// Where a command's output goes.
#[derive(Debug, PartialEq, Eq)]
pub enum Redirect {
    None,
    /// `> FILE`: the file is created or emptied first.
    Truncate(String),
    /// `>> FILE`: written at the end of the file.
    Append(String),
}

/// A parsed command line.
#[derive(Debug, PartialEq, Eq)]
pub struct Line {
    pub words: Vec<String>,
    pub redirect: Redirect,
}

/// Splits `text`, or says what is wrong with it.
pub fn split(text: &str) -> Result<Line, &'static str> {
    let mut words = Vec::new();
    let mut ops = Vec::new(); // (index in words, append?)
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&c) = chars.peek() else { break };
        if c == '>' {
            chars.next();
            let append = chars.next_if_eq(&'>').is_some();
            ops.push((words.len(), append));
            continue;
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || c == '>' {
                break;
            }
            chars.next();
            if c == '\'' || c == '"' {
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(other) => word.push(other),
                        None => return Err("a quote is not closed"),
                    }
                }
            } else {
                word.push(c);
            }
        }
        words.push(word);
    }
    let redirect = match ops.as_slice() {
        [] => Redirect::None,
        [(at, append)] if *at + 1 == words.len() && *at > 0 => {
            let file = words.pop().unwrap_or_default();
            if *append {
                Redirect::Append(file)
            } else {
                Redirect::Truncate(file)
            }
        }
        [_] => return Err("`>` and `>>` take one file name, at the end of the line"),
        _ => return Err("only one `>` or `>>` per line"),
    };
    Ok(Line { words, redirect })
}
