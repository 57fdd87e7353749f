//! The one error type of the generator: a message that names the place (file and
//! line), the family or module, and the problem. `Display` is what the build prints.

use std::fmt;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The file the problem is in (usually `catalog.toml`, or a template).
    pub file: String,
    /// 1-based line in `file`, when known.
    pub line: Option<usize>,
    /// `family `x``, `module `y`` or empty.
    pub context: String,
    pub message: String,
}

impl Error {
    pub fn new(
        file: &Path,
        line: Option<usize>,
        context: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error {
            file: file.display().to_string(),
            line,
            context: context.into(),
            message: message.into(),
        }
    }
    /// An error with no catalog place (set-up problems such as a missing NVRTC).
    pub fn plain(message: impl Into<String>) -> Self {
        Error {
            file: String::new(),
            line: None,
            context: String::new(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.file.is_empty() {
            write!(f, "{}", self.file)?;
            if let Some(l) = self.line {
                write!(f, ":{l}")?;
            }
            write!(f, ": ")?;
        }
        if !self.context.is_empty() {
            write!(f, "{}: ", self.context)?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// 1-based line of a byte offset in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The full chain of an error's sources, joined (tera puts the useful part in `source`).
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}
