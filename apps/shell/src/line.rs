//! Reading command lines from the console.
//!
//! Two ways in. Through a pipe (`printf 'ls\n' | cargo make run`, or a
//! test's `input`) lines end with LF and nobody answers terminal queries,
//! so lines are read plainly and echoed, so the transcript shows each
//! command. A terminal in raw mode sends CR for Enter: once a line ends
//! with CR, the shell knows a terminal is there and hands the following
//! lines to `noline`, which gives editing and history (it asks the
//! terminal where the cursor is, which only a terminal can answer). The
//! plain reader still handles backspace and Ctrl-C, so the first line
//! typed at a terminal can be corrected too.

use alloc::string::String;
use conflux_userlib::console::Input;
use conflux_userlib::{print, println};
use noline::builder::EditorBuilder;

/// The longest command line (bytes). A longer one read plainly is refused
/// whole with a line saying so: cut short, it could name another file.
const LINE_MAX: usize = 1024;
/// History entries noline keeps (bytes of its ring).
const HISTORY_BYTES: usize = 4096;

/// The console as embedded-io wants it: reads block until a byte is typed.
pub struct Console {
    input: Input,
    pending: [u8; 8],
    start: usize,
    end: usize,
    /// The last byte written was LF.
    after_lf: bool,
}

/// A console read that failed: the kernel refused `console_read`.
#[derive(Debug)]
pub struct ConsoleError;

impl embedded_io::Error for ConsoleError {
    fn kind(&self) -> embedded_io::ErrorKind {
        embedded_io::ErrorKind::Other
    }
}

impl embedded_io::ErrorType for Console {
    type Error = ConsoleError;
}

impl embedded_io::Read for Console {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ConsoleError> {
        if buf.is_empty() {
            return Ok(0);
        }
        buf[0] = self.byte()?;
        Ok(1)
    }
}

impl embedded_io::Write for Console {
    /// Writes noline's output, less each CR right after a LF: the kernel
    /// already ends lines with CR LF, and a CR opening the next line would
    /// put the cursor back over the kernel's `shell: ` prefix.
    fn write(&mut self, buf: &[u8]) -> Result<usize, ConsoleError> {
        let mut rest = buf;
        while !rest.is_empty() {
            if self.after_lf && rest[0] == b'\r' {
                rest = &rest[1..];
                self.after_lf = false;
                continue;
            }
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |i| i + 1);
            conflux_userlib::sys::debug_write(&rest[..end]).map_err(|_| ConsoleError)?;
            self.after_lf = rest[end - 1] == b'\n';
            rest = &rest[end..];
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> Result<(), ConsoleError> {
        Ok(())
    }
}

impl Console {
    pub fn new(input: Input) -> Self {
        Self {
            input,
            pending: [0; 8],
            start: 0,
            end: 0,
            after_lf: true,
        }
    }

    /// The next typed byte, waiting for it.
    pub fn byte(&mut self) -> Result<u8, ConsoleError> {
        if self.start == self.end {
            self.end = self
                .input
                .read(&mut self.pending)
                .map_err(|_| ConsoleError)?;
            self.start = 0;
        }
        let b = self.pending[self.start];
        self.start += 1;
        Ok(b)
    }

    pub fn input(&self) -> &Input {
        &self.input
    }
}

type Editor = noline::sync_editor::Editor<
    noline::line_buffer::SliceBuffer<'static>,
    noline::history::SliceHistory<'static>,
>;

/// Reads lines, plainly until a terminal shows itself.
pub struct Lines {
    console: Console,
    editor: Option<Editor>,
    /// The previous line ended with CR: a LF right after it is its pair.
    after_cr: bool,
}

impl Lines {
    pub fn new(console: Console) -> Self {
        Self {
            console,
            editor: None,
            after_cr: false,
        }
    }

    pub fn console(&self) -> &Console {
        &self.console
    }

