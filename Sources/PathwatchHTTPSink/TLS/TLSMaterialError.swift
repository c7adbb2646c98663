import PathwatchHTTPSinkSettings

/// Why the http sink's TLS files cannot be used: which setting, which file, and what is wrong
/// with it. Never the file's content: a key is a secret, and so may be what surrounds it.
struct TLSMaterialError: Error, CustomStringConvertible {
    var field: HTTPTLSSettings.CodingKeys
    var file: String
    var problem: String

    /// What a configuration error says after the JSON path of `field`.
    var reason: String { "\"\(file)\": \(problem)" }
    var description: String { "tls.\(field.rawValue) \(reason)" }
}
