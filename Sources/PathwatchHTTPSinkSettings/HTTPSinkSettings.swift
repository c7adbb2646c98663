import Glibc
import PathwatchSinkKit

/// The `http` sink's settings (contract §5, §8): where it listens, the bearer token and basic-auth
/// users that guard every endpoint but `/healthz`, TLS, how many connections it serves at once,
/// and what `pathwatch status` needs to be one of its clients.
package struct HTTPSinkSettings: SinkSettings, Decodable, Equatable {
    package static let defaultMaxConnections = 100
    /// A token shorter than this is guessable; refuse it rather than pretend it protects.
    package static let minimumTokenLength = 16

    package var listen: ListenAddress
    package var token: String?
    package var maxConnections = Self.defaultMaxConnections
    package var tls: HTTPTLSSettings?
    package var basicAuthUsers: BasicAuthUsers?
    /// Plain HTTP on a non-loopback address, said out loud: the log warns at every start.
    package var insecureHTTP = false
    /// How `pathwatch status` reaches this sink; the agent itself never reads it.
    package var client: LiveClientSettings?

    package enum CodingKeys: String, CodingKey {
        case listen, token, tls, client
        case maxConnections = "max_connections"
        case basicAuthUsers = "basic_auth_users"
        case insecureHTTP = "insecure_http"
    }

    package init(listen: ListenAddress, token: String? = nil, maxConnections: Int = Self.defaultMaxConnections) {
        self.listen = listen
        self.token = token
        self.maxConnections = maxConnections
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .listen)
        guard let listen = ListenAddress(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .listen, in: c,
                debugDescription:
                    "expected an IP address and port such as \"127.0.0.1:8470\" or \"[::1]:8470\", found \"\(text)\"")
        }
        self.listen = listen
        // Never echo the token: it is a secret even when written in the file itself.
        if let token = try c.decodeIfPresent(String.self, forKey: .token) {
            guard token.utf8.count >= Self.minimumTokenLength else {
                throw DecodingError.dataCorruptedError(
                    forKey: .token, in: c, debugDescription: "expected at least \(Self.minimumTokenLength) characters")
            }
            guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .token, in: c,
                    debugDescription: "expected printable ASCII without spaces (it travels in a header)")
            }
            self.token = token
        }
        tls = try c.decodeIfPresent(HTTPTLSSettings.self, forKey: .tls)
        basicAuthUsers = try c.decodeIfPresent(BasicAuthUsers.self, forKey: .basicAuthUsers)
        insecureHTTP = try c.decodeIfPresent(Bool.self, forKey: .insecureHTTP) ?? false
        client = try c.decodeIfPresent(LiveClientSettings.self, forKey: .client)
        if !listen.isLoopback && tls == nil && !insecureHTTP {
            throw DecodingError.dataCorruptedError(
                forKey: .listen, in: c,
                debugDescription:
                    "\"\(text)\" is not a loopback address: set \"tls\" to serve the agent beyond this host (or \"insecure_http\": true to send every token, password and status in clear text)"
            )
        }
        if !listen.isLoopback && self.token == nil && basicAuthUsers == nil && tls?.clientAuth != .require {
            throw DecodingError.dataCorruptedError(
                forKey: .listen, in: c,
                debugDescription:
                    "\"\(text)\" is not a loopback address: set \"token\", \"basic_auth_users\" or tls \"client_auth\": \"require\" to serve the agent beyond this host"
            )
        }
        maxConnections = try c.decodeIfPresent(Int.self, forKey: .maxConnections) ?? maxConnections
        guard (1...4096).contains(maxConnections) else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxConnections, in: c, debugDescription: "expected 1 to 4096, found \(maxConnections)")
        }
    }
}

/// `"127.0.0.1:8470"`, `"[::1]:8470"`, `"0.0.0.0:8470"`: an IP literal and a port. Host names
/// are refused: what the agent binds must not depend on a resolver.
package struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    package var host: String
    package var port: Int
    package var isIPv6: Bool

    package init?(_ text: String) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
            isIPv6 = true
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            isIPv6 = false
        }
        guard !portPart.isEmpty, portPart.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), portPart.count <= 5,
            let port = Int(portPart), (1...65535).contains(port)
        else { return nil }
        var buffer = [UInt8](repeating: 0, count: 16)
        guard inet_pton(isIPv6 ? AF_INET6 : AF_INET, String(hostPart), &buffer) == 1 else { return nil }
        self.host = String(hostPart)
        self.port = port
        self.bytes = isIPv6 ? buffer : Array(buffer.prefix(4))
    }

    private var bytes: [UInt8]

    /// 127.0.0.0/8 or ::1 (and ::ffff:127.x.y.z): reachable from this host only.
    package var isLoopback: Bool {
        if !isIPv6 { return bytes[0] == 127 }
        if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
        return bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }

    package var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The base URL a client on this host uses: a wildcard address is reached through loopback.
    package var localURL: String { localURL(scheme: "http") }

    package func localURL(scheme: String) -> String {
        switch host {
        case "0.0.0.0": "\(scheme)://127.0.0.1:\(port)"
        case "::": "\(scheme)://[::1]:\(port)"
        default: "\(scheme)://\(description)"
        }
    }
}
