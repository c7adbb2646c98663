/// A configuration error: which file, where in it (a JSON path, or a line and column for a
/// syntax error), and what was expected. Rendered as
/// `config.json: probes[2].config.targets[0].url: expected an http(s) URL`.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var location: String
    public var message: String

    public init(file: String, location: String, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public init(file: String, _ error: JSONPathError) {
        self.init(file: file, location: error.path.description, message: error.message)
    }

    public var description: String { "\(file): \(location): \(message)" }
}
