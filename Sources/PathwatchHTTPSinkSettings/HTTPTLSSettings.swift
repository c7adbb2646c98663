import PathwatchSinkKit

/// The http sink's `tls` object (contract §8): the server's certificate chain and key (PEM), an
/// optional CA for client certificates with its policy, and the lowest protocol version. The
/// files are read and checked when a configuration is read by the program that serves them (the
/// agent's executable: `SinkKind.httpServer`, `TLSMaterial`), so an unreadable, mismatched,
/// expired or wrong-purpose file is a configuration error naming its JSON path.
package struct HTTPTLSSettings: Sendable, Decodable, Equatable {
    package enum ClientAuth: String, Sendable, Decodable, Equatable, CaseIterable {
        /// No client certificate asked for.
        case none
        /// Asked for, and verified against `client_ca_file` when one is presented.
        case request
        /// Required and verified against `client_ca_file`: the handshake fails without one.
        case require
    }

    package enum MinVersion: String, Sendable, Decodable, Equatable, CaseIterable {
        case tls12 = "TLS12"
        case tls13 = "TLS13"
    }

    package var certFile: String
    package var keyFile: String
    package var clientCAFile: String?
    package var clientAuth: ClientAuth = .none
    package var minVersion: MinVersion = .tls12

    package enum CodingKeys: String, CodingKey {
        case certFile = "cert_file"
        case keyFile = "key_file"
        case clientCAFile = "client_ca_file"
        case clientAuth = "client_auth"
        case minVersion = "min_version"
    }

    package init(
        certFile: String, keyFile: String, clientCAFile: String? = nil, clientAuth: ClientAuth = .none,
        minVersion: MinVersion = .tls12
    ) {
        self.certFile = certFile
        self.keyFile = keyFile
        self.clientCAFile = clientCAFile
        self.clientAuth = clientAuth
        self.minVersion = minVersion
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        certFile = try c.decode(String.self, forKey: .certFile)
        keyFile = try c.decode(String.self, forKey: .keyFile)
        clientCAFile = try c.decodeIfPresent(String.self, forKey: .clientCAFile)
        clientAuth = try Self.choice(c, .clientAuth, note: "") ?? .none
        minVersion =
            try Self.choice(c, .minVersion, note: ": TLS 1.0 and 1.1 are never offered")
            ?? .tls12
        if clientAuth != .none && clientCAFile == nil {
            throw DecodingError.dataCorruptedError(
                forKey: .clientAuth, in: c,
                debugDescription: "\"\(clientAuth.rawValue)\" verifies client certificates: set \"client_ca_file\"")
        }
    }

    /// One of `T`'s values, or nil when the key is absent; anything else is refused naming the
    /// values allowed (what was found is quoted, shortened: it may be long).
    private static func choice<T: RawRepresentable & CaseIterable>(
        _ c: ConfigObject<CodingKeys>, _ key: CodingKeys, note: String
    ) throws -> T? where T.RawValue == String {
        guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
        if let value = T(rawValue: text) { return value }
        let allowed = T.allCases.map { "\"\($0.rawValue)\"" }
        let printable = text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        let found = !printable ? "" : text.count > 24 ? ", found \"\(text.prefix(24))…\"" : ", found \"\(text)\""
        throw DecodingError.dataCorruptedError(
            forKey: key, in: c,
            debugDescription:
                "expected \(allowed.dropLast().joined(separator: ", ")) or \(allowed.last!)\(found)\(note)")
    }
}
