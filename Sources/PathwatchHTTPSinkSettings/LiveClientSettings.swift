import PathwatchSinkKit

/// An http sink's `client` object: how `pathwatch status` reaches it when the sink serves TLS
/// or asks for a login. The agent never reads these files; `status` hands them to libcurl.
/// - `ca_file`: the CA to verify the agent's certificate with (default: the sink's own
///   `tls.cert_file`, trusted as it is);
/// - `cert_file`, `key_file`: a client certificate, when the sink's `client_auth` asks for one;
/// - `server_name`: the name the certificate carries when it does not carry the loopback address;
/// - `user`: a basic-auth user; the password comes from the environment (`PATHWATCH_PASSWORD`),
///   since the configuration holds only its hash.
package struct LiveClientSettings: Sendable, Decodable, Equatable {
    package var caFile: String?
    package var certFile: String?
    package var keyFile: String?
    package var serverName: String?
    package var user: String?

    package enum CodingKeys: String, CodingKey {
        case caFile = "ca_file"
        case certFile = "cert_file"
        case keyFile = "key_file"
        case serverName = "server_name"
        case user
    }

    package init(
        caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, serverName: String? = nil,
        user: String? = nil
    ) {
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.serverName = serverName
        self.user = user
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        certFile = try c.decodeIfPresent(String.self, forKey: .certFile)
        keyFile = try c.decodeIfPresent(String.self, forKey: .keyFile)
        serverName = try c.decodeIfPresent(String.self, forKey: .serverName)
        user = try c.decodeIfPresent(String.self, forKey: .user)
        if (certFile == nil) != (keyFile == nil) {
            throw DecodingError.dataCorruptedError(
                forKey: certFile == nil ? .keyFile : .certFile, in: c,
                debugDescription: "a client certificate needs both cert_file and key_file")
        }
        // libcurl opens these by name when `pathwatch status` runs: a FIFO would hang it. Only
        // their kind is checked (stat, no open): the agent may not read an operator's key.
        for (key, file) in [(CodingKeys.caFile, caFile), (.certFile, certFile), (.keyFile, keyFile)] {
            guard let file else { continue }
            do {
                try BoundedFile.checkNotSpecial(file)
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c, debugDescription: "\"\(file)\": \(error.description)")
            }
        }
        if let serverName, serverName.isEmpty || serverName.contains(where: { $0 == ":" || $0 == "/" || $0 == " " }) {
            throw DecodingError.dataCorruptedError(forKey: .serverName, in: c, debugDescription: "expected a host name")
        }
    }
}
