import PathwatchSinkKit

/// A sink's `tls` object: the CA bundle to trust, a client certificate and key, or no
/// verification at all. Files are checked to be readable regular files when the configuration is
/// read, so a typo is a configuration error rather than a delivery that fails for ever.
package struct HTTPTLS: Sendable, Equatable, Decodable {
    package var caFile: String?
    package var clientCert: String?
    package var clientKey: String?
    package var insecure = false

    enum CodingKeys: String, CodingKey {
        case caFile = "ca_file"
        case clientCert = "client_cert"
        case clientKey = "client_key"
        case insecure
    }

    package init() {}

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        clientCert = try c.decodeIfPresent(String.self, forKey: .clientCert)
        clientKey = try c.decodeIfPresent(String.self, forKey: .clientKey)
        insecure = try c.decodeIfPresent(Bool.self, forKey: .insecure) ?? false
        for (key, file) in [(CodingKeys.caFile, caFile), (.clientCert, clientCert), (.clientKey, clientKey)] {
            guard let file else { continue }
            // libcurl opens it by name at each connection: a FIFO there would hang every
            // delivery, a folder or device fail it. Opened as `BoundedFile` does, never blocking.
            do {
                try BoundedFile.checkRegular(file)
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c,
                    debugDescription: error.unreadable
                        ? "cannot read \"\(file)\": \(error.description)" : "\"\(file)\": \(error.description)")
            }
        }
        if clientKey != nil, clientCert == nil {
            throw DecodingError.dataCorruptedError(
                forKey: .clientKey, in: c, debugDescription: "a client key needs client_cert")
        }
    }
}
