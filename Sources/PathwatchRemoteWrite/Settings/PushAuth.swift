import PathwatchHTTPOut
import PathwatchSinkKit

/// The keys a pushing sink reads its authentication from.
package protocol PushAuthKeys: CodingKey {
    static var headers: Self { get }
    static var bearerToken: Self { get }
    static var basicAuth: Self { get }
}

/// `headers`, `bearer_token` and `basic_auth` {username, password}: what a pushing sink (remote
/// write, OTLP) sends to authenticate, as header lines. Values are never quoted back in errors
/// (they may be secrets).
package struct PushAuth {
    package var headerLines: [String] = []
    package var secretValues: [String] = []

    enum BasicKeys: String, CodingKey { case username, password }

    /// `reserved`: the headers the sink sets itself, which the configuration may not replace.
    package init<Keys: PushAuthKeys>(from c: ConfigObject<Keys>, reserved: Set<String>) throws {
        let hasAuthorization = c.contains(.bearerToken) || c.contains(.basicAuth)
        let headers = try HTTPHeaderSetting.read(.headers, in: c, reserved: reserved) { name in
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
