import PathwatchAgent
import NIOCore

/// `/`: the status page with a Content-Security-Policy that allows exactly its own inline style
/// and script (by SHA-256), its own origin for `/events`, and nothing else: no external asset,
/// no other script, no framing.
struct StatusPageResponse: Sendable {
    let reply: HTTPReply

    init() {
        let policy = [
            "default-src 'none'",
            "script-src '\(Self.scriptHash)'",
            "style-src '\(Self.styleHash)'",
            "connect-src 'self'",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
        reply = .text(
            .ok, StatusPage.html, contentType: "text/html; charset=utf-8",
            extra: [("Content-Security-Policy", policy), ("X-Frame-Options", "DENY")])
    }

    /// SHA-256 of `StatusPage.script` and `StatusPage.style`, written out rather than computed
    /// at start, so serving the page needs no cryptography library in the process. A unit test
    /// (`StatusPageHashTests`) recomputes both and fails, printing the new value, when either
    /// text changes; the browser test would see the page blocked.
    static let scriptHash = "sha256-qhWFUm0M5R3nefM96R4AReZEMVry1xCoWSYTIButz0k="
    static let styleHash = "sha256-1Y09XjTGemlshbu5LkErYcBlnt8AqTnjTZA7QBHgT7o="
}
