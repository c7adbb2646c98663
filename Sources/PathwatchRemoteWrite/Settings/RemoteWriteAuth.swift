import PathwatchHTTPOut
import PathwatchSinkKit

/// `headers`, `bearer_token` and `basic_auth` {username, password}: what the sink sends to
/// authenticate, as header lines. Values are never quoted back in errors (they may be secrets).
struct RemoteWriteAuth {
    var headerLines: [String] = []
    var secretValues: [String] = []

    enum BasicKeys: String, CodingKey { case username, password }

    /// Headers the sink sets itself; the configuration may not replace them.
    static let reservedHeaders: Set<String> = [
        "content-type", "content-encoding", "content-length", "host", "x-prometheus-remote-write-version", "expect",
    ]

    init(from c: KeyedDecodingContainer<RemoteWriteSinkSettings.CodingKeys>) throws {
        let hasAuthorization = c.contains(.bearerToken) || c.contains(.basicAuth)
        let headers = try HTTPHeaderSetting.read(.headers, in: c, reserved: Self.reservedHeaders) { name in
            hasAuthorization && name.lowercased() == "authorization"
                ? "bearer_token or basic_auth already sets Authorization" : nil
        }
        for (name, value) in headers {
            headerLines.append("\(name): \(value)")
            secretValues.append(value)
        }
        if c.contains(.bearerToken), c.contains(.basicAuth) {
            throw DecodingError.dataCorruptedError(
                forKey: .basicAuth, in: c, debugDescription: "give bearer_token or basic_auth, not both")
        }
        if let token = try c.decodeIfPresent(String.self, forKey: .bearerToken) {
            guard !token.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .bearerToken, in: c, debugDescription: "expected a non-empty token")
            }
            try HTTPHeaderSetting.requireLine(token, key: .bearerToken, in: c)
            headerLines.append("Authorization: Bearer \(token)")
            secretValues.append(token)
        }
        if c.contains(.basicAuth) {
            let b = try c.nestedContainer(keyedBy: BasicKeys.self, forKey: .basicAuth)
            let username = try b.decode(String.self, forKey: .username)
            let password = try b.decode(String.self, forKey: .password)
            guard !username.contains(":") else {
                throw DecodingError.dataCorruptedError(
                    forKey: .username, in: b, debugDescription: "a Basic user name cannot contain a colon")
            }
            let pair = "\(username):\(password)"
            // The redactor also registers each value's base64 form, but the pair's base64 is
            // what goes on the wire, so it is registered too.
            let encoded = Base64.encode(Array(pair.utf8))
            headerLines.append("Authorization: Basic \(encoded)")
            secretValues += [password, pair, encoded]
            if !username.isEmpty { secretValues.append(username) }
        }
    }
}
