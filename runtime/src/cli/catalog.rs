//! `ninfer catalog` (owner: codegen work). Placeholder until implemented.
