//! The page, built into the binary: plain HTML, CSS and JavaScript (the board is SVG drawn by
//! the script), no build step and nothing fetched from the network.

/// The page.
pub const INDEX: &str = include_str!("assets/index.html");
/// Its script.
pub const JS: &str = include_str!("assets/app.js");
/// Its style.
pub const CSS: &str = include_str!("assets/app.css");
