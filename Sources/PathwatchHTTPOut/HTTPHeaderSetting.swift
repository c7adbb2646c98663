import PathwatchSinkKit

/// A pushing sink's `headers` setting: an object of header names to values, read in the order
/// written. Names must be HTTP tokens (RFC 9110) and none the sink sets itself; values must not
/// break the line. Values are never quoted back in an error: they may be secrets.
package enum HTTPHeaderSetting {
    struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The headers under `key`, none when there is no such object. `reserved`: lowercased names
    /// the sink sets itself. `refusal`: why another name may not be given here (nil: it may).
    package static func read<K: CodingKey>(
        _ key: K, in container: ConfigObject<K>, reserved: Set<String>,
        refusal: (String) -> String? = { _ in nil }
    ) throws -> [(name: String, value: String)] {
        guard container.contains(key) else { return [] }
        let nested = try container.nestedContainer(keyedBy: Name.self, forKey: key)
        var headers: [(name: String, value: String)] = []
        for key in nested.allKeys {
            let value = try nested.decode(String.self, forKey: key)
            let name = key.stringValue
            let refused =
                !HTTPToken.isToken(name)
                ? "expected an HTTP header name (letters, digits, -_.!#$%&'*+^`|~)"
                : reserved.contains(name.lowercased()) ? "the sink sets \(name) itself" : refusal(name)
            if let refused {
                throw DecodingError.dataCorruptedError(forKey: key, in: nested, debugDescription: refused)
            }
            try requireLine(value, key: key, in: nested)
            headers.append((name, value))
        }
        return headers
    }

    /// A header value (a header's, a token's) that does not break the request's lines.
    package static func requireLine<C: CodingKey>(_ value: String, key: C, in c: ConfigObject<C>) throws {
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c, debugDescription: "a header value must not contain CR, LF or NUL")
        }
    }
}
