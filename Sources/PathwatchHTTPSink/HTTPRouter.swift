import NIOCore
import NIOHTTP1

/// Which endpoint a request asks for, and whether it may (contract §8). Answers are rendered from
/// the hub's latest document, never by sampling: they cost the agent nothing.
struct HTTPRouter: Sendable {
    enum Route {
        case reply(HTTPReply)
        /// `/events`: a Server-Sent Events stream, resuming after the event with this id.
        case stream(lastEventID: String?)
    }

    let hub: LiveHub
    /// Who may ask: consulted by the connection before `route` for every path but `/healthz`.
    let authenticator: HTTPAuthenticator

    init(hub: LiveHub, authenticator: HTTPAuthenticator) {
        self.hub = hub
        self.authenticator = authenticator
    }

    /// Every endpoint but the liveness answer needs a login when one is configured.
    static func needsLogin(_ head: HTTPRequestHead) -> Bool { path(of: head.uri) != "/healthz" }

    /// The answer to an allowed request.
    func route(_ head: HTTPRequestHead) -> Route {
        let path = Self.path(of: head.uri)
        switch path {
        case "/healthz":
            return .reply(.plain(.ok, "ok\n"))
        case "/":
            return .reply(StatusPageResponse.reply)
        case "/status":
            guard let text = hub.documentText() else {
                return .reply(.plain(.serviceUnavailable, "no report yet\n", extra: [("Retry-After", "1")]))
            }
            return .reply(.text(.ok, text + "\n", contentType: "application/json"))
        case "/metrics":
            return .reply(.bytes(.ok, hub.metricsBody(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
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
}
