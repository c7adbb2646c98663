import Crypto
import NIOCore

/// `/`: the status page with a Content-Security-Policy that allows exactly its own inline style
/// and script (by SHA-256), its own origin for `/events`, and nothing else: no external asset,
/// no other script, no framing.
struct StatusPageResponse: Sendable {
    let reply: HTTPReply

    init() {
        let policy = [
            "default-src 'none'",
            "script-src '\(Self.hash(StatusPage.script))'",
            "style-src '\(Self.hash(StatusPage.style))'",
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

    static func hash(_ text: String) -> String {
        "sha256-" + Base64.encode(Array(SHA256.hash(data: Array(text.utf8))))
    }
}
