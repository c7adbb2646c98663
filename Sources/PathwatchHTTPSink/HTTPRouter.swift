import PathwatchAgent
import NIOCore
import NIOHTTP1

/// Which endpoint a request asks for, and whether it may (SPEC §8). Answers are rendered from
/// the hub's latest document, never by sampling: they cost the agent nothing.
struct HTTPRouter: Sendable {
    enum Route {
        case reply(HTTPReply)
        /// `/events`: a Server-Sent Events stream, resuming after the event with this id.
        case stream(lastEventID: String?)
    }

    let hub: LiveHub
    /// `Bearer <token>` as bytes, compared in constant time.
    let expectedAuthorization: [UInt8]?

    init(hub: LiveHub, token: String?) {
        self.hub = hub
        self.expectedAuthorization = token.map { Array("Bearer \($0)".utf8) }
    }

    func route(_ head: HTTPRequestHead) -> Route {
        let path = Self.path(of: head.uri)
        if path == "/healthz" { return .reply(.plain(.ok, "ok\n")) }
        guard authorized(head.headers) else {
            return .reply(.plain(.unauthorized, "a bearer token is required\n", extra: [("WWW-Authenticate", "Bearer realm=\"pathwatch\"")]))
        }
        switch path {
        case "/":
            return .reply(StatusPageResponse.reply)
        case "/status":
            guard let text = hub.documentText() else { return .reply(.plain(.serviceUnavailable, "no report yet\n", extra: [("Retry-After", "1")])) }
            return .reply(.text(.ok, text + "\n", contentType: "application/json"))
        case "/metrics":
            return .reply(.text(.ok, hub.metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
        case "/events":
            let last = head.headers["Last-Event-ID"].first.flatMap { $0.isEmpty ? nil : String($0.prefix(128)) }
            return .stream(lastEventID: last)
        default:
            return .reply(.plain(.notFound, "not found; try /, /status, /metrics, /events or /healthz\n"))
        }
    }

    /// The path of an origin-form target (`/status?x`) or an absolute-form one
    /// (`http://host:port/status`), which HTTP/1.1 servers must accept too (RFC 9112 §3.2.2).
    static func path(of target: String) -> String {
        var rest = Substring(target)
        for scheme in ["http://", "https://"] where rest.lowercased().hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        return String(rest.prefix { $0 != "?" && $0 != "#" })
    }

    private func authorized(_ headers: HTTPHeaders) -> Bool {
        guard let expected = expectedAuthorization else { return true }
        guard let given = headers["Authorization"].first else { return false }
        return Self.constantTimeEqual(Array(given.utf8), expected)
    }

    /// Takes as long whatever prefix matches, so timing tells nothing about the token.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<b.count { difference |= (i < a.count ? a[i] : 0) ^ b[i] }
        return difference == 0
    }
}
