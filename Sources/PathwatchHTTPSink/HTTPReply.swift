import NIOCore
import NIOHTTP1

/// A whole response: status, headers and body. Every response says it must not be cached or
/// sniffed: what it holds is live and may be private.
struct HTTPReply: Sendable {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: ByteBuffer

    static var commonHeaders: HTTPHeaders {
        HTTPHeaders([
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ])
    }

    static func text(_ status: HTTPResponseStatus, _ body: String, contentType: String, extra: [(String, String)] = [])
        -> HTTPReply
    {
        var headers = commonHeaders
        headers.add(name: "Content-Type", value: contentType)
        for (name, value) in extra { headers.add(name: name, value: value) }
        return HTTPReply(status: status, headers: headers, body: ByteBuffer(string: body))
    }

    static func plain(_ status: HTTPResponseStatus, _ body: String, extra: [(String, String)] = []) -> HTTPReply {
        text(status, body, contentType: "text/plain; charset=utf-8", extra: extra)
    }
}
