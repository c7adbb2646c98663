import NIOCore
import PathwatchDigest
import PathwatchHTTPSinkSettings
import PathwatchSinkKit

/// `/`: the status page with a Content-Security-Policy that allows exactly its own inline style
/// and script (by SHA-256), its own origin for `/events`, and nothing else: no external asset,
/// no other script, no framing.
///
/// The hashes are computed from the texts the first time the page is asked for (libcrypto,
/// loaded then, as the webhook sink loads it), so nothing is written down that a change to the
/// page would have to record again, and an agent whose page nobody opens maps no crypto library.
enum StatusPageResponse {
    static let reply: HTTPReply = {
        guard let script = hash(StatusPage.script), let style = hash(StatusPage.style) else {
            return .plain(
                .internalServerError,
                "the status page needs OpenSSL's libcrypto (libcrypto.so.3), which cannot be loaded\n")
        }
        let policy = [
            "default-src 'none'",
            "script-src '\(script)'",
            "style-src '\(style)'",
            "connect-src 'self'",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
        return .text(
            .ok, StatusPage.html, contentType: "text/html; charset=utf-8",
            extra: [("Content-Security-Policy", policy), ("X-Frame-Options", "DENY")])
    }()

    /// A Content-Security-Policy source: base64 of the text's SHA-256.
    static func hash(_ text: String) -> String? {
        Digest.sha256(Array(text.utf8)).map { "sha256-" + Base64.encode($0) }
    }
}
