//! Commands typed into the guest's shell, one at a time, and their output:
//! the shell's own lines (`shell: ...`) after the echo of the command, up
//! to its next prompt. Other tasks' lines in between are left out, since
//! the kernel starts every line with its writer's name.

use std::time::Duration;

use super::machine::Machine;

/// The prefix of the shell's console lines.
const SHELL: &str = "shell: ";

/// Whether `line` is a shell prompt (`shell: / $ ` and what was typed
/// after it; the directory is `?` while the file server restarts).
pub fn is_prompt(line: &str) -> bool {
    let Some(rest) = line.strip_prefix(SHELL) else {
        return false;
    };
    match rest.split_once(" $") {
        Some((dir, after)) => {
            !dir.is_empty()
                && !dir.contains(char::is_whitespace)
                && (after.is_empty() || after.starts_with(' '))
        }
        None => false,
    }
}

/// The shell's output for a command typed when the console's last line
/// started at byte 0 of `text`, once its next prompt is out: `None` while
/// it is not. The echo may be split over several lines (another task's
/// line can come between two of the shell's reads); the output starts
/// after the line that completes it.
fn output_after(text: &str, command: &str) -> Option<Vec<String>> {
    let mut lines = text
        .lines()
        .filter_map(|l| l.strip_prefix(SHELL))
        .peekable();
    let mut echo = String::new();
    while !echo.trim_end().ends_with(command.trim()) {
        let line = lines.next()?;
        let typed = match line.split_once(" $") {
            Some((_, after)) if is_prompt(&format!("{SHELL}{line}")) => after.trim_start(),
            _ => line,
        };
        echo.push_str(typed);
    }
    // The echoed newline can come on a line of its own (an empty one)
    // when another task's line came between the command and it.
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        if is_prompt(&format!("{SHELL}{l}")) {
            return Some(out);
        }
        if !(out.is_empty() && l.trim().is_empty()) {
            out.push(l.to_owned());
        }
    }
    None
}

/// Types `command` and returns its output lines (without the prefix), or
/// an error if the next prompt did not come within `timeout`.
pub fn run(m: &mut Machine, command: &str, timeout: Duration) -> Result<Vec<String>, String> {
    let from = m.line_start();
    m.type_line(command)?;
    let mut out = None;
    m.wait(from, timeout, |t| {
        out = output_after(t, command);
        out.is_some()
    });
    out.ok_or_else(|| {
        format!(
            "the shell gave no prompt within {} s after `{command}` (stuck?)",
            timeout.as_secs()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_are_told_from_output() {
        assert!(is_prompt("shell: / $ "));
        assert!(is_prompt("shell: ? $ ls"));
        assert!(is_prompt("shell: /d $"));
        assert!(!is_prompt("shell:   0  init  ipc"));
        assert!(!is_prompt("httpd: / $ "));
        assert!(!is_prompt("shell: a b $ c"));
    }

    #[test]
    fn output_runs_from_the_echo_to_the_next_prompt() {
        let t =
            "shell: / $ \nwriter: round 3\nshell: df\nshell:   KiB\nfs: x\nshell: 1 2\nshell: / $ ";
        assert_eq!(
            output_after(t, "df"),
            Some(vec!["  KiB".to_owned(), "1 2".to_owned()])
        );
        assert_eq!(output_after("shell: / $ df\nshell: a\n", "df"), None);
        let split = "shell: / $ flow st\nwriter: x\nshell: ats 256\nwriter: y\nshell: \nshell:   sink: 1\nshell: / $ ";
        assert_eq!(
            output_after(split, "flow stats 256"),
            Some(vec!["  sink: 1".to_owned()])
        );
        assert_eq!(
            output_after("shell: / $ ps\nshell: / $ ", "ps"),
            Some(vec![])
        );
    }
}
