import CCurlShims

/// Keeps the values of the response headers `expect_header` names, and only those: libcurl
/// hands every header line of every response to the header callback, so the rest is dropped
/// as it arrives. A status line starts a new response (a redirect followed, a 100 Continue),
/// so what is kept is the final response's.
final class HeaderCapture {
    /// Lower-cased names to keep; empty keeps nothing.
    private(set) var wanted: Set<String> = []
    /// Lower-cased name → its values in the order received.
    private(set) var values: [String: [String]] = [:]
    private var last: String?

    func reset(names: [String]) {
        wanted = Set(names.map { $0.lowercased() })
        values = [:]
        last = nil
    }

    func consume(_ line: UnsafeRawBufferPointer) {
        guard !wanted.isEmpty else { return }
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            values = [:]
            last = nil
            return
        }
        // An obsolete folded line continues the previous header's value.
        if let first = text.unicodeScalars.first, first == " " || first == "\t" {
            if let last, var list = values[last], !list.isEmpty {
                list[list.count - 1] += " " + Self.trimmed(Substring(text))
                values[last] = list
            }
            return
        }
        guard let colon = text.firstIndex(of: ":") else {
            last = nil
            return
        }
        let name = text[..<colon].lowercased()
        guard wanted.contains(name) else {
            last = nil
            return
        }
        values[name, default: []].append(Self.trimmed(text[text.index(after: colon)...]))
        last = name
    }

    /// Without the spaces, tabs and CR LF around it.
    static func trimmed(_ text: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let start = text.firstIndex(where: { !blank($0) }), let end = text.lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(text[start...end])
    }

    /// libcurl's header callback, one header line per call: `userdata` is an unretained
    /// `HeaderCapture` the transfer keeps alive for as long as the handle exists.
    static let headerCallback: pw_curl_data_callback = { buffer, size, count, userdata in
        let length = size * count
        guard let buffer, let userdata else { return length }
        Unmanaged<HeaderCapture>.fromOpaque(userdata).takeUnretainedValue()
            .consume(UnsafeRawBufferPointer(start: buffer, count: length))
        return length
    }
}
