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

    /// A reply whose body is already in a buffer (shared, not copied, however many send it).
    static func bytes(_ status: HTTPResponseStatus, _ body: ByteBuffer, contentType: String) -> HTTPReply {
        var headers = commonHeaders
        headers.add(name: "Content-Type", value: contentType)
        return HTTPReply(status: status, headers: headers, body: body)
    }

    static func plain(_ status: HTTPResponseStatus, _ body: String, extra: [(String, String)] = []) -> HTTPReply {
        text(status, body, contentType: "text/plain; charset=utf-8", extra: extra)
    }
}
