import CCurlShims
import Synchronization

/// What one POST came back with: libcurl's result, the status, `Retry-After`, and the start of
/// the body (enough for its first line; never the whole of a large error page).
package struct HTTPResponse: Sendable {
    package var curlCode: CURLcode = CURLE_OK
    package var status = 0
    package var retryAfter: String?
    package var body: [UInt8] = []
    package var aborted = false

    package static let bodyLimit = 4096

    /// libcurl's static text for the error (it names no URL, header or body).
    package var transportError: String { String(cString: pw_curl_easy_strerror(curlCode)) }

    /// The body's first line, trimmed and cut to 200 characters.
    package var bodyFirstLine: String {
        let line = body.prefix(while: { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") })
        let text = String(decoding: ASCIIText.trimmed(line), as: UTF8.self)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}

/// Collects a response while libcurl runs, through C callbacks that receive it as userdata.
final class ResponseCollector {
    var response = HTTPResponse()
    let abort: AbortFlag

    init(abort: AbortFlag) { self.abort = abort }

    func reset() { response = HTTPResponse() }

    static let writeBody: pw_curl_data_callback = { buffer, size, count, userdata in
        let total = size * count
        guard let buffer, let userdata else { return total }
        let me = Unmanaged<ResponseCollector>.fromOpaque(userdata).takeUnretainedValue()
        let room = HTTPResponse.bodyLimit - me.response.body.count
        if room > 0 {
            buffer.withMemoryRebound(to: UInt8.self, capacity: total) { bytes in
                me.response.body += UnsafeBufferPointer(start: bytes, count: Swift.min(room, total))
            }
        }
        return total
    }

    static let readHeader: pw_curl_data_callback = { buffer, size, count, userdata in
        let total = size * count
        guard let buffer, let userdata else { return total }
        let me = Unmanaged<ResponseCollector>.fromOpaque(userdata).takeUnretainedValue()
        let line = buffer.withMemoryRebound(to: UInt8.self, capacity: total) {
            Array(UnsafeBufferPointer(start: $0, count: total))
        }
        if line.starts(with: Array("HTTP/".utf8)) {
            // A new response (after a 100 Continue, say): forget the previous one's headers.
            me.response.retryAfter = nil
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")),
            String(decoding: line[..<colon], as: UTF8.self).lowercased() == "retry-after"
        {
            me.response.retryAfter = String(decoding: ASCIIText.trimmed(line[(colon + 1)...]), as: UTF8.self)
        }
        return total
    }

    /// Non-zero makes libcurl abort the transfer: the sink is closing.
    static let progress: pw_curl_xferinfo_callback = { userdata, _, _, _, _ in
        guard let userdata else { return 0 }
        return Unmanaged<ResponseCollector>.fromOpaque(userdata).takeUnretainedValue().abort.isSet ? 1 : 0
    }
}

/// Set once when the sink closes, read by libcurl's progress callback on the delivery thread.
package final class AbortFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    package var isSet: Bool { flag.load(ordering: .acquiring) }
    package init() {}
    package func set() { flag.store(true, ordering: .releasing) }
}

package enum ASCIIText {
    /// Without leading and trailing spaces, tabs, CR and LF.
    package static func trimmed<C: BidirectionalCollection>(_ bytes: C) -> C.SubSequence where C.Element == UInt8 {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        let start = bytes.firstIndex(where: { !blank($0) }) ?? bytes.endIndex
        let end = bytes.lastIndex(where: { !blank($0) }).map { bytes.index(after: $0) } ?? start
        return bytes[start..<Swift.max(start, end)]
    }
}
