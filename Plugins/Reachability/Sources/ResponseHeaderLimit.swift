/// A response libcurl stopped reading because of its headers, in words. libcurl keeps at most
/// 300 KiB of response headers (and, from 8.x, a fixed number of them) and ends the transfer past
/// that with a receive error (CURLE_RECV_ERROR, or CURLE_TOO_LARGE from 8.6) whose text alone
/// says what happened; "receive failed" would read as a network fault.
enum ResponseHeaderLimit {
    /// CURLE_TOO_LARGE, which the headers of libcurl before 8.6 do not define.
    static let tooLargeCode: UInt32 = 100

    /// The message for libcurl's error text, or nil when it is not about the headers' size.
    static func message(_ detail: String) -> String? {
        // "Too large response headers: 307215 > 307200"
        if let range = detail.firstRange(of: "Too large response headers: ") {
            let limit = detail[range.upperBound...].split(separator: ">").last.flatMap { Int($0.filter { $0 != " " }) }
            return "response headers too large: "
                + (limit.map { "more than \(MessageFormat.size($0))" } ?? "over libcurl's limit")
        }
        // "Too many response headers, 5000 is max"
        if let range = detail.firstRange(of: "Too many response headers, ") {
            let limit = detail[range.upperBound...].split(separator: " ").first.flatMap { Int($0) }
            return "too many response headers: " + (limit.map { "more than \($0)" } ?? "over libcurl's limit")
        }
        // "Rejected 102401 bytes header (max is 102400)!"
        if let range = detail.firstRange(of: "(max is ") {
            let limit = detail[range.upperBound...].prefix { $0.isNumber }
            return "a response header too large: "
                + (Int(limit).map { "more than \(MessageFormat.size($0))" } ?? "over libcurl's limit")
        }
        return nil
    }
}