    /// The next line, without its end; `prompt` is printed first.
    pub fn read(&mut self, prompt: &str) -> Result<String, ConsoleError> {
        if let Some(editor) = self.editor.as_mut() {
            // The kernel starts the line with `shell: `; CR goes back over
            // it and noline's prompt, which repeats it, is drawn in its
            // place, so noline's idea of the line is what is on screen.
            print!("\r");
            let prompt = alloc::format!("{}: {prompt}", crate::config::TASK_NAME);
            match editor.readline(prompt.as_str(), &mut self.console) {
                Ok(line) => return Ok(String::from(line)),
                // Ctrl-C or Ctrl-D: an empty line, as a shell does.
                Err(noline::error::NolineError::Aborted) => {
                    print!("\n");
                    return Ok(String::new());
                }
                Err(_) => return Err(ConsoleError),
            }
        }
        print!("{prompt}");
        let (line, ended_by_cr) = self.plain()?;
        if ended_by_cr {
            self.start_editor();
        }
        Ok(line)
    }

    /// One line read byte by byte, echoed; whether it ended with CR. A
    /// line past [`LINE_MAX`] is read to its end, not echoed past the
    /// limit, and returned empty after a line that says why.
    fn plain(&mut self) -> Result<(String, bool), ConsoleError> {
        let mut line = String::new();
        let mut over = 0usize;
        let mut escape = Escape::None;
        loop {
            let b = self.console.byte()?;
            let after_cr = core::mem::replace(&mut self.after_cr, false);
            escape = match escape.next(b) {
                Some(state) => {
                    escape = state;
                    continue;
                }
                None => Escape::None,
            };
            match b {
                b'\n' if after_cr && line.is_empty() => {}
                b'\r' | b'\n' => {
                    self.after_cr = b == b'\r';
                    print!("\n");
                    if over > 0 {
                        println!("that line is {} bytes, longer than the {LINE_MAX} a command may have: not run", LINE_MAX + over);
                        line.clear();
                    }
                    return Ok((line, b == b'\r'));
                }
                0x08 | 0x7f if over > 0 => over -= 1,
                0x08 | 0x7f => erase_last(&mut line),
                0x03 => {
                    print!("^C\n");
                    return Ok((String::new(), false));
                }
                0x1b => escape = Escape::Started,
                b if (0x20..0x7f).contains(&b) && line.len() < LINE_MAX => {
                    line.push(b as char);
                    print!("{}", b as char);
                }
                b if (0x20..0x7f).contains(&b) => over += 1,
                _ => {} // other control bytes and non-ASCII: ignored
            }
        }
    }

    /// Switches to noline for the lines after this one.
    fn start_editor(&mut self) {
        // The buffers live as long as the shell: leaked once, on purpose.
        let buffer = alloc::vec![0u8; LINE_MAX].leak();
        let history = alloc::vec![0u8; HISTORY_BYTES].leak();
        self.editor = EditorBuilder::from_slice(buffer)
            .with_slice_history(history)
            .build_sync(&mut self.console)
            .ok();
    }
}

/// Backspace: the last character goes, on the screen too.
fn erase_last(line: &mut String) {
    if line.pop().is_some() {
        print!("\x08 \x08");
    }
}

/// Skipping a terminal escape sequence (arrow keys and the like) that the
/// plain reader cannot act on.
#[derive(Clone, Copy)]
enum Escape {
    None,
    /// ESC seen.
    Started,
    /// ESC [ seen: parameters until a final byte (0x40..=0x7e).
    Csi,
}

impl Escape {
    /// The state after `b`, or `None` when `b` is not part of a sequence.
    fn next(self, b: u8) -> Option<Self> {
        match self {
            Self::None => None,
            Self::Started if b == b'[' || b == b'O' => Some(Self::Csi),
            Self::Started => Some(Self::None),
            Self::Csi if (0x40..=0x7e).contains(&b) => Some(Self::None),
            Self::Csi => Some(Self::Csi),
        }
    }
}
